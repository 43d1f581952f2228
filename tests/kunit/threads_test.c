// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the thread table (threads.c).  Slots given back return to EMPTY
 * where no key's probe runs through them, so lookups of absent keys stay
 * short; lookups stay right through any order of inserts and releases; a
 * timer-mode table that is full takes over the entry that ticked least
 * recently, never one in use, and counts an off-CPU interval it cuts.
 */
#include <kunit/test.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include "../../kmod/threads.c"

#define MAXT	16
#define NKEYS	256

/* Task identities only: never dereferenced, aligned as task_structs are. */
static struct task_struct *lfr_fake_task(unsigned int i)
{
	return (struct task_struct *)(0xffff888000000000UL + 0x2c00UL * (i + 1));
}

static struct lfr_session *lfr_threads_session(struct kunit *test, u32 max)
{
	struct lfr_session *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->ctr = alloc_percpu(struct lfr_counters);
	KUNIT_ASSERT_NOT_NULL(test, s->ctr);
	KUNIT_ASSERT_EQ(test, lfr_threads_init(&s->threads, max), 0);
	return s;
}

static void lfr_threads_session_free(struct lfr_session *s)
{
	lfr_threads_free(&s->threads);
	free_percpu(s->ctr);
}

static u64 lfr_ctr(struct lfr_session *s, int ctr)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(s->ctr, cpu)->c[ctr];
	return sum;
}

static u64 lfr_reclaimed(struct lfr_session *s)
{
	return lfr_ctr(s, LFR_CTR_THREADS_RECLAIMED);
}

static u64 lfr_offcpu_lost(struct lfr_session *s)
{
	return lfr_ctr(s, LFR_CTR_OFFCPU_LOST);
}

static u32 lfr_count_keys(struct lfr_threads *tt, unsigned long key)
{
	u32 i, n = 0;

	for (i = 0; i <= tt->mask; i++)
		n += READ_ONCE(tt->slots[i].key) == key;
	return n;
}

/* Every key in, every key out, in any order: no tombstone is left. */
static void lfr_threads_no_tombstones_left(struct kunit *test)
{
	struct lfr_session *s = lfr_threads_session(test, NKEYS);
	unsigned int i, round;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < NKEYS; i++)
			KUNIT_ASSERT_NOT_NULL(test, lfr_thread_get(s, lfr_fake_task(i),
								   true));
		KUNIT_EXPECT_EQ(test, atomic_read(&s->threads.used), NKEYS);
		for (i = 0; i < NKEYS; i++)
			lfr_thread_release(s, lfr_fake_task(round ? i :
							    NKEYS - 1 - i));
		KUNIT_EXPECT_EQ(test, atomic_read(&s->threads.used), 0);
		KUNIT_EXPECT_EQ(test, lfr_count_keys(&s->threads, LFR_KEY_TOMB), 0);
		KUNIT_EXPECT_EQ(test, lfr_count_keys(&s->threads, LFR_KEY_EMPTY),
				s->threads.mask + 1);
	}
	lfr_threads_session_free(s);
}

/* Random inserts and releases: lookups agree with the set of keys in. */
static void lfr_threads_lookups_stay_right(struct kunit *test)
{
	struct lfr_session *s = lfr_threads_session(test, NKEYS);
	bool *in = kunit_kzalloc(test, 2 * NKEYS, GFP_KERNEL);
	struct rnd_state rnd;
	unsigned int i, step, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, in);
	prandom_seed_state(&rnd, 42);
	for (step = 0; step < 20000; step++) {
		i = prandom_u32_state(&rnd) % (2 * NKEYS);
		if (in[i]) {
			lfr_thread_release(s, lfr_fake_task(i));
			in[i] = false;
			n--;
		} else if (n < NKEYS) {
			KUNIT_ASSERT_NOT_NULL(test, lfr_thread_get(s, lfr_fake_task(i),
								   true));
			in[i] = true;
			n++;
		}
	}
	for (i = 0; i < 2 * NKEYS; i++) {
		struct lfr_thread *e = lfr_thread_get(s, lfr_fake_task(i), false);

		KUNIT_EXPECT_EQ(test, !!e, in[i]);
		KUNIT_EXPECT_EQ(test, lfr_count_keys(&s->threads,
						     (unsigned long)lfr_fake_task(i)),
				(u32)in[i]);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&s->threads.used), n);
	lfr_threads_session_free(s);
}

/* A key's entry for a tick at @now, pinned and unpinned as a tick does. */
static struct lfr_thread *lfr_tick_at(struct lfr_session *s, unsigned int i,
				      u64 now)
{
	struct lfr_thread *e = lfr_thread_pin(s, lfr_fake_task(i), now);

	if (e)
		lfr_thread_unpin(e);
	return e;
}

/*
 * Timer mode, a full table: each new thread takes over the entry that
 * ticked least recently, the thread that ticks keeps its entry, and so does
 * one with a walk queued or a followed child.
 */
static void lfr_threads_reclaim_least_recent(struct kunit *test)
{
	struct lfr_session *s = lfr_threads_session(test, MAXT);
	struct lfr_walk *queued = (struct lfr_walk *)16;
	struct lfr_thread *e;
	unsigned int i;
	u64 now = 1000;

	for (i = 0; i < MAXT; i++)
		KUNIT_ASSERT_NOT_NULL(test, lfr_tick_at(s, i, now++));
	KUNIT_EXPECT_EQ(test, atomic_read(&s->threads.used), MAXT);
	/* thread 0 has a walk queued, thread 1 is a followed child */
	lfr_thread_get(s, lfr_fake_task(0), false)->walk = queued;
	lfr_thread_get(s, lfr_fake_task(1), false)->follow = true;
	/* a thread that keeps running: it ticks between the newcomers */
	for (i = MAXT; i < 4 * MAXT; i++) {
		KUNIT_ASSERT_NOT_NULL(test, lfr_tick_at(s, i, now++));
		KUNIT_ASSERT_NOT_NULL(test, lfr_tick_at(s, 5, now++));
		KUNIT_EXPECT_EQ(test, atomic_read(&s->threads.used), MAXT);
	}
	e = lfr_thread_get(s, lfr_fake_task(0), false);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_PTR_EQ(test, e->walk, queued);
	e->walk = NULL;
	KUNIT_EXPECT_NOT_NULL(test, lfr_thread_get(s, lfr_fake_task(1), false));
	KUNIT_EXPECT_NOT_NULL(test, lfr_thread_get(s, lfr_fake_task(5), false));
	/* the newest newcomer is in, the idle ones of the start are not */
	KUNIT_EXPECT_NOT_NULL(test, lfr_thread_get(s, lfr_fake_task(4 * MAXT - 1),
						   false));
	for (i = 2; i < MAXT; i++)
		if (i != 5)
			KUNIT_EXPECT_NULL(test, lfr_thread_get(s, lfr_fake_task(i),
							       false));
	KUNIT_EXPECT_EQ(test, lfr_reclaimed(s), 3ULL * MAXT);
	KUNIT_EXPECT_EQ(test, lfr_count_keys(&s->threads, LFR_KEY_TOMB) +
			lfr_count_keys(&s->threads, LFR_KEY_EMPTY) + MAXT,
			s->threads.mask + 1);
	lfr_threads_session_free(s);
}

/* An entry pinned by its thread's tick is never taken over. */
static void lfr_threads_pinned_kept(struct kunit *test)
{
	struct lfr_session *s = lfr_threads_session(test, MAXT);
	struct lfr_thread *pinned, *e;
	unsigned int i;

	pinned = lfr_thread_pin(s, lfr_fake_task(0), 1);
	KUNIT_ASSERT_NOT_NULL(test, pinned);
	for (i = 1; i < MAXT; i++)
		KUNIT_ASSERT_NOT_NULL(test, lfr_tick_at(s, i, 100 + i));
	for (i = MAXT; i < 3 * MAXT; i++) {
		e = lfr_tick_at(s, i, 200 + i);
		KUNIT_EXPECT_PTR_NE(test, e, pinned);
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(pinned->key),
			(unsigned long)lfr_fake_task(0) | LFR_KEY_BUSY);
	lfr_thread_unpin(pinned);
	KUNIT_EXPECT_PTR_EQ(test, lfr_thread_get(s, lfr_fake_task(0), false),
			    pinned);
	lfr_threads_session_free(s);
}

/*
 * Timer mode with off-CPU intervals: a switch-in pins only an entry its
 * thread has (none is made for it), and an entry taken over while its
 * thread was off the CPU counts that interval lost, once.
 */
static void lfr_threads_offcpu_pins(struct kunit *test)
{
	struct lfr_session *s = lfr_threads_session(test, MAXT);
	struct lfr_thread *e;
	unsigned int i;

	KUNIT_EXPECT_NULL(test, lfr_thread_pin_found(s, lfr_fake_task(0), 1));
	KUNIT_EXPECT_EQ(test, atomic_read(&s->threads.used), 0);
	/* thread 0 switches out at 2 (its entry made), the others tick */
	e = lfr_thread_pin(s, lfr_fake_task(0), 2);
	KUNIT_ASSERT_NOT_NULL(test, e);
	e->off_start = 2;
	lfr_thread_unpin(e);
	KUNIT_EXPECT_PTR_EQ(test, lfr_thread_pin_found(s, lfr_fake_task(0), 3),
			    e);
	KUNIT_EXPECT_EQ(test, e->last_ns, 3ULL);
	lfr_thread_unpin(e);
	for (i = 1; i < MAXT; i++)
		KUNIT_ASSERT_NOT_NULL(test, lfr_tick_at(s, i, 100 + i));
	KUNIT_EXPECT_EQ(test, lfr_offcpu_lost(s), 0ULL);
	/* a newcomer takes thread 0's entry over: its interval is lost */
	KUNIT_ASSERT_NOT_NULL(test, lfr_tick_at(s, MAXT, 200));
	KUNIT_EXPECT_NULL(test, lfr_thread_pin_found(s, lfr_fake_task(0), 201));
	KUNIT_EXPECT_EQ(test, lfr_offcpu_lost(s), 1ULL);
	/* the others were on the CPU: taken over, nothing more is lost */
	for (i = MAXT + 1; i < 2 * MAXT; i++)
		KUNIT_ASSERT_NOT_NULL(test, lfr_tick_at(s, i, 300 + i));
	KUNIT_EXPECT_EQ(test, lfr_offcpu_lost(s), 1ULL);
	lfr_threads_session_free(s);
}

static struct kunit_case lfr_threads_cases[] = {
	KUNIT_CASE(lfr_threads_no_tombstones_left),
	KUNIT_CASE(lfr_threads_lookups_stay_right),
	KUNIT_CASE(lfr_threads_reclaim_least_recent),
	KUNIT_CASE(lfr_threads_pinned_kept),
	KUNIT_CASE(lfr_threads_offcpu_pins),
	{}
};

static struct kunit_suite lfr_threads_suite = {
	.name = "lfr_threads",
	.test_cases = lfr_threads_cases,
};

kunit_test_suite(lfr_threads_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * Ticks joined with their walks' user stacks (lib/join): every order a reader can meet them in
 * hands out each tick exactly once, with its own walk's stack; the tick waiting for the stack right
 * after it, ticks of other walks between, stacks first, walks of several ticks, stacks that carry
 * their walk's first tick, and the count of ticks still waiting; and under ring overflow, the
 * walks given up, by reason, and the bounded number held, while late records still join.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/join.h"

struct seen {
	unsigned int n;
	uint64_t tick_time[64], walk[64], user0[64], kernel0[64];
	uint32_t cpu[64], tid[64], flags[64];
	const void *kernel_ips[64];
};

static int on_joined(void *ctx, const struct lfr_joined *j)
{
	struct seen *s = ctx;

	assert_true(s->n < 64);
	assert_int_equal(j->tick->walk_id, j->ustack->walk_id);
	assert_ptr_equal(j->kernel_ips, j->tick->ips);
	/* the sample's flags: the tick's and its walk's, never the record's carrying of a tick */
	assert_int_equal(j->flags, (j->tick->flags | j->ustack->flags) & ~LFR_USTACK_F_TICK);
	s->tick_time[s->n] = j->tick->time_ns;
	s->walk[s->n] = j->ustack->walk_id;
	s->user0[s->n] = j->ustack->nr_user ? j->user_ips[0] : 0;
	s->kernel0[s->n] = j->tick->nr_kernel ? j->kernel_ips[0] : 0;
	s->kernel_ips[s->n] = j->kernel_ips;
	s->cpu[s->n] = j->tick->cpu;
	s->tid[s->n] = j->tick->tid;
	s->flags[s->n] = j->tick->flags;
	s->n++;
	return 0;
}

#define TICK_WORDS ((sizeof(struct lfr_rec_tick) + 8 * 8) / 8)

/* Writes into BUF a tick of WALK at TIME with NK kernel pcs. */
static struct lfr_rec_tick *tick_rec(uint64_t *buf, uint64_t walk, uint64_t time, unsigned int nk)
{
	struct lfr_rec_tick *t = (void *)buf;

	memset(buf, 0, TICK_WORDS * 8);
	t->hdr.type = LFR_REC_TICK;
	t->hdr.size = (uint32_t)(sizeof(*t) + nk * 8);
	t->time_ns = time;
	t->walk_id = walk;
	t->nr_kernel = (uint16_t)nk;
	for (unsigned int i = 0; i < nk; i++)
		t->ips[i] = 0xffffffff81000000ull + time * 16 + i;
	return t;
}

/* A tick of WALK at TIME with NK kernel pcs, its record gone once fed (as a ring's). */
static int tick(struct lfr_join *j, struct seen *s, uint64_t walk, uint64_t time, unsigned int nk)
{
	uint64_t buf[TICK_WORDS];
	int err = lfr_join_tick(j, tick_rec(buf, walk, time, nk), on_joined, s);

	lfr_join_keep(j);
	memset(buf, 0xa5, sizeof(buf));
	return err;
}

/*
 * The stack of WALK, shared by TICKS ticks, its first user pc PC; with OWN_TIME, it carries its
 * first tick, at that time (LFR_USTACK_F_TICK).  Its record is gone once fed.
 */
static int ustack_own(struct lfr_join *j, struct seen *s, uint64_t walk, uint32_t ticks,
                      uint64_t pc, uint64_t own_time)
{
	uint64_t buf[(sizeof(struct lfr_rec_ustack) + 2 * 8) / 8] = {0};
	struct lfr_rec_ustack *u = (void *)buf;
	int err;

	u->hdr.type = LFR_REC_USTACK;
	u->hdr.size = sizeof(buf);
	u->walk_id = walk;
	u->ticks = ticks;
	u->time_ns = own_time;
	u->tgid = 7;
	u->tid = 8;
	u->flags =
	    LFR_SAMPLE_F_COMPAT | LFR_SAMPLE_F_USER_TRUNCATED | (own_time ? LFR_USTACK_F_TICK : 0);
	u->nr_user = 2;
	u->ips[0] = pc;
	u->ips[1] = pc + 0x100;
	err = lfr_join_ustack(j, u, on_joined, s);
	memset(buf, 0xa5, sizeof(buf));
	return err;
}

static int ustack(struct lfr_join *j, struct seen *s, uint64_t walk, uint32_t ticks, uint64_t pc)
{
	return ustack_own(j, s, walk, ticks, pc, 0);
}

static void test_tick_then_its_stack(void **state)
{
	struct lfr_join *j;
	struct seen s = {0};

	(void)state;
	assert_int_equal(lfr_join_new(&j), 0);
	for (uint64_t w = 1; w <= 20; w++) {
		assert_int_equal(tick(j, &s, w, w * 10, (unsigned int)(w % 3)), 0);
		assert_int_equal(lfr_join_waiting(j), 1);
		assert_int_equal(ustack(j, &s, w, 1, 0x400000 + w), 0);
		assert_int_equal(lfr_join_waiting(j), 0);
		assert_int_equal(s.n, w);
		assert_int_equal(s.tick_time[w - 1], w * 10);
		assert_int_equal(s.user0[w - 1], 0x400000 + w);
	}
	lfr_join_free(j);
}

static void test_every_other_order(void **state)
{
	struct lfr_join *j;
	struct seen s = {0};

	(void)state;
	assert_int_equal(lfr_join_new(&j), 0);
	/* ticks of two walks, then their stacks in the other order */
	assert_int_equal(tick(j, &s, 1, 10, 1), 0);
	assert_int_equal(tick(j, &s, 2, 20, 0), 0);
	assert_int_equal(lfr_join_waiting(j), 2);
	assert_int_equal(ustack(j, &s, 2, 1, 0x2000), 0);
	assert_int_equal(ustack(j, &s, 1, 1, 0x1000), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.walk[0], 2);
	assert_int_equal(s.walk[1], 1);
	assert_int_equal(lfr_join_waiting(j), 0);

	/* a tick waiting when the stack of another walk comes first: both wait, then join */
	assert_int_equal(tick(j, &s, 3, 30, 2), 0);
	assert_int_equal(ustack(j, &s, 4, 1, 0x4000), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(tick(j, &s, 4, 40, 0), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.walk[2], 4);
	assert_int_equal(ustack(j, &s, 3, 1, 0x3000), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.tick_time[3], 30);

	/* a walk shared by three ticks: two before its stack, one after */
	assert_int_equal(tick(j, &s, 5, 50, 1), 0);
	assert_int_equal(tick(j, &s, 5, 51, 1), 0);
	assert_int_equal(ustack(j, &s, 5, 3, 0x5000), 0);
	assert_int_equal(s.n, 6);
	assert_int_equal(lfr_join_waiting(j), 0);
	assert_int_equal(tick(j, &s, 5, 52, 1), 0);
	assert_int_equal(s.n, 7);
	assert_int_equal(s.tick_time[6], 52);
	assert_int_equal(s.user0[6], 0x5000);

	/* one tick waiting for a stack of two ticks: the second tick joins it later */
	assert_int_equal(tick(j, &s, 6, 60, 0), 0);
	assert_int_equal(ustack(j, &s, 6, 2, 0x6000), 0);
	assert_int_equal(s.n, 8);
	assert_int_equal(tick(j, &s, 7, 70, 0), 0); /* another walk's tick between */
	assert_int_equal(tick(j, &s, 6, 61, 0), 0);
	assert_int_equal(s.n, 9);
	assert_int_equal(s.tick_time[8], 61);
	assert_int_equal(lfr_join_waiting(j), 1);

	/* a stack of no tick that reached the ring joins nothing; a tick never walked waits */
	assert_int_equal(ustack(j, &s, 8, 0, 0x8000), 0);
	assert_int_equal(s.n, 9);
	assert_int_equal(ustack(j, &s, 7, 1, 0x7000), 0);
	assert_int_equal(s.n, 10);
	assert_int_equal(tick(j, &s, 9, 90, 3), 0);
	assert_int_equal(lfr_join_waiting(j), 1);
	lfr_join_free(j);
}

/*
 * A tick waiting for the stack right after it is held by its address: joined there without a copy,
 * or, once lfr_join_keep() was called, from a copy that outlives the caller's record.
 */
static void test_tick_held_until_kept(void **state)
{
	uint64_t buf[TICK_WORDS];
	struct lfr_join *j;
	struct seen s = {0};

	(void)state;
	assert_int_equal(lfr_join_new(&j), 0);
	assert_int_equal(lfr_join_tick(j, tick_rec(buf, 1, 10, 2), on_joined, &s), 0);
	assert_int_equal(ustack(j, &s, 1, 1, 0x1000), 0);
	assert_int_equal(s.n, 1);
	assert_ptr_equal(s.kernel_ips[0], ((struct lfr_rec_tick *)(void *)buf)->ips);

	/* kept, then the caller's record is overwritten before its stack comes */
	assert_int_equal(lfr_join_tick(j, tick_rec(buf, 2, 20, 2), on_joined, &s), 0);
	lfr_join_keep(j);
	lfr_join_keep(j); /* twice: still the one copy */
	tick_rec(buf, 99, 990, 1);
	assert_int_equal(lfr_join_waiting(j), 1);
	assert_int_equal(ustack(j, &s, 2, 1, 0x2000), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.tick_time[1], 20);
	assert_int_equal(s.walk[1], 2);
	assert_int_equal(s.kernel0[1], 0xffffffff81000000ull + 20 * 16);
	assert_ptr_not_equal(s.kernel_ips[1], ((struct lfr_rec_tick *)(void *)buf)->ips);

	/* kept, then another walk's tick moves it into the table before either stack comes */
	assert_int_equal(lfr_join_tick(j, tick_rec(buf, 3, 30, 1), on_joined, &s), 0);
	lfr_join_keep(j);
	tick_rec(buf, 4, 40, 1);
	assert_int_equal(lfr_join_tick(j, (void *)buf, on_joined, &s), 0);
	lfr_join_keep(j);
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(lfr_join_waiting(j), 2);
	assert_int_equal(ustack(j, &s, 4, 1, 0x4000), 0);
	assert_int_equal(ustack(j, &s, 3, 1, 0x3000), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.tick_time[2], 40);
	assert_int_equal(s.tick_time[3], 30);
	assert_int_equal(s.kernel0[3], 0xffffffff81000000ull + 30 * 16);
	assert_int_equal(lfr_join_waiting(j), 0);

	/* two ticks of one walk held by their addresses, then kept: the copies are joined */
	uint64_t buf2[TICK_WORDS];

	assert_int_equal(lfr_join_tick(j, tick_rec(buf, 6, 60, 1), on_joined, &s), 0);
	assert_int_equal(lfr_join_tick(j, tick_rec(buf2, 6, 61, 2), on_joined, &s), 0);
	lfr_join_keep(j);
	memset(buf, 0xa5, sizeof(buf));
	memset(buf2, 0xa5, sizeof(buf2));
	assert_int_equal(ustack(j, &s, 6, 2, 0x6000), 0);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.tick_time[4], 60);
	assert_int_equal(s.tick_time[5], 61);
	assert_int_equal(s.kernel0[5], 0xffffffff81000000ull + 61 * 16);

	/* a tick kept and never joined is freed with the join */
	assert_int_equal(lfr_join_tick(j, tick_rec(buf, 5, 50, 0), on_joined, &s), 0);
	lfr_join_keep(j);
	assert_int_equal(lfr_join_waiting(j), 1);
	lfr_join_free(j);
}

/*
 * Walks of several ticks, again and again: the ticks after a walk's first wait in buffers given
 * back when the walk is joined and taken again by the next; a tick longer than any the module
 * writes waits too.
 */
static void test_walks_of_several_ticks(void **state)
{
	uint64_t big[(sizeof(struct lfr_rec_tick) + 100 * 8) / 8] = {0};
	struct lfr_rec_tick *b = (void *)big;
	struct lfr_join *j;
	struct seen s = {0};

	(void)state;
	assert_int_equal(lfr_join_new(&j), 0);
	for (uint64_t w = 1; w <= 12; w++) {
		unsigned int n0 = s.n;

		for (uint64_t k = 0; k < 4; k++)
			assert_int_equal(
			    tick(j, &s, w, w * 100 + k, (unsigned int)(1 + (w + k) % 8)), 0);
		assert_int_equal(lfr_join_waiting(j), 4);
		assert_int_equal(ustack(j, &s, w, 4, 0x1000 * w), 0);
		assert_int_equal(s.n, n0 + 4);
		for (uint64_t k = 0; k < 4; k++) {
			assert_int_equal(s.tick_time[n0 + k], w * 100 + k);
			assert_int_equal(s.kernel0[n0 + k],
			                 0xffffffff81000000ull + (w * 100 + k) * 16);
			assert_int_equal(s.user0[n0 + k], 0x1000 * w);
		}
		assert_int_equal(lfr_join_waiting(j), 0);
		s.n = 0;
	}

	/* more ticks of one walk than wait outside the table, all joined in the order they came */
	for (uint64_t k = 0; k < 12; k++)
		assert_int_equal(tick(j, &s, 30, 3000 + k, 1), 0);
	assert_int_equal(lfr_join_waiting(j), 12);
	assert_int_equal(ustack(j, &s, 30, 12, 0x3000), 0);
	assert_int_equal(s.n, 12);
	for (uint64_t k = 0; k < 12; k++) {
		assert_int_equal(s.tick_time[k], 3000 + k);
		assert_int_equal(s.kernel0[k], 0xffffffff81000000ull + (3000 + k) * 16);
	}
	assert_int_equal(lfr_join_waiting(j), 0);
	s.n = 0;

	/* three ticks, then their stack, which counts a fourth tick still to come */
	for (uint64_t k = 0; k < 3; k++)
		assert_int_equal(tick(j, &s, 31, 3100 + k, 2), 0);
	assert_int_equal(ustack(j, &s, 31, 4, 0x3100), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(lfr_join_waiting(j), 0);
	assert_int_equal(tick(j, &s, 31, 3103, 2), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.tick_time[3], 3103);
	assert_int_equal(s.user0[3], 0x3100);
	s.n = 0;

	/* the second tick of a walk, longer than a tick's room */
	assert_int_equal(tick(j, &s, 20, 2000, 1), 0);
	b->hdr.type = LFR_REC_TICK;
	b->hdr.size = sizeof(big);
	b->time_ns = 2001;
	b->walk_id = 20;
	b->nr_kernel = 100;
	b->ips[0] = 0xffffffff82000000ull;
	assert_int_equal(lfr_join_tick(j, b, on_joined, &s), 0);
	lfr_join_keep(j);
	memset(big, 0, sizeof(big));
	assert_int_equal(ustack(j, &s, 20, 2, 0x2000), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.tick_time[1], 2001);
	assert_int_equal(s.kernel0[1], 0xffffffff82000000ull);
	lfr_join_free(j);
}

/*
 * A stack that carries its walk's first tick (the module wrote no TICK record for it): handed out
 * as that tick, at the stack's time, on the CPU of its walk id, alone or with the walk's other
 * ticks in any order.
 */
static void test_stack_carries_its_tick(void **state)
{
	const uint64_t w1 = 3ull << LFR_WALK_ID_CPU_SHIFT | 1;
	struct lfr_join *j;
	struct seen s = {0};

	(void)state;
	assert_int_equal(lfr_join_new(&j), 0);
	/* its only tick */
	assert_int_equal(ustack_own(j, &s, w1, 1, 0x1000, 10), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.tick_time[0], 10);
	assert_int_equal(s.walk[0], w1);
	assert_int_equal(s.cpu[0], 3);
	assert_int_equal(s.tid[0], 8);
	assert_int_equal(s.flags[0], LFR_SAMPLE_F_COMPAT); /* a tick's flags only */
	assert_int_equal(s.kernel0[0], 0);
	assert_int_equal(s.user0[0], 0x1000);
	assert_int_equal(lfr_join_waiting(j), 0);

	/* a later tick of the walk waiting right before it */
	assert_int_equal(tick(j, &s, 2, 21, 1), 0);
	assert_int_equal(ustack_own(j, &s, 2, 2, 0x2000, 20), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.tick_time[1], 20);
	assert_int_equal(s.tick_time[2], 21);
	assert_int_equal(s.user0[2], 0x2000);
	assert_int_equal(lfr_join_waiting(j), 0);

	/* the walk's later ticks after it: the stack waits for them */
	assert_int_equal(ustack_own(j, &s, 3, 3, 0x3000, 30), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.tick_time[3], 30);
	assert_int_equal(tick(j, &s, 3, 31, 0), 0);
	assert_int_equal(tick(j, &s, 3, 32, 2), 0);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.tick_time[5], 32);
	assert_int_equal(s.user0[5], 0x3000);
	assert_int_equal(lfr_join_waiting(j), 0);

	/* a later tick in the table (another walk's came between) */
	assert_int_equal(tick(j, &s, 4, 41, 1), 0);
	assert_int_equal(tick(j, &s, 5, 50, 0), 0);
	assert_int_equal(lfr_join_waiting(j), 2);
	assert_int_equal(ustack_own(j, &s, 4, 2, 0x4000, 40), 0);
	assert_int_equal(s.n, 8);
	assert_int_equal(s.tick_time[6] + s.tick_time[7], 81);
	assert_int_equal(s.user0[7], 0x4000);
	assert_int_equal(ustack(j, &s, 5, 1, 0x5000), 0);
	assert_int_equal(s.n, 9);
	assert_int_equal(lfr_join_waiting(j), 0);
	lfr_join_free(j);
}

/* ---- giving up what a full ring lost (lfr_join_read(), lfr_join_exit()) ---- */

static int count_joined(void *ctx, const struct lfr_joined *jd)
{
	assert_int_equal(jd->tick->walk_id, jd->ustack->walk_id);
	assert_int_equal(jd->tick->tid, jd->ustack->tid);
	(*(uint64_t *)ctx)++;
	return 0;
}

/* A tick of thread TID's walk WALK at TIME, its record gone once fed. */
static void tick_of(struct lfr_join *j, uint64_t *n, uint64_t walk, uint32_t tid, uint64_t time)
{
	uint64_t buf[TICK_WORDS];
	struct lfr_rec_tick *t = tick_rec(buf, walk, time, 1);

	t->tid = tid;
	assert_int_equal(lfr_join_tick(j, t, count_joined, n), 0);
	lfr_join_keep(j);
	memset(buf, 0xa5, sizeof(buf));
}

/* The stack of thread TID's walk WALK, shared by TICKS ticks; with OWN it carries its first. */
static void stack_of(struct lfr_join *j, uint64_t *n, uint64_t walk, uint32_t tid, uint32_t ticks,
                     uint64_t time, bool own)
{
	uint64_t buf[(sizeof(struct lfr_rec_ustack) + 8) / 8] = {0};
	struct lfr_rec_ustack *u = (void *)buf;

	u->hdr.type = LFR_REC_USTACK;
	u->hdr.size = sizeof(buf);
	u->walk_id = walk;
	u->ticks = ticks;
	u->time_ns = time;
	u->tgid = 7;
	u->tid = tid;
	u->flags = own ? LFR_USTACK_F_TICK : 0;
	u->nr_user = 1;
	u->ips[0] = 0x401000;
	assert_int_equal(lfr_join_ustack(j, u, count_joined, n), 0);
	memset(buf, 0xa5, sizeof(buf));
}

/*
 * A reader that runs for ever while the rings overflow: eight threads walk in turn, every third
 * walk's USTACK record is lost (its tick waits), every fifth of the others has a TICK record lost
 * (its stack waits for it).  The rings are read once per 16 walks.  The join holds a bounded number
 * of walks all along; at the end, with one more walk of each thread and two reads, it holds none,
 * and it gave up exactly the lost ones, by reason.
 */
static void test_ring_overflow_bounded(void **state)
{
	const uint64_t walks = 30000;
	uint64_t joined = 0, lost_stacks = 0, lost_ticks = 0, t = 1000, reads = 0, id = 1;
	size_t most = 0;
	struct lfr_join_lost lost;
	struct lfr_join *j;

	(void)state;
	assert_int_equal(lfr_join_new(&j), 0);
	for (uint64_t k = 0; k < walks; k++, id++) {
		uint32_t tid = 100 + (uint32_t)(k % 8);

		t += 1000;
		if (k % 3 == 0) {
			tick_of(j, &joined, id, tid, t); /* its USTACK lost */
			lost_stacks++;
		} else if (k % 5 == 0) {
			tick_of(j, &joined, id, tid, t); /* its second tick's TICK lost */
			stack_of(j, &joined, id, tid, 2, t, false);
			lost_ticks++;
		} else {
			tick_of(j, &joined, id, tid, t);
			tick_of(j, &joined, id, tid, t + 1);
			stack_of(j, &joined, id, tid, 2, t, false);
		}
		if (k % 16 == 15)
			lfr_join_read(j, t + 500);
		reads += k % 16 == 15;
		if (lfr_join_held(j) > most)
			most = lfr_join_held(j);
	}
	/* one more walk of each thread, carried by its stack, and two reads of every ring */
	for (uint32_t tid = 100; tid < 108; tid++, id++)
		stack_of(j, &joined, id, tid, 1, t += 1000, true);
	lfr_join_read(j, t + 1);
	lfr_join_read(j, t + 2);
	lfr_join_lost(j, &lost);
	print_message("%llu walks, %llu reads: at most %zu held, %llu joined; given up: %llu ticks "
	              "without their stack, %llu stacks without %llu ticks\n",
	              (unsigned long long)walks, (unsigned long long)reads, most,
	              (unsigned long long)joined, (unsigned long long)lost.ticks_superseded,
	              (unsigned long long)lost.stacks, (unsigned long long)lost.stack_ticks);
	/* three reads' worth of walks (16 each) at most, and a walk per thread */
	assert_true(most <= 3 * 16 + 8);
	assert_int_equal(lfr_join_held(j), 0);
	assert_int_equal(lfr_join_waiting(j), 0);
	assert_int_equal(lost.ticks_superseded, lost_stacks);
	assert_int_equal(lost.ticks_exited, 0);
	assert_int_equal(lost.stacks, lost_ticks);
	assert_int_equal(lost.stack_ticks, lost_ticks);
	assert_int_equal(joined, 2 * (walks - lost_stacks) - lost_ticks + 8);
	lfr_join_free(j);
}

/*
 * What must not be given up: a thread in the kernel whose walk has not run (however many reads);
 * a stack whose record a ring read earlier held after a later walk of its thread (within two
 * reads); a tick that comes a read after its stack.
 */
static void test_late_records_kept(void **state)
{
	struct lfr_join_lost lost;
	uint64_t joined = 0;
	struct lfr_join *j;

	(void)state;
	assert_int_equal(lfr_join_new(&j), 0);
	/* thread 1 ticks in the kernel and blocks there: read after read, its tick waits */
	tick_of(j, &joined, 10, 1, 100);
	for (uint64_t r = 0; r < 50; r++) {
		tick_of(j, &joined, 1000 + r, 2, 200 + r); /* another thread's walks go on */
		stack_of(j, &joined, 1000 + r, 2, 1, 200 + r, false);
		lfr_join_read(j, 300 + r);
	}
	assert_int_equal(lfr_join_waiting(j), 1);
	assert_int_equal(lfr_join_held(j), 1);
	stack_of(j, &joined, 10, 1, 1, 100, false);
	assert_int_equal(joined, 51);

	/* thread 3: a tick of walk 20, then its next walk 21, whose record is read first */
	tick_of(j, &joined, 20, 3, 1000);
	stack_of(j, &joined, 21, 3, 1, 2000, true);
	lfr_join_read(j, 2500);
	stack_of(j, &joined, 20, 3, 1, 1000, false); /* from a ring read after */
	assert_int_equal(joined, 53);

	/* a stack of two ticks, its second tick a read later */
	stack_of(j, &joined, 30, 4, 2, 3000, true);
	lfr_join_read(j, 3500);
	tick_of(j, &joined, 30, 4, 3001);
	assert_int_equal(joined, 55);
	lfr_join_read(j, 4000);
	lfr_join_read(j, 4500);
	lfr_join_lost(j, &lost);
	assert_int_equal(lost.ticks_superseded + lost.ticks_exited + lost.stacks, 0);
	assert_int_equal(lfr_join_held(j), 0);
	lfr_join_free(j);
}

/* Ticks of a thread that exited, their stack lost: given up a grace period after the exit. */
static void test_exited_thread(void **state)
{
	const uint64_t exit_ns = 5000000000ull;
	struct lfr_join_lost lost;
	uint64_t joined = 0;
	struct lfr_join *j;

	(void)state;
	assert_int_equal(lfr_join_new(&j), 0);
	tick_of(j, &joined, 40, 5, exit_ns - 10);
	tick_of(j, &joined, 40, 5, exit_ns - 5); /* pending, settled by the exit */
	assert_int_equal(lfr_join_exit(j, 5, exit_ns, count_joined, &joined), 0);
	for (int r = 0; r < 5; r++)
		lfr_join_read(j, exit_ns + LFR_JOIN_EXIT_GRACE_NS - 1);
	assert_int_equal(lfr_join_waiting(j), 2);
	lfr_join_read(j, exit_ns + LFR_JOIN_EXIT_GRACE_NS);
	lfr_join_lost(j, &lost);
	assert_int_equal(lost.ticks_exited, 2);
	assert_int_equal(lost.ticks_superseded, 0);
	assert_int_equal(lfr_join_waiting(j), 0);
	assert_int_equal(lfr_join_held(j), 0);
	assert_int_equal(joined, 0);

	/* a stack that comes within the grace period is joined */
	tick_of(j, &joined, 41, 6, exit_ns + 1);
	tick_of(j, &joined, 42, 7, exit_ns + 2); /* another walk: both in the table */
	assert_int_equal(lfr_join_exit(j, 6, exit_ns + 10, count_joined, &joined), 0);
	lfr_join_read(j, exit_ns + 20);
	stack_of(j, &joined, 41, 6, 1, exit_ns + 1, false);
	stack_of(j, &joined, 42, 7, 1, exit_ns + 2, false);
	assert_int_equal(joined, 2);
	lfr_join_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tick_then_its_stack),
	    cmocka_unit_test(test_every_other_order),
	    cmocka_unit_test(test_tick_held_until_kept),
	    cmocka_unit_test(test_walks_of_several_ticks),
	    cmocka_unit_test(test_stack_carries_its_tick),
	    cmocka_unit_test(test_ring_overflow_bounded),
	    cmocka_unit_test(test_late_records_kept),
	    cmocka_unit_test(test_exited_thread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

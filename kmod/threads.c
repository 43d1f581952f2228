// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the per-session thread table.  Open addressing keyed by the
 * task_struct pointer, allocated once when the session starts, so a thread
 * gets its entry from hard irq or from the scheduler without allocating.
 *
 * A key is written only by the CPU the thread runs on (its tick or its
 * switch-in; a thread never runs on two CPUs) and cleared to a tombstone
 * when the task_struct is freed, after which the thread cannot run, tick
 * or have a queued task_work.  Slots never return to EMPTY, so a lookup
 * that meets an EMPTY slot knows the key is absent.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include "lfr_internal.h"

#define LFR_PROBE_MAX 64

int lfr_threads_init(struct lfr_threads *tt, u32 max)
{
	u32 cap = roundup_pow_of_two(max * 2);

	tt->slots = vzalloc(array_size(cap, sizeof(*tt->slots)));
	if (!tt->slots)
		return -ENOMEM;
	tt->mask = cap - 1;
	tt->max = max;
	atomic_set(&tt->used, 0);
	return 0;
}

void lfr_threads_free(struct lfr_threads *tt)
{
	vfree(tt->slots);
	tt->slots = NULL;
}

static struct lfr_thread *lfr_thread_find(struct lfr_threads *tt,
					  unsigned long key,
					  struct lfr_thread **freep)
{
	u32 i = hash_long(key, 32) & tt->mask, n;
	struct lfr_thread *e;

	*freep = NULL;
	for (n = 0; n < LFR_PROBE_MAX && n <= tt->mask; n++) {
		unsigned long k;

		e = &tt->slots[(i + n) & tt->mask];
		k = READ_ONCE(e->key);
		if (k == key)
			return e;
		if (k == LFR_KEY_TOMB && !*freep)
			*freep = e;
		if (k == LFR_KEY_EMPTY) {
			if (!*freep)
				*freep = e;
			break;
		}
	}
	return NULL;
}

struct lfr_thread *lfr_thread_get(struct lfr_session *s,
				  struct task_struct *t, bool create)
{
	struct lfr_threads *tt = &s->threads;
	unsigned long key = (unsigned long)t, old;
	struct lfr_thread *e, *slot;
	int tries;

	for (tries = 0; tries < 4; tries++) {
		e = lfr_thread_find(tt, key, &slot);
		if (e)
			return e;
		if (!create || !slot)
			return NULL;
		if (atomic_inc_return(&tt->used) > tt->max) {
			atomic_dec(&tt->used);
			return NULL;
		}
		old = READ_ONCE(slot->key);
		if ((old == LFR_KEY_EMPTY || old == LFR_KEY_TOMB) &&
		    cmpxchg(&slot->key, old, key) == old) {
			/* Only this CPU touches the entry of a running thread. */
			slot->budget_ns = 0;
			slot->walk = NULL;
			slot->last_exec_id = 0;
			slot->comm_hash = 0;
			slot->seen = false;
			slot->follow = false;
			slot->off_start = 0;
			slot->off_short_count = 0;
			slot->off_short_ns = 0;
			return slot;
		}
		atomic_dec(&tt->used);	/* lost a race for the slot: rescan */
	}
	return NULL;
}

void lfr_thread_release(struct lfr_session *s, struct task_struct *t)
{
	struct lfr_thread *e = lfr_thread_get(s, t, false);

	if (!e)
		return;
	WRITE_ONCE(e->key, LFR_KEY_TOMB);
	atomic_dec(&s->threads.used);
}

/* Ticks held by queued walks; a snapshot for STATUS (process context). */
u64 lfr_threads_pending_ticks(struct lfr_threads *tt)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i <= tt->mask; i++) {
		struct lfr_thread *e = &tt->slots[i];
		struct lfr_walk *w;

		if (!(i & 4095))
			cond_resched();	/* up to 2 M slots */
		if (READ_ONCE(e->key) <= LFR_KEY_TOMB)
			continue;
		rcu_read_lock();	/* a walk ending now reuses its object */
		/* pairs with the tick's release: the walk's fields, then e->walk */
		w = smp_load_acquire(&e->walk);
		if (w && READ_ONCE(w->e) == e)
			sum += atomic_read(&w->ticks);
		rcu_read_unlock();
	}
	return sum;
}

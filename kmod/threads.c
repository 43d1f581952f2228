// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the per-session thread table.  Open addressing with linear probing,
 * keyed by the task_struct pointer, allocated once when the session starts,
 * so a thread gets its entry from hard irq or from the scheduler without
 * allocating.
 *
 * Lookups take no lock.  What changes the table's shape (a key written into
 * a free slot, a slot given back, an entry reclaimed) is done under the
 * table's raw spinlock with interrupts off, a bounded probe.  Entries never
 * move: walks and the per-task sampler hold pointers to them.
 *
 * A slot is given back when its task_struct is freed, after which the
 * thread cannot run, tick or have a queued task_work.  Linear probing lets
 * a slot return to EMPTY when the slot after it is EMPTY (no key's probe
 * runs through it then), and so, in turn, the tombstones just before it:
 * tombstones are left only inside runs of live keys, and a lookup of an
 * absent key stops at the end of its run instead of probing 64 slots.
 *
 * Timer mode (system-wide and cgroup sessions) samples whatever thread a
 * tick finds, so a full table must not shut new threads out: a process of
 * thousands of threads that ran once and sleep would otherwise blind the
 * session to every other thread.  There, a tick that finds no free slot in
 * its key's probe takes over the entry in that probe whose thread ticked
 * least recently, provided nothing refers to it (no walk queued, not marked
 * followed).  Its thread, should it run again, gets an entry the same way;
 * no tick is lost and the entry held no tick.  So that an entry is not
 * taken over while its own thread's tick uses it, that tick pins it
 * (LFR_KEY_BUSY in the key, compare-and-swap) until it ends, and a
 * reclaimer pins it before it checks and rewrites it.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include "mm_watch.h"
#include "session.h"
#include "threads.h"
#include "walk_obj.h"

#define LFR_PROBE_MAX 64

int lfr_threads_init(struct lfr_threads *tt, u32 max)
{
	u32 cap = roundup_pow_of_two(max * 2);

	/* charged to the starter's memory cgroup, as everything a session holds */
	tt->slots = __vmalloc(array_size(cap, sizeof(*tt->slots)),
			      GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!tt->slots)
		return -ENOMEM;
	tt->mask = cap - 1;
	tt->max = max;
	atomic_set(&tt->used, 0);
	raw_spin_lock_init(&tt->lock);
	return 0;
}

void lfr_threads_free(struct lfr_threads *tt)
{
	vfree(tt->slots);
	tt->slots = NULL;
}

/*
 * @key's entry, or NULL; *@freep: the first free slot of its probe (NULL
 * if none), meaningful under the table's lock.
 */
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
		if (lfr_thread_key(k) == key)
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

/* A new entry's state; its key is written after it. */
static void lfr_thread_clear(struct lfr_thread *e, bool follow, u64 now)
{
	e->budget_ns = 0;
	e->throttle_skip = 0;
	e->walk = NULL;
	e->last_exec_id = 0;
	e->comm_hash = 0;
	e->seen = false;
	e->follow = follow;
	e->last_ns = now;
	e->off_start = 0;
	e->off_short_count = 0;
	e->off_short_ns = 0;
	e->xr_slot = LFR_XR_NONE;
}

/*
 * Under the table's lock: @key's entry, a free slot of its probe taken for
 * it if it has none (and the table has room), or NULL.  @key may include
 * LFR_KEY_BUSY: the entry is then made pinned.
 */
static struct lfr_thread *lfr_thread_insert(struct lfr_threads *tt,
					    unsigned long key, bool follow,
					    u64 now)
{
	struct lfr_thread *e, *slot;

	e = lfr_thread_find(tt, lfr_thread_key(key), &slot);
	if (e)
		return e;
	if (!slot || atomic_read(&tt->used) >= tt->max)
		return NULL;
	lfr_thread_clear(slot, follow, now);
	atomic_inc(&tt->used);
	/* Lock-free lookups that find the key see the state above. */
	smp_store_release(&slot->key, key);
	return slot;
}

/*
 * Under the table's lock: @e's slot given back.  Linear probing lets it
 * become EMPTY when the next slot is EMPTY (no key's probe then runs
 * through it: every slot between a key's home and the key is occupied or a
 * tombstone), and then each tombstone just before it too; otherwise it is
 * a tombstone.
 */
static void lfr_thread_remove(struct lfr_threads *tt, struct lfr_thread *e)
{
	u32 i = e - tt->slots, n;

	atomic_dec(&tt->used);
	if (READ_ONCE(tt->slots[(i + 1) & tt->mask].key) != LFR_KEY_EMPTY) {
		WRITE_ONCE(e->key, LFR_KEY_TOMB);
		return;
	}
	WRITE_ONCE(e->key, LFR_KEY_EMPTY);
	for (n = 1; n < LFR_PROBE_MAX && n <= tt->mask; n++) {
		e = &tt->slots[(i - n) & tt->mask];
		if (READ_ONCE(e->key) != LFR_KEY_TOMB)
			break;
		WRITE_ONCE(e->key, LFR_KEY_EMPTY);
	}
}

/*
 * Under the table's lock, timer mode, @key has no entry and none can be
 * made: the entry among the slots of @key's probe whose thread ticked least
 * recently and that nothing refers to is given back, so that @key gets a
 * slot (that one, or an earlier free one of its probe).  False if there is
 * none.  *@off: the entry taken over was off the CPU since a switch-out
 * (an off-CPU interval that will never be measured).
 */
static bool lfr_thread_reclaim(struct lfr_threads *tt, unsigned long key,
			       bool *off)
{
	u32 i = hash_long(key, 32) & tt->mask, n;
	struct lfr_thread *e, *best = NULL;
	unsigned long k, best_key = 0;

	for (n = 0; n < LFR_PROBE_MAX && n <= tt->mask; n++) {
		e = &tt->slots[(i + n) & tt->mask];
		k = READ_ONCE(e->key);
		if (k <= LFR_KEY_TOMB || (k & LFR_KEY_BUSY) ||
		    READ_ONCE(e->follow) || READ_ONCE(e->walk))
			continue;
		if (!best || (s64)(READ_ONCE(e->last_ns) -
				   READ_ONCE(best->last_ns)) < 0) {
			best = e;
			best_key = k;
		}
	}
	/* Its thread's tick may be pinning it right now: then none. */
	if (!best || cmpxchg(&best->key, best_key,
			     best_key | LFR_KEY_BUSY) != best_key)
		return false;
	/*
	 * Pinned, its thread's ticks cannot queue a walk; one may have been
	 * queued since it was looked at.  A walk's commit clears e->walk as
	 * its last access to the entry (release).
	 */
	if (smp_load_acquire(&best->walk)) {
		/* unpinned: pairs with the owner's pin, as the tick's unpin */
		smp_store_release(&best->key, best_key);
		return false;
	}
	*off = best->off_start != 0;
	lfr_thread_remove(tt, best);
	return true;
}

static struct lfr_thread *lfr_thread_create(struct lfr_session *s,
					    unsigned long key, bool follow,
					    u64 now)
{
	struct lfr_threads *tt = &s->threads;
	bool reclaim = (key & LFR_KEY_BUSY) && !follow;
	struct lfr_thread *e;
	unsigned long flags;
	bool off = false;

	if (!reclaim && atomic_read(&tt->used) >= tt->max)
		return NULL;	/* full: no lock taken on every switch-in */
	raw_spin_lock_irqsave(&tt->lock, flags);
	e = lfr_thread_insert(tt, key, follow, now);
	if (!e && reclaim && lfr_thread_reclaim(tt, lfr_thread_key(key), &off)) {
		e = lfr_thread_insert(tt, key, follow, now);
		lfr_count(s, LFR_CTR_THREADS_RECLAIMED, 1);
		if (off)
			lfr_count(s, LFR_CTR_OFFCPU_LOST, 1);
	}
	raw_spin_unlock_irqrestore(&tt->lock, flags);
	return e;
}

/*
 * @t's entry, created if @create; per-task mode and the fork probe (the
 * entries they create are never reclaimed: per-task tables never reclaim,
 * followed children are marked before their key is published).
 */
struct lfr_thread *lfr_thread_get(struct lfr_session *s,
				  struct task_struct *t, bool create)
{
	struct lfr_thread *e, *slot;

	e = lfr_thread_find(&s->threads, (unsigned long)t, &slot);
	if (e || !create)
		return e;
	return lfr_thread_create(s, (unsigned long)t, false, 0);
}

/* The fork probe: @child (not yet run) made a followed target. */
struct lfr_thread *lfr_thread_follow(struct lfr_session *s,
				     struct task_struct *child)
{
	struct lfr_thread *e, *slot;

	e = lfr_thread_find(&s->threads, (unsigned long)child, &slot);
	if (e) {
		WRITE_ONCE(e->follow, true);
		return e;
	}
	return lfr_thread_create(s, (unsigned long)child, true, 0);
}

/*
 * Timer mode, interrupts off, @t == current or @t being switched in:
 * @t's entry, pinned until lfr_thread_unpin(), created or taken over if it
 * has none and @create; NULL when it has none and none is made (its probe
 * has no free slot and no entry to take over).  @now: the time of the
 * tick or switch, which marks the entry as used.
 */
static struct lfr_thread *lfr_thread_pin_of(struct lfr_session *s,
					    struct task_struct *t, u64 now,
					    bool create)
{
	unsigned long key = (unsigned long)t, k;
	struct lfr_thread *e, *slot;

	for (;;) {
		e = lfr_thread_find(&s->threads, key, &slot);
		if (!e)
			return create ? lfr_thread_create(s, key | LFR_KEY_BUSY,
							  false, now) : NULL;
		k = READ_ONCE(e->key);
		if (k == key && cmpxchg(&e->key, key, key | LFR_KEY_BUSY) == key)
			break;
		/*
		 * A reclaimer on another CPU holds it, interrupts off, for a
		 * few loads and stores: wait and look again (it may be gone).
		 */
		cpu_relax();
	}
	WRITE_ONCE(e->last_ns, now);
	return e;
}

struct lfr_thread *lfr_thread_pin(struct lfr_session *s,
				  struct task_struct *t, u64 now)
{
	return lfr_thread_pin_of(s, t, now, true);
}

struct lfr_thread *lfr_thread_pin_found(struct lfr_session *s,
					struct task_struct *t, u64 now)
{
	return lfr_thread_pin_of(s, t, now, false);
}

/*
 * The free probe: @t's slot given back.  Only @t's own ticks and the fork
 * of @t create its key, and neither can come any more.
 */
void lfr_thread_release(struct lfr_session *s, struct task_struct *t)
{
	struct lfr_threads *tt = &s->threads;
	unsigned long key = (unsigned long)t, flags;
	struct lfr_thread *e, *slot;

	if (!lfr_thread_find(tt, key, &slot))
		return;	/* most freed tasks of a system-wide session */
	raw_spin_lock_irqsave(&tt->lock, flags);
	/* A reclaimer may have taken it over meanwhile: look again. */
	e = lfr_thread_find(tt, key, &slot);
	if (!e)
		goto out;
	lfr_thread_remove(tt, e);
out:
	raw_spin_unlock_irqrestore(&tt->lock, flags);
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

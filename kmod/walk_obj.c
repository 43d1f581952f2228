// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the objects of queued stack walks (struct lfr_walk).  A tick takes
 * one in hard irq from its CPU's cache, without allocating; the walk, in
 * its thread's context, gives it back to the cache of the CPU it ends on,
 * where the next tick reuses it.  No allocation and no RCU callback per
 * walk: an object is freed (after a grace period) only when a cache
 * overflows, as when walks end on another CPU than their ticks, and a cache
 * that runs low is topped up with GFP_KERNEL by the walk.  A tick that finds
 * its cache empty allocates nothing (hard irq: not even GFP_ATOMIC, whose
 * locks sleep on PREEMPT_RT): it is lost as NOMEM and queues the CPU's
 * refill work, which tops the cache up from process context, since no walk
 * may end on that CPU to do it.  STOP and STATUS,
 * reading a walk through its thread's entry under RCU, may thus hold an
 * object that is another walk by now: they check its owner and generation
 * (lfr_walk_claim).  Module-wide: a walk outlives the session that queued
 * it when STOP gives it up.
 */
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "walk_obj.h"

#define LFR_WALK_CACHE	32

struct lfr_walk_cache {
	struct lfr_walk *free[LFR_WALK_CACHE];
	unsigned int nr;
};

static DEFINE_PER_CPU(struct lfr_walk_cache, lfr_walk_cache);
static DEFINE_PER_CPU(struct work_struct, lfr_walk_refill);

/*
 * For the tests only: every walk sleeps this long when it gives its object
 * back, as a walk whose refill blocks in reclaim would.  The walk must not
 * have handed the module reference over yet (the walk_unload scenario
 * unloads the module meanwhile).
 */
static unsigned int lfr_walk_done_sleep_ms;
module_param_named(test_walk_done_sleep_ms, lfr_walk_done_sleep_ms, uint, 0644);
MODULE_PARM_DESC(test_walk_done_sleep_ms,
		 "tests only: each walk sleeps this long at its end (default 0)");

/*
 * Fills CACHE (this CPU's, interrupts off, or any CPU's before sampling can
 * start) from FRESH; returns how many it took.
 */
static unsigned int lfr_walk_cache_fill(struct lfr_walk_cache *c,
					struct lfr_walk **fresh,
					unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && c->nr < LFR_WALK_CACHE; i++)
		c->free[c->nr++] = fresh[i];
	return i;
}

/*
 * Process context: tops this CPU's cache up to half with GFP_KERNEL objects
 * (the CPU may change while allocating: the cache filled is the one of the
 * CPU it ends on, which is as good).
 */
static void lfr_walk_cache_top_up(void)
{
	struct lfr_walk *fresh[LFR_WALK_CACHE / 2];
	unsigned int n = 0, used;
	unsigned long flags;

	while (n < ARRAY_SIZE(fresh) &&
	       (fresh[n] = kzalloc(sizeof(struct lfr_walk),
				   GFP_KERNEL | __GFP_NOWARN)))
		n++;
	local_irq_save(flags);
	used = lfr_walk_cache_fill(this_cpu_ptr(&lfr_walk_cache), fresh, n);
	local_irq_restore(flags);
	while (used < n)
		kfree(fresh[used++]);
}

static void lfr_walk_refill_fn(struct work_struct *work)
{
	lfr_walk_cache_top_up();
}

/* Module init, before any session: half of every CPU's cache. */
int lfr_walk_objs_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		INIT_WORK(per_cpu_ptr(&lfr_walk_refill, cpu), lfr_walk_refill_fn);
	for_each_possible_cpu(cpu) {
		struct lfr_walk_cache *c = per_cpu_ptr(&lfr_walk_cache, cpu);

		while (c->nr < LFR_WALK_CACHE / 2) {
			struct lfr_walk *w = kzalloc(sizeof(*w), GFP_KERNEL);

			if (!w) {
				lfr_walk_objs_exit();
				return -ENOMEM;
			}
			c->free[c->nr++] = w;
		}
	}
	return 0;
}

/*
 * Module exit: no walk is queued (each holds a module reference) and no
 * timer runs, so no refill is queued after its cancel.
 */
void lfr_walk_objs_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct lfr_walk_cache *c = per_cpu_ptr(&lfr_walk_cache, cpu);

		cancel_work_sync(per_cpu_ptr(&lfr_walk_refill, cpu));

		while (c->nr)
			kfree(c->free[--c->nr]);
	}
}

/*
 * Hard irq: an object for the walk this tick queues; NULL when none (a burst
 * emptied the cache before walks gave objects back).  Taking the last one
 * queues the refill (queue_work_on() only takes the pool's raw lock with
 * interrupts off, legal here), so the cache is seldom found empty.
 */
struct lfr_walk *lfr_walk_obj_get(void)
{
	struct lfr_walk_cache *c = this_cpu_ptr(&lfr_walk_cache);
	struct lfr_walk *w = NULL;

	if (c->nr)
		w = c->free[--c->nr];
	if (!c->nr)
		queue_work_on(smp_processor_id(), system_wq,
			      this_cpu_ptr(&lfr_walk_refill));
	return w;
}

/* Hard irq: an object that was not queued after all (never published). */
void lfr_walk_obj_unget(struct lfr_walk *w)
{
	if (!lfr_walk_cache_fill(this_cpu_ptr(&lfr_walk_cache), &w, 1))
		kfree_rcu(w, rcu);
}

/*
 * Process context, the walk's end (its last use of @w): gives @w back to
 * this CPU's cache and tops the cache up when it runs low.
 */
void lfr_walk_obj_done(struct lfr_walk *w)
{
	unsigned long flags;
	unsigned int nr;
	bool kept;

	lfr_walk_set_free(w);
	local_irq_save(flags);	/* the cache of the CPU this runs on now */
	kept = lfr_walk_cache_fill(this_cpu_ptr(&lfr_walk_cache), &w, 1);
	nr = this_cpu_read(lfr_walk_cache.nr);
	local_irq_restore(flags);
	if (!kept)
		kfree_rcu(w, rcu);
	if (nr < LFR_WALK_CACHE / 2)
		lfr_walk_cache_top_up();
	if (unlikely(READ_ONCE(lfr_walk_done_sleep_ms)))
		msleep(READ_ONCE(lfr_walk_done_sleep_ms));
}

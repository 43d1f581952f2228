// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the session object.  A session owns its configuration, per-CPU
 * rings, thread table and counters; it is reference counted:
 *   - the registry (registry.c) holds one reference until the session is
 *     replaced by a later START or the module goes away;
 *   - every queued stack walk holds one;
 *   - every /dev/lfr file bound to it holds one (mappings keep the file);
 *   - a queued notification holds one.
 * s->pending counts queued walks plus one while sampling is on; when it
 * reaches zero after STOP the session is STOPPED and nothing will write to
 * it again.  From START until then the session holds one module reference:
 * walks run module code from a task_work, so the module must stay while any
 * may still run.  One reference per session, not one per walk: the last one
 * is dropped after an RCU-tasks grace period (core.c), which a put per walk
 * kept running back to back.  Whatever drops the last pending count hands
 * that reference over (lfr_pending_put() returns true), a walk as its very
 * last statement.
 *
 * What works for a session (the sampler, the walks, the task events, the
 * commands) calls down into this file; it calls only what a session owns
 * (rings, tables, charges) and sends its events through the function the
 * netlink family set (lfr_sessions_event_sink()).
 */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "budget.h"
#include "cgroup_filter.h"
#include "config.h"
#include "core.h"
#include "counters.h"
#include "frame_check.h"
#include "kstack_cache.h"
#include "ring.h"
#include "sampler.h"
#include "seen.h"
#include "session.h"
#include "target.h"
#include "thread_ctx.h"
#include "threads.h"
#include "unwind_tables.h"
#include "walk_pool.h"

void lfr_session_get(struct lfr_session *s)
{
	refcount_inc(&s->ref);
}

static void lfr_session_free(struct lfr_session *s)
{
	int cpu;

	if (s->rings) {
		for_each_possible_cpu(cpu)
			lfr_ring_free(s->rings[cpu]);
		kfree(s->rings);
	}
	if (s->memos) {
		for_each_possible_cpu(cpu)
			kfree(s->memos[cpu]);
		kfree(s->memos);
	}
	if (s->kstacks) {
		for_each_possible_cpu(cpu)
			kfree(s->kstacks[cpu]);
		kfree(s->kstacks);
	}
	lfr_budget_uncharge(s);
	lfr_mm_watches_free(&s->watches);
	lfr_threads_free(&s->threads);
	lfr_walk_pool_free(&s->walk_bufs);
	lfr_ctx_procs_free(&s->ctx);
	lfr_perm_user_put(&s->user);
	lfr_unwind_free(&s->unwind);
	lfr_cgroups_put(s);
	lfr_targets_put(s);
	vfree(s->seen);
	free_percpu(s->pcpu);
	free_percpu(s->ctr);
	lfr_config_free(&s->cfg);
	kfree(s);
}

void lfr_session_put(struct lfr_session *s)
{
	if (refcount_dec_and_test(&s->ref))
		lfr_session_free(s);
}

/* Where session events go (genl.c's multicast), or NULL; see lfr_wq. */
static lfr_event_fn lfr_event_sink;

/*
 * Sets the function that sends session events, from lfr_wq (NULL: none);
 * the caller flushes lfr_wq before what it set goes away.
 */
void lfr_sessions_event_sink(lfr_event_fn fn)
{
	WRITE_ONCE(lfr_event_sink, fn);
}

static void lfr_notify_fn(struct work_struct *w)
{
	struct lfr_session *s = container_of(w, struct lfr_session, notify_work);
	lfr_event_fn sink = READ_ONCE(lfr_event_sink);
	int ev;

	for (ev = LFR_EVENT_STARTED; ev <= LFR_EVENT_OVERFLOW; ev++)
		if (test_and_clear_bit(ev, &s->notify_bits) && sink)
			sink(s, ev);
	/* no walk runs once STOPPED: the mms watched for them are let go */
	if (atomic_read(&s->state) == LFR_STATE_STOPPED)
		lfr_mm_watches_release(&s->watches);
	lfr_session_put(s);
}

/* Any context: the multicast is sent from lfr_wq. */
void lfr_session_event(struct lfr_session *s, enum lfr_event ev)
{
	set_bit(ev, &s->notify_bits);
	refcount_inc(&s->ref);
	if (!queue_work(lfr_wq, &s->notify_work))
		refcount_dec(&s->ref);	/* already queued: the caller holds one */
}

/* A ring of @s was found full (ring.c): an OVERFLOW event names its CPU. */
static void lfr_session_ring_full(struct lfr_session *s, u32 cpu)
{
	WRITE_ONCE(s->overflow_cpu, cpu);
	lfr_session_event(s, LFR_EVENT_OVERFLOW);
}

/*
 * Drops one pending count.  True when it was the last: the session is
 * STOPPED and the caller now holds the module reference START took, which it
 * must hand over with lfr_module_put_deferred() once it is done with
 * everything that may sleep (see lfr_module_put_deferred()).
 */
bool lfr_pending_put(struct lfr_session *s)
{
	if (!atomic_dec_and_test(&s->pending))
		return false;
	/* the registry keeps @s until it is STOPPED: hold it past that */
	lfr_session_get(s);
	atomic_set(&s->state, LFR_STATE_STOPPED);
	lfr_session_event(s, LFR_EVENT_STOPPED);
	wake_up_interruptible_all(&s->wq);
	lfr_session_put(s);
	return true;
}

u64 lfr_counter_sum(struct lfr_session *s, int ctr)
{
	u64 sum = 0;
	int cpu;

	if (ctr == LFR_CTR_WORKS_PENDING) {
		int p = atomic_read(&s->pending);

		if (atomic_read(&s->state) == LFR_STATE_RUNNING)
			p--;
		return p > 0 ? p : 0;
	}
	if (ctr == LFR_CTR_THREADS)
		return atomic_read(&s->threads.used);
	if (ctr == LFR_CTR_TICKS_PENDING)
		return lfr_threads_pending_ticks(&s->threads);
	if (ctr == LFR_CTR_UNWIND_TABLES)
		return READ_ONCE(s->unwind.nr);
	if (ctr == LFR_CTR_UNWIND_BYTES)
		return READ_ONCE(s->unwind.bytes);
	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(s->ctr, cpu)->c[ctr];
	return sum;
}

/*
 * A new session @id (IDLE) with configuration @cfg, which it takes over
 * (*@cfg is left empty), started by @portid: everything it needs
 * allocated and its memory charged.  ERR_PTR with an extack message.
 */
struct lfr_session *lfr_session_alloc(u32 id, struct lfr_config *cfg,
				      u32 portid,
				      struct netlink_ext_ack *extack)
{
	struct lfr_ring_owner ro;
	struct lfr_session *s;
	int cpu, err;

	/* everything a session allocates is charged to the starter's memcg */
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	refcount_set(&s->ref, 1);
	s->id = id;
	s->cfg = *cfg;
	memset(cfg, 0, sizeof(*cfg));	/* the session owns the id arrays */
	s->owner_portid = portid;
	s->owner_euid = current_euid();	/* genetlink runs in the sender */
	atomic_set(&s->state, LFR_STATE_IDLE);
	s->run_idx = -1;
	INIT_LIST_HEAD(&s->node);
	init_waitqueue_head(&s->wq);
	INIT_WORK(&s->notify_work, lfr_notify_fn);
	if (lfr_mm_watches_init(&s->watches) ||
	    lfr_unwind_init(&s->unwind, s->cfg.unwind_max_kb) ||
	    lfr_ctx_procs_init(&s->ctx, s->cfg.thread_ctx)) {
		NL_SET_ERR_MSG(extack, "out of memory for the unwind tables', mappings' or thread contexts' index");
		lfr_session_free(s);
		return ERR_PTR(-ENOMEM);
	}

	err = lfr_budget_charge(s, extack);
	if (err) {
		lfr_session_free(s);
		return ERR_PTR(err);
	}
	s->ctr = alloc_percpu_gfp(struct lfr_counters, GFP_KERNEL_ACCOUNT);
	s->pcpu = alloc_percpu_gfp(struct lfr_pcpu, GFP_KERNEL_ACCOUNT);
	s->rings = kcalloc(nr_cpu_ids, sizeof(*s->rings), GFP_KERNEL_ACCOUNT);
	s->memos = kcalloc(nr_cpu_ids, sizeof(*s->memos), GFP_KERNEL_ACCOUNT);
	s->seen = __vmalloc(LFR_SEEN_SLOTS * sizeof(u64),
			    GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	s->seen_mask = LFR_SEEN_SLOTS - 1;
	if (!s->ctr || !s->pcpu || !s->rings || !s->memos || !s->seen)
		goto nomem;
	ro = (struct lfr_ring_owner){
		.owner = s,
		.full = lfr_session_ring_full,
		.wq = &s->wq,
		.ctr = s->ctr,
		.session_id = s->id,
		.pages = s->cfg.ring_pages,
		.wakeup_bytes = s->cfg.wakeup_bytes,
	};
	for_each_possible_cpu(cpu) {
		s->rings[cpu] = lfr_ring_alloc(&ro, cpu);
		s->memos[cpu] = kzalloc_node(sizeof(*s->memos[cpu]),
					     GFP_KERNEL_ACCOUNT,
					     cpu_to_node(cpu));
		if (!s->rings[cpu] || !s->memos[cpu])
			goto nomem;
	}
	if (lfr_kstack_cache_of(&s->cfg)) {
		s->kstacks = kcalloc(nr_cpu_ids, sizeof(*s->kstacks),
				     GFP_KERNEL_ACCOUNT);
		if (!s->kstacks)
			goto nomem;
		for_each_possible_cpu(cpu) {
			s->kstacks[cpu] = kzalloc_node(sizeof(*s->kstacks[cpu]),
						       GFP_KERNEL_ACCOUNT,
						       cpu_to_node(cpu));
			if (!s->kstacks[cpu])
				goto nomem;
		}
	}
	if (lfr_threads_init(&s->threads, s->cfg.max_threads))
		goto nomem;
	if (lfr_walk_pool_init(&s->walk_bufs, lfr_config_ustack_max(&s->cfg)))
		goto nomem;
	return s;
nomem:
	NL_SET_ERR_MSG(extack, "out of memory for the rings or thread table: use fewer ring pages or threads");
	lfr_session_free(s);
	return ERR_PTR(-ENOMEM);
}

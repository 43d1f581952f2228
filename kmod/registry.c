// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the registry of sessions and the commands on them.  The sessions
 * kept, newest first: running, draining, or stopped and kept for their
 * final counters until a later START drops them (lfr_session_drop_finished)
 * or the module goes away; each running one's run index, the index of its
 * pointer in the probes' tables (sampler.c, task_events.c); START, STOP,
 * ABANDON and the stop of sessions whose starter's socket closed.  All
 * under lfr_lock (core.c).  The session object itself is session.c's.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include "cgroup_filter.h"
#include "core.h"
#include "probes.h"
#include "registry.h"
#include "sampler.h"
#include "session.h"
#include "target.h"
#include "task_events.h"
#include "threads.h"
#include "walk_obj.h"

/* DRAINING sessions at once: START is EBUSY with as many. */
#define LFR_MAX_DRAINING	8

static LIST_HEAD(lfr_sessions);
static u32 lfr_last_id;
/* The running sessions by run index, under lfr_lock. */
static struct lfr_session *lfr_run_sessions[LFR_MAX_RUNNING];
/*
 * Per run index, the port id whose release stops that running session (0: none,
 * or it is detached), written under lfr_lock and read without it by the
 * socket-close notifier, which sees every generic netlink socket of the
 * machine.  A socket cannot close while its own START runs.
 */
static u32 lfr_owner_portids[LFR_MAX_RUNNING];
/* and its network namespace: port ids are per namespace (a key only) */
static const struct net *lfr_owner_nets[LFR_MAX_RUNNING];

bool lfr_portid_owns_session(const struct net *net, u32 portid)
{
	int i;

	for (i = 0; i < LFR_MAX_RUNNING; i++)
		if (READ_ONCE(lfr_owner_portids[i]) == portid &&
		    READ_ONCE(lfr_owner_nets[i]) == net)
			return true;
	return false;
}

/*
 * STOP with LFR_A_ABANDON: the walks still queued are given up; their
 * threads have stayed in the kernel since their tick (blocked in system
 * calls) and may stay there for good.  Sampling is off, so no tick joins
 * them any more (their TICK records are in the rings: readers drop ticks
 * whose walk never comes).  Their session references are dropped here, so
 * the session is freed without waiting for them; a task_work that starts
 * later loses the claim and only frees its small object (walk_obj.c),
 * then drops the module reference taken for it here (this walk's pending
 * count held the module until now).
 */
void lfr_session_abandon(struct lfr_session *s)
{
	struct lfr_threads *tt = &s->threads;
	u32 i;

	lockdep_assert_held(&lfr_lock);
	if (atomic_read(&s->state) != LFR_STATE_DRAINING)
		return;
	for (i = 0; i <= tt->mask; i++) {
		struct lfr_thread *e = &tt->slots[i];
		struct lfr_walk *w;
		unsigned long old;
		int ticks = -1, offcpu = 0;

		if (!(i & 4095))
			cond_resched();	/* up to 2 M slots */
		/*
		 * A walk ending now gives its object back for reuse, maybe
		 * to another thread's or session's walk: only a claim of the
		 * generation that still belongs to this entry succeeds.
		 */
		rcu_read_lock();
		/* pairs with the tick's release: the walk's fields, then e->walk */
		w = smp_load_acquire(&e->walk);
		if (w) {
			old = atomic_long_read_acquire(&w->state);
			if (READ_ONCE(w->e) == e && READ_ONCE(w->s) == s &&
			    lfr_walk_claim(w, old, LFR_WALK_ABANDONED)) {
				WRITE_ONCE(e->walk, NULL);
				ticks = atomic_xchg(&w->ticks, 0);
				offcpu = atomic_xchg(&w->offcpu, 0);
			}
		}
		rcu_read_unlock();
		if (ticks < 0)
			continue;
		lfr_count_lost(s, LFR_LOST_ABANDONED, ticks);
		lfr_count(s, LFR_CTR_OFFCPU_LOST, offcpu);
		__module_get(THIS_MODULE);
		/* a command: module exit waits for it (lfr_module_put_deferred) */
		if (lfr_pending_put(s))
			lfr_module_put_deferred();
		lfr_session_put(s);	/* the walk's; the list holds one */
	}
}

static int lfr_next_id(void)
{
	struct lfr_session *s;
	u32 id = lfr_last_id, n;

	for (n = 0; n < LFR_MAX_SESSION_ID; n++) {
		bool used = false;

		id = id % LFR_MAX_SESSION_ID + 1;
		list_for_each_entry(s, &lfr_sessions, node)
			used |= s->id == id;
		if (!used) {
			lfr_last_id = id;
			return id;
		}
	}
	return -EBUSY;
}

/*
 * DRAINING sessions keep all their memory until their last queued walk
 * runs or is given up, which a thread blocked in the kernel may put off
 * for ever: without a cap, STOP after STOP would pile them up.
 */
static int lfr_sessions_draining(void)
{
	struct lfr_session *s;
	int n = 0;

	list_for_each_entry(s, &lfr_sessions, node)
		n += atomic_read(&s->state) == LFR_STATE_DRAINING;
	return n;
}

struct lfr_session *lfr_session_create(struct lfr_config *cfg, u32 portid,
				       struct netlink_ext_ack *extack)
{
	int id;

	lockdep_assert_held(&lfr_lock);
	if (lfr_sessions_draining() >= LFR_MAX_DRAINING) {
		NL_SET_ERR_MSG(extack, "8 stopped sessions are still draining (their queued stack walks wait for threads blocked in the kernel): give up their walks with 'lfr stop -S ID' first ('lfr status' lists them)");
		return ERR_PTR(-EBUSY);
	}
	id = lfr_next_id();
	if (id < 0) {
		NL_SET_ERR_MSG(extack, "no free session id");
		return ERR_PTR(id);
	}
	return lfr_session_alloc(id, cfg, portid, extack);
}

int lfr_session_start(struct lfr_session *s, struct netlink_ext_ack *extack)
{
	int err, idx;

	lockdep_assert_held(&lfr_lock);
	for (idx = 0; idx < LFR_MAX_RUNNING && lfr_run_sessions[idx]; idx++)
		;
	if (idx == LFR_MAX_RUNNING) {
		NL_SET_ERR_MSG(extack, "8 sessions are already running (the most at once): stop one first ('lfr status' lists them)");
		return -EBUSY;
	}
	err = lfr_targets_get(s, extack);
	if (!err)
		err = lfr_cgroups_get(s, extack);
	if (err)
		return err;
	if (!try_module_get(THIS_MODULE)) {
		NL_SET_ERR_MSG(extack, "lfr is being unloaded");
		return -ENODEV;
	}
	s->run_idx = idx;
	atomic_set(&s->pending, 1);
	atomic_set(&s->state, LFR_STATE_RUNNING);
	/* Children forked from here on are followed before sampling starts. */
	err = lfr_task_events_start(s);
	if (!err) {
		err = lfr_sampler_start(s);
		if (err) {
			lfr_task_events_unpublish(s);
			synchronize_rcu();
		}
	}
	if (err) {
		atomic_set(&s->state, LFR_STATE_STOPPED);
		s->run_idx = -1;
		lfr_module_put_deferred();
		NL_SET_ERR_MSG(extack, "could not attach to the scheduler tracepoints or CPU hotplug");
		return err;
	}
	lfr_run_sessions[idx] = s;
	list_add(&s->node, &lfr_sessions);
	if (!s->cfg.detached) {
		WRITE_ONCE(lfr_owner_nets[idx], s->owner_net);
		WRITE_ONCE(lfr_owner_portids[idx], s->owner_portid);
	}
	lfr_session_event(s, LFR_EVENT_STARTED);
	return 0;
}

void lfr_session_stop(struct lfr_session *s)
{
	lockdep_assert_held(&lfr_lock);
	if (atomic_cmpxchg(&s->state, LFR_STATE_RUNNING, LFR_STATE_DRAINING) !=
	    LFR_STATE_RUNNING)
		return;
	WRITE_ONCE(lfr_owner_portids[s->run_idx], 0);
	lfr_session_event(s, LFR_EVENT_DRAINING);
	/*
	 * Both probe tables at once, one grace period: the free probe of task
	 * events releases what the switch probe claimed, and neither works
	 * for this session after it.
	 */
	lfr_sampler_unpublish(s);
	lfr_task_events_unpublish(s);
	synchronize_rcu();
	lfr_sampler_stop(s);
	lfr_run_sessions[s->run_idx] = NULL;
	s->run_idx = -1;
	/* sampling's share; the walks hold the rest */
	if (lfr_pending_put(s))
		lfr_module_put_deferred();	/* a command or module exit */
}

struct lfr_session *lfr_session_find(u32 id)
{
	struct lfr_session *s;

	lockdep_assert_held(&lfr_lock);
	list_for_each_entry(s, &lfr_sessions, node)
		if (s->id == id)
			return s;
	return NULL;
}

struct lfr_session *lfr_session_next(struct lfr_session *prev)
{
	lockdep_assert_held(&lfr_lock);
	if (!prev)
		return list_first_entry_or_null(&lfr_sessions,
						 struct lfr_session, node);
	return list_is_last(&prev->node, &lfr_sessions) ? NULL :
	       list_next_entry(prev, node);
}

/*
 * Forgets STOPPED sessions (their counters were final) that no reader has
 * bound: a recorder whose session stopped while another one starts still
 * reads its final counters by id.
 */
void lfr_session_drop_finished(void)
{
	struct lfr_session *s, *n;

	lockdep_assert_held(&lfr_lock);
	list_for_each_entry_safe(s, n, &lfr_sessions, node) {
		if (atomic_read(&s->state) != LFR_STATE_STOPPED ||
		    atomic_read(&s->readers))
			continue;
		list_del_init(&s->node);
		lfr_session_put(s);
	}
}

void lfr_sessions_release_portid(const struct net *net, u32 portid)
{
	struct lfr_session *s;

	mutex_lock(&lfr_lock);
	list_for_each_entry(s, &lfr_sessions, node)
		if (s->owner_portid == portid && s->owner_net == net &&
		    !s->cfg.detached)
			lfr_session_stop(s);
	mutex_unlock(&lfr_lock);
}

/*
 * Module exit: the module reference count is zero, so no walk is queued and
 * no file is open; stopping is immediate.
 */
void lfr_sessions_shutdown(void)
{
	struct lfr_session *s, *n;

	mutex_lock(&lfr_lock);
	list_for_each_entry_safe(s, n, &lfr_sessions, node) {
		lfr_session_stop(s);
		list_del_init(&s->node);
		lfr_session_put(s);
	}
	mutex_unlock(&lfr_lock);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: sessions.  A session owns its configuration, per-CPU rings, thread
 * table and counters; it is reference counted:
 *   - the registry (lfr_sessions) holds one reference until the session is
 *     replaced by a later START or the module goes away;
 *   - every queued stack walk holds one;
 *   - every /dev/lfr file bound to it holds one (mappings keep the file);
 *   - a queued notification holds one.
 * s->pending counts queued walks plus one while sampling is on; when it
 * reaches zero after STOP the session is STOPPED and nothing will write to
 * it again.  From START until then the session holds one module reference:
 * walks run module code from a task_work, so the module must stay while any
 * may still run.  One reference per session, not one per walk: the last one
 * is dropped after an RCU-tasks grace period (main.c), which a put per walk
 * kept running back to back.  Whatever drops the last pending count hands
 * that reference over (lfr_pending_put() returns true), a walk as its very
 * last statement.
 */
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "lfr_internal.h"

DEFINE_MUTEX(lfr_lock);
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

bool lfr_portid_owns_session(u32 portid)
{
	int i;

	for (i = 0; i < LFR_MAX_RUNNING; i++)
		if (READ_ONCE(lfr_owner_portids[i]) == portid)
			return true;
	return false;
}

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
	lfr_budget_uncharge(s);
	lfr_threads_free(&s->threads);
	lfr_walk_pool_free(&s->walk_bufs);
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

static void lfr_notify_fn(struct work_struct *w)
{
	struct lfr_session *s = container_of(w, struct lfr_session, notify_work);
	int ev;

	for (ev = LFR_EVENT_STARTED; ev <= LFR_EVENT_OVERFLOW; ev++)
		if (test_and_clear_bit(ev, &s->notify_bits))
			lfr_genl_notify(s, ev);
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
	struct lfr_session *s;
	int cpu, id, err;

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
	if (lfr_unwind_init(&s->unwind, s->cfg.unwind_max_kb)) {
		NL_SET_ERR_MSG(extack, "out of memory for the unwind tables' index");
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
	s->seen = __vmalloc(LFR_SEEN_SLOTS * sizeof(u64),
			    GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	s->seen_mask = LFR_SEEN_SLOTS - 1;
	if (!s->ctr || !s->pcpu || !s->rings || !s->seen)
		goto nomem;
	for_each_possible_cpu(cpu) {
		s->rings[cpu] = lfr_ring_alloc(s, cpu);
		if (!s->rings[cpu])
			goto nomem;
	}
	if (lfr_threads_init(&s->threads, s->cfg.max_threads))
		goto nomem;
	if (lfr_walk_pool_init(&s->walk_bufs, sizeof(struct lfr_rec_ustack) +
			       sizeof(u64) * (s->cfg.user_depth +
					      LFR_USTACK_WORDS)))
		goto nomem;
	return s;
nomem:
	NL_SET_ERR_MSG(extack, "out of memory for the rings or thread table: use fewer ring pages or threads");
	lfr_session_free(s);
	return ERR_PTR(-ENOMEM);
}

/* The number of running sessions, and in *@s the newest of them (or NULL). */
int lfr_sessions_running(struct lfr_session **s)
{
	struct lfr_session *it;
	int n = 0;

	lockdep_assert_held(&lfr_lock);
	*s = NULL;
	list_for_each_entry(it, &lfr_sessions, node) {
		if (atomic_read(&it->state) != LFR_STATE_RUNNING)
			continue;
		if (!n++)
			*s = it;
	}
	return n;
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
	if (!s->cfg.detached)
		WRITE_ONCE(lfr_owner_portids[idx], s->owner_portid);
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

struct lfr_session *lfr_session_newest(void)
{
	lockdep_assert_held(&lfr_lock);
	return list_first_entry_or_null(&lfr_sessions, struct lfr_session, node);
}

/* The ids of the sessions kept, newest first, at most @max; the count. */
int lfr_session_ids(u32 *ids, int max)
{
	struct lfr_session *s;
	int n = 0;

	lockdep_assert_held(&lfr_lock);
	list_for_each_entry(s, &lfr_sessions, node)
		if (n < max)
			ids[n++] = s->id;
	return n;
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

void lfr_sessions_release_portid(u32 portid)
{
	struct lfr_session *s;

	mutex_lock(&lfr_lock);
	list_for_each_entry(s, &lfr_sessions, node)
		if (s->owner_portid == portid && !s->cfg.detached)
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

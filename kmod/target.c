// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: which threads a session samples.  Process and thread targets are
 * held as struct pid references taken at START and compared by identity: a
 * number is reused once its process is gone, a struct pid is not (a new
 * process with the old number gets a new one), so a recycled pid never
 * becomes a target.  The check runs in hard irq and under the scheduler's
 * locks: no lock, no allocation, a binary search over pointers.
 */
#include <linux/bsearch.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "cgroup_filter.h"
#include "session.h"
#include "target.h"
#include "threads.h"

static int lfr_cmp_ptr(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Ids are read in the caller's pid namespace, as the ABI says. */
static int lfr_get_pids(const u32 *ids, u32 nr, enum pid_type type,
			struct pid ***out, struct netlink_ext_ack *extack)
{
	struct pid **pids;
	u32 i;

	*out = NULL;
	if (!nr)
		return 0;
	pids = kcalloc(nr, sizeof(*pids), GFP_KERNEL_ACCOUNT);
	if (!pids)
		return -ENOMEM;
	*out = pids;
	for (i = 0; i < nr; i++) {
		struct task_struct *t;

		rcu_read_lock();
		t = pid_task(find_vpid(ids[i]), type);
		if (t)
			pids[i] = get_pid(type == PIDTYPE_TGID ? task_tgid(t) :
					  task_pid(t));
		rcu_read_unlock();
		if (!pids[i]) {
			if (type == PIDTYPE_TGID)
				NL_SET_ERR_MSG_MOD(extack, "a target process does not exist");
			else
				NL_SET_ERR_MSG_MOD(extack, "a target thread does not exist");
			return -ESRCH;
		}
	}
	sort(pids, nr, sizeof(*pids), lfr_cmp_ptr, NULL);
	return 0;
}

int lfr_targets_get(struct lfr_session *s, struct netlink_ext_ack *extack)
{
	struct lfr_targets *tg = &s->targets;
	int err;

	err = lfr_get_pids(s->cfg.tgids, s->cfg.nr_tgids, PIDTYPE_TGID,
			   &tg->tgids, extack);
	tg->nr_tgids = s->cfg.nr_tgids;
	if (!err)
		err = lfr_get_pids(s->cfg.tids, s->cfg.nr_tids, PIDTYPE_PID,
				   &tg->tids, extack);
	tg->nr_tids = s->cfg.nr_tids;
	return err;
}

/* Once nothing can call lfr_is_target() any more; any context. */
void lfr_targets_put(struct lfr_session *s)
{
	struct lfr_targets *tg = &s->targets;
	u32 i;

	for (i = 0; tg->tgids && i < tg->nr_tgids; i++)
		put_pid(tg->tgids[i]);	/* NULL past a failed lookup */
	for (i = 0; tg->tids && i < tg->nr_tids; i++)
		put_pid(tg->tids[i]);
	kfree(tg->tgids);
	kfree(tg->tids);
	memset(tg, 0, sizeof(*tg));
}

static bool lfr_has_pid(struct pid **pids, u32 nr, struct pid *p)
{
	return nr && p && bsearch(&p, pids, nr, sizeof(*pids), lfr_cmp_ptr);
}

/*
 * @t is current, the next task of a context switch, or a task in a fork,
 * exit, exec or rename probe: its signal struct and pids are stable.
 */
/*
 * A session without privileges has cgroup targets only (permission.c), and
 * of the threads in them samples its starter's only.
 */
static bool lfr_is_user_target(struct lfr_session *s, struct task_struct *t)
{
	if (!s->nr_cgroups || !lfr_cgroup_match(s, t))
		return false;
	if (lfr_user_may_sample(&s->user, t))
		return true;
	lfr_count(s, LFR_CTR_SKIP_CREDS, 1);
	return false;
}

bool lfr_is_target(struct lfr_session *s, struct task_struct *t)
{
	struct lfr_thread *e;

	if (unlikely(s->user.on))
		return lfr_is_user_target(s, t);
	if (s->cfg.system ||
	    lfr_has_pid(s->targets.tgids, s->targets.nr_tgids, task_tgid(t)) ||
	    lfr_has_pid(s->targets.tids, s->targets.nr_tids, task_pid(t)))
		return true;
	if (s->nr_cgroups && lfr_cgroup_match(s, t))
		return true;
	if (!s->cfg.follow_children)
		return false;
	e = lfr_thread_get(s, t, false);
	return e && READ_ONCE(e->follow);
}

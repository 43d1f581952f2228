// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: cgroup v2 targets.  START resolves each id to its cgroup and keeps
 * a reference until the session is freed.  The check itself is lock-free
 * and runs from the timer in hard irq: the thread's default-hierarchy
 * cgroup is read under RCU and compared by ancestry, so a thread is a
 * target exactly while it is inside one of the cgroups or below it.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "cgroup_filter.h"
#include "session.h"

int lfr_cgroups_get(struct lfr_session *s, struct netlink_ext_ack *extack)
{
	u32 i, n = s->cfg.nr_cgroups;

	if (!n)
		return 0;
	s->cgroups = kcalloc(n, sizeof(*s->cgroups), GFP_KERNEL_ACCOUNT);
	if (!s->cgroups)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct cgroup *cg = cgroup_get_from_id(s->cfg.cgroup_ids[i]);

		if (IS_ERR_OR_NULL(cg)) {
			NL_SET_ERR_MSG_MOD(extack, "a target cgroup id names no cgroup v2 (gone, a v1 hierarchy, or outside the caller's cgroup namespace)");
			lfr_cgroups_put(s);
			return -ENOENT;
		}
		s->cgroups[s->nr_cgroups++] = cg;
	}
	return 0;
}

/* Process context, once nothing can call lfr_cgroup_match() any more. */
void lfr_cgroups_put(struct lfr_session *s)
{
	u32 i;

	for (i = 0; i < s->nr_cgroups; i++)
		cgroup_put(s->cgroups[i]);
	kfree(s->cgroups);
	s->cgroups = NULL;
	s->nr_cgroups = 0;
}

/* Any context, including hard irq: no lock, no allocation. */
bool lfr_cgroup_match(const struct lfr_session *s, struct task_struct *t)
{
	struct cgroup *cg;
	bool hit = false;
	u32 i;

	rcu_read_lock();
	cg = task_dfl_cgroup(t);
	for (i = 0; i < s->nr_cgroups && !hit; i++)
		hit = cgroup_is_descendant(cg, s->cgroups[i]);
	rcu_read_unlock();
	return hit;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: cgroup v2 targets.  START resolves each id to its cgroup and keeps
 * a reference until the session is freed; a target inside another, or
 * given twice, is dropped there, since the one above covers it.  The check
 * itself is lock-free and runs from the timer in hard irq and from the
 * sched_switch probe under the run-queue lock, up to eight sessions per
 * context switch: the thread's default-hierarchy cgroup is read under RCU,
 * and its ancestor at each level where a target lies (a cgroup keeps all
 * of them, cgroup_ancestor()) is looked for among the targets, sorted by
 * address.  A thread is a target exactly while it is inside one of the
 * cgroups or below it, at a cost of a search per level that holds targets
 * rather than a comparison per target (LFR_MAX_TARGETS).
 */
#include <linux/bitops.h>
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "cgroup_filter.h"
#include "session.h"

/* Levels at or past this one share the last bit of a session's mask. */
#define LFR_CG_DEEP	63

static u64 lfr_cgroup_level_bit(int level)
{
	return BIT_ULL(min(level, LFR_CG_DEEP));
}

static int lfr_cmp_cgroup(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Whether @cg is one of the @n targets of @set (sorted by address); each
 * step of the search counts in *@probes when given.
 */
static __always_inline bool lfr_cgroup_has(struct cgroup *const *set, u32 n,
					   const struct cgroup *cg,
					   u32 *probes)
{
	u32 lo = 0, hi = n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (probes)
			(*probes)++;
		if (set[mid] == cg)
			return true;
		if ((unsigned long)set[mid] < (unsigned long)cg)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Whether @cg lies in one of the @n targets of @set, none inside another,
 * whose levels are the bits of @levels: the ancestor of @cg at each such
 * level, looked for in @set.  Under RCU (or a reference on @cg).
 */
static __always_inline bool lfr_cgroup_in(struct cgroup *const *set, u32 n,
					  u64 levels, struct cgroup *cg,
					  u32 *probes)
{
	int l, top = cg->level;

	levels &= lfr_cgroup_level_bit(top) | (lfr_cgroup_level_bit(top) - 1);
	for (; levels; levels &= levels - 1) {
		l = __ffs64(levels);
		if (l < LFR_CG_DEEP) {
			if (lfr_cgroup_has(set, n, cgroup_ancestor(cg, l),
					   probes))
				return true;
			continue;
		}
		for (; l <= top; l++)
			if (lfr_cgroup_has(set, n, cgroup_ancestor(cg, l),
					   probes))
				return true;
	}
	return false;
}

/*
 * Sorts the @n cgroups of @cg by address and keeps at its start those
 * inside no other one of them (each once); the others, after them, are
 * the caller's to put.  @tmp: room for @n.  Returns the number kept, their
 * levels in *@levels.  Process context: a search per level of each.
 */
static u32 lfr_cgroups_trim(struct cgroup **cg, u32 n, struct cgroup **tmp,
			    u64 *levels)
{
	u32 i, kept = 0, dropped = n;
	u64 all = 0;

	sort(cg, n, sizeof(*cg), lfr_cmp_cgroup, NULL);
	for (i = 0; i < n; i++)
		all |= lfr_cgroup_level_bit(cg[i]->level);
	*levels = 0;
	for (i = 0; i < n; i++) {
		struct cgroup *c = cg[i];

		/* given before, or below one given (its parent's ancestors) */
		if ((i && cg[i - 1] == c) ||
		    (c->level && lfr_cgroup_in(cg, n, all,
					       cgroup_ancestor(c, c->level - 1),
					       NULL))) {
			tmp[--dropped] = c;
			continue;
		}
		*levels |= lfr_cgroup_level_bit(c->level);
		tmp[kept++] = c;	/* in order: still sorted */
	}
	memcpy(cg, tmp, n * sizeof(*cg));
	return kept;
}

int lfr_cgroups_get(struct lfr_session *s, struct netlink_ext_ack *extack)
{
	u32 i, n = s->cfg.nr_cgroups, kept;
	struct cgroup **tmp;

	if (!n)
		return 0;
	s->cgroups = kcalloc(n, sizeof(*s->cgroups), GFP_KERNEL_ACCOUNT);
	tmp = kcalloc(n, sizeof(*tmp), GFP_KERNEL);
	if (!s->cgroups || !tmp) {
		kfree(tmp);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct cgroup *cg = cgroup_get_from_id(s->cfg.cgroup_ids[i]);

		if (IS_ERR_OR_NULL(cg)) {
			NL_SET_ERR_MSG_MOD(extack, "a target cgroup id names no cgroup v2 (gone, a v1 hierarchy, or outside the caller's cgroup namespace)");
			kfree(tmp);
			lfr_cgroups_put(s);
			return -ENOENT;
		}
		s->cgroups[s->nr_cgroups++] = cg;
	}
	kept = lfr_cgroups_trim(s->cgroups, n, tmp, &s->cgroup_levels);
	kfree(tmp);
	for (i = kept; i < n; i++)
		cgroup_put(s->cgroups[i]);
	s->nr_cgroups = kept;
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
	s->cgroup_levels = 0;
}

/* Any context, including hard irq: no lock, no allocation. */
bool lfr_cgroup_match(const struct lfr_session *s, struct task_struct *t)
{
	bool hit;

	rcu_read_lock();
	hit = lfr_cgroup_in(s->cgroups, s->nr_cgroups, s->cgroup_levels,
			    task_dfl_cgroup(t), NULL);
	rcu_read_unlock();
	return hit;
}

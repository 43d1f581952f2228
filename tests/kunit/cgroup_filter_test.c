// SPDX-License-Identifier: GPL-2.0
/* KUnit: cgroup v2 targets resolved by id, matched the way the timer does, and released. */
#include <kunit/test.h>
#include <linux/cgroup.h>
#include "../../kmod/cgroup_filter.c"

static u64 lfr_current_cgroup_id(void)
{
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	return id;
}

static void lfr_cgroup_own(struct kunit *test)
{
	struct lfr_session *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u64 ids[2];

	KUNIT_ASSERT_NOT_NULL(test, s);
	ids[0] = lfr_current_cgroup_id();
	ids[1] = ids[0];	/* given twice: kept once, one reference */
	s->cfg.cgroup_ids = ids;
	s->cfg.nr_cgroups = 2;
	KUNIT_ASSERT_EQ(test, lfr_cgroups_get(s, NULL), 0);
	KUNIT_EXPECT_EQ(test, s->nr_cgroups, 1U);
	KUNIT_EXPECT_TRUE(test, lfr_cgroup_match(s, current));
	/* From hard-irq-like context too: interrupts off changes nothing. */
	local_irq_disable();
	KUNIT_EXPECT_TRUE(test, lfr_cgroup_match(s, current));
	local_irq_enable();
	lfr_cgroups_put(s);
	KUNIT_EXPECT_EQ(test, s->nr_cgroups, 0U);
	KUNIT_EXPECT_NULL(test, s->cgroups);
	/* No cgroup: nothing matches. */
	KUNIT_EXPECT_FALSE(test, lfr_cgroup_match(s, current));
}

static void lfr_cgroup_missing(struct kunit *test)
{
	struct lfr_session *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct netlink_ext_ack ext = {};
	u64 ids[2];

	KUNIT_ASSERT_NOT_NULL(test, s);
	ids[0] = lfr_current_cgroup_id();
	ids[1] = U64_MAX - 1;	/* no such cgroup */
	s->cfg.cgroup_ids = ids;
	s->cfg.nr_cgroups = 2;
	KUNIT_EXPECT_EQ(test, lfr_cgroups_get(s, &ext), -ENOENT);
	KUNIT_EXPECT_NOT_NULL(test, ext._msg);
	/* The reference taken on the first one was dropped again. */
	KUNIT_EXPECT_EQ(test, s->nr_cgroups, 0U);
	KUNIT_EXPECT_NULL(test, s->cgroups);
}

/*
 * Cgroups of a made-up hierarchy: what the filter reads of one is its
 * level and its ancestors (cgroup_ancestor()).
 */
static struct cgroup *fake_cgroup(struct kunit *test, struct cgroup *parent)
{
	int level = parent ? parent->level + 1 : 0;
	struct cgroup *cg = kunit_kzalloc(test, struct_size(cg, ancestors,
							    level + 1),
					  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cg);
	cg->level = level;
	cg->root = parent ? parent->root : NULL;
	if (parent)
		memcpy(cg->ancestors, parent->ancestors,
		       level * sizeof(cg->ancestors[0]));
	cg->ancestors[level] = cg;
	return cg;
}

static bool fake_in(struct cgroup **set, u32 n, u64 levels, struct cgroup *cg)
{
	return lfr_cgroup_in(set, n, levels, cg, NULL);
}

/*
 * A target inside another, or given twice, is dropped at START: the one
 * above covers it.  Levels past 63 share one bit and are each searched.
 */
static void lfr_cgroup_nested(struct kunit *test)
{
	struct cgroup *root = fake_cgroup(test, NULL);
	struct cgroup *a = fake_cgroup(test, root), *b = fake_cgroup(test, root);
	struct cgroup *a1 = fake_cgroup(test, a), *b1 = fake_cgroup(test, b);
	struct cgroup *a1x = fake_cgroup(test, a1), *deep[72], *set[8], *tmp[8];
	u64 levels;
	u32 n, i;

	deep[0] = fake_cgroup(test, root);
	for (i = 1; i < ARRAY_SIZE(deep); i++)
		deep[i] = fake_cgroup(test, deep[i - 1]);
	set[0] = a1;
	set[1] = a;
	set[2] = a1x;
	set[3] = b1;
	set[4] = b1;
	set[5] = deep[64];	/* level 65 */
	set[6] = deep[67];	/* inside it */
	set[7] = deep[63];	/* above it, level 64 */
	n = lfr_cgroups_trim(set, ARRAY_SIZE(set), tmp, &levels);
	KUNIT_ASSERT_EQ(test, n, 3U);
	KUNIT_EXPECT_PTR_EQ(test, set[0], min(min(a, b1), deep[63]));
	KUNIT_EXPECT_TRUE(test, fake_in(set, n, levels, a));
	KUNIT_EXPECT_TRUE(test, fake_in(set, n, levels, b1));
	KUNIT_EXPECT_TRUE(test, fake_in(set, n, levels, deep[63]));
	KUNIT_EXPECT_EQ(test, levels, BIT_ULL(1) | BIT_ULL(2) | BIT_ULL(63));
	/* the dropped ones follow, each once: a1, a1x, b1, deep[64], deep[67] */
	for (i = n; i < ARRAY_SIZE(set); i++)
		KUNIT_EXPECT_TRUE(test, set[i] == a1 || set[i] == a1x ||
				  set[i] == b1 || set[i] == deep[64] ||
				  set[i] == deep[67]);

	KUNIT_EXPECT_TRUE(test, fake_in(set, n, levels, a1x));
	KUNIT_EXPECT_TRUE(test, fake_in(set, n, levels, a1));
	KUNIT_EXPECT_FALSE(test, fake_in(set, n, levels, b));
	KUNIT_EXPECT_FALSE(test, fake_in(set, n, levels, root));
	KUNIT_EXPECT_TRUE(test, fake_in(set, n, levels, deep[71]));
	KUNIT_EXPECT_FALSE(test, fake_in(set, n, levels, deep[62]));
	KUNIT_EXPECT_FALSE(test, fake_in(set, n, levels, deep[10]));
}

/*
 * LFR_MAX_TARGETS cgroups side by side: a thread's check is one search
 * among them per level that holds targets, not a comparison per target.
 */
static void lfr_cgroup_many(struct kunit *test)
{
	struct cgroup *root = fake_cgroup(test, NULL);
	struct cgroup *mid = fake_cgroup(test, fake_cgroup(test, root));
	struct cgroup **set = kunit_kcalloc(test, LFR_MAX_TARGETS,
					    sizeof(*set), GFP_KERNEL);
	struct cgroup **tmp = kunit_kcalloc(test, LFR_MAX_TARGETS,
					    sizeof(*tmp), GFP_KERNEL);
	struct cgroup *in, *out;
	u32 n, i, probes = 0;
	u64 levels;

	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	for (i = 0; i < LFR_MAX_TARGETS; i++)
		set[i] = fake_cgroup(test, mid);
	in = fake_cgroup(test, fake_cgroup(test, set[LFR_MAX_TARGETS / 3]));
	out = fake_cgroup(test, fake_cgroup(test, fake_cgroup(test, mid)));
	n = lfr_cgroups_trim(set, LFR_MAX_TARGETS, tmp, &levels);
	KUNIT_ASSERT_EQ(test, n, (u32)LFR_MAX_TARGETS);
	KUNIT_EXPECT_TRUE(test, lfr_cgroup_in(set, n, levels, in, &probes));
	/* one level with targets: one binary search of 1024 */
	KUNIT_EXPECT_LE(test, probes, 11U);
	probes = 0;
	KUNIT_EXPECT_FALSE(test, lfr_cgroup_in(set, n, levels, out, &probes));
	KUNIT_EXPECT_LE(test, probes, 11U);
	probes = 0;
	KUNIT_EXPECT_FALSE(test, lfr_cgroup_in(set, n, levels, mid, &probes));
	KUNIT_EXPECT_EQ(test, probes, 0U);
}

static struct kunit_case lfr_cgroup_cases[] = {
	KUNIT_CASE(lfr_cgroup_own),
	KUNIT_CASE(lfr_cgroup_missing),
	KUNIT_CASE(lfr_cgroup_nested),
	KUNIT_CASE(lfr_cgroup_many),
	{}
};

static struct kunit_suite lfr_cgroup_suite = {
	.name = "lfr_cgroup_filter",
	.test_cases = lfr_cgroup_cases,
};

kunit_test_suite(lfr_cgroup_suite);

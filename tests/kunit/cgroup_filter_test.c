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
	ids[1] = ids[0];	/* duplicates are harmless */
	s->cfg.cgroup_ids = ids;
	s->cfg.nr_cgroups = 2;
	KUNIT_ASSERT_EQ(test, lfr_cgroups_get(s, NULL), 0);
	KUNIT_EXPECT_EQ(test, s->nr_cgroups, 2U);
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

static struct kunit_case lfr_cgroup_cases[] = {
	KUNIT_CASE(lfr_cgroup_own),
	KUNIT_CASE(lfr_cgroup_missing),
	{}
};

static struct kunit_suite lfr_cgroup_suite = {
	.name = "lfr_cgroup_filter",
	.test_cases = lfr_cgroup_cases,
};

kunit_test_suite(lfr_cgroup_suite);

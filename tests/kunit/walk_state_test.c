// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the state word of a walk object.  Objects are reused as soon as
 * their walk ends, so a claim made with a state read before the reuse (STOP
 * giving a walk up) must fail, and each walk is claimed exactly once.
 */
#include <kunit/test.h>
#include "walk_obj.h"

static unsigned long lfr_state(struct lfr_walk *w)
{
	return atomic_long_read(&w->state) & LFR_WALK_STATE_MASK;
}

static void lfr_walk_claimed_once(struct kunit *test)
{
	struct lfr_walk w = {};
	unsigned long old;

	lfr_walk_set_queued(&w);
	KUNIT_EXPECT_EQ(test, lfr_state(&w), LFR_WALK_QUEUED);
	old = atomic_long_read(&w.state);
	KUNIT_EXPECT_TRUE(test, lfr_walk_claim(&w, old, LFR_WALK_RUNNING));
	KUNIT_EXPECT_EQ(test, lfr_state(&w), LFR_WALK_RUNNING);
	/* STOP, holding the same state, comes too late */
	KUNIT_EXPECT_FALSE(test, lfr_walk_claim(&w, old, LFR_WALK_ABANDONED));
	KUNIT_EXPECT_EQ(test, lfr_state(&w), LFR_WALK_RUNNING);
}

static void lfr_walk_abandoned_before_it_runs(struct kunit *test)
{
	struct lfr_walk w = {};
	unsigned long old;

	lfr_walk_set_queued(&w);
	old = atomic_long_read(&w.state);
	KUNIT_EXPECT_TRUE(test, lfr_walk_claim(&w, old, LFR_WALK_ABANDONED));
	/* the task_work that runs later finds it given up */
	KUNIT_EXPECT_FALSE(test, lfr_walk_claim(&w, atomic_long_read(&w.state),
						LFR_WALK_RUNNING));
	KUNIT_EXPECT_EQ(test, lfr_state(&w), LFR_WALK_ABANDONED);
}

/*
 * STOP read the state of a queued walk; that walk then ran and ended, and
 * the object became the next walk (queued again): STOP's claim must fail
 * and leave the new walk queued.
 */
static void lfr_walk_reused_object_not_claimed(struct kunit *test)
{
	struct lfr_walk w = {};
	unsigned long stale, now;

	lfr_walk_set_queued(&w);
	stale = atomic_long_read(&w.state);
	KUNIT_ASSERT_TRUE(test, lfr_walk_claim(&w, stale, LFR_WALK_RUNNING));
	lfr_walk_set_free(&w);
	KUNIT_EXPECT_EQ(test, lfr_state(&w), LFR_WALK_FREE);
	lfr_walk_set_queued(&w);
	now = atomic_long_read(&w.state);
	KUNIT_EXPECT_NE(test, now, stale);
	KUNIT_EXPECT_FALSE(test, lfr_walk_claim(&w, stale, LFR_WALK_ABANDONED));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w.state), now);
	KUNIT_EXPECT_TRUE(test, lfr_walk_claim(&w, now, LFR_WALK_RUNNING));
}

/* A claim needs a QUEUED walk: never from a free object. */
static void lfr_walk_free_not_claimed(struct kunit *test)
{
	struct lfr_walk w = {};

	lfr_walk_set_queued(&w);
	lfr_walk_set_free(&w);
	KUNIT_EXPECT_FALSE(test, lfr_walk_claim(&w, atomic_long_read(&w.state),
						LFR_WALK_RUNNING));
	KUNIT_EXPECT_EQ(test, lfr_state(&w), LFR_WALK_FREE);
}

static struct kunit_case lfr_walk_state_cases[] = {
	KUNIT_CASE(lfr_walk_claimed_once),
	KUNIT_CASE(lfr_walk_abandoned_before_it_runs),
	KUNIT_CASE(lfr_walk_reused_object_not_claimed),
	KUNIT_CASE(lfr_walk_free_not_claimed),
	{}
};

static struct kunit_suite lfr_walk_state_suite = {
	.name = "lfr_walk_state",
	.test_cases = lfr_walk_state_cases,
};

kunit_test_suite(lfr_walk_state_suite);

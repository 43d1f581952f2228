// SPDX-License-Identifier: GPL-2.0
/* KUnit: the CPU budget's window, and the periods a throttled timer skips. */
#include <kunit/test.h>
#include "../../kmod/cpu_share.c"

#define MS NSEC_PER_MSEC

/*
 * Every session charges the one window of a CPU: two that each stay under
 * 25 % of it are over together, until the next window starts.
 */
static void lfr_share_is_the_machines(struct kunit *test)
{
	struct lfr_cpu_share w = {};
	u64 t = 1000 * MS;

	KUNIT_EXPECT_FALSE(test, lfr_share_spent(&w, t, 25));	/* starts a window */
	KUNIT_EXPECT_EQ(test, w.start, t);
	w.ns += 15 * MS;	/* one session's handlers and walks */
	KUNIT_EXPECT_FALSE(test, lfr_share_spent(&w, t + 40 * MS, 25));
	w.ns += 15 * MS;	/* another's, on the same CPU */
	KUNIT_EXPECT_TRUE(test, lfr_share_spent(&w, t + 60 * MS, 25));
	KUNIT_EXPECT_TRUE(test, lfr_share_spent(&w, t + 99 * MS, 25));
	/* the next window starts clean */
	KUNIT_EXPECT_FALSE(test, lfr_share_spent(&w, t + 100 * MS, 25));
	KUNIT_EXPECT_EQ(test, w.ns, 0ULL);
	KUNIT_EXPECT_EQ(test, w.start, t + 100 * MS);
	/* no limit: 0 and 100 */
	w.ns = 90 * MS;
	KUNIT_EXPECT_FALSE(test, lfr_share_spent(&w, t + 110 * MS, 0));
	KUNIT_EXPECT_FALSE(test, lfr_share_spent(&w, t + 110 * MS, 100));
	KUNIT_EXPECT_TRUE(test, lfr_share_spent(&w, t + 110 * MS, 50));
}

/* The timer lands on the first period of its grid at or after the window's end. */
static void lfr_share_skips_whole_periods(struct kunit *test)
{
	u64 p = MS;	/* 1000 Hz */

	KUNIT_EXPECT_EQ(test, lfr_share_skip(10 * p, 10 * p, p), 0ULL);
	KUNIT_EXPECT_EQ(test, lfr_share_skip(11 * p, 10 * p, p), 0ULL);
	KUNIT_EXPECT_EQ(test, lfr_share_skip(10 * p, 10 * p + 1, p), 1ULL);
	KUNIT_EXPECT_EQ(test, lfr_share_skip(10 * p, 70 * p, p), 60ULL);
	KUNIT_EXPECT_EQ(test, lfr_share_skip(10 * p + 3, 70 * p, p), 60ULL);
	KUNIT_EXPECT_EQ(test, lfr_share_skip(10 * p, 70 * p + 1, p), 61ULL);
	KUNIT_EXPECT_EQ(test, lfr_share_skip(0, 5, 0), 0ULL);	/* no period */
}

static struct kunit_case lfr_cpu_share_cases[] = {
	KUNIT_CASE(lfr_share_is_the_machines),
	KUNIT_CASE(lfr_share_skips_whole_periods),
	{}
};

static struct kunit_suite lfr_cpu_share_suite = {
	.name = "lfr_cpu_share",
	.test_cases = lfr_cpu_share_cases,
};

kunit_test_suite(lfr_cpu_share_suite);

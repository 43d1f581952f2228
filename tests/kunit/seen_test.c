// SPDX-License-Identifier: GPL-2.0
/* KUnit: the set of mapping records written, and taking a mark back. */
#include <kunit/test.h>
#include "../../kmod/seen.c"

#define SLOTS 64

static void lfr_seen_marks_once(struct kunit *test)
{
	u64 t[SLOTS] = {};

	KUNIT_EXPECT_FALSE(test, lfr_seen(t, SLOTS - 1, 0x1234));
	KUNIT_EXPECT_TRUE(test, lfr_seen_first(t, SLOTS - 1, 0x1234));
	KUNIT_EXPECT_TRUE(test, lfr_seen(t, SLOTS - 1, 0x1234));
	KUNIT_EXPECT_FALSE(test, lfr_seen_first(t, SLOTS - 1, 0x1234));
}

/*
 * A record that did not fit in the ring is forgotten, so the next walk
 * writes it again; keys further along the same probe sequence stay found.
 */
static void lfr_seen_forget_retries(struct kunit *test)
{
	u64 t[SLOTS] = {};
	u64 a = 0x100 | 5, b = 0x200 | 5, c = 0x300 | 5;	/* same slot */

	KUNIT_ASSERT_TRUE(test, lfr_seen_first(t, SLOTS - 1, a));
	KUNIT_ASSERT_TRUE(test, lfr_seen_first(t, SLOTS - 1, b));
	KUNIT_ASSERT_TRUE(test, lfr_seen_first(t, SLOTS - 1, c));
	lfr_seen_forget(t, SLOTS - 1, b);
	KUNIT_EXPECT_FALSE(test, lfr_seen(t, SLOTS - 1, b));
	KUNIT_EXPECT_TRUE(test, lfr_seen(t, SLOTS - 1, a));
	KUNIT_EXPECT_TRUE(test, lfr_seen(t, SLOTS - 1, c));
	/* written again by a later walk, and then known */
	KUNIT_EXPECT_TRUE(test, lfr_seen_first(t, SLOTS - 1, b));
	KUNIT_EXPECT_TRUE(test, lfr_seen(t, SLOTS - 1, b));
	KUNIT_EXPECT_FALSE(test, lfr_seen_first(t, SLOTS - 1, b));
	/* forgetting what is not there changes nothing */
	lfr_seen_forget(t, SLOTS - 1, 0x400 | 5);
	KUNIT_EXPECT_TRUE(test, lfr_seen(t, SLOTS - 1, a));
}

static struct kunit_case lfr_seen_cases[] = {
	KUNIT_CASE(lfr_seen_marks_once),
	KUNIT_CASE(lfr_seen_forget_retries),
	{}
};

static struct kunit_suite lfr_seen_suite = {
	.name = "lfr_seen",
	.test_cases = lfr_seen_cases,
};

kunit_test_suite(lfr_seen_suite);

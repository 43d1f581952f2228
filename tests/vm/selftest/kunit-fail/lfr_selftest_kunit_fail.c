// SPDX-License-Identifier: GPL-2.0
/* A KUnit suite with one failing case: tests/kunit/run must exit non-zero on it. */
#include <kunit/test.h>
#include <linux/module.h>

static void selftest_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 2, 2);
}

static void selftest_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1, 2);
}

static struct kunit_case selftest_cases[] = {
	KUNIT_CASE(selftest_passes),
	KUNIT_CASE(selftest_fails),
	{}
};

static struct kunit_suite selftest_suite = {
	.name = "lfr_harness_selftest",
	.test_cases = selftest_cases,
};
kunit_test_suite(selftest_suite);
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/* KUnit: a tick's kernel stack cut to the interrupted ip, and its truncation. */
#include <kunit/test.h>
#include <linux/lfr.h>
#include "../../kmod/kstack.h"

#define MAXK LFR_MAX_KERNEL_STACK_DEPTH

static void fill(u64 *ips, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		ips[i] = 0xffffffff81000000ULL + 16 * i;
}

static void lfr_kstack_cut_at_ip(struct kunit *test)
{
	u64 ips[MAXK];
	bool trunc = true;

	fill(ips, 10);
	KUNIT_EXPECT_EQ(test, lfr_kstack_trim(ips, 10, MAXK, ips[3], &trunc), 7U);
	KUNIT_EXPECT_EQ(test, ips[0], 0xffffffff81000000ULL + 16 * 3);
	KUNIT_EXPECT_EQ(test, ips[6], 0xffffffff81000000ULL + 16 * 9);
	KUNIT_EXPECT_FALSE(test, trunc);
	/* an ip not in the trace keeps it whole */
	fill(ips, 10);
	KUNIT_EXPECT_EQ(test, lfr_kstack_trim(ips, 10, MAXK, 1, &trunc), 10U);
	KUNIT_EXPECT_FALSE(test, trunc);
}

/*
 * A trace that filled the buffer was cut by the depth cap: after dropping
 * the handler's and the irq entry's frames fewer than the cap are left, and
 * the cut must still be flagged.
 */
static void lfr_kstack_full_is_truncated(struct kunit *test)
{
	u64 ips[MAXK];
	bool trunc = false;

	fill(ips, MAXK);
	KUNIT_EXPECT_EQ(test, lfr_kstack_trim(ips, MAXK, MAXK, ips[5], &trunc),
			(u32)MAXK - 5);
	KUNIT_EXPECT_TRUE(test, trunc);
	fill(ips, MAXK - 1);
	KUNIT_EXPECT_EQ(test, lfr_kstack_trim(ips, MAXK - 1, MAXK, ips[5], &trunc),
			(u32)MAXK - 6);
	KUNIT_EXPECT_FALSE(test, trunc);
}

static struct kunit_case lfr_kstack_cases[] = {
	KUNIT_CASE(lfr_kstack_cut_at_ip),
	KUNIT_CASE(lfr_kstack_full_is_truncated),
	{}
};

static struct kunit_suite lfr_kstack_suite = {
	.name = "lfr_kstack",
	.test_cases = lfr_kstack_cases,
};

kunit_test_suite(lfr_kstack_suite);

// SPDX-License-Identifier: GPL-2.0
/* KUnit: the jittered sampling period, uniform in period +- jitter. */
#include <kunit/test.h>
#include "../../kmod/sampler.h"

#define DRAWS	20000

/*
 * @n periods of @p +- @j from a seeded state: all within the bounds, their
 * mean within 1 % of @p (the mean of @n uniform draws is within 0.2 % of
 * it at 5 standard deviations: sd = 2j / sqrt(12 n)), and each quarter
 * of the range holds about a quarter of them.
 */
static void expect_uniform(struct kunit *test, u64 p, u64 j)
{
	struct rnd_state rnd;
	u64 lo = p - j, sum = 0, v;
	u32 quarter[4] = {}, i;

	prandom_seed_state(&rnd, 0x4c46522d6a697474ULL);
	for (i = 0; i < DRAWS; i++) {
		v = lfr_jittered_period(p, j, &rnd);
		KUNIT_ASSERT_GE(test, v, lo);
		KUNIT_ASSERT_LE(test, v, p + j);
		sum += v / 1000;	/* us: 20000 periods of 20 s fit */
		quarter[min_t(u64, div64_u64((v - lo) * 4, 2 * j + 1), 3)]++;
	}
	KUNIT_EXPECT_LE(test, abs((s64)div_u64(sum, DRAWS) - (s64)(p / 1000)),
			(s64)(p / 1000 / 100));
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_GE_MSG(test, quarter[i], DRAWS / 4 * 9 / 10,
				    "quarter %u of the range", i);
		KUNIT_EXPECT_LE_MSG(test, quarter[i], DRAWS / 4 * 11 / 10,
				    "quarter %u of the range", i);
	}
}

/* 1 kHz with the default 10 %: a bound far below 2^32. */
static void lfr_period_short(struct kunit *test)
{
	expect_uniform(test, 1000000, 100000);
}

/*
 * 10 s with 50 % jitter, the longest the ABI allows: the range (10 s)
 * passes 2^32 ns.  32 random bits modulo it gave periods from 5 s to
 * 9.29 s only, a mean of 7.1 s.
 */
static void lfr_period_long(struct kunit *test)
{
	expect_uniform(test, 10 * NSEC_PER_SEC, 5 * NSEC_PER_SEC);
	/* just past 2^32, and just below it */
	expect_uniform(test, 4 * NSEC_PER_SEC, (1ULL << 31) + 1);
	expect_uniform(test, 4 * NSEC_PER_SEC, (1ULL << 31) - 1);
}

static void lfr_period_no_jitter(struct kunit *test)
{
	struct rnd_state rnd;

	prandom_seed_state(&rnd, 1);
	KUNIT_EXPECT_EQ(test, lfr_jittered_period(1234567, 0, &rnd), 1234567ULL);
}

static struct kunit_case lfr_period_cases[] = {
	KUNIT_CASE(lfr_period_short),
	KUNIT_CASE(lfr_period_long),
	KUNIT_CASE(lfr_period_no_jitter),
	{}
};

static struct kunit_suite lfr_period_suite = {
	.name = "lfr_period",
	.test_cases = lfr_period_cases,
};

kunit_test_suite(lfr_period_suite);

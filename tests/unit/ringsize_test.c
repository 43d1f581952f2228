// SPDX-License-Identifier: GPL-2.0
/* Default ring sizes: the module's default at low rates, the latency budget at high rates, the
 * record sizes of the ABI, and the caps (total memory budget, LFR_MAX_RING_PAGES). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <linux/lfr.h>

#include "lib/ringsize.h"

static void check_invariants(const struct lfr_ring_size *s, uint32_t page)
{
	assert_true(s->ring_pages >= LFR_MIN_RING_PAGES && s->ring_pages <= LFR_MAX_RING_PAGES);
	assert_int_equal(s->ring_pages & (s->ring_pages - 1), 0);
	assert_int_equal(s->wakeup_bytes, (uint64_t)s->ring_pages * page / LFR_RING_WAKEUP_DIV);
}

static void test_default_rate_keeps_module_default(void **state)
{
	struct lfr_ring_size_in in = {.ncpus = 2};
	struct lfr_ring_size s;

	(void)state;
	lfr_ring_size_choose(&in, &s);
	check_invariants(&s, 4096);
	assert_int_equal(s.ring_pages, LFR_DEFAULT_RING_PAGES);
	/* TICK 48 + USTACK 56 + 8 * (127 + 16) */
	assert_int_equal(s.rec_bytes, 48 + 56 + 8 * (127 + LFR_USTACK_WORDS));
	assert_false(s.capped);
	assert_true(s.seconds >= LFR_RING_BUDGET_S);
}

static void test_high_rate_holds_budget(void **state)
{
	struct lfr_ring_size_in in = {.freq_hz = 4999, .ncpus = 2};
	struct lfr_ring_size s;

	(void)state;
	lfr_ring_size_choose(&in, &s);
	check_invariants(&s, 4096);
	/* 4999 Hz + 10 % jitter, 1248 B per tick, 0.5 s: 3.4 MB, rounded up to 4 MB */
	assert_int_equal(s.ring_pages, 1024);
	assert_true(s.seconds >= LFR_RING_BUDGET_S && s.seconds < 2 * LFR_RING_BUDGET_S);
	assert_false(s.capped);

	/* the same rate as a period, and kernel stacks: 64 frames more per tick */
	in = (struct lfr_ring_size_in){.period_ns = 200000, .kernel_stack = true, .ncpus = 2};
	lfr_ring_size_choose(&in, &s);
	assert_int_equal(s.rec_bytes, 48 + 8 * LFR_MAX_KERNEL_STACK_DEPTH + 56 + 8 * 143);
	assert_int_equal(s.ring_pages, 2048);
}

static void test_memory_budget_caps(void **state)
{
	struct lfr_ring_size_in in = {.freq_hz = 4999, .ncpus = 1024};
	struct lfr_ring_size s;

	(void)state;
	lfr_ring_size_choose(&in, &s);
	check_invariants(&s, 4096);
	/* 256 MB over 1024 CPUs: 64 pages each */
	assert_int_equal(s.ring_pages, 64);
	assert_true(s.capped);
	assert_true(s.seconds < LFR_RING_BUDGET_S);
}

/* A user without CAP_PERFMON: the rings and their control pages within its locked memory. */
static void test_locked_budget_caps(void **state)
{
	struct lfr_ring_size_in in = {.freq_hz = 999, .ncpus = 2};
	struct lfr_ring_size s;

	(void)state;
	lfr_ring_size_choose(&in, &s);
	assert_int_equal(s.ring_pages, 256);
	/* 516 KiB per CPU and no RLIMIT_MEMLOCK: 128 + 1 pages each, 256 + 1 would not fit */
	in.budget = 2 * 516 * 1024;
	lfr_ring_size_choose(&in, &s);
	check_invariants(&s, 4096);
	assert_int_equal(s.ring_pages, 128);
	assert_true(s.capped);
	assert_true(2 * (s.ring_pages + 1) * 4096ull <= in.budget);
	/* a budget above the default total changes nothing */
	in.budget = 1ull << 40;
	lfr_ring_size_choose(&in, &s);
	assert_int_equal(s.ring_pages, 256);
}

static void test_module_limit_caps(void **state)
{
	struct lfr_ring_size_in in = {
	    .freq_hz = LFR_MAX_FREQ_HZ, .user_depth = LFR_MAX_USER_STACK_DEPTH, .ncpus = 1};
	struct lfr_ring_size s;

	(void)state;
	lfr_ring_size_choose(&in, &s);
	check_invariants(&s, 4096);
	assert_int_equal(s.ring_pages, LFR_MAX_RING_PAGES);
	assert_true(s.capped);

	/* larger pages need fewer of them */
	in = (struct lfr_ring_size_in){.freq_hz = 4999, .ncpus = 2, .page_size = 65536};
	lfr_ring_size_choose(&in, &s);
	check_invariants(&s, 65536);
	assert_int_equal(s.ring_pages, LFR_DEFAULT_RING_PAGES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_rate_keeps_module_default),
	    cmocka_unit_test(test_high_rate_holds_budget),
	    cmocka_unit_test(test_memory_budget_caps),
	    cmocka_unit_test(test_locked_budget_caps),
	    cmocka_unit_test(test_module_limit_caps),
	};

	return cmocka_run_group_tests_name("ringsize", tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's CLOCK_MONOTONIC seen from a time namespace (lib/clock.c): the monotonic offset read
 * from timens_offsets text, whatever its spacing and line order, and nothing from what is not one.
 * (tests/vm/scenarios/timens records in a namespace an hour ahead.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/clock.h"

static void offsets_read(void **state)
{
	(void)state;
	assert_int_equal(lfr_timens_parse("monotonic           0         0\n"
	                                  "boottime            0         0\n"),
	                 0);
	assert_int_equal(lfr_timens_parse("monotonic        3600         0\nboottime 3600 0\n"),
	                 3600000000000ll);
	/* the boottime line first, a negative offset with nanoseconds */
	assert_int_equal(lfr_timens_parse("boottime 7 0\nmonotonic -5 250000000\n"),
	                 -5000000000ll + 250000000);
}

static void not_offsets(void **state)
{
	(void)state;
	assert_int_equal(lfr_timens_parse(""), 0);
	assert_int_equal(lfr_timens_parse("boottime 7 0\n"), 0);
	assert_int_equal(lfr_timens_parse("monotonic x 0\n"), 0);
	/* nanoseconds of a second or more: not an offset the kernel shows */
	assert_int_equal(lfr_timens_parse("monotonic 1 1000000000\n"), 0);
}

/* Outside a time namespace (this test's own), the two clocks are one. */
static void same_clock_outside(void **state)
{
	(void)state;
	if (lfr_timens_mono_offset())
		skip(); /* run in a time namespace: nothing to compare with */
	uint64_t a = lfr_mono_ns(), k = lfr_kernel_mono_ns(), b = lfr_mono_ns();

	assert_true(a <= k && k <= b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(offsets_read),
	    cmocka_unit_test(not_offsets),
	    cmocka_unit_test(same_clock_outside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

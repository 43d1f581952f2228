// SPDX-License-Identifier: GPL-2.0
/*
 * What a report's values are and what time a sample stands for (report/units.c): CPU time for the
 * sampler's CPU samples, wall-clock time with --wall or its samples off the CPU, nothing for other
 * events or without a period, nanoseconds for --off-cpu and --latency, a field's name for --value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report/units.h"

static struct report_units units_of(int64_t period, bool mixed, const struct report_opts *o)
{
	struct report rep = {.period_ns = period, .period_mixed = mixed};
	struct report_units u;

	report_units(&rep, o, &u);
	return u;
}

static void test_sampled_time(void **state)
{
	struct report_opts o;
	struct report_units u;

	(void)state;
	report_opts_init(&o);
	u = units_of(1001001, false, &o);
	assert_string_equal(u.type, "samples");
	assert_string_equal(u.unit, "count");
	assert_string_equal(u.time_type, "cpu");
	assert_string_equal(u.time_unit, "nanoseconds");
	assert_string_equal(u.time_name, "CPU time");
	assert_int_equal(u.period_ns, 1001001);

	o.wall = true;
	o.events[o.nevents++] = "jdk.ExecutionSample";
	o.events[o.nevents++] = "jdk.NativeMethodSample";
	u = units_of(1001001, false, &o);
	assert_string_equal(u.type, "samples");
	assert_string_equal(u.time_type, "wall");
	assert_string_equal(u.time_name, "wall-clock time");
	assert_int_equal(u.period_ns, 1001001);

	/* the sampler's samples off the CPU alone: wall-clock time too */
	report_opts_init(&o);
	o.events[o.nevents++] = "jdk.NativeMethodSample";
	assert_string_equal(units_of(1000000, false, &o).time_type, "wall");
	/* on the CPU named: CPU time */
	report_opts_init(&o);
	o.events[o.nevents++] = "jdk.ExecutionSample";
	assert_string_equal(units_of(1000000, false, &o).time_type, "cpu");
}

static void test_no_time(void **state)
{
	struct report_opts o;
	struct report_units u;

	(void)state;
	report_opts_init(&o);
	/* no period (a JVM's recording), or chunks that disagree */
	u = units_of(0, false, &o);
	assert_null(u.time_type);
	assert_int_equal(u.period_ns, 0);
	assert_null(units_of(0, true, &o).time_type);
	/* events that are not the sampler's, or the same ticks twice */
	o.events[o.nevents++] = "all";
	assert_null(units_of(1000000, false, &o).time_type);
	report_opts_init(&o);
	o.events[o.nevents++] = "jdk.ExecutionSample";
	o.events[o.nevents++] = "lfr.OffCpu";
	assert_null(units_of(1000000, false, &o).time_type);
	report_opts_init(&o);
	o.events[o.nevents++] = "jdk.ExecutionSample";
	o.events[o.nevents++] = "jdk.CPUTimeSample";
	assert_null(units_of(1000000, false, &o).time_type);
}

static void test_durations_and_fields(void **state)
{
	struct report_opts o;
	struct report_units u;

	(void)state;
	report_opts_init(&o);
	o.off_cpu = true;
	o.events[o.nevents++] = "lfr.OffCpu";
	o.value_field = "duration";
	u = units_of(1000000, false, &o);
	assert_string_equal(u.type, "off-cpu");
	assert_string_equal(u.unit, "nanoseconds");
	assert_string_equal(u.words, "off-CPU ns");
	assert_null(u.time_type);
	assert_int_equal(u.period_ns, 0);

	report_opts_init(&o);
	o.latency = true;
	o.events[o.nevents++] = "lfr.SamplingLatency";
	o.value_field = "duration";
	u = units_of(1000000, false, &o);
	assert_string_equal(u.type, "latency");
	assert_string_equal(u.unit, "nanoseconds");
	assert_string_equal(u.words, "latency ns");

	report_opts_init(&o);
	o.value_field = "weight";
	u = units_of(1000000, false, &o);
	assert_string_equal(u.type, "weight");
	assert_string_equal(u.unit, "count");
	assert_string_equal(u.words, "weight");
	assert_null(u.time_type);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sampled_time),
	    cmocka_unit_test(test_no_time),
	    cmocka_unit_test(test_durations_and_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

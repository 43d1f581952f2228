// SPDX-License-Identifier: GPL-2.0
/*
 * report_opts.timeline (speedscope, the HTML timeline): every sample that passes the filters is
 * kept with its time, in time order, and adds up to the aggregate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/report.h"

static void check_file(const char *path, const char *thread, int jobs)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	struct report_opts o;
	struct report *rep = NULL;

	assert_non_null(r);
	report_opts_init(&o);
	o.timeline = true;
	o.jobs = jobs;
	if (thread)
		o.threads[o.nthreads++] = thread;
	assert_int_equal(report_read(r, &o, &rep), 0);
	assert_true(rep->ntimed > 0);
	assert_int_equal(rep->ntimed, rep->matched_events);
	uint64_t sum = 0;
	for (size_t i = 0; i < rep->ntimed; i++) {
		sum += rep->timed[i].value;
		assert_true(rep->timed[i].stack < rep->nstacks);
		assert_true(rep->timed[i].thread < rep->nthreads);
		assert_true(rep->timed[i].nanos >= 0);
		assert_true(rep->timed[i].nanos <= rep->end_nanos - rep->start_nanos);
		if (i)
			assert_true(rep->timed[i - 1].nanos <= rep->timed[i].nanos);
	}
	assert_int_equal(sum, rep->total);
	report_free(rep);
	jfr_close(r);
}

static void timeline_jdk17(void **state)
{
	(void)state;
	check_file("../data/jdk17-workload.jfr", NULL, 1);
	check_file("../data/jdk17-workload.jfr", "fib-worker", 2);
}

static void timeline_jdk25(void **state)
{
	(void)state;
	check_file("../data/jdk25-workload.jfr", NULL, 2);
}

static void no_timeline_by_default(void **state)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file("../data/jdk17-workload.jfr", err, sizeof(err));
	struct report_opts o;
	struct report *rep = NULL;
	(void)state;

	assert_non_null(r);
	report_opts_init(&o);
	assert_int_equal(report_read(r, &o, &rep), 0);
	assert_int_equal(rep->ntimed, 0);
	report_free(rep);
	jfr_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(timeline_jdk17),
	    cmocka_unit_test(timeline_jdk25),
	    cmocka_unit_test(no_timeline_by_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

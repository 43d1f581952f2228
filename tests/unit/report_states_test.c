// SPDX-License-Identifier: GPL-2.0
/*
 * The value by state of `lfr report --off-cpu` and `--wall` (report_opts.states): recordings
 * written by lfr's JFR writer (off-CPU intervals with their inline state strings, wall-clock
 * samples with their ThreadState constant-pool keys, over several chunks) read back with the exact
 * value per state, rows that add up to the report's total under thread and time filters, the
 * samples of a type without a state in a row of their own, no table unless asked, and the text
 * view's table; a JDK recording's states through its constant pool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "jfr/writer.h"
#include "jfr/reader.h"
#include "report/report.h"

#define MS 1000000ull
#define S 1000000000ull

static char path[] = "/tmp/lfr-states-XXXXXX";

/* Two threads: 10 "app-main" and 11 "app-io"; one stack; a new chunk at every flush. */
static struct lfr_jfr_writer *new_recording(uint64_t *stack, uint64_t thread[2])
{
	struct lfr_jfr_options opt = {.max_chunk_age_ns = 1};
	struct lfr_jfr_writer *w;
	uint64_t m;
	int fd;

	strcpy(path, "/tmp/lfr-states-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lfr_jfr_open(&w, path, &opt), 0);
	assert_int_equal(lfr_jfr_method(w, "[kernel]", "schedule", LFR_JFR_FRAME_KERNEL, &m), 0);
	assert_int_equal(lfr_jfr_stack(w, &m, 1, false, stack), 0);
	assert_int_equal(lfr_jfr_thread(w, 10, 10, "app-main", "app", &thread[0]), 0);
	assert_int_equal(lfr_jfr_thread(w, 11, 10, "app-io", "app", &thread[1]), 0);
	return w;
}

static uint64_t evcount(const struct report *rep, const char *type)
{
	for (size_t i = 0; i < rep->nevtypes; i++)
		if (!strcmp(rep->evtypes[i].name, type))
			return rep->evtypes[i].count;
	return 0;
}

static struct report *read_back(const struct report_opts *o)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	struct report *rep = NULL;

	if (!r)
		fail_msg("%s", err);
	if (report_read(r, o, &rep) < 0)
		fail_msg("%s", r->err);
	jfr_close(r);
	return rep;
}

/* The value of the state named name, -1 when it has no row. */
static int64_t state_value(const struct report *rep, const char *name)
{
	for (size_t i = 0; i < rep->nstates; i++)
		if (!strcmp(rep->states[i].name, name))
			return (int64_t)rep->states[i].value;
	return -1;
}

/* The rows add up to the total, largest first. */
static void check_rows(const struct report *rep)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < rep->nstates; i++) {
		sum += rep->states[i].value;
		if (i)
			assert_true(rep->states[i - 1].value >= rep->states[i].value);
	}
	assert_int_equal(sum, rep->total);
}

static void off_cpu_opts(struct report_opts *o)
{
	report_opts_init(o);
	o->events[o->nevents++] = "lfr.OffCpu";
	o->value_field = "duration";
	o->off_cpu = true;
	o->states = true;
}

/*
 * Off-CPU intervals one second apart (the k-th at k s after t0), in three chunks:
 * app-main sleeping 300 ms (1 s), uninterruptible 1.5 ms (2 s), sleeping 20 ms (4 s);
 * app-io preempted 2 ms (3 s), idle 7 ms (5 s), other 1 ms (6 s: the writer's name of none).
 */
static void write_off_cpu(void)
{
	uint64_t stack, th[2];
	struct lfr_jfr_writer *w = new_recording(&stack, th);
	uint64_t t0 = lfr_jfr_now();
	const struct {
		int thread;
		const char *state;
		uint64_t ns;
	} iv[] = {
	    {0, "sleeping", 300 * MS}, {0, "uninterruptible", 3 * MS / 2},
	    {1, "preempted", 2 * MS},  {0, "sleeping", 20 * MS},
	    {1, "idle", 7 * MS},       {1, NULL, 1 * MS},
	};

	for (size_t i = 0; i < sizeof(iv) / sizeof(iv[0]); i++) {
		assert_int_equal(lfr_jfr_off_cpu(w, t0 + (i + 1) * S, iv[i].ns, th[iv[i].thread],
		                                 stack, iv[i].state, 0, 0),
		                 0);
		if (i % 2)
			assert_int_equal(lfr_jfr_flush(w), 0);
	}
	assert_int_equal(lfr_jfr_close(w, NULL, 0), 0);
}

static void test_off_cpu_by_state(void **state)
{
	struct report_opts o;
	struct report *rep;

	(void)state;
	write_off_cpu();
	off_cpu_opts(&o);
	rep = read_back(&o);
	assert_true(rep->nchunks >= 3);
	assert_int_equal(rep->total, 331500000);
	assert_int_equal(rep->nstates, 5);
	assert_int_equal(state_value(rep, "sleeping"), 320 * MS);
	assert_int_equal(state_value(rep, "uninterruptible"), 3 * MS / 2);
	assert_int_equal(state_value(rep, "preempted"), 2 * MS);
	assert_int_equal(state_value(rep, "idle"), 7 * MS);
	assert_int_equal(state_value(rep, "other"), 1 * MS);
	assert_string_equal(rep->states[0].name, "sleeping");
	check_rows(rep);
	report_free(rep);

	/* a thread filter: app-io's states alone */
	o.threads[o.nthreads++] = "app-io";
	rep = read_back(&o);
	assert_int_equal(rep->total, 10 * MS);
	assert_int_equal(rep->nstates, 3);
	assert_int_equal(state_value(rep, "idle"), 7 * MS);
	assert_int_equal(state_value(rep, "sleeping"), -1);
	check_rows(rep);
	report_free(rep);

	/* by thread id, and a time range: app-main's intervals from 1.5 s to before 4.5 s */
	o.threads[0] = "10";
	o.from_ns = 3 * S / 2;
	o.to_ns = 9 * S / 2;
	rep = read_back(&o);
	assert_int_equal(rep->total, 21500000);
	assert_int_equal(rep->nstates, 2);
	assert_int_equal(state_value(rep, "sleeping"), 20 * MS);
	assert_int_equal(state_value(rep, "uninterruptible"), 3 * MS / 2);
	check_rows(rep);
	report_free(rep);

	/* not asked for: no table, and the same total */
	off_cpu_opts(&o);
	o.states = false;
	rep = read_back(&o);
	assert_int_equal(rep->total, 331500000);
	assert_int_equal(rep->nstates, 0);
	report_free(rep);
	unlink(path);
}

/* The text view: the table after the threads, each row its value, share and state. */
static void test_off_cpu_text(void **state)
{
	struct report_opts o;
	struct report *rep;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	write_off_cpu();
	off_cpu_opts(&o);
	rep = read_back(&o);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(report_print_text(rep, &o, out), 0);
	fclose(out);
	const char *threads = strstr(text, "\nThreads by off-CPU ns\n");
	const char *table = strstr(text, "\nOff-CPU by state\nOFF-CPU NS      %  STATE\n"
	                                 " 320000000  96.5%  sleeping\n"
	                                 "   7000000   2.1%  idle\n"
	                                 "   2000000   0.6%  preempted\n"
	                                 "   1500000   0.5%  uninterruptible\n"
	                                 "   1000000   0.3%  other\n");
	if (!threads || !table || table < threads)
		fail_msg("no by-state table after the threads in:\n%s", text);
	free(text);
	report_free(rep);
	unlink(path);
}

/*
 * Wall-clock samples: 30 on the CPU (profiler.WallClockSample, STATE_RUNNABLE, each with its CPU
 * sample, a jdk.ExecutionSample in STATE_DEFAULT that --wall leaves out), 12 off it (8
 * STATE_SLEEPING, 4 STATE_PARKED), and 5 sampling latencies (a type with a stack and no state),
 * over two chunks.
 */
static void test_wall_by_state(void **state)
{
	uint64_t stack, th[2];
	struct lfr_jfr_writer *w;
	struct report_opts o;
	struct report *rep;
	uint64_t t;

	(void)state;
	w = new_recording(&stack, th);
	t = lfr_jfr_now();
	for (int i = 0; i < 30; i++) {
		assert_int_equal(
		    lfr_jfr_execution_sample(w, t += MS, th[i % 2], stack, LFR_JFR_STATE_CPU), 0);
		assert_int_equal(
		    lfr_jfr_wall_sample(w, t, th[i % 2], stack, LFR_JFR_STATE_RUNNABLE), 0);
	}
	assert_int_equal(lfr_jfr_flush(w), 0);
	for (int i = 0; i < 12; i++)
		assert_int_equal(
		    lfr_jfr_wall_sample(w, t += MS, th[1], stack,
		                        i < 8 ? LFR_JFR_STATE_SLEEPING : LFR_JFR_STATE_PARKED),
		    0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(lfr_jfr_sampling_latency(w, t += MS, 2 * MS, th[0], stack), 0);
	assert_int_equal(lfr_jfr_close(w, NULL, 0), 0);

	report_opts_init(&o);
	report_opts_wall(&o);
	o.states = true;
	rep = read_back(&o);
	assert_int_equal(rep->nchunks, 2);
	assert_int_equal(rep->total, 42);
	assert_int_equal(rep->nstates, 3);
	assert_string_equal(rep->states[0].name, "STATE_RUNNABLE");
	assert_int_equal(rep->states[0].value, 30);
	assert_int_equal(state_value(rep, "STATE_SLEEPING"), 8);
	assert_int_equal(state_value(rep, "STATE_PARKED"), 4);
	check_rows(rep);
	report_free(rep);

	o.threads[o.nthreads++] = "app-main";
	rep = read_back(&o);
	assert_int_equal(rep->total, 15);
	assert_int_equal(rep->nstates, 1);
	assert_int_equal(state_value(rep, "STATE_RUNNABLE"), 15);
	report_free(rep);

	/* a selected type without a state: its samples in the row of no state */
	report_opts_init(&o);
	o.events[o.nevents++] = "profiler.WallClockSample";
	o.events[o.nevents++] = "lfr.SamplingLatency";
	o.states = true;
	rep = read_back(&o);
	assert_int_equal(rep->total, 47);
	assert_int_equal(state_value(rep, "STATE_RUNNABLE"), 30);
	assert_int_equal(state_value(rep, "STATE_SLEEPING"), 8);
	assert_int_equal(state_value(rep, "STATE_PARKED"), 4);
	assert_int_equal(state_value(rep, "[no state]"), 5);
	check_rows(rep);
	report_free(rep);

	/* only types without a state: no table */
	report_opts_init(&o);
	o.events[o.nevents++] = "lfr.SamplingLatency";
	o.states = true;
	rep = read_back(&o);
	assert_int_equal(rep->total, 5);
	assert_int_equal(rep->nstates, 0);
	report_free(rep);
	unlink(path);
}

/* A JDK 25 recording: the ThreadState of each sample through the chunk's constant pool. */
static void test_jdk_states(void **state)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file("../data/jdk25-workload.jfr", err, sizeof(err));
	struct report_opts o;
	struct report *rep = NULL;

	(void)state;
	if (!r)
		fail_msg("%s", err);
	/* no profiler.WallClockSample declared: --wall reads jdk.ExecutionSample and
	 * jdk.NativeMethodSample, the wall-clock samples of lfr's earlier files */
	report_opts_init(&o);
	report_opts_wall(&o);
	o.states = true;
	assert_int_equal(report_read(r, &o, &rep), 0);
	assert_true(rep->total > 0);
	assert_int_equal(rep->total, evcount(rep, "jdk.ExecutionSample") +
	                                 evcount(rep, "jdk.NativeMethodSample"));
	assert_true(rep->nstates >= 1);
	for (size_t i = 0; i < rep->nstates; i++)
		assert_int_equal(strncmp(rep->states[i].name, "STATE_", 6), 0);
	check_rows(rep);
	report_free(rep);
	jfr_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_off_cpu_by_state),
	    cmocka_unit_test(test_off_cpu_text),
	    cmocka_unit_test(test_wall_by_state),
	    cmocka_unit_test(test_jdk_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

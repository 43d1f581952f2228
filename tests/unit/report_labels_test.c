// SPDX-License-Identifier: GPL-2.0
/*
 * Labels end to end on the host: the writer's lfr.Label events (the recording's in every chunk,
 * a process's in every chunk that holds its threads' events, and only there), read back by the
 * report, a thread's label by its process with the recording's and the process name as
 * fallbacks, and lfr top's label filter.
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

#include "jfr/reader.h"
#include "jfr/writer.h"
#include "report/labels.h"
#include "report/report.h"
#include "report/top.h"

static uint64_t now_ns = 1000000000ull;
static uint64_t fake_clock(void)
{
	return now_ns;
}

static uint64_t label_events(const struct report *rep)
{
	for (size_t i = 0; i < rep->nevtypes; i++)
		if (!strcmp(rep->evtypes[i].name, "lfr.Label"))
			return rep->evtypes[i].count;
	return 0;
}

/*
 * Three chunks: the first with samples of processes 100 and 200, the second of 100 only, the
 * third of 300 (no labels).  Labels: the recording's host.name and env; 100's service and
 * container; 200's service.
 */
static char *write_file(void)
{
	static char path[64];
	struct lfr_jfr_options opt = {.clock = fake_clock, .clock_realtime0 = 1700000000000000000};
	struct lfr_jfr_writer *w;
	uint64_t m, st, t[3];
	const char *own[] = {"host.name", "h1", "env", "prod"};
	const char *p100[] = {"service.name", "checkout", "container.id", "c100"};
	const char *p200[] = {"service.name", "db"};
	char err[256];
	int fd;

	snprintf(path, sizeof(path), "/tmp/lfr-labels-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	opt.max_chunk_age_ns = 1; /* every flush with events starts a new chunk */
	assert_int_equal(lfr_jfr_open(&w, path, &opt), 0);
	assert_int_equal(lfr_jfr_method(w, "app", "main", LFR_JFR_FRAME_NATIVE, &m), 0);
	assert_int_equal(lfr_jfr_stack(w, &m, 1, false, &st), 0);
	assert_int_equal(lfr_jfr_thread(w, 101, 100, "t100", "app", &t[0]), 0);
	assert_int_equal(lfr_jfr_thread(w, 201, 200, "t200", "postgres", &t[1]), 0);
	assert_int_equal(lfr_jfr_thread(w, 301, 300, "t300", "loner", &t[2]), 0);
	assert_int_equal(lfr_jfr_labels(w, now_ns, 0, own, 2), 0);
	assert_int_equal(lfr_jfr_labels(w, now_ns, 100, p100, 2), 0);
	assert_int_equal(lfr_jfr_labels(w, now_ns, 200, p200, 1), 0);
	for (int i = 0; i < 3; i++) {
		now_ns += 1000;
		assert_int_equal(lfr_jfr_execution_sample(w, now_ns, t[0], st, 1), 0);
		now_ns += 1000;
		assert_int_equal(lfr_jfr_execution_sample(w, now_ns, t[1], st, 1), 0);
	}
	assert_int_equal(lfr_jfr_flush(w), 0);
	now_ns += 1000000;
	assert_int_equal(lfr_jfr_execution_sample(w, now_ns, t[0], st, 1), 0);
	assert_int_equal(lfr_jfr_flush(w), 0);
	now_ns += 1000000;
	assert_int_equal(lfr_jfr_execution_sample(w, now_ns, t[2], st, 1), 0);
	assert_int_equal(lfr_jfr_close(w, err, sizeof(err)), 0);
	return path;
}

static struct report *read_file(const char *path)
{
	struct report_opts o;
	struct report *rep = NULL;
	char err[256];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));

	assert_non_null(r);
	report_opts_init(&o);
	o.timeline = true;
	assert_int_equal(report_read(r, &o, &rep), 0);
	jfr_close(r);
	return rep;
}

static const struct report_thread *thread(const struct report *rep, int64_t tid)
{
	for (size_t i = 0; i < rep->nthreads; i++)
		if (rep->threads[i].tid == tid)
			return &rep->threads[i];
	fail_msg("no thread %lld", (long long)tid);
	return NULL;
}

static void labels_in_chunks(void **state)
{
	char *path = write_file(), buf[32];
	struct report *rep = read_file(path);
	const struct report_thread *a = thread(rep, 101), *b = thread(rep, 201),
	                           *c = thread(rep, 301);

	(void)state;
	assert_int_equal(rep->nchunks, 3);
	/* the recording's 2 in each of 3 chunks; 100's 2 in two, 200's 1 in the first */
	assert_int_equal(label_events(rep), 2 * 3 + 2 * 2 + 1);
	assert_string_equal(report_thread_label(rep, a, "service.name", buf, sizeof(buf)),
	                    "checkout");
	assert_string_equal(report_thread_label(rep, a, "container.id", buf, sizeof(buf)), "c100");
	assert_string_equal(report_thread_label(rep, b, "service.name", buf, sizeof(buf)), "db");
	assert_null(report_thread_label(rep, b, "container.id", buf, sizeof(buf)));
	/* a process without labels: the recording's, and its name for its service */
	assert_string_equal(report_thread_label(rep, c, "service.name", buf, sizeof(buf)), "loner");
	assert_string_equal(report_thread_label(rep, c, "host.name", buf, sizeof(buf)), "h1");
	assert_string_equal(report_thread_label(rep, c, "env", buf, sizeof(buf)), "prod");
	assert_string_equal(report_thread_label(rep, c, "process.pid", buf, sizeof(buf)), "300");
	assert_string_equal(report_label_name("pod"), "k8s.pod.uid");
	assert_string_equal(report_label_name("team"), "team");
	report_free(rep);
	unlink(path);
}

/* -s service: the samples by each process's service */
static void by_service_text(void **state)
{
	char *path = write_file(), *text = NULL;
	size_t len = 0;
	struct report *rep = read_file(path);
	struct report_opts o;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	report_opts_init(&o);
	o.sort_label = "service";
	assert_int_equal(report_print_text(rep, &o, out), 0);
	fclose(out);
	assert_non_null(strstr(text, "Samples by service.name"));
	assert_non_null(strstr(text, "         4  50.0%        1  checkout"));
	assert_non_null(strstr(text, "         3  37.5%        1  db"));
	assert_non_null(strstr(text, "         1  12.5%        1  loner"));
	free(text);
	report_free(rep);
	unlink(path);
}

/* lfr top --label service=checkout: that service's samples only */
static void top_label_filter(void **state)
{
	char *path = write_file();
	struct report *rep = read_file(path);
	struct top_opts o;
	struct top_table t;

	(void)state;
	top_opts_init(&o);
	o.label_name = "service";
	o.label_value = "checkout";
	assert_int_equal(top_build(rep, &o, &t), 0);
	assert_int_equal(t.events, 4);
	top_free(&t);
	o.label_name = "container.id";
	o.label_value = "none-such";
	assert_int_equal(top_build(rep, &o, &t), 0);
	assert_int_equal(t.events, 0);
	top_free(&t);
	report_free(rep);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(labels_in_chunks),
	    cmocka_unit_test(by_service_text),
	    cmocka_unit_test(top_label_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

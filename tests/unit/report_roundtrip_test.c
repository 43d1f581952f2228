// SPDX-License-Identifier: GPL-2.0
/*
 * Round trip: a recording written by lfr's JFR writer (several flushes and chunks, native, kernel
 * and executable frames, two processes, lost samples) is read back by `lfr report`'s reader with
 * the exact counts per thread, per leaf function and per loss reason, and the process filters work.
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
#include "report/views.h"

#define NTHREADS 4
#define NSTACKS 5

static char path[] = "/tmp/lfr-roundtrip-XXXXXX";
static uint64_t want_thread[NTHREADS], want_leaf_memcpy, want_leaf_kernel, want_total;

static void write_recording(void)
{
	struct lfr_jfr_writer *w;
	struct lfr_jfr_options opt = {.max_chunk_bytes = 64 * 1024};
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lfr_jfr_open(&w, path, &opt), 0);

	uint64_t m_main, m_work, m_memcpy, m_write, m_sys;
	assert_int_equal(lfr_jfr_method(w, "app", "main", LFR_JFR_FRAME_NATIVE, &m_main), 0);
	assert_int_equal(lfr_jfr_method(w, "app", "work", LFR_JFR_FRAME_NATIVE, &m_work), 0);
	assert_int_equal(lfr_jfr_method(w, "libc.so.6", "memcpy", LFR_JFR_FRAME_NATIVE, &m_memcpy),
	                 0);
	assert_int_equal(lfr_jfr_method(w, "libc.so.6", "__write", LFR_JFR_FRAME_NATIVE, &m_write),
	                 0);
	assert_int_equal(
	    lfr_jfr_method(w, "[kernel]", "do_syscall_64", LFR_JFR_FRAME_KERNEL, &m_sys), 0);
	/* leaf first */
	uint64_t s0[] = {m_main}, s1[] = {m_work, m_main}, s2[] = {m_memcpy, m_work, m_main},
	         s3[] = {m_write, m_work, m_main}, s4[] = {m_sys, m_write, m_work, m_main};
	const uint64_t *frames[NSTACKS] = {s0, s1, s2, s3, s4};
	size_t depth[NSTACKS] = {1, 2, 3, 3, 4};
	uint64_t stacks[NSTACKS], threads[NTHREADS];
	for (int i = 0; i < NSTACKS; i++)
		assert_int_equal(lfr_jfr_stack(w, frames[i], depth[i], false, &stacks[i]), 0);
	const char *names[NTHREADS] = {"app-main", "app-worker", "app-io", "other-main"};
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(lfr_jfr_thread(w, 1000 + i, i < 3 ? 1000 : 2000, names[i],
		                                i < 3 ? "app" : "other", &threads[i]),
		                 0);
	uint64_t t = lfr_jfr_now();
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 3000; i++) {
			int th = (i * 7 + round) % NTHREADS, st = (i * 13 + round * 3) % NSTACKS;
			assert_int_equal(lfr_jfr_execution_sample(w, t += 1000, threads[th],
			                                          stacks[st],
			                                          LFR_JFR_STATE_RUNNABLE),
			                 0);
			want_thread[th]++;
			want_leaf_memcpy += st == 2;
			want_leaf_kernel += st == 4;
			want_total++;
		}
		assert_int_equal(
		    lfr_jfr_lost_samples(w, t, round % 2 ? "ring full" : "fault", round + 1), 0);
		assert_int_equal(lfr_jfr_flush(w), 0);
	}
	assert_int_equal(lfr_jfr_close(w, NULL, 0), 0);
}

static struct report *read_back(struct report_opts *o)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	if (!r)
		fail_msg("%s", err);
	struct report *rep = NULL;
	if (report_read(r, o, &rep) < 0)
		fail_msg("%s", r->err);
	jfr_close(r);
	return rep;
}

static void test_roundtrip(void **state)
{
	(void)state;
	write_recording();
	struct report_opts o;
	report_opts_init(&o);
	struct report *rep = read_back(&o);

	assert_true(rep->nchunks > 1);
	assert_int_equal(rep->total, want_total);
	assert_int_equal(rep->nthreads, NTHREADS);
	for (size_t i = 0; i < rep->nthreads; i++) {
		const struct report_thread *t = &rep->threads[i];
		assert_true(t->tid >= 1000 && t->tid < 1000 + NTHREADS);
		assert_int_equal(t->value, want_thread[t->tid - 1000]);
		assert_int_equal(t->pid, t->tid < 1003 ? 1000 : 2000);
		assert_string_equal(t->process, t->tid < 1003 ? "app" : "other");
	}
	uint64_t *self, *total;
	assert_int_equal(views_frame_totals(rep, &self, &total), 0);
	int seen = 0;
	for (size_t i = 0; i < rep->nframes; i++) {
		const struct report_frame *f = &rep->frames[i];
		if (!strcmp(f->name, "memcpy")) {
			assert_int_equal(f->kind, RF_NATIVE);
			assert_int_equal(self[i], want_leaf_memcpy);
			seen++;
		} else if (!strcmp(f->name, "do_syscall_64")) {
			assert_int_equal(f->kind, RF_KERNEL);
			assert_int_equal(self[i], want_leaf_kernel);
			seen++;
		} else if (!strcmp(f->name, "main")) {
			assert_int_equal(total[i], want_total);
			seen++;
		}
	}
	assert_int_equal(seen, 3);
	free(self);
	free(total);
	/* lost samples per reason: 1+3+...+19 for "fault", 2+4+...+20 for "ring full" */
	uint64_t fault = 0, full = 0;
	for (size_t i = 0; i < rep->nlost; i++) {
		assert_string_equal(rep->lost[i].type, "lfr.LostSamples");
		if (!strcmp(rep->lost[i].reason, "fault"))
			fault = rep->lost[i].amount;
		if (!strcmp(rep->lost[i].reason, "ring full"))
			full = rep->lost[i].amount;
	}
	assert_int_equal(fault, 100);
	assert_int_equal(full, 110);
	report_free(rep);

	/* process filters: by pid and by name */
	o.processes[o.nprocesses++] = "2000";
	rep = read_back(&o);
	assert_int_equal(rep->total, want_thread[3]);
	report_free(rep);
	o.processes[0] = "app";
	rep = read_back(&o);
	assert_int_equal(rep->total, want_total - want_thread[3]);
	report_free(rep);
	unlink(path);
}

/* A writer of a new recording at path. */
static struct lfr_jfr_writer *new_recording(void)
{
	struct lfr_jfr_writer *w;
	int fd;

	strcpy(path, "/tmp/lfr-roundtrip-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lfr_jfr_open(&w, path, NULL), 0);
	return w;
}

/* What a view prints of rep, as a string (free it); *len its length. */
static char *print_to_string(void (*print)(const struct report *, const struct report_opts *,
                                           FILE *),
                             const struct report *rep, const struct report_opts *o, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);

	assert_non_null(out);
	print(rep, o, out);
	fclose(out);
	return text;
}

/* The text view as print_to_string() takes a view. */
static void print_text(const struct report *rep, const struct report_opts *o, FILE *out)
{
	assert_int_equal(report_print_text(rep, o, out), 0);
}

/* Folded stacks carry no control byte of a frame's name: a name cannot move a terminal's cursor. */
static void test_folded_names_have_no_control_bytes(void **state)
{
	struct lfr_jfr_writer *w = new_recording();
	uint64_t m[2], stack, thread, t = lfr_jfr_now();
	char *text;
	size_t len = 0;

	(void)state;
	assert_int_equal(
	    lfr_jfr_method(w, "app", "evil\x1b[2J\x07name", LFR_JFR_FRAME_NATIVE, &m[0]), 0);
	assert_int_equal(lfr_jfr_method(w, "app", "tab\there;semi", LFR_JFR_FRAME_NATIVE, &m[1]),
	                 0);
	assert_int_equal(lfr_jfr_stack(w, m, 2, false, &stack), 0);
	assert_int_equal(lfr_jfr_thread(w, 7, 7, "app", "app", &thread), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(
		    lfr_jfr_execution_sample(w, t += 1000, thread, stack, LFR_JFR_STATE_RUNNABLE),
		    0);
	assert_int_equal(lfr_jfr_close(w, NULL, 0), 0);

	struct report_opts o;
	report_opts_init(&o);
	struct report *rep = read_back(&o);
	text = print_to_string(report_print_collapsed, rep, &o, &len);
	report_free(rep);
	unlink(path);
	assert_non_null(strstr(text, "evil"));
	assert_non_null(strstr(text, " 3\n"));
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			assert_true(text[i] == '\n' && i == len - 1);
	free(text);
}

/*
 * Functions of the same name in two objects stay two frames, each with its object, and the text
 * report's top objects (--sort dso) counts each object's samples.
 */
static void test_same_name_in_two_objects(void **state)
{
	struct lfr_jfr_writer *w = new_recording();
	uint64_t a[2], b[2], sa, sb, thread, t = lfr_jfr_now();
	char *text;
	size_t len = 0;
	int helpers = 0;

	(void)state;
	assert_int_equal(lfr_jfr_method(w, "libA.so", "helper", LFR_JFR_FRAME_NATIVE, &a[0]), 0);
	assert_int_equal(lfr_jfr_method(w, "libB.so", "helper", LFR_JFR_FRAME_NATIVE, &b[0]), 0);
	assert_int_equal(lfr_jfr_method(w, "app", "main", LFR_JFR_FRAME_NATIVE, &a[1]), 0);
	b[1] = a[1];
	assert_int_equal(lfr_jfr_stack(w, a, 2, false, &sa), 0);
	assert_int_equal(lfr_jfr_stack(w, b, 2, false, &sb), 0);
	assert_int_equal(lfr_jfr_thread(w, 7, 7, "app", "app", &thread), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(lfr_jfr_execution_sample(w, t += 1000, thread, i < 7 ? sa : sb,
		                                          LFR_JFR_STATE_RUNNABLE),
		                 0);
	assert_int_equal(lfr_jfr_close(w, NULL, 0), 0);

	struct report_opts o;
	report_opts_init(&o);
	struct report *rep = read_back(&o);
	for (size_t i = 0; i < rep->nframes; i++) {
		if (strcmp(rep->frames[i].name, "helper"))
			continue;
		assert_non_null(rep->frames[i].object);
		assert_true(!strcmp(rep->frames[i].object, "libA.so") ||
		            !strcmp(rep->frames[i].object, "libB.so"));
		helpers++;
	}
	assert_int_equal(helpers, 2);
	o.sort_objects = true;
	text = print_to_string(print_text, rep, &o, &len);
	report_free(rep);
	unlink(path);
	assert_non_null(strstr(text, "Top objects by self samples"));
	assert_non_null(strstr(text, "70.0%         10 100.0%  libA.so")
	                    ?: strstr(text, "libA.so"));
	assert_non_null(strstr(text, "libB.so"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_folded_names_have_no_control_bytes),
	    cmocka_unit_test(test_same_name_in_two_objects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The trace contexts of `lfr report`: a recording written by lfr's JFR writer, whose samples have
 * lfr.TraceContext events (before or after them, over two chunks, one context in both) read back
 * with --span and --trace selecting exactly their samples, -s span and -s trace summing them, the
 * samples without a context kept apart, and the pprof and HTML views carrying them.
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
#include <zlib.h>

#include "jfr/reader.h"
#include "jfr/writer.h"
#include "report/report.h"
#include "report/views.h"

static char path[] = "/tmp/lfr-contexts-XXXXXX";

static const uint8_t T1[16] = {0xa1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const uint8_t T2[16] = {0xb2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const uint8_t S1[8] = {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11};
static const uint8_t S2[8] = {0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22};
static const uint8_t S3[8] = {0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89};
#define T1_HEX                                                                                     \
	"a1010203040506070809"                                                                     \
	"0a0b0c0d0e0f"
#define T2_HEX                                                                                     \
	"b2010203040506070809"                                                                     \
	"0a0b0c0d0e0f"
#define S1_HEX "1111111111111111"
#define S2_HEX "2222222222222222"
#define S3_HEX "abcdef0123456789"

/*
 * Thread 11 runs span_a in S1 (5 samples) and other without a context (4); thread 12 runs span_b
 * in S2 (3) and in S3 (2), S3's event written before its sample.  A new chunk after the first
 * half: S1's context is in both.
 */
static void write_recording(void)
{
	struct lfr_jfr_options opt = {.max_chunk_age_ns = 1};
	const struct lfr_jfr_attr route = {"http.route", "/a", 10, 2};
	/* what a W3C baggage string must escape: separators, blanks, '%', quotes, non-ASCII */
	const struct lfr_jfr_attr odd[2] = {{"db.statement", "a,b=c;d %e\\", 12, 11},
	                                    {"k\"ey", "caf\xc3\xa9", 4, 5}};
	uint64_t m[3], st[3], th[2], c1, c2, c3, t = 1000;
	struct lfr_jfr_writer *w;
	int fd;

	strcpy(path, "/tmp/lfr-contexts-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lfr_jfr_open(&w, path, &opt), 0);
	assert_int_equal(lfr_jfr_method(w, "app", "span_a", LFR_JFR_FRAME_NATIVE, &m[0]), 0);
	assert_int_equal(lfr_jfr_method(w, "app", "span_b", LFR_JFR_FRAME_NATIVE, &m[1]), 0);
	assert_int_equal(lfr_jfr_method(w, "app", "other", LFR_JFR_FRAME_NATIVE, &m[2]), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(lfr_jfr_stack(w, &m[i], 1, false, &st[i]), 0);
	assert_int_equal(lfr_jfr_thread(w, 11, 10, "worker-a", "app", &th[0]), 0);
	assert_int_equal(lfr_jfr_thread(w, 12, 10, "worker-b", "app", &th[1]), 0);
	assert_int_equal(lfr_jfr_context(w, T1, S1, 1, &route, 1, &c1), 0);
	assert_int_equal(lfr_jfr_context(w, T1, S2, 1, odd, 2, &c2), 0);
	assert_int_equal(lfr_jfr_context(w, T2, S3, 0, NULL, 0, &c3), 0);
	for (int half = 0; half < 2; half++) {
		for (int i = 0; i < 3 - half; i++, t += 10) { /* 3 + 2 in S1 */
			assert_int_equal(
			    lfr_jfr_execution_sample(w, t, th[0], st[0], LFR_JFR_STATE_RUNNABLE),
			    0);
			assert_int_equal(lfr_jfr_trace_context(w, t, th[0], c1), 0);
		}
		for (int i = 0; i < 2; i++, t += 10)
			assert_int_equal(
			    lfr_jfr_execution_sample(w, t, th[0], st[2], LFR_JFR_STATE_RUNNABLE),
			    0);
		assert_int_equal(lfr_jfr_flush(w), 0);
	}
	for (int i = 0; i < 3; i++, t += 10) {
		assert_int_equal(
		    lfr_jfr_execution_sample(w, t, th[1], st[1], LFR_JFR_STATE_RUNNABLE), 0);
		assert_int_equal(lfr_jfr_trace_context(w, t, th[1], c2), 0);
	}
	for (int i = 0; i < 2; i++, t += 10) {
		/* the context before its sample: a reader takes any order */
		assert_int_equal(lfr_jfr_trace_context(w, t, th[1], c3), 0);
		assert_int_equal(
		    lfr_jfr_execution_sample(w, t, th[1], st[1], LFR_JFR_STATE_RUNNABLE), 0);
	}
	/* a context of no sample's instant: nothing */
	assert_int_equal(lfr_jfr_trace_context(w, t + 5, th[1], c3), 0);
	assert_int_equal(lfr_jfr_close(w, NULL, 0), 0);
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

static uint64_t frame_self(const struct report *rep, const char *name)
{
	uint64_t *self, *total, v = 0;

	assert_int_equal(views_frame_totals(rep, &self, &total), 0);
	for (size_t i = 0; i < rep->nframes; i++)
		if (!strcmp(rep->frames[i].name, name))
			v = self[i];
	free(self);
	free(total);
	return v;
}

static const struct report_context *context_of(const struct report *rep, const char *span)
{
	for (size_t i = 1; i < rep->ncontexts; i++)
		if (!strcmp(rep->contexts[i].span_id, span))
			return &rep->contexts[i];
	return NULL;
}

/* --span, --trace: exactly their samples, by the hex of their ids in any case. */
static void test_filters(void **state)
{
	static const struct {
		const char *spans[2], *traces[2];
		uint64_t total, a, b;
	} cases[] = {
	    {{S1_HEX}, {NULL}, 5, 5, 0},
	    {{S3_HEX}, {NULL}, 2, 0, 2},
	    {{"ABCDEF0123456789"}, {NULL}, 2, 0, 2},
	    {{S2_HEX, S3_HEX}, {NULL}, 5, 0, 5},
	    {{NULL}, {T1_HEX}, 8, 5, 3},
	    {{NULL}, {T2_HEX}, 2, 0, 2},
	    {{S1_HEX}, {T2_HEX}, 7, 5, 2},
	    {{"0000000000000000"}, {NULL}, 0, 0, 0},
	};

	(void)state;
	write_recording();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct report_opts o;
		struct report *rep;

		report_opts_init(&o);
		for (int k = 0; k < 2; k++) {
			if (cases[i].spans[k])
				o.spans[o.nspans++] = cases[i].spans[k];
			if (cases[i].traces[k])
				o.traces[o.ntraces++] = cases[i].traces[k];
		}
		rep = read_back(&o);
		assert_int_equal(rep->sample_events, 14);
		assert_int_equal(rep->total, cases[i].total);
		assert_int_equal(frame_self(rep, "span_a"), cases[i].a);
		assert_int_equal(frame_self(rep, "span_b"), cases[i].b);
		assert_int_equal(frame_self(rep, "other"), 0);
		report_free(rep);
	}
	unlink(path);
}

/* -s span, -s trace: the contexts and their values, one S1 over both chunks; the rest none. */
static void test_by_context(void **state)
{
	struct report_opts o;
	struct report *rep;
	const struct report_context *c;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	write_recording();
	report_opts_init(&o);
	o.sort_ctx = REPORT_BY_SPAN;
	rep = read_back(&o);
	assert_int_equal(rep->total, 14);
	assert_int_equal(rep->ncontexts, 4);
	assert_non_null(c = context_of(rep, S1_HEX));
	assert_int_equal(c->value, 5);
	assert_string_equal(c->trace_id, T1_HEX);
	assert_int_equal(c->flags, 1);
	assert_int_equal(c->nattrs, 1);
	assert_string_equal(c->attrs, "http.route");
	assert_string_equal(c->attrs + strlen("http.route") + 1, "/a");
	assert_non_null(c = context_of(rep, S2_HEX));
	assert_int_equal(c->value, 3);
	assert_int_equal(c->nattrs, 2);
	assert_string_equal(c->attrs, "db.statement");
	assert_string_equal(c->attrs + 13, "a,b=c;d %e\\");
	assert_string_equal(c->attrs + 13 + 12, "k\"ey");
	assert_string_equal(c->attrs + 13 + 12 + 5, "caf\xc3\xa9");
	assert_int_equal(context_of(rep, S3_HEX)->value, 2);
	for (size_t i = 0; i < rep->nsamples; i++)
		if (!strcmp(rep->frames[rep->stack_frames[rep->stacks[rep->samples[i].stack].first]]
		                .name,
		            "other"))
			assert_int_equal(rep->samples[i].ctx, 0);
	out = open_memstream(&text, &len);
	assert_int_equal(report_print_text(rep, &o, out), 0);
	fclose(out);
	assert_non_null(strstr(text, "Top spans by samples"));
	assert_non_null(strstr(text, "5  35.7%  " S1_HEX " " T1_HEX " http.route=/a"));
	assert_non_null(strstr(text, "4  28.6%  [no trace context]"));
	free(text);
	report_free(rep);

	o.sort_ctx = REPORT_BY_TRACE;
	rep = read_back(&o);
	out = open_memstream(&text, &len);
	assert_int_equal(report_print_text(rep, &o, out), 0);
	fclose(out);
	assert_non_null(strstr(text, "8  57.1%  " T1_HEX "      2"));
	assert_non_null(strstr(text, "2  14.3%  " T2_HEX "      1"));
	free(text);
	report_free(rep);
	unlink(path);
}

/* The pprof profile labels each sample with its context; the HTML page lists the contexts. */
static void test_views(void **state)
{
	struct report_opts o;
	struct report *rep;
	char *buf = NULL, raw[1 << 16];
	size_t len = 0;
	uLongf rawlen = sizeof(raw);
	z_stream zs = {0};
	FILE *out;

	(void)state;
	write_recording();
	report_opts_init(&o);
	o.contexts = true;
	rep = read_back(&o);
	out = open_memstream(&buf, &len);
	assert_int_equal(report_print_pprof(rep, &o, out), 0);
	fclose(out);
	zs.next_in = (Bytef *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)raw;
	zs.avail_out = (uInt)sizeof(raw);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	rawlen = zs.total_out;
	inflateEnd(&zs);
	assert_non_null(memmem(raw, rawlen, "trace_id", 8));
	assert_non_null(memmem(raw, rawlen, "span_id", 7));
	assert_non_null(memmem(raw, rawlen, S3_HEX, 16));
	assert_non_null(memmem(raw, rawlen, "http.route", 10));
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	report_print_html(rep, &o, out);
	fclose(out);
	assert_non_null(strstr(buf, "\"contexts\":[null,["));
	assert_non_null(strstr(buf, "{\"http.route\":\"/a\"}"));
	assert_non_null(strstr(buf, "id=\"trace\""));
	free(buf);
	report_free(rep);
	unlink(path);
}

/*
 * Every field of every type lfr declares is of a kind Pyroscope's JFR parser (grafana/jfr-parser)
 * reads: it knows boolean, short, int, long, float and String among the primitives, and refuses a
 * whole file at the first constant pool or event that holds a byte, a char or a double (the trace
 * context's flags were a byte once: every upload of a recording with contexts failed).
 */
static void fields_pyroscope_reads(void **state)
{
	char err[256];
	struct jfr_reader *r;
	struct jfr_chunk ch;

	(void)state;
	write_recording();
	r = jfr_open_file(path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(jfr_chunk_load(r, 0, &ch), 0);
	for (int i = 0; i < ch.meta->ntypes; i++) {
		const struct jfr_type *t = &ch.meta->types[i];

		for (int j = 0; j < t->nfields; j++) {
			enum jfr_kind k = t->fields[j].type->kind;

			if (k == JFR_K_BYTE || k == JFR_K_CHAR || k == JFR_K_DOUBLE)
				fail_msg("%s.%s is a %s", t->name, t->fields[j].name,
				         t->fields[j].type->name);
		}
	}
	jfr_chunk_release(&ch);
	jfr_close(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_filters),
	    cmocka_unit_test(test_by_context),
	    cmocka_unit_test(test_views),
	    cmocka_unit_test(fields_pyroscope_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

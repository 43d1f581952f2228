// SPDX-License-Identifier: GPL-2.0
/*
 * `lfr report --format pprof`: the report as pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), gzipped, for `go tool pprof` and the tools that read its format.
 *
 * One Function and one Location per report frame (ids = frame index + 1), one Sample per (stack,
 * thread) with the summed value and the thread as labels; the string table holds the fixed
 * strings, then every frame name, then every thread name, so indices are computed, not searched.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/protobuf.h"
#include "report/report.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	LOCATION_ID = 1,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

/* string table: fixed entries, then frame names, then thread names */
enum {
	S_EMPTY,
	S_TYPE,
	S_UNIT,
	S_THREAD,
	S_TID,
	S_PID,
	S_CPU,
	S_NANOS,
	S_KIND0,
	S_FIXED = S_KIND0 + 4
};
static const char *const kind_names[] = {"java", "native", "c++", "kernel"}; /* RF_* order */

static int gzip_out(const struct pb_buf *b, FILE *out)
{
	z_stream zs = {0};
	uint8_t chunk[65536];
	int rc;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -1;
	zs.next_in = b->data;
	zs.avail_in = (uInt)b->len;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		rc = deflate(&zs, Z_FINISH);
		fwrite(chunk, 1, sizeof(chunk) - zs.avail_out, out);
	} while (rc == Z_OK);
	deflateEnd(&zs);
	return rc == Z_STREAM_END ? 0 : -1;
}

static void label_str(struct pb_buf *msg, struct pb_buf *tmp, uint64_t key, uint64_t str)
{
	pb_reset(tmp);
	pb_uint(tmp, LABEL_KEY, key);
	pb_uint(tmp, LABEL_STR, str);
	pb_message(msg, SAMPLE_LABEL, tmp);
}

static void label_num(struct pb_buf *msg, struct pb_buf *tmp, uint64_t key, int64_t num)
{
	pb_reset(tmp);
	pb_uint(tmp, LABEL_KEY, key);
	pb_uint(tmp, LABEL_NUM, (uint64_t)num);
	pb_message(msg, SAMPLE_LABEL, tmp);
}

int report_print_pprof(const struct report *rep, const struct report_opts *o, FILE *out)
{
	struct pb_buf p = {0}, msg = {0}, sub = {0}, lab = {0};
	uint64_t *locs = NULL;
	size_t maxdepth = 1;
	int ret = 0;

	for (size_t i = 0; i < rep->nstacks; i++)
		if (rep->stacks[i].depth > maxdepth)
			maxdepth = rep->stacks[i].depth;
	locs = malloc(maxdepth * sizeof(*locs));
	if (!locs)
		goto oom;
	const uint64_t s_frames = S_FIXED, s_threads = S_FIXED + rep->nframes;

	/* samples of a known period (lfr's) stand for CPU time too: count x period */
	const int64_t period = o->value_field ? 0 : rep->period_ns;

	pb_reset(&msg);
	pb_uint(&msg, VALUE_TYPE_TYPE, S_TYPE);
	pb_uint(&msg, VALUE_TYPE_UNIT, S_UNIT);
	pb_message(&p, PROFILE_SAMPLE_TYPE, &msg);
	if (period) {
		pb_reset(&msg);
		pb_uint(&msg, VALUE_TYPE_TYPE, S_CPU);
		pb_uint(&msg, VALUE_TYPE_UNIT, S_NANOS);
		pb_message(&p, PROFILE_SAMPLE_TYPE, &msg);
	}
	pb_reset(&msg);
	pb_uint(&msg, VALUE_TYPE_TYPE, period ? S_CPU : S_TYPE);
	pb_uint(&msg, VALUE_TYPE_UNIT, period ? S_NANOS : S_UNIT);
	pb_message(&p, PROFILE_PERIOD_TYPE, &msg);
	pb_uint(&p, PROFILE_PERIOD, period ? (uint64_t)period : 1);
	/* the counts stay what `go tool pprof -top` shows, as lfr report's text does */
	pb_uint(&p, PROFILE_DEFAULT_SAMPLE_TYPE, S_TYPE);

	for (size_t i = 0; i < rep->nsamples; i++) {
		const struct report_sample *s = &rep->samples[i];
		const struct report_stack *st = &rep->stacks[s->stack];
		const struct report_thread *t = &rep->threads[s->thread];
		if (!s->value)
			continue;
		for (uint32_t d = 0; d < st->depth; d++) /* leaf first, as in pprof */
			locs[d] = rep->stack_frames[st->first + d] + 1;
		pb_reset(&msg);
		pb_packed(&msg, SAMPLE_LOCATION_ID, locs, st->depth);
		uint64_t values[2] = {s->value, s->value * (uint64_t)period};

		pb_packed(&msg, SAMPLE_VALUE, values, period ? 2 : 1);
		label_str(&msg, &lab, S_THREAD, s_threads + s->thread);
		label_num(&msg, &lab, S_TID, t->tid);
		if (t->pid >= 0)
			label_num(&msg, &lab, S_PID, t->pid);
		pb_message(&p, PROFILE_SAMPLE, &msg);
	}
	for (size_t i = 0; i < rep->nframes; i++) {
		pb_reset(&msg);
		pb_uint(&msg, LOCATION_ID, i + 1);
		pb_reset(&sub);
		pb_uint(&sub, LINE_FUNCTION_ID, i + 1);
		pb_message(&msg, LOCATION_LINE, &sub);
		pb_message(&p, PROFILE_LOCATION, &msg);
	}
	for (size_t i = 0; i < rep->nframes; i++) {
		pb_reset(&msg);
		pb_uint(&msg, FUNCTION_ID, i + 1);
		pb_uint(&msg, FUNCTION_NAME, s_frames + i);
		pb_uint(&msg, FUNCTION_SYSTEM_NAME, s_frames + i);
		/* the frame kind as the file name: pprof's -focus/-show can then select kernel code
		 */
		pb_uint(&msg, FUNCTION_FILENAME, S_KIND0 + (rep->frames[i].kind & 3));
		pb_message(&p, PROFILE_FUNCTION, &msg);
	}
	pb_string(&p, PROFILE_STRING_TABLE, "");
	pb_string(&p, PROFILE_STRING_TABLE, o->value_field ? o->value_field : "samples");
	pb_string(&p, PROFILE_STRING_TABLE, "count");
	pb_string(&p, PROFILE_STRING_TABLE, "thread");
	pb_string(&p, PROFILE_STRING_TABLE, "tid");
	pb_string(&p, PROFILE_STRING_TABLE, "pid");
	pb_string(&p, PROFILE_STRING_TABLE, "cpu");
	pb_string(&p, PROFILE_STRING_TABLE, "nanoseconds");
	for (int k = 0; k < 4; k++)
		pb_string(&p, PROFILE_STRING_TABLE, kind_names[k]);
	for (size_t i = 0; i < rep->nframes; i++)
		pb_string(&p, PROFILE_STRING_TABLE, rep->frames[i].name);
	for (size_t i = 0; i < rep->nthreads; i++)
		pb_string(&p, PROFILE_STRING_TABLE,
		          rep->threads[i].name ? rep->threads[i].name : "");
	pb_uint(&p, PROFILE_TIME_NANOS, (uint64_t)rep->start_nanos);
	pb_uint(&p, PROFILE_DURATION_NANOS, (uint64_t)report_span_nanos(rep));
	if (p.oom || msg.oom || sub.oom || lab.oom)
		goto oom;
	if (gzip_out(&p, out) < 0) {
		fprintf(stderr, "lfr report: gzip compression failed\n");
		ret = -1;
	}
	goto out;
oom:
	fprintf(stderr, "lfr report: out of memory writing the pprof profile: try --top, "
	                "--from/--to or --thread to make it smaller\n");
	ret = -1;
out:
	free(locs);
	pb_free(&p);
	pb_free(&msg);
	pb_free(&sub);
	pb_free(&lab);
	return ret;
}

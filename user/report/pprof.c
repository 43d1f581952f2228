// SPDX-License-Identifier: GPL-2.0
/*
 * `lfr report --format pprof`: the report as pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), gzipped, for `go tool pprof` and the tools that read its format.
 *
 * One Function and one Location per report frame (ids = frame index + 1), one Sample per (stack,
 * thread, trace context) with the summed value and the thread as labels, and the context's as
 * Pyroscope's span profiles take them: trace_id, span_id (hex) and each of its attributes; the
 * string table holds the fixed strings, then every frame name, then every thread name, then each
 * context's ids and attributes, so indices are computed, not searched.
 *
 * With --diff, the one profile `go tool pprof -normalize -diff_base BASE NEW` builds from two:
 * NEW's samples, then BASE's negated and labelled pprof::base=true, so that pprof shows each
 * function's change and gives percentages of BASE's total.  BASE's counts are scaled to NEW's
 * total (as the folded view does): a change is then one of shares, its percentage the change in
 * points.  The time the samples stand for (both periods known: CPU or wall-clock time) is not
 * scaled: -sample_index=cpu (or wall) shows its change, as the text view's DELTA CPU.  Samples
 * are per stack (the threads of two recordings are not the same); NEW's frames take ids 1..n,
 * BASE's follow.
 *
 * The sample types, units and period are report/units.h's: counts ("samples"/"count"), with
 * the time one sample stands for ("cpu" or "wall"/"nanoseconds", count x period) beside them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/protobuf.h"
#include "report/report.h"
#include "report/units.h"
#include "report/views.h"

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
	PROFILE_COMMENT = 13,
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

/*
 * string table: fixed entries, then frame names (with --diff NEW's then BASE's), then thread names
 * (with --diff the comments)
 */
enum {
	S_EMPTY,
	S_TYPE,
	S_UNIT,
	S_THREAD,
	S_TID,
	S_PID,
	S_TIME, /* what a sample stands for: "cpu", "wall" (units.h) */
	S_NANOS,
	S_DIFF_BASE,
	S_TRUE,
	S_TRACE_ID,
	S_SPAN_ID,
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

/*
 * The sample types (the values, and with a known period the time they stand for), the period
 * and the default.
 */
static void put_types(struct pb_buf *p, struct pb_buf *msg, int64_t period)
{
	pb_reset(msg);
	pb_uint(msg, VALUE_TYPE_TYPE, S_TYPE);
	pb_uint(msg, VALUE_TYPE_UNIT, S_UNIT);
	pb_message(p, PROFILE_SAMPLE_TYPE, msg);
	if (period) {
		pb_reset(msg);
		pb_uint(msg, VALUE_TYPE_TYPE, S_TIME);
		pb_uint(msg, VALUE_TYPE_UNIT, S_NANOS);
		pb_message(p, PROFILE_SAMPLE_TYPE, msg);
	}
	pb_reset(msg);
	pb_uint(msg, VALUE_TYPE_TYPE, period ? S_TIME : S_TYPE);
	pb_uint(msg, VALUE_TYPE_UNIT, period ? S_NANOS : S_UNIT);
	pb_message(p, PROFILE_PERIOD_TYPE, msg);
	pb_uint(p, PROFILE_PERIOD, period ? (uint64_t)period : 1);
	/* the counts stay what `go tool pprof -top` shows, as lfr report's text does */
	pb_uint(p, PROFILE_DEFAULT_SAMPLE_TYPE, S_TYPE);
}

/* One Location and one Function per frame of rep: ids id0 + 1..., names from string s0 on. */
static void put_frames(struct pb_buf *p, struct pb_buf *msg, struct pb_buf *sub,
                       const struct report *rep, uint64_t id0, uint64_t s0)
{
	for (size_t i = 0; i < rep->nframes; i++) {
		pb_reset(msg);
		pb_uint(msg, LOCATION_ID, id0 + i + 1);
		pb_reset(sub);
		pb_uint(sub, LINE_FUNCTION_ID, id0 + i + 1);
		pb_message(msg, LOCATION_LINE, sub);
		pb_message(p, PROFILE_LOCATION, msg);
	}
	for (size_t i = 0; i < rep->nframes; i++) {
		pb_reset(msg);
		pb_uint(msg, FUNCTION_ID, id0 + i + 1);
		pb_uint(msg, FUNCTION_NAME, s0 + i);
		pb_uint(msg, FUNCTION_SYSTEM_NAME, s0 + i);
		/* the frame kind as the file name: pprof's -focus/-show can then select kernel code
		 */
		pb_uint(msg, FUNCTION_FILENAME, S_KIND0 + (rep->frames[i].kind & 3));
		pb_message(p, PROFILE_FUNCTION, msg);
	}
}

/* The type and unit of the values (off-CPU time and latency in ns: pprof prints durations). */
static void put_fixed_strings(struct pb_buf *p, const struct report_units *u)
{
	pb_string(p, PROFILE_STRING_TABLE, "");
	pb_string(p, PROFILE_STRING_TABLE, u->type);
	pb_string(p, PROFILE_STRING_TABLE, u->unit);
	pb_string(p, PROFILE_STRING_TABLE, "thread");
	pb_string(p, PROFILE_STRING_TABLE, "tid");
	pb_string(p, PROFILE_STRING_TABLE, "pid");
	pb_string(p, PROFILE_STRING_TABLE, u->time_type ? u->time_type : "");
	pb_string(p, PROFILE_STRING_TABLE, "nanoseconds");
	pb_string(p, PROFILE_STRING_TABLE, "pprof::base");
	pb_string(p, PROFILE_STRING_TABLE, "true");
	pb_string(p, PROFILE_STRING_TABLE, "trace_id");
	pb_string(p, PROFILE_STRING_TABLE, "span_id");
	for (int k = 0; k < 4; k++)
		pb_string(p, PROFILE_STRING_TABLE, kind_names[k]);
}

static void put_frame_names(struct pb_buf *p, const struct report *rep)
{
	for (size_t i = 0; i < rep->nframes; i++)
		pb_string(p, PROFILE_STRING_TABLE, rep->frames[i].name);
}

/* Starts in msg the sample of a stack of rep (frame ids offset by id0), values [n] or [n, cpu]. */
static void start_sample(struct pb_buf *msg, uint64_t *locs, const struct report *rep,
                         const struct report_stack *st, uint64_t id0, const int64_t *values,
                         size_t nvalues)
{
	for (uint32_t d = 0; d < st->depth; d++) /* leaf first, as in pprof */
		locs[d] = id0 + rep->stack_frames[st->first + d] + 1;
	pb_reset(msg);
	pb_packed(msg, SAMPLE_LOCATION_ID, locs, st->depth);
	uint64_t v[2];
	for (size_t i = 0; i < nvalues; i++)
		v[i] = (uint64_t)values[i]; /* int64 on the wire: two's complement */
	pb_packed(msg, SAMPLE_VALUE, v, nvalues);
}

static uint64_t *alloc_locs(const struct report *a, const struct report *b)
{
	size_t maxdepth = 1;

	for (size_t i = 0; i < a->nstacks; i++)
		if (a->stacks[i].depth > maxdepth)
			maxdepth = a->stacks[i].depth;
	for (size_t i = 0; b && i < b->nstacks; i++)
		if (b->stacks[i].depth > maxdepth)
			maxdepth = b->stacks[i].depth;
	return malloc(maxdepth * sizeof(uint64_t));
}

/* Compresses p to out unless a buffer ran out of memory; -1 after saying why. */
static int finish(struct pb_buf *p, bool oom, FILE *out)
{
	if (p->oom || oom) {
		fprintf(stderr, "lfr report: out of memory writing the pprof profile: try --top, "
		                "--from/--to or --thread to make it smaller\n");
		return -1;
	}
	if (gzip_out(p, out) < 0) {
		fprintf(stderr, "lfr report: gzip compression failed\n");
		return -1;
	}
	return 0;
}

/*
 * The first string of each context (report.contexts: its trace id, span id, then its attributes'
 * keys and values), from s0 on; NULL when out of memory.
 */
static uint64_t *context_strings(const struct report *rep, uint64_t s0)
{
	uint64_t *first = malloc((rep->ncontexts ? rep->ncontexts : 1) * sizeof(*first));

	for (size_t i = 1; first && i < rep->ncontexts; i++) {
		first[i] = s0;
		s0 += 2 + 2 * (uint64_t)rep->contexts[i].nattrs;
	}
	return first;
}

static void put_context_strings(struct pb_buf *p, const struct report *rep)
{
	for (size_t i = 1; i < rep->ncontexts; i++) {
		const struct report_context *c = &rep->contexts[i];
		const char *a = c->attrs;

		pb_string(p, PROFILE_STRING_TABLE, c->trace_id);
		pb_string(p, PROFILE_STRING_TABLE, c->span_id);
		for (unsigned int k = 0; k < 2 * c->nattrs; k++, a += strlen(a) + 1)
			pb_string(p, PROFILE_STRING_TABLE, a);
	}
}

/* The labels of context cx (strings from first[cx] on). */
static void context_labels(struct pb_buf *msg, struct pb_buf *lab, const struct report *rep,
                           const uint64_t *first, uint32_t cx)
{
	uint64_t s = first[cx];

	label_str(msg, lab, S_TRACE_ID, s);
	label_str(msg, lab, S_SPAN_ID, s + 1);
	for (unsigned int k = 0; k < rep->contexts[cx].nattrs; k++)
		label_str(msg, lab, s + 2 + 2 * k, s + 3 + 2 * k);
}

int report_print_pprof(const struct report *rep, const struct report_opts *o, FILE *out)
{
	struct pb_buf p = {0}, msg = {0}, sub = {0}, lab = {0};
	uint64_t *locs = alloc_locs(rep, NULL);
	const uint64_t s_frames = S_FIXED, s_threads = S_FIXED + rep->nframes;
	uint64_t *ctx_first = context_strings(rep, s_threads + rep->nthreads);
	int ret = 0;
	struct report_units u;

	if (!locs || !ctx_first) {
		ret = finish(&p, true, out);
		goto out;
	}

	/* samples of a known period (lfr's) stand for CPU or wall-clock time too: count x period */
	report_units(rep, o, &u);
	const int64_t period = u.period_ns;

	put_types(&p, &msg, period);
	for (size_t i = 0; i < rep->nsamples; i++) {
		const struct report_sample *s = &rep->samples[i];
		const struct report_thread *t = &rep->threads[s->thread];
		if (!s->value)
			continue;
		int64_t values[2] = {(int64_t)s->value, (int64_t)s->value * period};

		start_sample(&msg, locs, rep, &rep->stacks[s->stack], 0, values, period ? 2 : 1);
		label_str(&msg, &lab, S_THREAD, s_threads + s->thread);
		label_num(&msg, &lab, S_TID, t->tid);
		if (t->pid >= 0)
			label_num(&msg, &lab, S_PID, t->pid);
		if (s->ctx && s->ctx < rep->ncontexts)
			context_labels(&msg, &lab, rep, ctx_first, s->ctx);
		pb_message(&p, PROFILE_SAMPLE, &msg);
	}
	put_frames(&p, &msg, &sub, rep, 0, s_frames);
	put_fixed_strings(&p, &u);
	put_frame_names(&p, rep);
	for (size_t i = 0; i < rep->nthreads; i++)
		pb_string(&p, PROFILE_STRING_TABLE,
		          rep->threads[i].name ? rep->threads[i].name : "");
	put_context_strings(&p, rep);
	pb_uint(&p, PROFILE_TIME_NANOS, (uint64_t)rep->start_nanos);
	pb_uint(&p, PROFILE_DURATION_NANOS, (uint64_t)report_span_nanos(rep));
	ret = finish(&p, msg.oom || sub.oom || lab.oom, out);
out:
	free(locs);
	free(ctx_first);
	pb_free(&p);
	pb_free(&msg);
	pb_free(&sub);
	pb_free(&lab);
	return ret;
}

int report_print_pprof_diff(const struct report *base, const struct report *cur,
                            const struct report_opts *o, FILE *out)
{
	struct pb_buf p = {0}, msg = {0}, sub = {0}, lab = {0};
	uint64_t *locs = alloc_locs(base, cur);
	uint64_t *sv[2] = {views_stack_values(base), views_stack_values(cur)};
	const struct report *reps[2] = {base, cur};
	int ret = 0;

	if (!locs || !sv[0] || !sv[1]) {
		ret = finish(&p, true, out);
		goto out;
	}
	struct report_units u[2];
	report_units(base, o, &u[0]);
	report_units(cur, o, &u[1]);
	int64_t period[2] = {u[0].period_ns, u[1].period_ns};
	/* the time both sides' samples stand for (the same options give the same kind) */
	const bool cpu = period[0] && period[1];
	/* ids and strings: NEW's frames first, then BASE's */
	const uint64_t id0[2] = {cur->nframes, 0}, s0[2] = {S_FIXED + cur->nframes, S_FIXED};

	put_types(&p, &msg, cpu ? period[1] : 0);
	/*
	 * NEW as it is; BASE negated and scaled to NEW's total, rounded so that the scaled counts
	 * add up to NEW's total exactly and each stays within one of its scaled value
	 */
	const double scale = base->total ? (double)cur->total / (double)base->total : 0;
	double want = 0;
	int64_t given = 0;
	for (int side = 1; side >= 0; side--) {
		const struct report *r = reps[side];
		for (size_t i = 0; i < r->nstacks; i++) {
			if (!sv[side][i])
				continue;
			int64_t v[2];
			if (side) {
				v[0] = (int64_t)sv[side][i];
			} else {
				want += (double)sv[side][i] * scale;
				v[0] = -(llround(want) - given);
				given -= v[0];
			}
			v[1] = (side ? 1 : -1) * (int64_t)sv[side][i] * period[side];
			if (!v[0] && (!cpu || !v[1]))
				continue;
			start_sample(&msg, locs, r, &r->stacks[i], id0[side], v, cpu ? 2 : 1);
			if (!side)
				label_str(&msg, &lab, S_DIFF_BASE, S_TRUE);
			pb_message(&p, PROFILE_SAMPLE, &msg);
		}
	}
	put_frames(&p, &msg, &sub, cur, id0[1], s0[1]);
	put_frames(&p, &msg, &sub, base, id0[0], s0[0]);
	put_fixed_strings(&p, &u[1]);
	put_frame_names(&p, cur);
	put_frame_names(&p, base);
	/* the comments pprof prints with the profile: what the values are */
	uint64_t s_comment = S_FIXED + cur->nframes + base->nframes;
	char line[1024];
	for (int side = 0; side < 2; side++) {
		snprintf(line, sizeof(line), "%s %s: %llu %s of %s", side ? "NEW" : "BASE",
		         reps[side]->path, (unsigned long long)reps[side]->total, u[side].type,
		         reps[side]->selected);
		pb_string(&p, PROFILE_STRING_TABLE, line);
		pb_uint(&p, PROFILE_COMMENT, s_comment++);
	}
	snprintf(line, sizeof(line),
	         "lfr report --diff: NEW minus BASE; BASE's %s (label pprof::base) scaled to NEW's "
	         "total%s%s%s",
	         u[1].type, cpu ? ", its " : "", cpu ? u[1].time_name : "",
	         cpu ? " not scaled" : "");
	pb_string(&p, PROFILE_STRING_TABLE, line);
	pb_uint(&p, PROFILE_COMMENT, s_comment);
	pb_uint(&p, PROFILE_TIME_NANOS, (uint64_t)cur->start_nanos);
	pb_uint(&p, PROFILE_DURATION_NANOS, (uint64_t)report_span_nanos(cur));
	ret = finish(&p, msg.oom || sub.oom || lab.oom, out);
out:
	free(locs);
	free(sv[0]);
	free(sv[1]);
	pb_free(&p);
	pb_free(&msg);
	pb_free(&sub);
	pb_free(&lab);
	return ret;
}

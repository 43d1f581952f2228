// SPDX-License-Identifier: GPL-2.0
/* Text views of a report: header, top functions by self and total, threads, lost samples, the
 * per-event-type summary, and folded stacks. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/hashtab.h"
#include "report/labels.h"
#include "report/report.h"
#include "report/text_safe.h"
#include "report/units.h"
#include "report/views.h"

/* The value of each stack in the samples of thread (every thread when thread < 0). */
static uint64_t *stack_values_of(const struct report *rep, long thread)
{
	uint64_t *v = calloc(rep->nstacks ? rep->nstacks : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < rep->nsamples; i++)
		if (thread < 0 || rep->samples[i].thread == (uint32_t)thread)
			v[rep->samples[i].stack] += rep->samples[i].value;
	return v;
}

uint64_t *views_stack_values(const struct report *rep)
{
	return stack_values_of(rep, -1);
}

static int frame_totals_of(const struct report *rep, long thread, uint64_t **self_out,
                           uint64_t **total_out)
{
	size_t n = rep->nframes ? rep->nframes : 1;
	uint64_t *self = calloc(n, sizeof(*self)), *total = calloc(n, sizeof(*total));
	uint32_t *mark = calloc(n, sizeof(*mark));
	uint64_t *sv = stack_values_of(rep, thread);

	if (!self || !total || !mark || !sv) {
		free(self);
		free(total);
		free(mark);
		free(sv);
		return -1;
	}
	for (size_t s = 0; s < rep->nstacks; s++) {
		const struct report_stack *st = &rep->stacks[s];
		if (!sv[s] || !st->depth)
			continue;
		const uint32_t *f = rep->stack_frames + st->first;
		self[f[0]] += sv[s];
		for (uint32_t d = 0; d < st->depth; d++) {
			if (mark[f[d]] == s + 1)
				continue; /* recursion: count a function once per stack */
			mark[f[d]] = s + 1;
			total[f[d]] += sv[s];
		}
	}
	free(mark);
	free(sv);
	*self_out = self;
	*total_out = total;
	return 0;
}

int views_frame_totals(const struct report *rep, uint64_t **self_out, uint64_t **total_out)
{
	return frame_totals_of(rep, -1, self_out, total_out);
}

static const uint64_t *sort_key;

static int cmp_by_key(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_key[x] != sort_key[y])
		return sort_key[x] < sort_key[y] ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* What the tables count: samples, or a field summed (report/units.h's words for them). */
static const char *value_unit(const struct report *rep, const struct report_opts *o)
{
	struct report_units u;

	report_units(rep, o, &u);
	return u.words;
}

static int print_top_of(const struct report *rep, FILE *out, const char *title, const uint64_t *key,
                        const uint64_t *self, const uint64_t *total, int top, uint64_t all)
{
	uint32_t *idx = malloc((rep->nframes ? rep->nframes : 1) * sizeof(*idx));

	if (!idx)
		return -1;
	for (size_t i = 0; i < rep->nframes; i++)
		idx[i] = i;
	sort_key = key;
	qsort(idx, rep->nframes, sizeof(*idx), cmp_by_key);
	struct text_safe ts = {0};

	fprintf(out, "\nTop functions by ");
	text_safe_put(out, title);
	fprintf(out, "\n%10s %6s %10s %6s  %s\n", "SELF", "%", "TOTAL", "%", "FUNCTION");
	for (size_t i = 0; i < rep->nframes && (int)i < top; i++) {
		uint32_t f = idx[i];
		if (!key[f])
			break;
		const struct report_frame *fr = &rep->frames[f];
		bool show_obj = fr->object && fr->kind != RF_KERNEL;

		fprintf(out, "%10llu %5.1f%% %10llu %5.1f%%  %s%s%s%s%s\n",
		        (unsigned long long)self[f], report_pct(self[f], all),
		        (unsigned long long)total[f], report_pct(total[f], all),
		        text_safe(&ts, fr->name), fr->kind == RF_KERNEL ? " [kernel]" : "",
		        show_obj ? "  (" : "", show_obj ? text_safe(&ts, fr->object) : "",
		        show_obj ? ")" : "");
	}
	text_safe_free(&ts);
	free(idx);
	return 0;
}

static int print_top(const struct report *rep, const struct report_opts *o, FILE *out,
                     const char *title, const uint64_t *key, const uint64_t *self,
                     const uint64_t *total, int top)
{
	char t[64];

	snprintf(t, sizeof(t), "%s %s", title, value_unit(rep, o));
	return print_top_of(rep, out, t, key, self, total, top, rep->total);
}

int views_object_totals(const struct report *rep, const uint64_t *sv, size_t *nobj_out,
                        uint32_t **first_out, uint64_t **self_out, uint64_t **total_out)
{
	size_t n = rep->nframes ? rep->nframes : 1, nobj = 0;
	uint32_t *obj = calloc(n, sizeof(*obj)), *first = calloc(n, sizeof(*first));
	uint64_t *self = calloc(n, sizeof(*self)), *total = calloc(n, sizeof(*total));
	uint32_t *mark = calloc(n, sizeof(*mark));

	if (!obj || !first || !self || !total || !mark) {
		free(obj), free(first), free(self), free(total), free(mark);
		return -1;
	}
	/* frames -> object numbers; first[k] is a frame of object k, for its name */
	for (size_t i = 0; i < rep->nframes; i++) {
		const char *ob = rep->frames[i].object;
		size_t k;

		for (k = 0; k < nobj; k++) {
			const char *p = rep->frames[first[k]].object;
			if (p == ob || (p && ob && !strcmp(p, ob)))
				break;
		}
		if (k == nobj)
			first[nobj++] = (uint32_t)i;
		obj[i] = (uint32_t)k;
	}
	for (size_t st = 0; st < rep->nstacks; st++) {
		const struct report_stack *s = &rep->stacks[st];
		const uint32_t *f = rep->stack_frames + s->first;

		if (!sv[st] || !s->depth)
			continue;
		self[obj[f[0]]] += sv[st];
		for (uint32_t d = 0; d < s->depth; d++) {
			if (mark[obj[f[d]]] == st + 1)
				continue;
			mark[obj[f[d]]] = (uint32_t)st + 1;
			total[obj[f[d]]] += sv[st];
		}
	}
	free(obj), free(mark);
	*nobj_out = nobj;
	*first_out = first;
	*self_out = self;
	*total_out = total;
	return 0;
}

const char *views_object_name(const char *object)
{
	return object ? object : "[no object: Java code]";
}

/*
 * The objects (shared libraries, executables, the kernel) by the samples whose leaf is in them
 * (self) and whose stack passes through them (total), as `perf report --sort dso` lists them.
 */
static int print_objects(const struct report *rep, const struct report_opts *o, FILE *out,
                         const uint64_t *sv, int top)
{
	size_t nobj;
	uint32_t *first, *idx;
	uint64_t *self, *total;
	int rc = -1;

	if (views_object_totals(rep, sv, &nobj, &first, &self, &total))
		return -1;
	if (!(idx = calloc(nobj ? nobj : 1, sizeof(*idx))))
		goto out;
	for (size_t k = 0; k < nobj; k++)
		idx[k] = (uint32_t)k;
	sort_key = self;
	qsort(idx, nobj, sizeof(*idx), cmp_by_key);
	fprintf(out, "\nTop objects by self %s\n", value_unit(rep, o));
	fprintf(out, "%10s %6s %10s %6s  %s\n", "SELF", "%", "TOTAL", "%", "OBJECT");
	for (size_t i = 0; i < nobj && (int)i < top; i++) {
		uint32_t k = idx[i];

		if (!total[k])
			break;
		fprintf(out, "%10llu %5.1f%% %10llu %5.1f%%  ", (unsigned long long)self[k],
		        report_pct(self[k], rep->total), (unsigned long long)total[k],
		        report_pct(total[k], rep->total));
		text_safe_put(out, views_object_name(rep->frames[first[k]].object));
		fputc('\n', out);
	}
	rc = 0;
out:
	free(first), free(self), free(total), free(idx);
	return rc;
}

/* Largest value first, then by name: the order of the tables, the same in every run. */
static int by_value_then_name(uint64_t xv, uint64_t yv, const char *xn, const char *yn)
{
	if (xv != yv)
		return xv < yv ? 1 : -1;
	return strcmp(xn, yn);
}

static int cmp_thread_value(const void *a, const void *b)
{
	const struct report_thread *x = *(struct report_thread *const *)a;
	const struct report_thread *y = *(struct report_thread *const *)b;

	return by_value_then_name(x->value, y->value, x->name, y->name);
}

static void format_time(int64_t nanos, char *buf, size_t n)
{
	time_t secs = nanos / 1000000000;
	struct tm tm;

	if (!gmtime_r(&secs, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, n, "%lld ns", (long long)nanos);
}

/* The event types the header points to when the view shows others, and the option that shows them.
 */
static const struct {
	const char *type, *what, *how;
} other_views[] = {
    {"lfr.OffCpu", "Off-CPU intervals", "lfr report --off-cpu"},
    {"profiler.WallClockSample", "Wall-clock samples", "lfr report --wall"},
    {"jdk.NativeMethodSample", "Samples in native code or off the CPU",
     "with the CPU samples: lfr report --wall"},
    {"lfr.SamplingLatency", "Sampling latencies", "lfr report --latency"},
};

void report_print_header(const struct report *rep, const struct report_opts *o, FILE *out)
{
	struct text_safe ts = {0};
	const char *selected = text_safe(&ts, rep->selected);
	char start[64];

	format_time(rep->start_nanos, start, sizeof(start));
	fprintf(out, "File: %s (%llu bytes, %llu chunk%s), recorded %s for %.3f s\n",
	        text_safe(&ts, rep->path), (unsigned long long)rep->file_size,
	        (unsigned long long)rep->nchunks, rep->nchunks == 1 ? "" : "s", start,
	        ((double)rep->end_nanos - (double)rep->start_nanos) / 1e9);
	if (o->off_cpu || (o->latency && !o->wall)) /* --off-cpu, then --wall, then --latency */
		fprintf(out,
		        "%s: %llu ns (%.3f s) in %llu %s (%s) of %zu thread%s, %zu distinct stacks",
		        o->off_cpu ? "Off-CPU time" : "Sampling latency",
		        (unsigned long long)rep->total, (double)rep->total / 1e9,
		        (unsigned long long)rep->matched_events, o->off_cpu ? "intervals" : "ticks",
		        selected, rep->nthreads, rep->nthreads == 1 ? "" : "s", rep->nstacks);
	else if (o->wall)
		fprintf(out,
		        "Wall-clock samples: %llu (%s: on and off the CPU) of %zu thread%s, %zu "
		        "distinct stacks",
		        (unsigned long long)rep->total, selected, rep->nthreads,
		        rep->nthreads == 1 ? "" : "s", rep->nstacks);
	else
		fprintf(out, "Samples: %llu %s of %s in %zu thread%s, %zu distinct stacks",
		        (unsigned long long)rep->total, o->value_field ? o->value_field : "events",
		        selected, rep->nthreads, rep->nthreads == 1 ? "" : "s", rep->nstacks);
	if (rep->matched_events != rep->sample_events)
		fprintf(out, " (%llu of %llu events pass the filters)",
		        (unsigned long long)rep->matched_events,
		        (unsigned long long)rep->sample_events);
	fprintf(out, "\n");
	/* off-CPU time is never mixed into CPU samples: say where it is */
	for (size_t i = 0; !o->off_cpu && !o->nevents && i < rep->nevtypes; i++)
		for (size_t j = 0; j < sizeof(other_views) / sizeof(other_views[0]); j++)
			if (!strcmp(rep->evtypes[i].name, other_views[j].type)) {
				fprintf(out, "%s: %llu %s events (%s)\n", other_views[j].what,
				        (unsigned long long)rep->evtypes[i].count,
				        other_views[j].type, other_views[j].how);
				break;
			}
	text_safe_free(&ts);
}

static int cmp_timed_value(const void *a, const void *b)
{
	const struct report_timed *x = *(const struct report_timed *const *)a;
	const struct report_timed *y = *(const struct report_timed *const *)b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return x->nanos < y->nanos ? -1 : x->nanos > y->nanos;
}

/*
 * --latency: the longest sampling latencies one by one, with the kernel functions their tick
 * interrupted (leaf first) and the user function the thread returned to.
 */
static int print_longest(const struct report *rep, FILE *out, int top)
{
	const struct report_timed **v = malloc((rep->ntimed ? rep->ntimed : 1) * sizeof(*v));
	struct text_safe ts = {0};

	if (!v)
		return -1;
	for (size_t i = 0; i < rep->ntimed; i++)
		v[i] = &rep->timed[i];
	qsort(v, rep->ntimed, sizeof(*v), cmp_timed_value);
	fprintf(out, "\nLongest sampling latencies\n%12s %12s %10s  %s\n", "LATENCY ms", "AT s",
	        "TID", "THREAD: KERNEL STACK AT THE TICK (LEAF FIRST) -> USER LEAF");
	for (size_t i = 0; i < rep->ntimed && (int)i < top; i++) {
		const struct report_thread *th = &rep->threads[v[i]->thread];
		const struct report_stack *st = &rep->stacks[v[i]->stack];
		int kernel = 0;
		const char *user = NULL;

		fprintf(out, "%12.3f %12.3f %10lld  %s:", (double)v[i]->value / 1e6,
		        (double)v[i]->nanos / 1e9, (long long)th->tid, text_safe(&ts, th->name));
		for (uint32_t k = 0; k < st->depth; k++) {
			const struct report_frame *f =
			    &rep->frames[rep->stack_frames[st->first + k]];

			if (f->kind != RF_KERNEL) {
				user = f->name;
				break;
			}
			if (kernel++ < 4)
				fprintf(out, "%s %s", kernel > 1 ? " <-" : "",
				        text_safe(&ts, f->name));
		}
		if (kernel > 4)
			fprintf(out, " <- ...");
		fprintf(out, " -> %s\n", user ? text_safe(&ts, user) : "?");
	}
	if (rep->ntimed > (size_t)top)
		fprintf(out, "%12s %12s %10s  ... %zu more (--top)\n", "", "", "",
		        rep->ntimed - top);
	text_safe_free(&ts);
	free(v);
	return 0;
}

/* The value's column heading: its unit in capitals, at most 10 characters. */
static void value_column(const struct report *rep, const struct report_opts *o, char column[11])
{
	const char *unit = value_unit(rep, o);
	size_t i;

	for (i = 0; i < 10 && unit[i]; i++)
		column[i] = (char)toupper((unsigned char)unit[i]);
	column[i] = '\0';
}

/* A context's attributes as "k=v, k=v" (cut to n bytes). */
static void context_attrs(const struct report_context *c, char *buf, size_t n)
{
	size_t off = 0;
	const char *p = c->attrs;

	buf[0] = 0;
	for (unsigned int i = 0; i < c->nattrs && p && off < n; i++) {
		const char *v = p + strlen(p) + 1;
		int w = snprintf(buf + off, n - off, "%s%s=%s", i ? ", " : "", p, v);

		if (w < 0)
			break;
		off += (size_t)w;
		p = v + strlen(v) + 1;
	}
}

static int cmp_context_value(const void *a, const void *b)
{
	const struct report_context *x = *(struct report_context *const *)a;
	const struct report_context *y = *(struct report_context *const *)b;

	return by_value_then_name(x->value, y->value, x->span_id, y->span_id);
}

/*
 * -s span: the spans (OpenTelemetry trace contexts) by the value of their samples, with their
 * trace and attributes; -s trace: the traces, each the sum of its spans.  Then the samples that
 * ran in no context.
 */
static int print_contexts(const struct report *rep, const struct report_opts *o, FILE *out, int top)
{
	size_t n = rep->ncontexts > 1 ? rep->ncontexts - 1 : 0, rows = 0;
	struct report_context **v = malloc((n ? n : 1) * sizeof(*v)), *t = NULL;
	uint64_t in_ctx = 0;
	char column[11], attrs[160];
	bool traces = o->sort_ctx == REPORT_BY_TRACE;

	if (!v)
		return -1;
	value_column(rep, o, column);
	for (size_t i = 0; i < n; i++) {
		v[i] = &rep->contexts[i + 1];
		in_ctx += v[i]->value;
	}
	if (traces) {
		/* one row per trace: its spans' values summed into a copy of its first */
		if (!(t = calloc(n ? n : 1, sizeof(*t)))) {
			free(v);
			return -1;
		}
		for (size_t i = 0; i < n; i++) {
			size_t k;

			for (k = 0; k < rows && strcmp(t[k].trace_id, v[i]->trace_id); k++)
				;
			if (k == rows) {
				memcpy(t[rows].trace_id, v[i]->trace_id, sizeof(t[rows].trace_id));
				rows++;
			}
			t[k].value += v[i]->value;
			t[k].nattrs++; /* its spans */
		}
		for (size_t k = 0; k < rows; k++)
			v[k] = &t[k];
	} else {
		rows = n;
	}
	qsort(v, rows, sizeof(*v), cmp_context_value);
	if (traces)
		fprintf(out, "\nTop traces by %s\n%10s %6s  %-32s %6s\n", value_unit(rep, o),
		        column, "%", "TRACE", "SPANS");
	else
		fprintf(out, "\nTop spans by %s\n%10s %6s  %-16s %-32s %s\n", value_unit(rep, o),
		        column, "%", "SPAN", "TRACE", "ATTRIBUTES");
	for (size_t i = 0; i < rows && (int)i < top && v[i]->value; i++) {
		if (traces) {
			fprintf(out, "%10llu %5.1f%%  %-32s %6u\n", (unsigned long long)v[i]->value,
			        report_pct(v[i]->value, rep->total), v[i]->trace_id, v[i]->nattrs);
			continue;
		}
		context_attrs(v[i], attrs, sizeof(attrs));
		fprintf(out, "%10llu %5.1f%%  %-16s %-32s %s\n", (unsigned long long)v[i]->value,
		        report_pct(v[i]->value, rep->total), v[i]->span_id, v[i]->trace_id, attrs);
	}
	if (rows > (size_t)top)
		fprintf(out, "%10s %6s  ... %zu more %s (--top)\n", "", "", rows - top,
		        traces ? "traces" : "spans");
	fprintf(out, "%10llu %5.1f%%  [no trace context]\n",
	        (unsigned long long)(rep->total - in_ctx),
	        report_pct(rep->total - in_ctx, rep->total));
	free(v);
	free(t);
	return 0;
}

static int print_threads(const struct report *rep, const struct report_opts *o, FILE *out, int top)
{
	struct report_thread **v = malloc((rep->nthreads ? rep->nthreads : 1) * sizeof(*v));
	struct text_safe ts = {0};
	char column[11];
	size_t i;

	if (!v)
		return -1;
	value_column(rep, o, column);
	for (i = 0; i < rep->nthreads; i++)
		v[i] = &rep->threads[i];
	qsort(v, rep->nthreads, sizeof(*v), cmp_thread_value);
	fprintf(out, "\nThreads by %s\n%10s %6s %10s %10s  %s\n", value_unit(rep, o), column, "%",
	        "TID", "PID", "THREAD");
	for (i = 0; i < rep->nthreads && (int)i < top; i++) {
		char pid[32] = "-";
		if (v[i]->pid >= 0)
			snprintf(pid, sizeof(pid), "%lld", (long long)v[i]->pid);
		fprintf(
		    out, "%10llu %5.1f%% %10lld %10s  %s%s%s%s\n", (unsigned long long)v[i]->value,
		    report_pct(v[i]->value, rep->total), (long long)v[i]->tid, pid,
		    text_safe(&ts, v[i]->name), v[i]->process ? " (" : "",
		    v[i]->process ? text_safe(&ts, v[i]->process) : "", v[i]->process ? ")" : "");
	}
	if (rep->nthreads > (size_t)top)
		fprintf(out, "%10s %6s %10s %10s  ... %zu more threads (--top)\n", "", "", "", "",
		        rep->nthreads - top);
	text_safe_free(&ts);
	free(v);
	return 0;
}

struct label_row {
	char *value; /* the label's value, or NULL: the threads without one */
	uint64_t sum;
	size_t threads;
};

static int cmp_label_row(const void *a, const void *b)
{
	const struct label_row *x = a, *y = b;

	if (x->sum != y->sum)
		return x->sum < y->sum ? 1 : -1;
	return strcmp(x->value ? x->value : "", y->value ? y->value : "");
}

/* The rows of print_by_label(), one per value of the threads' label name; -1 when out of memory. */
static int label_rows(const struct report *rep, const char *name, struct label_row *rows, size_t *n)
{
	struct hashtab ids;
	char buf[32];
	int rc = 0;

	hashtab_init_bytes(&ids);
	*n = 0;
	for (size_t i = 0; i < rep->nthreads && !rc; i++) {
		const char *v = report_thread_label(rep, &rep->threads[i], name, buf, sizeof(buf));
		/* no value keys as the one byte string "\n", which no label holds */
		const char *key = v ? v : "\n";
		bool fresh;
		struct hashtab_slot *s = hashtab_get_bytes(&ids, key, strlen(key));

		if (!s) {
			char *copy = v ? strdup(v) : NULL;

			if (v && !copy) {
				rc = -1;
				break;
			}
			/* the key's bytes: the row's copy, or the literal */
			s = hashtab_put_bytes(&ids, copy ? copy : "\n", strlen(key), &fresh);
			if (!s) {
				free(copy);
				rc = -1;
				break;
			}
			rows[*n].value = copy;
			s->v = ++*n;
		}
		rows[s->v - 1].sum += rep->threads[i].value;
		rows[s->v - 1].threads++;
	}
	hashtab_free(&ids);
	return rc;
}

/*
 * -s LABEL: the value by the label of the samples' processes (report/labels.h: a process's own
 * label, else the recording's; a process outside any service is its own service).
 */
static int print_by_label(const struct report *rep, const struct report_opts *o, FILE *out, int top)
{
	const char *name = report_label_name(o->sort_label);
	struct label_row *rows = calloc(rep->nthreads + 1, sizeof(*rows));
	char column[11];
	size_t n = 0;
	int rc;

	if (!rows)
		return -1;
	rc = label_rows(rep, name, rows, &n);
	if (!rc) {
		qsort(rows, n, sizeof(*rows), cmp_label_row);
		value_column(rep, o, column);
		fprintf(out, "\nSamples by %s\n%10s %6s %8s  %s\n", name, column, "%", "THREADS",
		        name);
		for (size_t i = 0; i < n && (int)i < top; i++) {
			fprintf(out, "%10llu %5.1f%% %8zu  ", (unsigned long long)rows[i].sum,
			        report_pct(rows[i].sum, rep->total), rows[i].threads);
			text_safe_put(out, rows[i].value ? rows[i].value : "[none]");
			fputc('\n', out);
		}
		if (n > (size_t)top)
			fprintf(out, "%10s %6s %8s  ... %zu more (--top)\n", "", "", "",
			        n - (size_t)top);
	}
	for (size_t i = 0; i < n; i++)
		free(rows[i].value);
	free(rows);
	return rc;
}

/*
 * --off-cpu and --wall: the value by the state the events give (why the thread was off the CPU,
 * its thread state), sorted when read, so printed without an allocation.
 */
static void print_states(const struct report *rep, const struct report_opts *o, FILE *out, int top)
{
	char column[11];

	if (!rep->nstates)
		return;
	value_column(rep, o, column);
	fprintf(out, "\n%s by state\n%10s %6s  %s\n", o->off_cpu ? "Off-CPU" : "Samples", column,
	        "%", "STATE");
	for (size_t i = 0; i < rep->nstates && (int)i < top; i++) {
		fprintf(out, "%10llu %5.1f%%  ", (unsigned long long)rep->states[i].value,
		        report_pct(rep->states[i].value, rep->total));
		text_safe_put(out, rep->states[i].name);
		fputc('\n', out);
	}
	if (rep->nstates > (size_t)top)
		fprintf(out, "%10s %6s  ... %zu more states (--top)\n", "", "", rep->nstates - top);
}

void report_print_lost(const struct report *rep, FILE *out)
{
	fprintf(out, "\nLost samples\n");
	if (!rep->nlost) {
		fprintf(out,
		        "  none recorded (no jdk.DataLoss or lost-sample events in the file)\n");
		return;
	}
	struct text_safe ts = {0};

	for (size_t i = 0; i < rep->nlost; i++) {
		const struct report_lost *l = &rep->lost[i];
		fprintf(out, "  %-28s %8llu event%s", text_safe(&ts, l->type),
		        (unsigned long long)l->events, l->events == 1 ? "" : "s");
		if (l->field)
			fprintf(out, ", %s %llu",
			        !strcmp(l->type, "jdk.DataLoss") ? "bytes"
			                                         : text_safe(&ts, l->field),
			        (unsigned long long)l->amount);
		if (l->reason[0])
			fprintf(out, "  reason: %s", text_safe(&ts, l->reason));
		fprintf(out, "\n");
	}
	text_safe_free(&ts);
}

/* --threads: the top functions by self value of each of the top threads, as shares of its own. */
static int print_per_thread(const struct report *rep, const struct report_opts *o, FILE *out)
{
	struct report_thread **v = malloc((rep->nthreads ? rep->nthreads : 1) * sizeof(*v));
	int rc = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < rep->nthreads; i++)
		v[i] = &rep->threads[i];
	qsort(v, rep->nthreads, sizeof(*v), cmp_thread_value);
	for (size_t i = 0; i < rep->nthreads && (int)i < o->top && v[i]->value; i++) {
		uint64_t *self, *total;
		char title[320];

		if (frame_totals_of(rep, v[i] - rep->threads, &self, &total)) {
			rc = -1;
			break;
		}
		snprintf(title, sizeof(title), "self %s in thread %s (TID %lld, %llu %s)",
		         value_unit(rep, o), v[i]->name ? v[i]->name : "?", (long long)v[i]->tid,
		         (unsigned long long)v[i]->value, value_unit(rep, o));
		if (print_top_of(rep, out, title, self, self, total, o->top < 10 ? o->top : 10,
		                 v[i]->value))
			rc = -1;
		free(self);
		free(total);
		if (rc)
			break;
	}
	if (!rc && rep->nthreads > (size_t)o->top)
		fprintf(out, "\n... %zu more threads (--top)\n", rep->nthreads - o->top);
	free(v);
	return rc;
}

int report_print_text(const struct report *rep, const struct report_opts *o, FILE *out)
{
	uint64_t *self, *total;
	bool any;
	int rc = 0;
	const char *types = report_stack_types(rep, &any);

	report_print_header(rep, o, out);
	if (rep->unnamed) {
		fputc('\n', out);
		text_safe_put(out, rep->unnamed);
		fputc('\n', out);
	}
	if (!rep->total) {
		struct text_safe ts = {0};

		if (!any)
			fprintf(out, "\nNo %s events in this file.%s%s%s\n",
			        text_safe(&ts, rep->selected),
			        types[0] ? " Event types with stack traces here: " : "",
			        text_safe(&ts, types), types[0] ? " (choose with --event)." : "");
		else
			fprintf(out, "\nNo samples pass the filters; widen "
			             "--thread/--process/--from/--to.\n");
		text_safe_free(&ts);
	} else if (o->sort_ctx) {
		if (print_contexts(rep, o, out, o->top) || print_threads(rep, o, out, o->top))
			return -1;
		print_states(rep, o, out, o->top);
	} else if (o->sort_label) {
		if (print_by_label(rep, o, out, o->top) || print_threads(rep, o, out, o->top))
			return -1;
		print_states(rep, o, out, o->top);
	} else if (o->sort_objects) {
		uint64_t *sv = views_stack_values(rep);
		bool failed = !sv || print_objects(rep, o, out, sv, o->top) ||
		              print_threads(rep, o, out, o->top);

		free(sv);
		if (failed)
			return -1;
		print_states(rep, o, out, o->top);
	} else if (views_frame_totals(rep, &self, &total) == 0) {
		if ((o->latency && print_longest(rep, out, o->top)) ||
		    print_top(rep, o, out, "self", self, self, total, o->top) ||
		    print_top(rep, o, out, "total", total, self, total, o->top))
			rc = -1;
		free(self);
		free(total);
		if (rc || print_threads(rep, o, out, o->top))
			return -1;
		print_states(rep, o, out, o->top);
		if (o->thread_roots && print_per_thread(rep, o, out))
			return -1;
	} else {
		return -1;
	}
	report_print_lost(rep, out);
	return rc;
}

void report_print_summary(const struct report *rep, FILE *out)
{
	fprintf(out, "%-50s %12s %14s\n", "EVENT TYPE", "COUNT", "SIZE (BYTES)");
	struct text_safe ts = {0};

	for (size_t i = 0; i < rep->nevtypes; i++)
		fprintf(out, "%-50s %12llu %14llu\n", text_safe(&ts, rep->evtypes[i].name),
		        (unsigned long long)rep->evtypes[i].count,
		        (unsigned long long)rep->evtypes[i].bytes);
	text_safe_free(&ts);
}

/*
 * Writes a frame name for the folded format: ';' separates frames, so it becomes ':', and the
 * name is made safe as every text output makes it (text_safe.h: a control character, '\n' that
 * ends lines among them, becomes a space); kernel frames get async-profiler's "_[k]" suffix
 * (flamegraph.pl --color=java).
 */
void views_put_folded_name(FILE *out, const struct report_frame *f)
{
	for (const char *p = f->name, *semi;; p = semi + 1) {
		semi = strchr(p, ';');
		text_safe_write(out, p, semi ? (size_t)(semi - p) : strlen(p));
		if (!semi)
			break;
		fputc(':', out);
	}
	if (f->kind == RF_KERNEL)
		fputs("_[k]", out);
}

void report_print_collapsed(const struct report *rep, const struct report_opts *o, FILE *out)
{
	uint64_t *sv = NULL;

	if (!o->thread_roots) {
		sv = views_stack_values(rep);
		if (!sv)
			return;
	}
	size_t n = o->thread_roots ? rep->nsamples : rep->nstacks;
	for (size_t i = 0; i < n; i++) {
		const struct report_stack *st;
		uint64_t value;
		if (o->thread_roots) {
			const struct report_sample *s = &rep->samples[i];
			const struct report_thread *t = &rep->threads[s->thread];
			st = &rep->stacks[s->stack];
			value = s->value;
			struct report_frame tf = {.name = t->name, .kind = RF_JAVA};
			views_put_folded_name(out, &tf);
			fprintf(out, " tid=%lld;", (long long)t->tid);
		} else {
			st = &rep->stacks[i];
			value = sv[i];
		}
		if (!value)
			continue;
		const uint32_t *f = rep->stack_frames + st->first;
		for (uint32_t d = st->depth; d-- > 0;) {
			views_put_folded_name(out, &rep->frames[f[d]]);
			if (d)
				fputc(';', out);
		}
		fprintf(out, " %llu\n", (unsigned long long)value);
	}
	free(sv);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * `lfr report --format speedscope`: speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json).  Frames are shared; each profile is of
 * type "sampled", its samples in time order (report.timed), each a stack from the root to the
 * leaf with its value as the weight, so speedscope's "Time Order" view shows the recording as it
 * happened and "Left Heavy"/"Sandwich" the totals.  One profile for all threads, or with --threads
 * one per thread (largest first), as the other views split them.  The unit and weights follow
 * report/units.h: a sample of a known period weighs the time it stands for (CPU or wall-clock
 * time, the profile's name says which), a duration its nanoseconds, anything else its count.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/units.h"

/* One profile of the samples of thread (all threads when thread < 0). */
static void profile(const struct report *rep, const struct report_opts *o, long thread,
                    const char *name, FILE *out)
{
	uint64_t total = 0;
	bool first = true;

	struct report_units u;
	char full[600];

	report_units(rep, o, &u);
	/* samples of a known period (lfr's) weigh the time they stand for: count x period */
	const uint64_t period = u.period_ns ? (uint64_t)u.period_ns : 1;
	/* off-CPU time and sampling latency are durations in ns already */
	const bool nanos = u.period_ns || !strcmp(u.unit, "nanoseconds");

	fputs("{\"type\":\"sampled\",\"name\":", out);
	snprintf(full, sizeof(full), "%s%s%s", name, u.time_name ? ", " : "",
	         u.time_name ? u.time_name : "");
	report_json_string(out, full);

	fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"samples\":[",
	        nanos ? "nanoseconds" : "none");
	for (size_t i = 0; i < rep->ntimed; i++) {
		const struct report_timed *t = &rep->timed[i];
		if (thread >= 0 && t->thread != (uint32_t)thread)
			continue;
		const struct report_stack *st = &rep->stacks[t->stack];
		fputs(first ? "[" : ",[", out);
		first = false;
		for (uint32_t d = st->depth; d-- > 0;) /* root first */
			fprintf(out, "%u%s", rep->stack_frames[st->first + d], d ? "," : "");
		fputc(']', out);
	}
	fputs("],\"weights\":[", out);
	first = true;
	for (size_t i = 0; i < rep->ntimed; i++) {
		const struct report_timed *t = &rep->timed[i];
		if (thread >= 0 && t->thread != (uint32_t)thread)
			continue;
		fprintf(out, first ? "%llu" : ",%llu", (unsigned long long)(t->value * period));
		first = false;
		total += t->value * period;
	}
	fprintf(out, "],\"endValue\":%llu}", (unsigned long long)total);
}

static const struct report *sort_rep;

static int cmp_thread(const void *a, const void *b)
{
	const struct report_thread *x = &sort_rep->threads[*(const uint32_t *)a],
	                           *y = &sort_rep->threads[*(const uint32_t *)b];
	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

void report_print_speedscope(const struct report *rep, const struct report_opts *o, FILE *out)
{
	const char *base = strrchr(rep->path, '/');
	char name[512];

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":"
	      "\"lfr report\",\"name\":",
	      out);
	report_json_string(out, base ? base + 1 : rep->path);
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < rep->nframes; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		report_json_string(out, rep->frames[i].name);
		fputc('}', out);
	}
	fputs("]},\"profiles\":[", out);
	if (!o->thread_roots) {
		snprintf(name, sizeof(name), "%s (all threads)", base ? base + 1 : rep->path);
		profile(rep, o, -1, name, out);
	} else {
		uint32_t *idx = malloc((rep->nthreads ? rep->nthreads : 1) * sizeof(*idx));
		size_t n = 0;
		if (!idx) {
			fprintf(stderr, "lfr report: out of memory\n");
			return;
		}
		for (size_t i = 0; i < rep->nthreads; i++)
			if (rep->threads[i].value)
				idx[n++] = (uint32_t)i;
		sort_rep = rep;
		qsort(idx, n, sizeof(*idx), cmp_thread);
		for (size_t i = 0; i < n; i++) {
			const struct report_thread *t = &rep->threads[idx[i]];
			snprintf(name, sizeof(name), "%s [%lld]", t->name ? t->name : "?",
			         (long long)t->tid);
			if (i)
				fputc(',', out);
			profile(rep, o, idx[i], name, out);
		}
		free(idx);
	}
	fputs("]}\n", out);
}

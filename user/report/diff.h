/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr report --diff BASE NEW: per function its share of all samples (self and total) in each
 * recording and the change, as perf diff shows it; the views of the difference (text, folded
 * stacks with two counts, the HTML flame graph of NEW coloured by the change, a pprof profile of
 * the change).
 */
#ifndef LFR_REPORT_DIFF_H
#define LFR_REPORT_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/* One function (name, object, kind) of either recording; [0] is BASE, [1] is NEW. */
struct report_diff_row {
	const char *name, *object;
	uint8_t kind;
	uint64_t self[2], total[2];
	double self_pct[2], total_pct[2]; /* percent of the recording's samples */
	double dself, dtotal;             /* NEW's percentage minus BASE's, in points */
	/* with both sampling periods known: NEW's self CPU time minus BASE's, in ns */
	double dself_ns;
};

struct report_diff {
	struct report_diff_row *rows; /* by |dself|, then |dtotal|, then name */
	size_t nrows;
	uint64_t total[2];
	int64_t period_ns[2]; /* 0 when a recording does not give its period */
	bool cpu;             /* both periods known: CPU times are compared too */
};

/* Returns 0, or -1 when out of memory.  The rows point into the reports' names. */
int report_diff_compute(const struct report *base, const struct report *cur, struct report_diff *d);
/* The same by object (shared library, executable, kernel), as perf diff --sort dso: the rows'
 * names are the objects', their object NULL. */
int report_diff_compute_objects(const struct report *base, const struct report *cur,
                                struct report_diff *d);
void report_diff_free(struct report_diff *d);
/* Sorts the rows by |dtotal| (by_total) or |dself|, then the other, then name. */
void report_diff_sort(struct report_diff *d, bool by_total);

void report_print_diff_text(const struct report *base, const struct report *cur,
                            const struct report_opts *o, FILE *out);
/*
 * Folded stacks in the two-count form flamegraph.pl draws as a differential flame graph
 * (`root;...;leaf BASE NEW`), BASE's counts scaled to NEW's total.  -1 when out of memory.
 */
int report_print_diff_collapsed(const struct report *base, const struct report *cur,
                                const struct report_opts *o, FILE *out);
/*
 * The difference as one pprof profile.proto, gzipped (report/pprof.c): NEW's samples, and BASE's
 * negated, scaled to NEW's total and labelled pprof::base=true, as `go tool pprof -normalize
 * -diff_base` builds it.  -1 after saying why on stderr.
 */
int report_print_pprof_diff(const struct report *base, const struct report *cur,
                            const struct report_opts *o, FILE *out);
/* The HTML page of cur with base's stacks: frames coloured by the change (report/html.c). */
void report_print_html_diff(const struct report *base, const struct report *cur,
                            const struct report_opts *o, FILE *out);

#endif

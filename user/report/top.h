/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `lfr top`'s table: the samples of a report (read with report_opts.timeline) that fall in a
 * sliding window ending at the newest sample, aggregated per function and thread into self and
 * total values, sorted by either; optionally only one thread or one process, and for one
 * function (the zoom) the callers and callees it has in the window's stacks.
 */
#ifndef LFR_REPORT_TOP_H
#define LFR_REPORT_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include "report/report.h"

#define TOP_ALL UINT32_MAX /* a row or a filter for every thread */

enum top_sort { TOP_SORT_SELF, TOP_SORT_TOTAL };

struct top_opts {
	int64_t window_ns;  /* the window's length, ending at the newest sample; 0 = every sample */
	bool kernel;        /* keep kernel frames (else a stack starts at its first other frame) */
	enum top_sort sort; /* rows by self (then total) or by total (then self), largest first */
	int64_t tid, pid;   /* only this OS thread id, this pid; -1 = any */
	/* only the processes whose label (report/labels.h) label_name has label_value; NULL: any */
	const char *label_name, *label_value;
	uint32_t zoom; /* a frame of the report whose callers and callees to list; TOP_ALL = none */
};

void top_opts_init(struct top_opts *o);

/* One line: a function (report frame) in one thread (TOP_ALL: summed over threads). */
struct top_row {
	uint32_t frame, thread;
	uint64_t self, total;
};

struct top_table {
	int64_t from_ns, to_ns; /* the window, in ns since the recording start (inclusive) */
	uint64_t samples;       /* the value of the window's samples that passed the filters */
	uint64_t events;        /* their number */
	uint64_t kernel_only;   /* of them, samples with only kernel frames, left out without -k */
	struct top_row *rows;   /* per function and thread, sorted */
	size_t nrows;
	/* with a zoom: its own values over the shown threads, and its callers and callees */
	struct top_row zoom;
	struct top_row *callers, *callees; /* thread = TOP_ALL; self = 0, total = samples */
	size_t ncallers, ncallees;
};

/* Builds the table; 0, or -1 when out of memory.  Free with top_free (also after an error). */
int top_build(const struct report *rep, const struct top_opts *o, struct top_table *t);
void top_free(struct top_table *t);

#endif

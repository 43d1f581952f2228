/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timed samples in time order (then thread, then stack; equal ones as they came): a merge of
 * the runs already in order.  A chunk's samples come as the rings were drained, a few hundred
 * runs, each a CPU's batch that overlaps in time only the other CPUs' last ones: each run is
 * merged with the tail of the ordered prefix it overlaps, a few entries moved per sample, while
 * that stays under 2n moves; the runs left are merged in pairs, n log(runs) comparisons, inlined.
 * Any input is sorted in at most n log(n) steps.
 */
#ifndef LFR_REPORT_TIMED_ORDER_H
#define LFR_REPORT_TIMED_ORDER_H

#include <stddef.h>

#include "report/report.h"

/* Sorts v (n entries) stably; 0, or -1 when out of memory (v as it was). */
int report_sort_timed(struct report_timed *v, size_t n);

#endif

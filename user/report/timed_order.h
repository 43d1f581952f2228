/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timed samples in time order (then thread, then stack; equal ones as they came): a merge of
 * the runs already in order.  A chunk's samples come as the rings were drained, a few hundred
 * runs of a few thousand samples, so this costs n log(runs) comparisons, inlined, where qsort()
 * costs n log(n) calls through a pointer: about a third of the instructions.  Any input is
 * sorted in at most n log(n) steps.
 */
#ifndef LFR_REPORT_TIMED_ORDER_H
#define LFR_REPORT_TIMED_ORDER_H

#include <stddef.h>

#include "report/report.h"

/* Sorts v (n entries) stably; 0, or -1 when out of memory (v as it was). */
int report_sort_timed(struct report_timed *v, size_t n);

#endif

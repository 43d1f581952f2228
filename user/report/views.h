/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the report views. */
#ifndef LFR_REPORT_VIEWS_H
#define LFR_REPORT_VIEWS_H

#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/* The value of each distinct stack summed over threads (caller frees). */
uint64_t *views_stack_values(const struct report *rep);
/* Self and total value of every frame (a function counts once per stack); caller frees both. */
int views_frame_totals(const struct report *rep, uint64_t **self, uint64_t **total);
void report_print_header(const struct report *rep, const struct report_opts *o, FILE *out);
/* A frame's name in folded stacks: ';' becomes ':', kernel frames end in "_[k]". */
void views_put_folded_name(FILE *out, const struct report_frame *f);
void report_print_lost(const struct report *rep, FILE *out);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the report views. */
#ifndef LFR_REPORT_VIEWS_H
#define LFR_REPORT_VIEWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/* The value of each distinct stack summed over threads (caller frees). */
uint64_t *views_stack_values(const struct report *rep);
/* Self and total value of every frame (a function counts once per stack); caller frees both. */
int views_frame_totals(const struct report *rep, uint64_t **self, uint64_t **total);
/*
 * The objects of the frames (rep->frames[first[k]].object is object k's name) with the value of
 * the stacks whose leaf is in each (self) and that pass through each (total), sv being
 * views_stack_values().  Returns 0, or -1 when out of memory; the caller frees the arrays.
 */
int views_object_totals(const struct report *rep, const uint64_t *sv, size_t *nobj,
                        uint32_t **first, uint64_t **self, uint64_t **total);
/* An object's name as the views print it (NULL: the frames of no object, Java code). */
const char *views_object_name(const char *object);
void report_print_header(const struct report *rep, const struct report_opts *o, FILE *out);
/* A frame's name in folded stacks: ';' becomes ':', kernel frames end in "_[k]". */
void views_put_folded_name(FILE *out, const struct report_frame *f);
void report_print_lost(const struct report *rep, FILE *out);

#endif

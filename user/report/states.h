/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The value of a report's samples by the state their event gives (report_opts.states): while a
 * chunk is scanned, the sums per (thread key, state) with the state still the raw bytes of the
 * event's field; at the merge, by state name into report.states.  Private to the report engine.
 */
#ifndef LFR_REPORT_STATES_H
#define LFR_REPORT_STATES_H

#include <stddef.h>
#include <stdint.h>

#include "jfr/reader.h"
#include "lib/hashtab.h"
#include "report/report.h"

/* The row of the samples whose event gives no state. */
#define STATES_NONE "[no state]"

/* A distinct state field value of a chunk: its bytes in the event (in the mapped file). */
struct states_raw {
	const uint8_t *p;
	size_t len;
	const struct jfr_field *f;
};

/* One chunk's sums: (thread key, index into raw) -> value. */
struct states_job {
	struct hashtab ids; /* (hash of the bytes, field) -> index into raw + 1 */
	struct hashtab sums;
	struct states_raw *raw;
	size_t nraw, raw_cap;
};

/*
 * Adds value to the sum of the thread key and the state whose field f takes the bytes p[0..len)
 * of an event.  Returns 0, or -1 when out of memory.
 */
int states_job_add(struct states_job *s, const struct jfr_field *f, const uint8_t *p, size_t len,
                   uint64_t thread, uint64_t value);
void states_job_free(struct states_job *s);

/* Adds value to the state named name in rep->states (ids: its index); -1 when out of memory. */
int states_add(struct report *rep, struct hashtab *ids, const char *name, uint64_t value);
/*
 * After the last chunk: when rep has any state, the samples of no state (selected types without
 * the field, null states) as one more row, so that the rows add up to rep->total; the rows by
 * value, largest first.  0, or -1 when out of memory.
 */
int states_finish(struct report *rep, struct hashtab *ids);

#endif

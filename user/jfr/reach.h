/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The constants some of a chunk's events reach: every constant-pool entry they refer to, directly
 * or through other constants (a stack trace's frames, their methods, classes and symbols), and a
 * checkpoint that carries only those.  A copy of a chunk with some of its events then carries
 * what they need of the pools, not all of them (lfr export's Pyroscope uploads, one per series of
 * a chunk that holds many).  A set is built in the time of what it reaches: nothing is cleared
 * per set, the constants seen are stamped with the set that saw them last.
 */
#ifndef LFR_JFR_REACH_H
#define LFR_JFR_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jfr/encode.h"
#include "jfr/reader.h"
#include "lib/hashtab.h"

/* A constant of the set: its value at [off, off + len) of the file (off 0: not in the chunk). */
struct jfr_reached {
	uint64_t type_id, key;
	uint64_t off, len;
};

struct jfr_reach {
	struct jfr_reader *r;
	const struct jfr_chunk *ch;
	struct hashtab stamps; /* (type id, key) -> the set that reached it last */
	uint64_t stamp;        /* the set being built */
	struct jfr_reached *set;
	size_t n, cap;
	size_t walked; /* set[0, walked) were walked for what they reach */
	bool oom;
};

/* Starts with an empty set of chunk ch of r (the first call) or of the chunk given before. */
void jfr_reach_begin(struct jfr_reach *rc, struct jfr_reader *r, const struct jfr_chunk *ch);
/*
 * Adds to the set what the event at absolute offset off (its first byte, the size) reaches.
 * Returns 0, or -1 with a message in err: it does not parse, or memory ran out.
 */
int jfr_reach_event(struct jfr_reach *rc, uint64_t off, char *err, size_t errlen);
/*
 * Appends to out a checkpoint event with the set's constants, one pool per type (none empty), in
 * key order within a type (the set is sorted); ticks: its startTime.  Its delta is 0: the only
 * checkpoint of the copy.
 */
void jfr_reach_checkpoint(struct jfr_reach *rc, uint64_t ticks, struct jfr_buf *out);
void jfr_reach_free(struct jfr_reach *rc);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The constants some of a chunk's events reach: every constant-pool entry they refer to, directly
 * or through other constants (a stack trace's frames, their methods, classes and symbols), and a
 * checkpoint that carries only those.  A copy of a chunk with some of its events then carries
 * what they need of the pools, not all of them (lfr export's Pyroscope uploads, one per series of
 * a chunk that holds many).
 *
 * Sets of one chunk are built one after another.  Each constant is parsed once per chunk, for the
 * constants it refers to (its edges, by dense ids); a set then costs a compare and a store per
 * edge it follows, and nothing is cleared between sets: a constant is stamped with the set that
 * reached it last.
 */
#ifndef LFR_JFR_REACH_H
#define LFR_JFR_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jfr/encode.h"
#include "jfr/reader.h"
#include "lib/hashtab.h"

/* The fields of a flat event whose last reference is remembered. */
#define JFR_REACH_MEMO 8

/* A constant of the chunk met so far. */
struct jfr_reach_node {
	uint64_t type_id, key;
	uint64_t off, len;    /* its value in the file; off 0: not in the chunk */
	uint64_t stamp;       /* the set that reached it last */
	size_t edges, nedges; /* the constants it refers to: edge[edges, edges + nedges) */
	uint32_t type;        /* index into types */
	bool walked;          /* its edges are known */
};

/* A type of the constants met so far. */
struct jfr_reach_type {
	uint64_t id;
	uint64_t stamp; /* the set that has constants of it last */
	size_t count;   /* of them in the set, then where they go (jfr_reach_checkpoint()) */
};

struct jfr_reach {
	struct jfr_reader *r;
	const struct jfr_chunk *ch;
	struct hashtab ids; /* (type id, key) -> node + 1 */
	struct jfr_reach_node *nodes;
	size_t nnodes, nodes_cap;
	size_t *edge;
	size_t nedges, edges_cap;
	struct hashtab type_ids; /* type id -> index into types + 1 */
	struct jfr_reach_type *types;
	size_t ntypes, types_cap;
	uint64_t stamp; /* the set being built */
	size_t *set;    /* its nodes, in the order reached */
	size_t n, set_cap;
	size_t walked; /* set[0, walked) have had their edges followed */
	size_t *order; /* the set by type (jfr_reach_checkpoint()) */
	size_t order_cap;
	uint32_t *set_types; /* the types of the set */
	size_t nset_types, set_types_cap;
	bool oom;
	/*
	 * The last event's type, and whether its fields are all single varints (a sample's): such
	 * an event is read field by field, and a reference equal to the last one met at its place
	 * (a thread's samples repeat their thread, state and often their stack) costs a compare.
	 */
	const struct jfr_type *last_type;
	bool last_flat;
	uint64_t last_key[JFR_REACH_MEMO], last_type_id[JFR_REACH_MEMO];
};

/*
 * Starts a new, empty set of chunk ch of r.  The constants known are kept while ch is the chunk
 * of the last call (the same struct); another chunk starts them over.
 */
void jfr_reach_begin(struct jfr_reach *rc, struct jfr_reader *r, const struct jfr_chunk *ch);
/*
 * Adds to the set what the event at absolute offset off (its first byte, the size) reaches.
 * Returns 0, or -1 with a message in err: it does not parse, or memory ran out.
 */
int jfr_reach_event(struct jfr_reach *rc, uint64_t off, char *err, size_t errlen);
/*
 * Appends to out a checkpoint event with the set's constants that are in the chunk, one pool per
 * type (none empty), types by id, a type's constants in the order they were reached (which the
 * chunk's content alone decides); ticks: its startTime.  Its delta is 0: the only checkpoint of
 * the copy.  Out of memory: out->oom.
 */
void jfr_reach_checkpoint(struct jfr_reach *rc, uint64_t ticks, struct jfr_buf *out);
void jfr_reach_free(struct jfr_reach *rc);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the JFR reader's files share and its users do not see.  They call one way: reader_core.c
 * (arena, errors) <- reader_values.c (strings, values, types) <- reader_meta.c (metadata,
 * constant pools) <- reader.c (files, chunks, events).
 */
#ifndef LFR_JFR_READER_INTERNAL_H
#define LFR_JFR_READER_INTERNAL_H

#include "jfr/reader.h"

#define JFR_MAX_DEPTH 32 /* nesting of metadata elements and of inline values */

/* ---- arena: everything the metadata owns lives here and is freed with the reader ---- */

struct jfr_arena_block {
	struct jfr_arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

void *jfr_arena_alloc(struct jfr_reader *r, size_t n);
void jfr_arena_free(struct jfr_reader *r);

/* A big-endian field of n bytes. */
static inline uint64_t jfr_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The metadata event of chunk ch (the previous chunk's when it is the same): *out. */
int jfr_meta_parse(struct jfr_reader *r, const struct jfr_chunk *ch, struct jfr_meta **out);
/* The checkpoint at off, which must end by limit (the chunk's end, or the checkpoint after it). */
int jfr_checkpoint_parse(struct jfr_reader *r, struct jfr_chunk *ch, uint64_t off, uint64_t limit,
                         int64_t *delta);

#endif

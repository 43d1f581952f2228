/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the JFR reader's files share and its users do not see.  They call one way: reader_core.c
 * (arena, errors) <- reader_values.c (strings, values, types) <- reader_meta.c (metadata,
 * constant pools) <- reader.c (files, chunks, events); reader_cache.c (the metadata cache, which
 * calls none of them) <- reader_meta.c, reader.c.
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

/* ---- the metadata cache (reader_cache.c) ---- */

/* What a metadata event is found by: its id, its bytes after the id, the reading's strictness. */
struct jfr_meta_key {
	uint64_t id, hash, len;
	const uint8_t *raw;
	bool strict;
	bool held; /* set by jfr_meta_cache_find(): another reader holds the same metadata */
};

/* The cache's metadata of key k, now held by r (its type-name indices still r's to set), or NULL.
 */
struct jfr_meta *jfr_meta_cache_find(struct jfr_reader *r, struct jfr_meta_key *k);
/*
 * After a parse for the cache, its arena blocks (m, its types, strings and a copy of the bytes, or
 * what a failed parse left when m is NULL): kept as an entry held by r, or else given to r's arena.
 */
void jfr_meta_cache_keep(struct jfr_reader *r, const struct jfr_meta_key *k, struct jfr_meta *m,
                         struct jfr_arena_block *blocks);
/* Whether the cache would keep metadata of len bytes (else it is parsed as without a cache). */
bool jfr_meta_cache_fits(const struct jfr_meta_cache *c, uint64_t len);
/* r no longer holds the entries it used (jfr_close()). */
void jfr_meta_cache_release(struct jfr_reader *r);

/* The metadata event of chunk ch (the previous chunk's when it is the same): *out. */
int jfr_meta_parse(struct jfr_reader *r, const struct jfr_chunk *ch, struct jfr_meta **out);
/* The checkpoint at off, which must end by limit (the chunk's end, or the checkpoint after it). */
int jfr_checkpoint_parse(struct jfr_reader *r, struct jfr_chunk *ch, uint64_t off, uint64_t limit,
                         int64_t *delta);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * JFR reader's metadata cache (jfr_reader.meta_cache, see reader.h): the metadata events parsed by
 * the readers of one owner, kept so that a chunk whose metadata repeats another's, byte for byte,
 * is not parsed again.  Few entries, a byte cap, the least recently used unheld entry evicted.
 */
#include <stdlib.h>
#include <string.h>

#include "jfr/reader_internal.h"

#define META_CACHE_ENTRIES 8
#define META_CACHE_BYTES (4u << 20)

struct meta_entry {
	struct jfr_meta *m; /* in arena, with its types, strings and a copy of its bytes */
	struct jfr_arena_block *arena;
	uint64_t hash, used; /* used: the cache's clock when last found or kept */
	size_t bytes;
	const struct jfr_reader *holder; /* the open reader that uses it, or NULL */
	bool strict, live;
};

struct jfr_meta_cache {
	struct meta_entry e[META_CACHE_ENTRIES];
	size_t bytes;
	uint64_t clock, parses, hits;
};

static void blocks_free(struct jfr_arena_block *b)
{
	while (b) {
		struct jfr_arena_block *next = b->next;

		free(b);
		b = next;
	}
}

struct jfr_meta_cache *jfr_meta_cache_new(void)
{
	return calloc(1, sizeof(struct jfr_meta_cache));
}

void jfr_meta_cache_free(struct jfr_meta_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < META_CACHE_ENTRIES; i++)
		blocks_free(c->e[i].arena);
	free(c);
}

void jfr_meta_cache_stats(const struct jfr_meta_cache *c, struct jfr_meta_cache_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!c)
		return;
	st->parses = c->parses;
	st->hits = c->hits;
	st->bytes = c->bytes;
	for (int i = 0; i < META_CACHE_ENTRIES; i++)
		st->entries += c->e[i].live;
}

bool jfr_meta_cache_fits(const struct jfr_meta_cache *c, uint64_t len)
{
	/* the parse takes several times the bytes; a quarter of the cap for the copy at most */
	return c && len <= META_CACHE_BYTES / 4;
}

static bool same_key(const struct meta_entry *e, const struct jfr_meta_key *k)
{
	return e->live && e->strict == k->strict && e->hash == k->hash && e->m->id == k->id &&
	       e->m->raw_len == k->len && !memcmp(e->m->raw, k->raw, k->len);
}

struct jfr_meta *jfr_meta_cache_find(struct jfr_reader *r, struct jfr_meta_key *k)
{
	struct jfr_meta_cache *c = r->meta_cache;

	k->hash = hashtab_hash_bytes(k->raw, k->len);
	k->held = false;
	for (int i = 0; i < META_CACHE_ENTRIES; i++) {
		struct meta_entry *e = &c->e[i];

		if (!same_key(e, k))
			continue;
		if (e->holder && e->holder != r) {
			k->held = true; /* its type-name indices are another reader's */
			return NULL;
		}
		e->holder = r;
		e->used = ++c->clock;
		c->hits++;
		return e->m;
	}
	return NULL;
}

/* Frees the least recently used entry that no reader holds; false when every entry is held. */
static bool evict_one(struct jfr_meta_cache *c)
{
	struct meta_entry *old = NULL;

	for (int i = 0; i < META_CACHE_ENTRIES; i++) {
		struct meta_entry *e = &c->e[i];

		if (e->live && !e->holder && (!old || e->used < old->used))
			old = e;
	}
	if (!old)
		return false;
	blocks_free(old->arena);
	c->bytes -= old->bytes;
	memset(old, 0, sizeof(*old));
	return true;
}

/* A free entry for bytes more, the oldest evicted as needed; NULL when none can be made. */
static struct meta_entry *make_room(struct jfr_meta_cache *c, size_t bytes)
{
	if (bytes > META_CACHE_BYTES)
		return NULL;
	while (c->bytes + bytes > META_CACHE_BYTES)
		if (!evict_one(c))
			return NULL;
	for (;;) {
		for (int i = 0; i < META_CACHE_ENTRIES; i++)
			if (!c->e[i].live)
				return &c->e[i];
		if (!evict_one(c))
			return NULL;
	}
}

void jfr_meta_cache_keep(struct jfr_reader *r, const struct jfr_meta_key *k, struct jfr_meta *m,
                         struct jfr_arena_block *blocks)
{
	struct jfr_meta_cache *c = r->meta_cache;
	struct meta_entry *e = NULL;
	size_t bytes = 0;

	for (struct jfr_arena_block *b = blocks; b; b = b->next)
		bytes += sizeof(*b) + b->cap;
	if (m) {
		c->parses++;
		if (!k->held)
			e = make_room(c, bytes);
	}
	if (!e) { /* r's own, freed with it: the blocks go before r's (the newest is allocated from)
		   */
		struct jfr_arena_block *last = blocks;

		if (!blocks)
			return;
		while (last->next)
			last = last->next;
		last->next = r->arena;
		r->arena = blocks;
		return;
	}
	*e = (struct meta_entry){.m = m,
	                         .arena = blocks,
	                         .hash = k->hash,
	                         .used = ++c->clock,
	                         .bytes = bytes,
	                         .holder = r,
	                         .strict = k->strict,
	                         .live = true};
	c->bytes += bytes;
}

void jfr_meta_cache_release(struct jfr_reader *r)
{
	struct jfr_meta_cache *c = r->meta_cache;

	if (!c)
		return;
	for (int i = 0; i < META_CACHE_ENTRIES; i++)
		if (c->e[i].holder == r)
			c->e[i].holder = NULL;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intern tables for the constant pools.  An entry is identified by a blob of bytes (its content);
 * its key is its index + 1, so keys are dense and never 0.  Each entry remembers the last chunk its
 * value was written to and the last flush segment that referenced it.
 *
 * An entry nothing will refer to again (a thread the recorder forgot) can be released: the writer
 * frees it once the flush that writes its last references is done.  Its slot serves a later entry
 * once the table is full, under a new key: a key is the slot's index + 1 in its low 32 bits and the
 * number of entries the slot held before in its high bits, so no key ever names two values
 * (jfr-format.md: the JDK keeps the first value it read for a key, in any chunk of a file).  A
 * recording that runs for months holds the entries still in use, and keys stay small (one to three
 * bytes) until a slot is used again (five).
 *
 * Entries are also stamped with the last chunk that used them (interned, found, or written), so
 * that the writer can forget what no recent chunk used (pool_sweep()): a stack met once an hour ago
 * does not stay for the recording's life.
 */
#ifndef LFR_JFR_POOL_H
#define LFR_JFR_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hashtab.h"

struct pool_entry {
	uint8_t *blob; /* NULL: freed */
	uint32_t len;
	uint32_t emitted_chunk; /* chunk sequence number the value was last written to (0: none) */
	uint32_t seg;           /* segment sequence number that last referenced the entry */
	uint32_t refs : 31;     /* entries of another pool whose values name this one */
	uint32_t released : 1;  /* to be freed by the next pool_free_released() */
	uint32_t gen;           /* entries the slot held before this one: its key's high bits */
	uint32_t used_chunk;    /* the last chunk that interned, found or wrote the entry */
};

struct keyvec {
	uint64_t *k;
	size_t n, cap;
};

struct pool {
	struct pool_entry *e;
	size_t n, cap;
	struct hashtab index;   /* byte keys: the blobs -> their keys */
	struct keyvec released; /* released, not freed yet (some may have been taken back since) */
	struct keyvec free;     /* free slots' indexes + 1 from free_head on, oldest first */
	size_t free_head;
	size_t nfree;   /* slots free (those the list had no room for included) */
	uint32_t chunk; /* the current chunk, stamped on the entries interned or found */
};

/* trusted: blobs made of lfr's own keys only, hashed unkeyed (lib/hashtab.h). */
void pool_init(struct pool *p, bool trusted);
void pool_free(struct pool *p);
/*
 * Finds or adds the entry for blob; returns its key (> 0) or 0 when memory ran out.  fresh (may be
 * NULL) tells whether the entry is new.  An entry found while released is taken back.
 */
uint64_t pool_intern_new(struct pool *p, const void *blob, size_t len, bool *fresh);
static inline uint64_t pool_intern(struct pool *p, const void *blob, size_t len)
{
	return pool_intern_new(p, blob, len, NULL);
}
/* The entry of key, or NULL (an entry freed since: its slot's generation moved on). */
static inline struct pool_entry *pool_get(struct pool *p, uint64_t key)
{
	uint32_t slot = (uint32_t)key;

	return slot && slot <= p->n && p->e[slot - 1].gen == key >> 32 ? &p->e[slot - 1] : NULL;
}
/* Marks key's entry to be freed by pool_free_released(); 0, or -ENOMEM (then it is kept). */
int pool_release(struct pool *p, uint64_t key);
/*
 * Frees the released entries that no reference of segment seg (the one being built) names;
 * on_free (may be NULL) sees each entry before it goes.
 */
void pool_free_released(struct pool *p, uint32_t seg,
                        void (*on_free)(void *arg, const struct pool_entry *e), void *arg);
/* Frees key's entry now (an entry only other entries refer to, whose last one went). */
void pool_free_entry(struct pool *p, uint64_t key);
/*
 * Entries that no chunk after chunk `before` used, that nothing refers to and that are not
 * released: with do_free, freed (their keys never given out again).  Returns their number.
 */
size_t pool_sweep(struct pool *p, uint32_t before, bool do_free);
/* The number of entries in use (not freed). */
static inline size_t pool_used(const struct pool *p)
{
	return p->n - p->nfree;
}
int keyvec_push(struct keyvec *v, uint64_t key);
void keyvec_free(struct keyvec *v);

#endif

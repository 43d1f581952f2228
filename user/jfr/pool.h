/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intern tables for the constant pools.  An entry is identified by a blob of bytes (its content);
 * its key is its index + 1, so keys are dense, never 0, and stable for the life of the writer —
 * which makes them unique across every chunk of a file.  Each entry remembers the last chunk its
 * value was written to and the last flush segment that referenced it.
 */
#ifndef LFR_JFR_POOL_H
#define LFR_JFR_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hashtab.h"

struct pool_entry {
	uint8_t *blob;
	uint32_t len;
	uint32_t emitted_chunk; /* chunk sequence number the value was last written to (0: none) */
	uint32_t seg;           /* segment sequence number that last referenced the entry */
};

struct pool {
	struct pool_entry *e;
	size_t n, cap;
	struct hashtab index; /* byte keys: the blobs -> their keys */
};

struct keyvec {
	uint64_t *k;
	size_t n, cap;
};

/* trusted: blobs made of lfr's own keys only, hashed unkeyed (lib/hashtab.h). */
void pool_init(struct pool *p, bool trusted);
void pool_free(struct pool *p);
/* Finds or adds the entry for blob; returns its key (> 0) or 0 when memory ran out. */
uint64_t pool_intern(struct pool *p, const void *blob, size_t len);
static inline struct pool_entry *pool_get(struct pool *p, uint64_t key)
{
	return key && key <= p->n ? &p->e[key - 1] : NULL;
}
int keyvec_push(struct keyvec *v, uint64_t key);
void keyvec_free(struct keyvec *v);

#endif

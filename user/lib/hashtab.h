/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one hash table of the user-space tools: open addressing, linear probing, a power-of-two
 * capacity kept at most half full, deletion by backward shift (no tombstones, so lookups stay short
 * in tables that churn).  A slot is four 64-bit words; a table holds one of two kinds of key:
 *
 *  - integer keys: the pair (a, b); v is the caller's value and n, set to 1 on insertion, is free
 *    for the caller to use as a counter (it must stay non-zero);
 *  - byte keys (a table initialized with hashtab_init_bytes, or a zeroed one whose first key is
 *    bytes): a is the hash of the bytes, b points to them (the caller keeps them alive as long as
 *    the entry), n is their length + 1, v the value.
 *
 * Slots move when the table grows and when an entry is deleted: keep values, not slot pointers.
 */
#ifndef LFR_LIB_HASHTAB_H
#define LFR_LIB_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct hashtab_slot {
	uint64_t a, b, v;
	uint64_t n; /* 0 = empty */
};

struct hashtab {
	struct hashtab_slot *slots;
	size_t cap, n;
	bool bytes; /* keys are byte strings (see above) */
};

static inline uint64_t hashtab_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull;

	h ^= (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdull;
	return h ^ h >> 29;
}

/* A hash of n bytes, 8 at a time (the byte-key tables hash with it). */
uint64_t hashtab_hash_bytes(const void *data, size_t n);

static inline void hashtab_init_bytes(struct hashtab *t)
{
	*t = (struct hashtab){.bytes = true};
}

/* The slot of the integer key (a, b), or NULL. */
static inline struct hashtab_slot *hashtab_get(const struct hashtab *t, uint64_t a, uint64_t b)
{
	if (!t->cap)
		return NULL;
	size_t mask = t->cap - 1, i = hashtab_hash(a, b) & mask;
	for (;; i = (i + 1) & mask) {
		struct hashtab_slot *s = &t->slots[i];
		if (!s->n)
			return NULL;
		if (s->a == a && s->b == b)
			return s;
	}
}

/* The slot of (a, b), inserted with v = 0, n = 1 when absent (*fresh tells); NULL on ENOMEM. */
struct hashtab_slot *hashtab_put(struct hashtab *t, uint64_t a, uint64_t b, bool *fresh);
/* The same with h = hashtab_hash(a, b) computed by the caller (who may have prefetched its slot).
 */
struct hashtab_slot *hashtab_put_hashed(struct hashtab *t, uint64_t a, uint64_t b, uint64_t h,
                                        bool *fresh);

/* The slot of the byte key key[0..len), or NULL. */
static inline struct hashtab_slot *hashtab_get_bytes(const struct hashtab *t, const void *key,
                                                     size_t len)
{
	if (!t->cap)
		return NULL;
	uint64_t h = hashtab_hash_bytes(key, len);
	size_t mask = t->cap - 1, i = h & mask;
	for (;; i = (i + 1) & mask) {
		struct hashtab_slot *s = &t->slots[i];
		if (!s->n)
			return NULL;
		if (s->a == h && s->n == len + 1 &&
		    !memcmp((const void *)(uintptr_t)s->b, key, len))
			return s;
	}
}

/*
 * The slot of key[0..len), inserted when absent (*fresh tells) with b pointing at key and v = 0:
 * the caller may then point b at its own copy of the same bytes.  NULL on ENOMEM.
 */
struct hashtab_slot *hashtab_put_bytes(struct hashtab *t, const void *key, size_t len, bool *fresh);

/* Removes the entry of slot s (a slot of t); entries after it may move into its place. */
void hashtab_del(struct hashtab *t, struct hashtab_slot *s);

/* Makes room for n more keys without growing; -1 on ENOMEM. */
int hashtab_reserve(struct hashtab *t, size_t n);
/*
 * hashtab_reserve() with every page of the slots written now: keys put later, anywhere in the
 * table, take no fresh page (which the kernel would zero then).  -1 on ENOMEM.
 */
int hashtab_prepare(struct hashtab *t, size_t n);

static inline void hashtab_prefetch(const struct hashtab *t, uint64_t h)
{
	if (t->cap)
		__builtin_prefetch(&t->slots[h & (t->cap - 1)], 1);
}

/* Every entry: for (struct hashtab_slot *s = NULL; (s = hashtab_next(t, s));) */
static inline struct hashtab_slot *hashtab_next(const struct hashtab *t, struct hashtab_slot *s)
{
	size_t i = s ? (size_t)(s - t->slots) + 1 : 0;

	for (; i < t->cap; i++)
		if (t->slots[i].n)
			return &t->slots[i];
	return NULL;
}

void hashtab_clear(struct hashtab *t);
/* Frees the slots; the table stays usable (and keeps its kind of key). */
void hashtab_free(struct hashtab *t);

#endif

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
 *
 * Where a key's slot is: keys come from recordings, ELF files and other users' processes, and
 * keys chosen to share a slot would turn each probe into a walk through all of them.  A table
 * hashes its keys with hashes drawn at random once per process, so that whoever wrote the keys
 * cannot know where they land:
 *
 *  - integer keys by simple tabulation: the 16 bytes of (a, b) each select a random word of its
 *    own table, and the words are xored (hashtab_keyed(), about 50 instructions, inline).  With
 *    it, linear probing takes constant expected time for any set of keys chosen without seeing
 *    the tables (Patrascu and Thorup, "The Power of Simple Tabulation Hashing", 2012);
 *  - byte keys by SipHash under a random key (libsodium's crypto_shorthash), the pseudorandom
 *    function made against such flooding.
 *
 * A table whose keys only the kernel or lfr itself chooses (thread and walk ids, pointers, its
 * own indexes, keyed hashes already) may say so with hashtab_init_trusted(): it hashes with
 * hashtab_hash() and hashtab_hash_bytes(), multiply-xorshift mixes of about ten instructions,
 * which lfr record's tables that are probed for every sample use.
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
	bool bytes;   /* keys are byte strings (see above) */
	bool trusted; /* keys nobody else chose: hashed by hashtab_hash(), unkeyed */
};

/*
 * The unkeyed mix: fast, and invertible, so that keys can be made to collide; for trusted keys
 * only (and for values that must be the same in every process, as written into a file).
 */
static inline uint64_t hashtab_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull;

	h ^= (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdull;
	return h ^ h >> 29;
}

/* The unkeyed hash of n bytes, 8 at a time (trusted byte keys; file contents' ids). */
uint64_t hashtab_hash_bytes(const void *data, size_t n);

/* This process's random tables of hashtab_keyed(), one per byte of (a, b). */
extern uint64_t hashtab_tables[16][256];

/* The word of table t for byte i of x. */
#define HASHTAB_TAB(t, x, i) hashtab_tables[t][(uint8_t)((x) >> 8 * (i))]

/* The keyed hash of (a, b): simple tabulation (see above), unrolled (a loop costs three times). */
static inline uint64_t hashtab_keyed(uint64_t a, uint64_t b)
{
	return HASHTAB_TAB(0, a, 0) ^ HASHTAB_TAB(1, a, 1) ^ HASHTAB_TAB(2, a, 2) ^
	       HASHTAB_TAB(3, a, 3) ^ HASHTAB_TAB(4, a, 4) ^ HASHTAB_TAB(5, a, 5) ^
	       HASHTAB_TAB(6, a, 6) ^ HASHTAB_TAB(7, a, 7) ^ HASHTAB_TAB(8, b, 0) ^
	       HASHTAB_TAB(9, b, 1) ^ HASHTAB_TAB(10, b, 2) ^ HASHTAB_TAB(11, b, 3) ^
	       HASHTAB_TAB(12, b, 4) ^ HASHTAB_TAB(13, b, 5) ^ HASHTAB_TAB(14, b, 6) ^
	       HASHTAB_TAB(15, b, 7);
}

/* The keyed hash of n bytes: SipHash under this process's random key. */
uint64_t hashtab_keyed_bytes(const void *data, size_t n);

/* Where t puts (a, b): for hashtab_put_hashed() and hashtab_prefetch(). */
static inline uint64_t hashtab_slot_hash(const struct hashtab *t, uint64_t a, uint64_t b)
{
	return t->trusted ? hashtab_hash(a, b) : hashtab_keyed(a, b);
}

static inline uint64_t hashtab_slot_hash_bytes(const struct hashtab *t, const void *key, size_t len)
{
	return t->trusted ? hashtab_hash_bytes(key, len) : hashtab_keyed_bytes(key, len);
}

static inline void hashtab_init_bytes(struct hashtab *t)
{
	*t = (struct hashtab){.bytes = true};
}

/* A table of keys that only the kernel or lfr chose (see above); bytes: byte keys. */
static inline void hashtab_init_trusted(struct hashtab *t, bool bytes)
{
	*t = (struct hashtab){.bytes = bytes, .trusted = true};
}

/* The slot of the integer key (a, b), or NULL. */
static inline struct hashtab_slot *hashtab_get(const struct hashtab *t, uint64_t a, uint64_t b)
{
	if (!t->cap)
		return NULL;
	size_t mask = t->cap - 1, i = hashtab_slot_hash(t, a, b) & mask;
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
/* The same with h = hashtab_slot_hash(t, a, b) computed by the caller (who may have prefetched
 * its slot). */
struct hashtab_slot *hashtab_put_hashed(struct hashtab *t, uint64_t a, uint64_t b, uint64_t h,
                                        bool *fresh);

/* The slot of the byte key key[0..len), or NULL. */
static inline struct hashtab_slot *hashtab_get_bytes(const struct hashtab *t, const void *key,
                                                     size_t len)
{
	if (!t->cap)
		return NULL;
	uint64_t h = hashtab_slot_hash_bytes(t, key, len);
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

/*
 * A table grown for many keys that now holds few made small again (at most a quarter full, 256
 * slots at least; a table never shrinks by itself): 0, or -1 on ENOMEM (unchanged).  Slots move.
 */
int hashtab_shrink(struct hashtab *t);
/*
 * hashtab_shrink() once at most a sixteenth full: for a table whose keys come and go (called after
 * deletions, it shrinks after a burst and not at every deletion).  Slots move.
 */
int hashtab_shrink_sparse(struct hashtab *t);
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
/* Frees the slots; the table stays usable (and keeps its kind of key and of hash). */
void hashtab_free(struct hashtab *t);

#endif

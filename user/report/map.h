/* SPDX-License-Identifier: GPL-2.0 */
/* A small open-addressing hash map from a pair of 64-bit keys to a 64-bit value. */
#ifndef LFR_REPORT_MAP_H
#define LFR_REPORT_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_slot {
	uint64_t a, b, v;
	uint64_t n; /* 0 = empty; set to 1 on insertion, free for the caller to use as a counter */
};

struct map {
	struct map_slot *slots;
	size_t cap, n;
};

static inline uint64_t map_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull;
	h ^= (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 31;
	h *= 0xff51afd7ed558ccdull;
	return h ^ h >> 29;
}

/* The slot of (a, b), or NULL. */
static inline struct map_slot *map_get(const struct map *m, uint64_t a, uint64_t b)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1, i = map_hash(a, b) & mask;
	for (;; i = (i + 1) & mask) {
		struct map_slot *s = &m->slots[i];
		if (!s->n)
			return NULL;
		if (s->a == a && s->b == b)
			return s;
	}
}

/* The slot of (a, b), inserted with v = 0, n = 1 when absent (*fresh tells); NULL on OOM. */
struct map_slot *map_put(struct map *m, uint64_t a, uint64_t b, bool *fresh);
/* The same with h = map_hash(a, b) computed by the caller (who may have prefetched its slot). */
struct map_slot *map_put_hashed(struct map *m, uint64_t a, uint64_t b, uint64_t h, bool *fresh);
/* Makes room for n more keys without growing; -1 on OOM. */
int map_reserve(struct map *m, size_t n);

static inline void map_prefetch(const struct map *m, uint64_t h)
{
	if (m->cap)
		__builtin_prefetch(&m->slots[h & (m->cap - 1)], 1);
}
void map_clear(struct map *m);
void map_free(struct map *m);

#endif

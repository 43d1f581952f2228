// SPDX-License-Identifier: GPL-2.0
/* Open-addressing hash map (linear probing, power-of-two capacity, at most half full). */
#include <stdlib.h>
#include <string.h>

#include "report/map.h"

static int map_grow(struct map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct map_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		struct map_slot *s = &m->slots[i];
		if (!s->n)
			continue;
		size_t j = map_hash(s->a, s->b) & (cap - 1);
		while (slots[j].n)
			j = (j + 1) & (cap - 1);
		slots[j] = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int map_reserve(struct map *m, size_t n)
{
	while ((m->n + n) * 2 > m->cap)
		if (map_grow(m) < 0)
			return -1;
	return 0;
}

struct map_slot *map_put(struct map *m, uint64_t a, uint64_t b, bool *fresh)
{
	return map_put_hashed(m, a, b, map_hash(a, b), fresh);
}

struct map_slot *map_put_hashed(struct map *m, uint64_t a, uint64_t b, uint64_t h, bool *fresh)
{
	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return NULL;
	size_t mask = m->cap - 1, i = h & mask;
	for (;; i = (i + 1) & mask) {
		struct map_slot *s = &m->slots[i];
		if (!s->n) {
			*s = (struct map_slot){a, b, 0, 1};
			m->n++;
			*fresh = true;
			return s;
		}
		if (s->a == a && s->b == b) {
			*fresh = false;
			return s;
		}
	}
}

void map_clear(struct map *m)
{
	if (m->n)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->n = 0;
}

void map_free(struct map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

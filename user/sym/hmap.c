// SPDX-License-Identifier: GPL-2.0
/* Open-addressing hash map with linear probing; keys are byte strings owned by the values. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sym/internal.h"

enum { EMPTY = 0, DELETED = 1 };

static uint64_t hash_key(const void *key, size_t klen)
{
	const unsigned char *k = key;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < klen; i++)
		h = (h ^ k[i]) * 0x100000001b3ull;
	return h < 2 ? h + 2 : h;
}

void hmap_fini(struct hmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static struct hmap_slot *lookup(const struct hmap *m, const void *key, size_t klen, uint64_t h)
{
	if (!m->cap)
		return NULL;
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct hmap_slot *s = &m->slots[i];

		if (s->hash == EMPTY)
			return NULL;
		if (s->hash == h && s->klen == klen && !memcmp(s->key, key, klen))
			return s;
	}
}

void *hmap_get(const struct hmap *m, const void *key, size_t klen)
{
	struct hmap_slot *s = lookup(m, key, klen, hash_key(key, klen));

	return s ? s->val : NULL;
}

static int rehash(struct hmap *m, size_t cap)
{
	struct hmap_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		struct hmap_slot *s = &m->slots[i];
		size_t j;

		if (s->hash < 2)
			continue;
		for (j = s->hash & (cap - 1); slots[j].hash; j = (j + 1) & (cap - 1))
			;
		slots[j] = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->used = m->n;
	return 0;
}

int hmap_put(struct hmap *m, const void *key, size_t klen, void *val)
{
	uint64_t h = hash_key(key, klen);
	struct hmap_slot *s = lookup(m, key, klen, h);
	size_t i;

	if (s) {
		s->key = key;
		s->val = val;
		return 0;
	}
	if ((m->used + 1) * 4 > m->cap * 3) {
		/* Grow when live entries fill half the table, else just clear the tombstones. */
		size_t cap = !m->cap ? 64 : (m->n + 1) * 2 > m->cap ? m->cap * 2 : m->cap;
		int err = rehash(m, cap);

		if (err)
			return err;
	}
	for (i = h & (m->cap - 1); m->slots[i].hash >= 2; i = (i + 1) & (m->cap - 1))
		;
	if (m->slots[i].hash == EMPTY)
		m->used++;
	m->slots[i] = (struct hmap_slot){h, key, klen, val};
	m->n++;
	return 0;
}

void hmap_del(struct hmap *m, const void *key, size_t klen)
{
	struct hmap_slot *s = lookup(m, key, klen, hash_key(key, klen));

	if (!s)
		return;
	s->hash = DELETED;
	s->key = NULL;
	s->val = NULL;
	m->n--;
}

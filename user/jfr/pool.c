// SPDX-License-Identifier: GPL-2.0
/* Intern tables for the constant pools (see pool.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/pool.h"

uint64_t pool_hash(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);

	while (n >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		h = (h ^ (v * 0xc2b2ae3d27d4eb4fULL)) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	uint64_t v = 0;
	memcpy(&v, p, n);
	h = (h ^ (v * 0xc2b2ae3d27d4eb4fULL)) * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 32;
	return h;
}

void pool_free(struct pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->e[i].blob);
	free(p->e);
	free(p->slots);
	memset(p, 0, sizeof(*p));
}

static int rehash(struct pool *p)
{
	size_t nslots = p->nslots ? p->nslots * 2 : 1024;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		size_t s = p->e[i].hash & (nslots - 1);

		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = (uint32_t)(i + 1);
	}
	free(p->slots);
	p->slots = slots;
	p->nslots = nslots;
	return 0;
}

uint64_t pool_intern(struct pool *p, const void *blob, size_t len)
{
	uint64_t h = pool_hash(blob, len);

	if (p->nslots) {
		for (size_t s = h & (p->nslots - 1);; s = (s + 1) & (p->nslots - 1)) {
			uint32_t i = p->slots[s];

			if (!i)
				break;
			struct pool_entry *e = &p->e[i - 1];
			if (e->hash == h && e->len == len && !memcmp(e->blob, blob, len))
				return i;
		}
	}
	if (p->n >= UINT32_MAX - 1)
		return 0;
	if ((p->n + 1) * 2 > p->nslots && rehash(p))
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		struct pool_entry *e = realloc(p->e, cap * sizeof(*e));

		if (!e)
			return 0;
		p->e = e;
		p->cap = cap;
	}
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, blob, len);
	p->e[p->n] = (struct pool_entry){.hash = h, .blob = copy, .len = (uint32_t)len};
	p->n++;
	size_t s = h & (p->nslots - 1);
	while (p->slots[s])
		s = (s + 1) & (p->nslots - 1);
	p->slots[s] = (uint32_t)p->n;
	return p->n;
}

int keyvec_push(struct keyvec *v, uint64_t key)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 256;
		uint64_t *k = realloc(v->k, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		v->k = k;
		v->cap = cap;
	}
	v->k[v->n++] = key;
	return 0;
}

void keyvec_free(struct keyvec *v)
{
	free(v->k);
	memset(v, 0, sizeof(*v));
}

// SPDX-License-Identifier: GPL-2.0
/* Intern tables for the constant pools (see pool.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/pool.h"

void pool_init(struct pool *p, bool trusted)
{
	*p = (struct pool){0};
	if (trusted)
		hashtab_init_trusted(&p->index, true);
	else
		hashtab_init_bytes(&p->index);
}

void pool_free(struct pool *p)
{
	bool trusted = p->index.trusted;

	for (size_t i = 0; i < p->n; i++)
		free(p->e[i].blob);
	free(p->e);
	hashtab_free(&p->index);
	pool_init(p, trusted);
}

uint64_t pool_intern(struct pool *p, const void *blob, size_t len)
{
	bool fresh;
	struct hashtab_slot *s;
	uint8_t *copy;

	if (p->n >= UINT32_MAX - 1)
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		struct pool_entry *e = realloc(p->e, cap * sizeof(*e));

		if (!e)
			return 0;
		p->e = e;
		p->cap = cap;
	}
	s = hashtab_put_bytes(&p->index, blob, len, &fresh);
	if (!s)
		return 0;
	if (!fresh)
		return s->v;
	copy = malloc(len ? len : 1);
	if (!copy) {
		hashtab_del(&p->index, s);
		return 0;
	}
	memcpy(copy, blob, len);
	p->e[p->n] = (struct pool_entry){.blob = copy, .len = (uint32_t)len};
	s->b = (uint64_t)(uintptr_t)copy;
	s->v = ++p->n;
	return s->v;
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

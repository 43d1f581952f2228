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
	keyvec_free(&p->released);
	keyvec_free(&p->free);
	pool_init(p, trusted);
}

/* A slot for a new entry (index + 1): a free one once the table is full, else the next; 0 when
 * memory ran out. */
static uint32_t take_slot(struct pool *p, uint32_t *gen)
{
	uint32_t slot;

	*gen = 0;
	if (p->n == p->cap && p->free_head < p->free.n) {
		/* until the table is full, keys stay small */
		slot = (uint32_t)p->free.k[p->free_head];
		*gen = p->e[slot - 1].gen;
		if (++p->free_head == p->free.n)
			p->free_head = p->free.n = 0;
		p->nfree--;
		return slot;
	}
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
	return (uint32_t)++p->n;
}

uint64_t pool_intern_new(struct pool *p, const void *blob, size_t len, bool *fresh_out)
{
	bool fresh;
	struct hashtab_slot *s;
	uint8_t *copy;
	uint32_t slot, gen;

	if (fresh_out)
		*fresh_out = false;
	s = hashtab_put_bytes(&p->index, blob, len, &fresh);
	if (!s)
		return 0;
	if (!fresh) {
		struct pool_entry *e = pool_get(p, s->v);

		e->released = false;
		e->used_chunk = p->chunk;
		return s->v;
	}
	copy = malloc(len ? len : 1);
	if (!copy || !(slot = take_slot(p, &gen))) {
		free(copy);
		hashtab_del(&p->index, s);
		return 0;
	}
	memcpy(copy, blob, len);
	p->e[slot - 1] = (struct pool_entry){
	    .blob = copy, .len = (uint32_t)len, .gen = gen, .used_chunk = p->chunk};
	s->b = (uint64_t)(uintptr_t)copy;
	s->v = (uint64_t)gen << 32 | slot;
	if (fresh_out)
		*fresh_out = true;
	return s->v;
}

int pool_release(struct pool *p, uint64_t key)
{
	struct pool_entry *e = pool_get(p, key);

	if (!e || !e->blob || e->released)
		return 0;
	if (keyvec_push(&p->released, key))
		return -ENOMEM;
	e->released = true;
	return 0;
}

void pool_free_entry(struct pool *p, uint64_t key)
{
	struct pool_entry *e = pool_get(p, key);
	struct hashtab_slot *s;

	if (!e || !e->blob)
		return;
	s = hashtab_get_bytes(&p->index, e->blob, e->len);
	if (s)
		hashtab_del(&p->index, s);
	free(e->blob);
	*e = (struct pool_entry){.gen = e->gen + 1};
	p->nfree++;
	/* the list's live part moves to its start rather than the list growing; a slot it has no
	 * room for, or whose generations ran out, is not used again */
	if (p->free_head && p->free.n == p->free.cap) {
		memmove(p->free.k, p->free.k + p->free_head,
		        (p->free.n - p->free_head) * sizeof(*p->free.k));
		p->free.n -= p->free_head;
		p->free_head = 0;
	}
	if (e->gen != UINT32_MAX)
		keyvec_push(&p->free, (uint32_t)key);
}

void pool_free_released(struct pool *p, uint32_t seg,
                        void (*on_free)(void *arg, const struct pool_entry *e), void *arg)
{
	size_t keep = 0;

	for (size_t i = 0; i < p->released.n; i++) {
		uint64_t key = p->released.k[i];
		struct pool_entry *e = pool_get(p, key);

		if (!e || !e->released)
			continue; /* taken back, or freed already */
		if (e->seg == seg) {
			p->released.k[keep++] = key;
			continue;
		}
		if (on_free)
			on_free(arg, e);
		pool_free_entry(p, key);
	}
	p->released.n = keep;
	/* a burst's entries gone: the index and the list follow (kept at most a quarter full) */
	hashtab_shrink_sparse(&p->index);
	if (p->released.cap > 256 && keep * 16 < p->released.cap) {
		size_t cap = 256;
		uint64_t *k;

		while (cap < 4 * keep)
			cap *= 2;
		if ((k = realloc(p->released.k, cap * sizeof(*k)))) {
			p->released.k = k;
			p->released.cap = cap;
		}
	}
}

size_t pool_sweep(struct pool *p, uint32_t before, bool do_free)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct pool_entry *e = &p->e[i];

		if (!e->blob || e->refs || e->released || e->used_chunk > before)
			continue;
		n++;
		if (do_free)
			pool_free_entry(p, (uint64_t)e->gen << 32 | (i + 1));
	}
	if (do_free && n)
		hashtab_shrink_sparse(&p->index);
	return n;
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

// SPDX-License-Identifier: GPL-2.0
/*
 * String arena: strings are appended to large chunks and live until the pool is freed, so the
 * pointers handed out are stable.  Interned strings are also entered in a hash set so that each
 * distinct string is stored once and equal strings have equal pointers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/internal.h"

#define CHUNK_SIZE (64 * 1024)

struct strpool_chunk {
	struct strpool_chunk *next;
	char data[];
};

void strpool_init(struct strpool *p)
{
	memset(p, 0, sizeof(*p));
}

void strpool_fini(struct strpool *p)
{
	struct strpool_chunk *c = p->chunks;

	while (c) {
		struct strpool_chunk *next = c->next;

		free(c);
		c = next;
	}
	free(p->slots);
	memset(p, 0, sizeof(*p));
}

const char *strpool_add(struct strpool *p, const char *s, size_t len)
{
	char *dst;

	if (len + 1 > p->left) {
		size_t size = len + 1 > CHUNK_SIZE / 4 ? len + 1 : CHUNK_SIZE;
		struct strpool_chunk *c = malloc(sizeof(*c) + size);

		if (!c)
			return NULL;
		/* A big string gets its own chunk; the current chunk stays in use. */
		if (size != CHUNK_SIZE) {
			c->next = p->chunks ? p->chunks->next : NULL;
			if (p->chunks)
				p->chunks->next = c;
			else
				p->chunks = c;
			memcpy(c->data, s, len);
			c->data[len] = '\0';
			return c->data;
		}
		c->next = p->chunks;
		p->chunks = c;
		p->cur = c->data;
		p->left = size;
	}
	dst = p->cur;
	memcpy(dst, s, len);
	dst[len] = '\0';
	p->cur += len + 1;
	p->left -= len + 1;
	return dst;
}

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static int grow(struct strpool *p)
{
	size_t cap = p->cap ? p->cap * 2 : 1024;
	const char **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < p->cap; i++) {
		const char *s = p->slots[i];
		size_t j;

		if (!s)
			continue;
		j = hash_bytes(s, strlen(s)) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = s;
	}
	free(p->slots);
	p->slots = slots;
	p->cap = cap;
	return 0;
}

const char *strpool_intern(struct strpool *p, const char *s, size_t len)
{
	size_t j;

	if ((p->n + 1) * 4 > p->cap * 3 && grow(p))
		return NULL;
	j = hash_bytes(s, len) & (p->cap - 1);
	while (p->slots[j]) {
		const char *t = p->slots[j];

		if (!strncmp(t, s, len) && t[len] == '\0')
			return t;
		j = (j + 1) & (p->cap - 1);
	}
	p->slots[j] = strpool_add(p, s, len);
	if (!p->slots[j])
		return NULL;
	p->n++;
	return p->slots[j];
}

const char *strpool_internf(struct strpool *p, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return strpool_intern(p, buf, n);
}

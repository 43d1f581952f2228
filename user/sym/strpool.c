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
	/* a byte-key set: growth re-homes entries by the hash of their bytes */
	hashtab_init_bytes(&p->interned);
}

void strpool_fini(struct strpool *p)
{
	struct strpool_chunk *c = p->chunks;

	while (c) {
		struct strpool_chunk *next = c->next;

		free(c);
		c = next;
	}
	hashtab_free(&p->interned);
	strpool_init(p);
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

const char *strpool_find(const struct strpool *p, const char *s, size_t len)
{
	const struct hashtab_slot *slot = hashtab_get_bytes(&p->interned, s, len);

	return slot ? (const char *)(uintptr_t)slot->b : NULL;
}

const char *strpool_intern(struct strpool *p, const char *s, size_t len)
{
	bool fresh;
	struct hashtab_slot *slot = hashtab_put_bytes(&p->interned, s, len, &fresh);
	const char *copy;

	if (!slot)
		return NULL;
	if (!fresh)
		return (const char *)(uintptr_t)slot->b;
	copy = strpool_add(p, s, len);
	if (!copy) {
		hashtab_del(&p->interned, slot);
		return NULL;
	}
	slot->b = (uint64_t)(uintptr_t)copy;
	return copy;
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

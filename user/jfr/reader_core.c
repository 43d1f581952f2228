// SPDX-License-Identifier: GPL-2.0
/* JFR reader's base: the arena the metadata lives in, and the errors. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "jfr/reader_internal.h"

void *jfr_arena_alloc(struct jfr_reader *r, size_t n)
{
	struct jfr_arena_block *b = r->arena;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->next = r->arena;
		r->arena = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

void jfr_arena_free(struct jfr_reader *r)
{
	while (r->arena) {
		struct jfr_arena_block *b = r->arena;
		r->arena = b->next;
		free(b);
	}
}

/* ---- errors ---- */

int jfr_fail(struct jfr_reader *r, uint64_t off, const char *fmt, ...)
{
	if (r->failed)
		return -1;
	r->failed = true;
	int n =
	    snprintf(r->err, sizeof(r->err), "%s: offset %llu: ", r->name, (unsigned long long)off);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

int jfr_cur_fail(struct jfr_cur *c, const char *fmt, ...)
{
	if (!c->bad && !c->r->failed) {
		char msg[256];
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		jfr_fail(c->r, jfr_cur_off(c), "%s", msg);
	}
	c->bad = true;
	c->p = c->end;
	return -1;
}

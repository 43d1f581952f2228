// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol tables: entries are appended while a source is read, sorted once, aliases at one
 * address collapse into the best-named entry, and lookups are a binary search.  A sized symbol
 * covers [addr, addr + size) only; an unsized one extends to the next symbol (or its limit).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/radix.h"
#include "sym/internal.h"

void symtab_fini(struct symtab *t)
{
	free(t->v);
	free(t->names);
	free(t->out);
	memset(t, 0, sizeof(*t));
}

int symtab_add(struct symtab *t, uint64_t addr, uint64_t size, uint64_t limit, const char *name,
               size_t len, uint16_t aux, uint8_t flags)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct symtab_ent *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	if (t->names_len + len + 1 > t->names_cap || t->names_len + len + 1 > UINT32_MAX) {
		size_t cap = t->names_cap ? t->names_cap * 2 : 4096;
		char *names;

		while (cap < t->names_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -E2BIG;
		names = realloc(t->names, cap);
		if (!names)
			return -ENOMEM;
		t->names = names;
		t->names_cap = cap;
	}
	memcpy(t->names + t->names_len, name, len);
	t->names[t->names_len + len] = '\0';
	if (size)
		flags |= SYMF_SIZED;
	else
		flags &= ~SYMF_SIZED;
	t->v[t->n++] = (struct symtab_ent){
	    .addr = addr,
	    .end = size ? addr + size : (limit > addr ? limit : UINT64_MAX),
	    .name = (uint32_t)t->names_len,
	    .aux = aux,
	    .flags = flags,
	};
	t->names_len += len + 1;
	return 0;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Orders by address, then best alias first. */
static int cmp_ent(const void *pa, const void *pb, void *arg)
{
	const struct symtab_ent *a = pa, *b = pb;
	const char *names = arg;
	int d;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	d = (a->flags & SYMF_BOUNDARY) - (b->flags & SYMF_BOUNDARY);
	if (d)
		return d;
	d = (b->flags & SYMF_GLOBAL) - (a->flags & SYMF_GLOBAL);
	if (d)
		return d;
	d = (a->flags & SYMF_VERSIONED) - (b->flags & SYMF_VERSIONED);
	if (d)
		return d;
	d = (b->flags & SYMF_SIZED) - (a->flags & SYMF_SIZED);
	if (d)
		return d;
	d = (int)underscores(names + a->name) - (int)underscores(names + b->name);
	if (d)
		return d;
	return strcmp(names + a->name, names + b->name);
}

static int cmp_idx(const void *pa, const void *pb, void *arg)
{
	const struct symtab_ent *v = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	if (v[a].addr != v[b].addr)
		return v[a].addr < v[b].addr ? -1 : 1;
	return a < b ? -1 : a > b;
}

void symtab_keep_last(struct symtab *t)
{
	size_t *idx = malloc(t->n * sizeof(*idx) + 1);
	size_t n = 0;

	/* Without memory the aliases are resolved by name instead: still a valid table. */
	if (!idx)
		return;
	for (size_t i = 0; i < t->n; i++)
		idx[i] = i;
	qsort_r(idx, t->n, sizeof(*idx), cmp_idx, t->v);
	for (size_t k = 0; k + 1 < t->n; k++)
		if (t->v[idx[k]].addr == t->v[idx[k + 1]].addr)
			t->v[idx[k]].flags |= SYMF_DROP;
	free(idx);
	for (size_t i = 0; i < t->n; i++)
		if (!(t->v[i].flags & SYMF_DROP))
			t->v[n++] = t->v[i];
	t->n = n;
}

/*
 * Orders the entries by cmp_ent(): by address, unless they come by address already, as a kernel's
 * do (lib/radix.h: it replaced a comparison sort of each ELF symbol table, which a recording paid
 * while its command's first samples came in: about 5.6 million instructions for deepstack, libc
 * with its 6 000 debug symbols and ld.so under bench/kprofile, 0.7 million after), then each run
 * of one address by the rest of cmp_ent().
 */
static void sort_entries(struct symtab *t)
{
	size_t i = 1;

	while (i < t->n && t->v[i - 1].addr <= t->v[i].addr)
		i++;
	if (i < t->n &&
	    !radix_sort_u64(t->v, t->n, sizeof(*t->v), offsetof(struct symtab_ent, addr))) {
		qsort_r(t->v, t->n, sizeof(*t->v), cmp_ent, t->names);
		return;
	}
	for (size_t a = 0, b; a < t->n; a = b) {
		for (b = a + 1; b < t->n && t->v[b].addr == t->v[a].addr; b++)
			;
		if (b - a > 8) {
			qsort_r(t->v + a, b - a, sizeof(*t->v), cmp_ent, t->names);
			continue;
		}
		/* most runs are two or three aliases: a stable insertion sort */
		for (size_t k = a + 1; k < b; k++) {
			struct symtab_ent e = t->v[k];
			size_t j = k;

			for (; j > a && cmp_ent(&t->v[j - 1], &e, t->names) > 0; j--)
				t->v[j] = t->v[j - 1];
			t->v[j] = e;
		}
	}
}

void symtab_finish(struct symtab *t)
{
	size_t n = 0;

	if (!t->n)
		return;
	sort_entries(t);
	for (size_t i = 0; i < t->n; i++) {
		struct symtab_ent *e = &t->v[i];

		if (n && t->v[n - 1].addr == e->addr) {
			struct symtab_ent *keep = &t->v[n - 1];

			/* An alias: keep the first (best) name, and a size if any alias has one. */
			if (!(keep->flags & SYMF_SIZED) && (e->flags & SYMF_SIZED)) {
				keep->end = e->end;
				keep->flags |= SYMF_SIZED;
			} else if (!(keep->flags & SYMF_SIZED) && e->end < keep->end) {
				keep->end = e->end;
			}
			continue;
		}
		t->v[n++] = *e;
	}
	t->n = n;
	for (size_t i = 0; i + 1 < n; i++) {
		struct symtab_ent *e = &t->v[i];

		if (!(e->flags & SYMF_SIZED) && e->end > t->v[i + 1].addr)
			e->end = t->v[i + 1].addr;
	}
	/* Shrink to fit: tables live as long as the symbolizer. */
	if (n < t->cap) {
		struct symtab_ent *v = realloc(t->v, n * sizeof(*v));

		if (v) {
			t->v = v;
			t->cap = n;
		}
	}
}

long symtab_find(const struct symtab *t, uint64_t addr)
{
	/* The last entry with e.addr <= addr. */
	size_t lo =
	    sym_upper_bound(t->v, t->n, sizeof(*t->v), offsetof(struct symtab_ent, addr), addr);

	if (!lo)
		return -1;
	/*
	 * Normally the entry just below addr; a few more are checked for a sized symbol that
	 * encloses a smaller one (a function with a nested label of its own size).
	 */
	for (size_t k = lo, seen = 0; k-- > 0 && seen < 8; seen++) {
		const struct symtab_ent *e = &t->v[k];

		if (addr < e->end)
			return (e->flags & SYMF_BOUNDARY) ? -1 : (long)k;
	}
	return -1;
}

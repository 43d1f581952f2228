// SPDX-License-Identifier: GPL-2.0
/* Batches of copied ring records.  See batch.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "record/batch.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

static size_t round_blocks(size_t n)
{
	return (n + BATCH_BLOCK - 1) / BATCH_BLOCK * BATCH_BLOCK;
}

/* LEN bytes (whole blocks) aligned to a block. */
static void *map_blocks(size_t len)
{
	size_t span = len + BATCH_BLOCK;
	uint8_t *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t start;
	size_t head;

	if (p == MAP_FAILED)
		return NULL;
	start = ((uintptr_t)p + BATCH_BLOCK - 1) & ~(uintptr_t)(BATCH_BLOCK - 1);
	head = start - (uintptr_t)p;
	if (head)
		munmap(p, head);
	munmap((uint8_t *)start + len, span - head - len);
	/* a hint: before 5.14 the pages come at first touch */
	madvise((void *)start, len, MADV_POPULATE_WRITE);
	return (void *)start;
}

int batch_map(struct batch *b, size_t cap)
{
	size_t len = round_blocks(cap ? cap : 1);
	uint8_t *p = map_blocks(len);
	struct batch old = *b;

	if (!p)
		return -ENOMEM;
	if (b->len)
		memcpy(p, b->buf, b->len);
	batch_free(&old);
	b->buf = p;
	b->cap = len;
	b->mapped = true;
	return 0;
}

int batch_grow(struct batch *b, size_t size)
{
	size_t ncap = b->cap ? b->cap * 2 : 1 << 20;

	while (ncap < b->len + size)
		ncap *= 2;
	if (b->mapped)
		return batch_map(b, ncap);
	uint8_t *nb = realloc(b->buf, ncap);

	if (!nb)
		return -ENOMEM;
	b->buf = nb;
	b->cap = ncap;
	return 0;
}

void batch_swap(struct batch *a, struct batch *b)
{
	struct batch t = *a;

	a->buf = b->buf, a->len = b->len, a->cap = b->cap, a->mapped = b->mapped;
	a->names = b->names;
	b->buf = t.buf, b->len = t.len, b->cap = t.cap, b->mapped = t.mapped;
	b->names = t.names;
}

void batch_free(struct batch *b)
{
	if (b->mapped)
		munmap(b->buf, b->cap);
	else
		free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
	b->mapped = b->names = false;
}

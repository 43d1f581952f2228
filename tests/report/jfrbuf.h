/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The byte buffer of the test generators that write JFR by hand (genjfr.c, genhostile.c): big-endian
 * numbers, LEB128 varints, strings (UTF-8 byte arrays, encoding 3).
 */
#ifndef LFR_TESTS_JFRBUF_H
#define LFR_TESTS_JFRBUF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void need(struct buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	b->p = realloc(b->p, cap);
	if (!b->p) {
		perror("jfrbuf");
		exit(1);
	}
	b->cap = cap;
}

static void put_u8(struct buf *b, uint8_t v)
{
	need(b, 1);
	b->p[b->len++] = v;
}

static void put_be(struct buf *b, uint64_t v, int n)
{
	need(b, n);
	for (int i = n - 1; i >= 0; i--)
		b->p[b->len++] = v >> (8 * i);
}

static void put_varint(struct buf *b, uint64_t v)
{
	need(b, 9);
	for (int i = 0; i < 8; i++) {
		if (v < 0x80) {
			b->p[b->len++] = v;
			return;
		}
		b->p[b->len++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	b->p[b->len++] = v;
}

/* A varint padded to 5 bytes, for sizes patched after the fact. */
static void put_varint5_at(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (v >> (7 * i) & 0x7f) | 0x80;
	p[4] = v >> 28 & 0x7f;
}

static void put_bytes(struct buf *b, const void *s, size_t n)
{
	need(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void put_str(struct buf *b, const char *s)
{
	size_t n = strlen(s);
	put_u8(b, 3);
	put_varint(b, n);
	put_bytes(b, s, n);
}

#endif

// SPDX-License-Identifier: GPL-2.0
/* JFR byte encodings (see encode.h). */
#include <stdlib.h>
#include <string.h>

#include "jfr/encode.h"
#include "lib/varint.h"

void jfr_buf_free(struct jfr_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void jfr_buf_settle(struct jfr_buf *b)
{
	size_t cap = 256;
	uint8_t *p;

	if (b->cap > JFR_BUF_KEEP && b->len < b->cap / 4) {
		while (cap < 2 * b->len)
			cap *= 2;
		p = realloc(b->data, cap);
		if (p) {
			b->data = p;
			b->cap = cap;
		}
	}
	b->len = 0;
}

bool jfr_buf_reserve(struct jfr_buf *b, size_t more)
{
	if (b->oom)
		return false;
	if (b->len + more <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	uint8_t *p = realloc(b->data, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

void jfr_buf_put(struct jfr_buf *b, const void *p, size_t n)
{
	if (!n || !jfr_buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void jfr_buf_u8(struct jfr_buf *b, uint8_t v)
{
	jfr_buf_put(b, &v, 1);
}

void jfr_buf_be16(struct jfr_buf *b, uint16_t v)
{
	uint8_t x[2];

	jfr_put_be16(x, v);
	jfr_buf_put(b, x, 2);
}

void jfr_buf_be32(struct jfr_buf *b, uint32_t v)
{
	uint8_t x[4] = {v >> 24, v >> 16, v >> 8, v};

	jfr_buf_put(b, x, 4);
}

void jfr_buf_be64(struct jfr_buf *b, uint64_t v)
{
	uint8_t x[8];

	jfr_put_be64(x, v);
	jfr_buf_put(b, x, 8);
}

unsigned jfr_varint_len(uint64_t v)
{
	unsigned n = 1;

	while (v >= 0x80 && n < JFR_VARINT_MAX) {
		v >>= 7;
		n++;
	}
	return n;
}

unsigned jfr_varint_encode(uint8_t *out, uint64_t v)
{
	return varint_encode(out, v, JFR_VARINT_MAX); /* the 9th byte carries the top 8 bits */
}

bool jfr_varint_encode_padded(uint8_t *out, uint64_t v, unsigned width)
{
	if (width < 1 || width > JFR_VARINT_MAX)
		return false;
	for (unsigned i = 0; i < width; i++) {
		if (i == JFR_VARINT_MAX - 1) {
			out[i] = (uint8_t)v;
			return true;
		}
		out[i] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (i + 1 < width)
			out[i] |= 0x80;
	}
	return v == 0;
}

unsigned jfr_varint_decode(const uint8_t *p, size_t avail, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned i = 0; i < JFR_VARINT_MAX; i++) {
		if (i >= avail)
			return 0;
		if (i == JFR_VARINT_MAX - 1) {
			r |= (uint64_t)p[i] << 56;
			*v = r;
			return i + 1;
		}
		r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = r;
			return i + 1;
		}
	}
	return 0;
}

void jfr_buf_varint_any(struct jfr_buf *b, uint64_t v)
{
	/* encoded in place: every event field is one, so no copy through the stack */
	if (b->oom || (b->len + JFR_VARINT_MAX > b->cap && !jfr_buf_reserve(b, JFR_VARINT_MAX)))
		return;
	b->len += jfr_varint_encode(b->data + b->len, v);
}

size_t jfr_buf_varint_padded(struct jfr_buf *b, uint64_t v, unsigned width)
{
	uint8_t x[JFR_VARINT_MAX] = {0};
	size_t off = b->len;

	if (!jfr_varint_encode_padded(x, v, width))
		b->oom = true; /* a programming error: treated as a failed encoding */
	jfr_buf_put(b, x, width);
	return off;
}

void jfr_patch_varint(struct jfr_buf *b, size_t off, uint64_t v, unsigned width)
{
	if (b->oom || off + width > b->len)
		return;
	if (!jfr_varint_encode_padded(b->data + off, v, width))
		b->oom = true;
}

unsigned jfr_utf8_char(const uint8_t *p, size_t left)
{
	uint8_t c = p[0];
	unsigned more, lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0; /* a continuation byte, an overlong lead or past U+10FFFF */
	more = c < 0xe0 ? 1 : c < 0xf0 ? 2 : 3;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (left - 1 < more || p[1] < lo || p[1] > hi)
		return 0;
	for (unsigned i = 2; i <= more; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return more + 1;
}

bool jfr_utf8_valid(const char *s, size_t n)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + n;

	for (unsigned k; p < end; p += k)
		if (!(k = jfr_utf8_char(p, (size_t)(end - p))))
			return false;
	return true;
}

/*
 * Names come from the system (thread names, symbols, paths, command lines) and need not be UTF-8:
 * such a string is written as Latin-1, which every reader decodes, byte for byte.
 */
void jfr_buf_string_n(struct jfr_buf *b, const char *s, size_t n)
{
	if (!s) {
		jfr_buf_u8(b, JFR_STR_NULL);
	} else if (!n) {
		jfr_buf_u8(b, JFR_STR_EMPTY);
	} else {
		jfr_buf_u8(b, jfr_utf8_valid(s, n) ? JFR_STR_UTF8 : JFR_STR_LATIN1);
		jfr_buf_varint(b, n);
		jfr_buf_put(b, s, n);
	}
}

void jfr_buf_string(struct jfr_buf *b, const char *s)
{
	jfr_buf_string_n(b, s, s ? strlen(s) : 0);
}

void jfr_put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

void jfr_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = (uint8_t)v;
}

uint64_t jfr_get_be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

uint16_t jfr_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint64_t jfr_event_size(size_t payload_len)
{
	uint64_t size = payload_len + 1;

	while (jfr_varint_len(size) + payload_len != size)
		size = payload_len + jfr_varint_len(size);
	return size;
}

// SPDX-License-Identifier: GPL-2.0
/* The protocol buffers wire format: a key (field number << 3 | wire type), then the value. */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "report/protobuf.h"
#include "lib/varint.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

static bool reserve(struct pb_buf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *d = realloc(b->data, cap);
	if (!d) {
		b->oom = true;
		return false;
	}
	b->data = d;
	b->cap = cap;
	return true;
}

void pb_reset(struct pb_buf *b)
{
	b->len = 0;
	b->oom = false;
}

void pb_free(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void pb_raw_varint(struct pb_buf *b, uint64_t v)
{
	if (!reserve(b, 10))
		return;
	b->len += varint_encode(b->data + b->len, v, 10);
}

void pb_raw_bytes(struct pb_buf *b, const void *p, size_t n)
{
	if (n && reserve(b, n)) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
}

void pb_uint(struct pb_buf *b, unsigned field, uint64_t v)
{
	pb_raw_varint(b, (uint64_t)field << 3 | WT_VARINT);
	pb_raw_varint(b, v);
}

void pb_bytes(struct pb_buf *b, unsigned field, const void *p, size_t n)
{
	pb_raw_varint(b, (uint64_t)field << 3 | WT_LEN);
	pb_raw_varint(b, n);
	if (n && reserve(b, n)) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
}

void pb_string(struct pb_buf *b, unsigned field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pb_buf *b, unsigned field, const struct pb_buf *msg)
{
	if (msg->oom)
		b->oom = true;
	pb_bytes(b, field, msg->data, msg->len);
}

/* The bytes of v as a varint. */
static size_t varint_len(uint64_t v)
{
	return v ? (70 - (size_t)__builtin_clzll(v)) / 7 : 1;
}

void pb_packed(struct pb_buf *b, unsigned field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += varint_len(v[i]);
	pb_raw_varint(b, (uint64_t)field << 3 | WT_LEN);
	pb_raw_varint(b, len);
	/* one reservation for the run (the encoder writes up to 8 bytes past a short varint) */
	if (len > SIZE_MAX - 8)
		b->oom = true;
	if (b->oom || !reserve(b, len + 8))
		return;
	for (size_t i = 0; i < n; i++)
		b->len += varint_encode(b->data + b->len, v[i], 10);
}

static void put_le64(struct pb_buf *b, uint64_t v)
{
	if (!reserve(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->data[b->len++] = (uint8_t)(v >> (8 * i));
}

void pb_fixed64(struct pb_buf *b, unsigned field, uint64_t v)
{
	pb_raw_varint(b, (uint64_t)field << 3 | WT_I64);
	put_le64(b, v);
}

void pb_packed_fixed64(struct pb_buf *b, unsigned field, const uint64_t *v, size_t n)
{
	pb_raw_varint(b, (uint64_t)field << 3 | WT_LEN);
	pb_raw_varint(b, 8 * (uint64_t)n);
	/* one reservation for the run (a sample's timestamps: most of an OTLP request's bytes) */
	if (n > SIZE_MAX / 8)
		b->oom = true;
	if (b->oom || !reserve(b, 8 * n))
		return;
	for (size_t i = 0; i < n; i++, b->len += 8) {
		uint64_t le = htole64(v[i]);

		memcpy(b->data + b->len, &le, 8);
	}
}

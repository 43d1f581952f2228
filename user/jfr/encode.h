/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JFR byte encodings: a growable byte buffer with LEB128 varints, padded varints that can be
 * back-patched, big-endian fixed-width numbers and JFR strings.
 *
 * Varints are unsigned LEB128 of at most 9 bytes (the 9th byte carries 8 bits); negative numbers
 * are written as their two's complement u64.  Readers accept non-minimal ("padded") encodings,
 * which is what lets a size be reserved before the content it measures is known.
 */
#ifndef LFR_JFR_ENCODE_H
#define LFR_JFR_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/varint.h"

#define JFR_VARINT_MAX 9

/* JFR string encodings (first byte of every string value). */
enum jfr_string_enc {
	JFR_STR_NULL = 0,
	JFR_STR_EMPTY = 1,
	JFR_STR_POOL = 2,
	JFR_STR_UTF8 = 3,
	JFR_STR_CHARS = 4,
	JFR_STR_LATIN1 = 5,
};

struct jfr_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	bool oom; /* an allocation failed: the content is incomplete */
};

void jfr_buf_free(struct jfr_buf *b);
static inline void jfr_buf_reset(struct jfr_buf *b)
{
	b->len = 0;
}
/*
 * Empties b like jfr_buf_reset(), and gives back most of its memory when its content took under a
 * quarter of it (buffers past JFR_BUF_KEEP only): a buffer refilled again and again keeps the
 * size of its recent use, not of its largest.
 */
#define JFR_BUF_KEEP (64 << 10)
void jfr_buf_settle(struct jfr_buf *b);
bool jfr_buf_reserve(struct jfr_buf *b, size_t more);
void jfr_buf_put(struct jfr_buf *b, const void *p, size_t n);
void jfr_buf_u8(struct jfr_buf *b, uint8_t v);
void jfr_buf_be16(struct jfr_buf *b, uint16_t v);
void jfr_buf_be32(struct jfr_buf *b, uint32_t v);
void jfr_buf_be64(struct jfr_buf *b, uint64_t v);
void jfr_buf_varint_any(struct jfr_buf *b, uint64_t v);
/*
 * Appends v as a varint.  Inline for values of one and two bytes (ids, states, sizes): every
 * field of every event is one, and the call was most of their cost.
 */
static inline void jfr_buf_varint(struct jfr_buf *b, uint64_t v)
{
	if (v < 0x4000 && !b->oom && b->len + 2 <= b->cap) {
		if (v < 0x80) {
			b->data[b->len++] = (uint8_t)v;
		} else {
			b->data[b->len] = (uint8_t)(v | 0x80);
			b->data[b->len + 1] = (uint8_t)(v >> 7);
			b->len += 2;
		}
		return;
	}
	jfr_buf_varint_any(b, v);
}
/* Writes v as a varint at p, which has room for JFR_VARINT_MAX bytes; returns the byte after it. */
static inline uint8_t *jfr_put_varint(uint8_t *p, uint64_t v)
{
	return p + varint_encode(p, v, JFR_VARINT_MAX);
}
/* Appends v as a varint of exactly width bytes (1..9); returns its offset for jfr_patch_varint. */
size_t jfr_buf_varint_padded(struct jfr_buf *b, uint64_t v, unsigned width);
/* A JFR string: NULL → null, "" → empty, else UTF-8 with its byte length. */
/* Whether s[0..n) is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF). */
bool jfr_utf8_valid(const char *s, size_t n);
/* The length (1..4) of the well-formed UTF-8 character at p, of left >= 1 bytes, or 0. */
unsigned jfr_utf8_char(const uint8_t *p, size_t left);
void jfr_buf_string(struct jfr_buf *b, const char *s);
void jfr_buf_string_n(struct jfr_buf *b, const char *s, size_t n);

/* Encodes v into out (at least 9 bytes); returns the number of bytes used. */
unsigned jfr_varint_encode(uint8_t *out, uint64_t v);
/* Encodes v into exactly width bytes; false if v does not fit. */
bool jfr_varint_encode_padded(uint8_t *out, uint64_t v, unsigned width);
unsigned jfr_varint_len(uint64_t v);
/* Decodes a varint from p[0..avail); returns the bytes consumed or 0 if truncated. */
unsigned jfr_varint_decode(const uint8_t *p, size_t avail, uint64_t *v);
/* Overwrites the padded varint of the given width at offset off. */
void jfr_patch_varint(struct jfr_buf *b, size_t off, uint64_t v, unsigned width);
void jfr_put_be64(uint8_t *p, uint64_t v);
void jfr_put_be16(uint8_t *p, uint16_t v);
uint64_t jfr_get_be64(const uint8_t *p);
uint16_t jfr_get_be16(const uint8_t *p);

/* The size of an event whose payload (type id and fields) is len bytes: the size counts itself. */
uint64_t jfr_event_size(size_t payload_len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one LEB128 varint encoder of the tools: 7 bits per byte, least significant first, the top bit
 * of each byte set when more follow.  MAX bounds the bytes: the last one then carries all the bits
 * left.  With MAX 10 that is the standard form (protocol buffers: 64 bits need 10 bytes); JFR's
 * compressed integers stop at 9 bytes, the 9th carrying the top 8 bits.
 */
#ifndef LFR_LIB_VARINT_H
#define LFR_LIB_VARINT_H

#include <stdint.h>

/* Writes v into out (at least max bytes of room); returns the bytes written. */
static inline unsigned varint_encode(uint8_t *out, uint64_t v, unsigned max)
{
	unsigned n = 0;

	while (n < max - 1 && v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

#endif

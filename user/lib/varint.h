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
#include <string.h>

/*
 * Writes v into out (at least max bytes of room, and at least 8: up to 8 bytes are stored at once,
 * those past the varint left undefined); returns the bytes written.
 */
static inline unsigned varint_encode(uint8_t *out, uint64_t v, unsigned max)
{
	unsigned n = 0;

	if (v < 0x80) {
		out[0] = (uint8_t)v;
		return 1;
	}
	if (v < 0x4000) {
		out[0] = (uint8_t)(v | 0x80);
		out[1] = (uint8_t)(v >> 7);
		return 2;
	}
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/*
	 * Up to 8 bytes (56 bits), as one word: the bits spread to 7 per byte in three steps (28,
	 * 14, then 7 bits per lane), the continuation bits of all bytes but the last set.  A
	 * timestamp takes 5 to 8 bytes, and a byte at a time cost about 6 instructions.
	 */
	if (max >= 8 && v < 1ull << 56) {
		unsigned len = (70 - (unsigned)__builtin_clzll(v)) / 7; /* ceil(bits / 7) */
		uint64_t x = v;

		x = (x & 0x000000000fffffffull) | (x & 0x00fffffff0000000ull) << 4;
		x = (x & 0x00003fff00003fffull) | (x & 0x0fffc0000fffc000ull) << 2;
		x = (x & 0x007f007f007f007full) | (x & 0x3f803f803f803f80ull) << 1;
		x |= 0x8080808080808080ull >> (72 - 8 * len);
		memcpy(out, &x, 8);
		return len;
	}
#endif
	while (n < max - 1 && v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The varint encoder (lib/varint.h) against the plain form, one byte at a time: the same bytes and
 * length for values of every bit length, in JFR's 9-byte form and the standard 10-byte one, and
 * nothing written past the room it was given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/varint.h"

/* The definition: 7 bits per byte, the last of MAX bytes carrying all the bits left. */
static unsigned plain(uint8_t *out, uint64_t v, unsigned max)
{
	unsigned n = 0;

	for (;;) {
		if (n == max - 1 || v < 0x80) {
			out[n++] = (uint8_t)v;
			return n;
		}
		out[n++] = (uint8_t)(v & 0x7f) | 0x80;
		v >>= 7;
	}
}

static void check(uint64_t v)
{
	static const unsigned maxes[] = {9, 10};

	for (size_t m = 0; m < 2; m++) {
		unsigned max = maxes[m];
		uint8_t want[16], got[16 + 4];
		unsigned n = plain(want, v, max);

		memset(got, 0xcc, sizeof(got));
		assert_int_equal(varint_encode(got, v, max), n);
		assert_memory_equal(got, want, n);
		for (unsigned i = max; i < sizeof(got); i++)
			assert_int_equal(got[i], 0xcc);
	}
}

static void every_bit_length(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	check(0);
	for (unsigned bit = 0; bit < 64; bit++) {
		check(1ull << bit);
		check((1ull << bit) - 1);
		check(~0ull >> bit);
		check((1ull << bit) | 1);
		/* values of this bit length with their other bits at random */
		for (int k = 0; k < 64; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			check((x >> (63 - bit)) | 1ull << bit);
		}
	}
}

static void known_bytes(void **state)
{
	uint8_t out[16];

	(void)state;
	assert_int_equal(varint_encode(out, 300, 10), 2);
	assert_memory_equal(out, "\xac\x02", 2);
	assert_int_equal(varint_encode(out, 1ull << 56, 9), 9);
	assert_memory_equal(out, "\x80\x80\x80\x80\x80\x80\x80\x80\x01", 9);
	assert_int_equal(varint_encode(out, UINT64_MAX, 10), 10);
	assert_memory_equal(out, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
	/* a nanosecond timestamp of a day's uptime: 7 bytes */
	assert_int_equal(varint_encode(out, 86400000000000ull, 9), 7);
	assert_memory_equal(out, "\x80\x80\xbc\x8a\xc9\xd2\x13", 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_bit_length),
	    cmocka_unit_test(known_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

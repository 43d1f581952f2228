// SPDX-License-Identifier: GPL-2.0
/* JFR byte encodings: varints (minimal, padded, 9-byte), strings, event sizes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "jfr/encode.h"

static void varint_known_bytes(void **state)
{
	(void)state;
	struct {
		uint64_t v;
		unsigned n;
		uint8_t b[9];
	} cases[] = {
	    {0, 1, {0}},
	    {1, 1, {1}},
	    {127, 1, {0x7f}},
	    {128, 2, {0x80, 0x01}},
	    {300, 2, {0xac, 0x02}},
	    {16383, 2, {0xff, 0x7f}},
	    {16384, 3, {0x80, 0x80, 0x01}},
	    /* the 9th byte carries a full 8 bits */
	    {UINT64_MAX, 9, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	    /* -1 is two's complement, never zigzag */
	    {(uint64_t)-2, 9, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	    {1ULL << 56, 9, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t out[9];
		uint64_t back;

		assert_int_equal(jfr_varint_encode(out, cases[i].v), cases[i].n);
		assert_memory_equal(out, cases[i].b, cases[i].n);
		assert_int_equal(jfr_varint_len(cases[i].v), cases[i].n);
		assert_int_equal(jfr_varint_decode(out, cases[i].n, &back), cases[i].n);
		assert_true(back == cases[i].v);
		/* one byte short is a truncated number */
		assert_int_equal(jfr_varint_decode(out, cases[i].n - 1, &back), 0);
		/* appended to a buffer with room (inline for one or two bytes), and without */
		for (int room = 0; room < 2; room++) {
			struct jfr_buf b = {0};

			if (room)
				assert_true(jfr_buf_reserve(&b, 16));
			jfr_buf_varint(&b, cases[i].v);
			assert_false(b.oom);
			assert_int_equal(b.len, cases[i].n);
			assert_memory_equal(b.data, cases[i].b, cases[i].n);
			jfr_buf_free(&b);
		}
	}
}

static void varint_roundtrip_every_width(void **state)
{
	(void)state;
	for (unsigned bit = 0; bit < 64; bit++) {
		uint64_t vs[] = {1ULL << bit, (1ULL << bit) - 1, ~0ULL >> bit};

		for (int j = 0; j < 3; j++) {
			uint8_t out[9];
			uint64_t back;
			unsigned n = jfr_varint_encode(out, vs[j]);

			assert_int_equal(jfr_varint_decode(out, 9, &back), n);
			assert_true(back == vs[j]);
		}
	}
}

static void varint_padded_patch(void **state)
{
	(void)state;
	struct jfr_buf b = {0};
	uint64_t v;

	size_t off = jfr_buf_varint_padded(&b, 0, 5);
	jfr_buf_varint(&b, 7);
	jfr_patch_varint(&b, off, 300, 5);
	assert_int_equal(b.len, 6);
	assert_int_equal(jfr_varint_decode(b.data, b.len, &v), 5);
	assert_int_equal(v, 300);
	assert_int_equal(jfr_varint_decode(b.data + 5, 1, &v), 1);
	assert_int_equal(v, 7);
	/* padded encodings keep their width for small values, and refuse values that do not fit */
	uint8_t out[9];
	assert_true(jfr_varint_encode_padded(out, 1, 9));
	assert_int_equal(jfr_varint_decode(out, 9, &v), 9);
	assert_int_equal(v, 1);
	assert_false(jfr_varint_encode_padded(out, 1ULL << 35, 5));
	assert_true(jfr_varint_encode_padded(out, (1ULL << 35) - 1, 5));
	assert_false(b.oom);
	jfr_buf_free(&b);
}

static void strings(void **state)
{
	(void)state;
	struct jfr_buf b = {0};

	jfr_buf_string(&b, NULL);
	jfr_buf_string(&b, "");
	jfr_buf_string(&b, "libc.so.6");
	const uint8_t want[] = {0, 1, 3, 9, 'l', 'i', 'b', 'c', '.', 's', 'o', '.', '6'};
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));

	/* multi-byte UTF-8: the length is in bytes */
	jfr_buf_reset(&b);
	jfr_buf_string(&b, "\xc3\xa9t\xc3\xa9");
	assert_int_equal(b.data[0], 3);
	assert_int_equal(b.data[1], 5);
	/* not UTF-8 (a Latin-1 name, a cut sequence): Latin-1, byte for byte */
	jfr_buf_reset(&b);
	jfr_buf_string(&b, "caf\xe9");
	assert_int_equal(b.data[0], 5);
	assert_int_equal(b.data[1], 4);
	assert_memory_equal(b.data + 2, "caf\xe9", 4);
	jfr_buf_free(&b);
}

static void utf8_validity(void **state)
{
	(void)state;
	static const char *good[] = {"",
	                             "ascii",
	                             "\xc3\xa9",
	                             "\xe2\x82\xac",
	                             "\xf0\x9f\x98\x80",
	                             "\xf4\x8f\xbf\xbf",
	                             "\xed\x9f\xbf"};
	static const char *bad[] = {"\x80",
	                            "\xc3",
	                            "\xc0\xaf",
	                            "\xc1\xbf",
	                            "\xe0\x80\xaf",
	                            "\xed\xa0\x80",
	                            "\xf0\x80\x80\xaf",
	                            "\xf4\x90\x80\x80",
	                            "\xf5\x80\x80\x80",
	                            "\xe2\x82",
	                            "a\xe9"
	                            "b",
	                            "\xff"};

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		assert_true(jfr_utf8_valid(good[i], strlen(good[i])));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_false(jfr_utf8_valid(bad[i], strlen(bad[i])));
}

static void event_size_counts_itself(void **state)
{
	(void)state;
	assert_int_equal(jfr_event_size(0), 1);
	assert_int_equal(jfr_event_size(10), 11);
	assert_int_equal(jfr_event_size(126), 127);
	assert_int_equal(jfr_event_size(127), 129); /* 128 needs 2 bytes, so 127 + 2 */
	assert_int_equal(jfr_event_size(200), 202);
	for (size_t l = 0; l < 70000; l++) {
		uint64_t s = jfr_event_size(l);

		assert_true(s == l + jfr_varint_len(s));
	}
}

static void big_endian(void **state)
{
	(void)state;
	struct jfr_buf b = {0};

	jfr_buf_be64(&b, 0x0102030405060708ULL);
	jfr_buf_be16(&b, 0x0a0b);
	jfr_buf_be32(&b, 0x11223344);
	const uint8_t want[] = {1, 2, 3, 4, 5, 6, 7, 8, 0xa, 0xb, 0x11, 0x22, 0x33, 0x44};
	assert_memory_equal(b.data, want, sizeof(want));
	assert_true(jfr_get_be64(b.data) == 0x0102030405060708ULL);
	assert_int_equal(jfr_get_be16(b.data + 8), 0x0a0b);
	jfr_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(varint_known_bytes),  cmocka_unit_test(varint_roundtrip_every_width),
	    cmocka_unit_test(varint_padded_patch), cmocka_unit_test(strings),
	    cmocka_unit_test(utf8_validity),       cmocka_unit_test(event_size_counts_itself),
	    cmocka_unit_test(big_endian),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

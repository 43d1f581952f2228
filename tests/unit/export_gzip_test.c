// SPDX-License-Identifier: GPL-2.0
/*
 * Request bodies as gzip members (export/gzip.c): members appended one after the other inflate, as
 * one stream, to the bytes they were made from in order (what Go's gzip.Reader, Pyroscope's, does
 * with them); a piece is deflated once and its member reused while the bytes are the same, and
 * made again when they change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "export/gzip.h"

/* Every gzip member of in, inflated one after the other into out (at most cap bytes). */
static size_t gunzip_all(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	size_t got = 0;
	unsigned members = 0;

	while (n) {
		z_stream zs = {0};

		assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
		zs.next_in = (Bytef *)in;
		zs.avail_in = (uInt)n;
		zs.next_out = out + got;
		zs.avail_out = (uInt)(cap - got);
		assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
		got += zs.total_out;
		in += zs.total_in;
		n -= zs.total_in;
		inflateEnd(&zs);
		members++;
	}
	assert_true(members > 0);
	return got;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 7 + seed) % 251 ^ (i >> 5));
}

static void members_inflate_to_the_whole(void **state)
{
	static uint8_t a[5000], b[20000], c[3000], want[28000], got[64000];
	struct lfr_gzip_piece piece = {0};
	struct jfr_buf gz = {0};

	(void)state;
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	fill(c, sizeof(c), 3);
	memcpy(want, a, sizeof(a));
	memcpy(want + sizeof(a), b, sizeof(b));
	memcpy(want + sizeof(a) + sizeof(b), c, sizeof(c));
	assert_int_equal(lfr_gzip_append(a, sizeof(a), NULL, &gz), 0);
	assert_int_equal(lfr_gzip_append(b, sizeof(b), &piece, &gz), 0);
	assert_int_equal(lfr_gzip_append(c, sizeof(c), NULL, &gz), 0);
	assert_int_equal(gunzip_all(gz.data, gz.len, got, sizeof(got)), sizeof(want));
	assert_memory_equal(got, want, sizeof(want));
	/* an empty piece is a member too */
	jfr_buf_reset(&gz);
	assert_int_equal(lfr_gzip_append(a, 0, NULL, &gz), 0);
	assert_int_equal(lfr_gzip_append(a, sizeof(a), NULL, &gz), 0);
	assert_int_equal(gunzip_all(gz.data, gz.len, got, sizeof(got)), sizeof(a));
	assert_memory_equal(got, a, sizeof(a));
	jfr_buf_free(&gz);
	lfr_gzip_piece_free(&piece);
}

static void a_piece_is_deflated_once(void **state)
{
	static uint8_t meta[10000], other[10000], got[32000];
	struct lfr_gzip_piece piece = {0};
	struct jfr_buf gz = {0};

	(void)state;
	fill(meta, sizeof(meta), 4);
	memcpy(other, meta, sizeof(other));
	other[5000] ^= 1;
	assert_int_equal(lfr_gzip_append(meta, sizeof(meta), &piece, &gz), 0);
	size_t len = piece.gz.len;
	uint8_t *made = malloc(len);

	assert_non_null(made);
	memcpy(made, piece.gz.data, len);
	/*
	 * The same bytes: the member kept is appended as it is, not made again (a mark put into it
	 * shows in what is appended).
	 */
	piece.gz.data[len / 2] ^= 0xff;
	jfr_buf_reset(&gz);
	assert_int_equal(lfr_gzip_append(meta, sizeof(meta), &piece, &gz), 0);
	assert_int_equal(gz.len, len);
	assert_int_equal(gz.data[len / 2], made[len / 2] ^ 0xff);
	free(made);
	/* a byte changed: made again from the new bytes */
	jfr_buf_reset(&gz);
	assert_int_equal(lfr_gzip_append(other, sizeof(other), &piece, &gz), 0);
	assert_int_equal(gunzip_all(gz.data, gz.len, got, sizeof(got)), sizeof(other));
	assert_memory_equal(got, other, sizeof(other));
	assert_memory_equal(piece.raw.data, other, sizeof(other));
	jfr_buf_free(&gz);
	lfr_gzip_piece_free(&piece);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(members_inflate_to_the_whole),
	    cmocka_unit_test(a_piece_is_deflated_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/* gzip with libdeflate; see gzip.h. */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include <libdeflate.h>

#include "export/gzip.h"

static pthread_key_t compressor_key;
static pthread_once_t compressor_once = PTHREAD_ONCE_INIT;
static bool compressor_keyed;

static void free_compressor(void *c)
{
	libdeflate_free_compressor(c);
}

static void make_key(void)
{
	compressor_keyed = !pthread_key_create(&compressor_key, free_compressor);
}

/*
 * The calling thread's compressor, made once: each export thread deflates several members per
 * chunk, and making one clears its tables (a tenth of what a chunk's deflating costs).
 */
static struct libdeflate_compressor *compressor(void)
{
	struct libdeflate_compressor *c;

	pthread_once(&compressor_once, make_key);
	if (!compressor_keyed)
		return NULL;
	c = pthread_getspecific(compressor_key);
	if (!c && (c = libdeflate_alloc_compressor(1)) && pthread_setspecific(compressor_key, c)) {
		libdeflate_free_compressor(c);
		c = NULL;
	}
	return c;
}

/*
 * Appends data to out as one gzip member.  libdeflate: the whole buffer at once, in half of
 * zlib's instructions at level 1 and a few bytes smaller (Documentation/benchmarks.md).
 */
static int deflate_member(const void *data, size_t n, struct jfr_buf *out)
{
	struct libdeflate_compressor *c = compressor();
	size_t got = 0;

	if (!c)
		return -1;
	if (jfr_buf_reserve(out, libdeflate_gzip_compress_bound(c, n)))
		got =
		    libdeflate_gzip_compress(c, data, n, out->data + out->len, out->cap - out->len);
	out->len += got;
	return got ? 0 : -1;
}

int lfr_gzip(const void *data, size_t n, struct jfr_buf *out)
{
	jfr_buf_reset(out);
	out->oom = false;
	return deflate_member(data, n, out);
}

int lfr_gzip_append(const void *data, size_t n, struct lfr_gzip_piece *piece, struct jfr_buf *out)
{
	if (!piece)
		return deflate_member(data, n, out);
	if (piece->raw.len != n || piece->raw.oom || piece->gz.oom ||
	    memcmp(piece->raw.data, data, n)) {
		jfr_buf_reset(&piece->raw);
		piece->raw.oom = false;
		jfr_buf_put(&piece->raw, data, n);
		if (piece->raw.oom || lfr_gzip(data, n, &piece->gz)) {
			/* not kept: the next call makes it again */
			piece->raw.oom = true;
			return -1;
		}
	}
	jfr_buf_put(out, piece->gz.data, piece->gz.len);
	return out->oom ? -1 : 0;
}

void lfr_gzip_piece_free(struct lfr_gzip_piece *p)
{
	jfr_buf_free(&p->raw);
	jfr_buf_free(&p->gz);
}

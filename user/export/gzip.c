// SPDX-License-Identifier: GPL-2.0
/* gzip with zlib; see gzip.h. */
#include <string.h>
#include <zlib.h>

#include "export/gzip.h"

/* Appends data to out as one gzip member. */
static int deflate_member(const void *data, size_t n, struct jfr_buf *out)
{
	z_stream zs = {0};
	int rc;

	/*
	 * 15 + 16: the largest window, with gzip's header and trailer.  Level 1: a quarter of level
	 * 6's instructions on a chunk for a few percent more bytes (Documentation/benchmarks.md)
	 */
	if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	if (!jfr_buf_reserve(out, deflateBound(&zs, (uLong)n))) {
		deflateEnd(&zs);
		return -1;
	}
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)n;
	zs.next_out = out->data + out->len;
	zs.avail_out = (uInt)(out->cap - out->len);
	rc = deflate(&zs, Z_FINISH);
	out->len += zs.total_out;
	deflateEnd(&zs);
	return rc == Z_STREAM_END ? 0 : -1;
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

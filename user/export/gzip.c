// SPDX-License-Identifier: GPL-2.0
/* gzip with zlib; see gzip.h. */
#include <zlib.h>

#include "export/gzip.h"

int lfr_gzip(const void *data, size_t n, struct jfr_buf *out)
{
	z_stream zs = {0};
	int rc;

	jfr_buf_reset(out);
	out->oom = false;
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
	zs.next_out = out->data;
	zs.avail_out = (uInt)(out->cap);
	rc = deflate(&zs, Z_FINISH);
	out->len = zs.total_out;
	deflateEnd(&zs);
	return rc == Z_STREAM_END ? 0 : -1;
}

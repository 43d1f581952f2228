/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A request's body compressed for the wire: a gzip stream (libdeflate), which both backends take.
 * A body may be several gzip members one after the other (RFC 1952 2.2; Go's gzip.Reader,
 * Pyroscope's, reads them as one stream): a piece that many bodies repeat is deflated once
 * (lfr_gzip_piece).
 */
#ifndef LFR_EXPORT_GZIP_H
#define LFR_EXPORT_GZIP_H

#include <stddef.h>

#include "jfr/encode.h"

/* Deflates the n bytes of data as one gzip stream into out (replacing what it held); 0, or -1
 * when out of memory. */
int lfr_gzip(const void *data, size_t n, struct jfr_buf *out);

/* A piece of many bodies: the bytes last deflated and their gzip member. */
struct lfr_gzip_piece {
	struct jfr_buf raw, gz;
};

/*
 * Appends the n bytes of data to out as one more gzip member; with a piece that holds the same
 * bytes, its member, made once (and made from data, kept in piece, when it holds other bytes).
 * 0, or -1 when out of memory.
 */
int lfr_gzip_append(const void *data, size_t n, struct lfr_gzip_piece *piece, struct jfr_buf *out);

void lfr_gzip_piece_free(struct lfr_gzip_piece *p);

#endif

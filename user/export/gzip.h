/* SPDX-License-Identifier: GPL-2.0 */
/* A request's body compressed for the wire: a gzip stream (zlib), which both backends take. */
#ifndef LFR_EXPORT_GZIP_H
#define LFR_EXPORT_GZIP_H

#include <stddef.h>

#include "jfr/encode.h"

/* Deflates the n bytes of data as one gzip stream into out (replacing what it held); 0, or -1
 * when out of memory. */
int lfr_gzip(const void *data, size_t n, struct jfr_buf *out);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables kept by build-id in the recorder's cache (lib/blob_cache.h), so that a recorder
 * started again (the service at every boot, a restart) does not build again the tables it built
 * before: libc's is 13 million instructions to build and a few hundred thousand to read back.
 *
 * One file per object, HEX.unwind (its GNU build-id): the build-id, the object's size, the table
 * format's version and the rows as the kernel takes them.  A file is used only when all of it
 * agrees with the object open now and its rows' starts increase; any other is not used, said,
 * and replaced.  Objects without a build-id are built every time.
 */
#ifndef LFR_SYM_UNWIND_CACHE_H
#define LFR_SYM_UNWIND_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/blob_cache.h"
#include "sym/unwind_table.h"

enum lfr_unwind_cache_how {
	LFR_UNWIND_CACHE_BUILT,  /* built; not stored (no build-id, or storing failed: see why) */
	LFR_UNWIND_CACHE_STORED, /* built and stored */
	LFR_UNWIND_CACHE_HIT,    /* read from the cache */
};

struct lfr_unwind_cache_result {
	enum lfr_unwind_cache_how how;
	char problem[256]; /* a cache file refused, or not written: why; "" when none */
};

/*
 * The table of the object open at fd, as lfr_unwind_table_build() gives it (the header's ctime is
 * the fstat of fd): from the cache when it holds the object's, else built and stored.  c may be
 * NULL: built.  Returns what lfr_unwind_table_build() returns; res says how the table came.
 */
int lfr_unwind_cache_get(struct lfr_blob_cache *c, int fd, struct lfr_unwind_table *t,
                         struct lfr_unwind_cache_result *res, char *err, size_t errlen);

/*
 * The table kept for the object of that build-id and size, without building one: 0, or -ENOENT
 * when the cache holds none, another negative errno (why says what is wrong with the file) when
 * it cannot be used.  The header's ctime is left 0: the table is for reading, not for the module.
 */
int lfr_unwind_cache_find(struct lfr_blob_cache *c, const uint8_t *build_id, size_t build_id_len,
                          uint64_t object_size, struct lfr_unwind_table *t, char *why,
                          size_t whylen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables kept on disk by build-id, so that a recorder started again (the service at every
 * boot, after an upgrade of lfr, a restart) does not build again the tables it built before:
 * libc's alone is 13 million instructions to build and a few thousand to read back.
 *
 * One file per object, NAME.unwind where NAME is the object's GNU build-id in hex: a header (the
 * build-id, the object's size, the row count, a CRC-32 over header and rows) and the rows as the
 * kernel takes them.  A file is used only when all of it agrees with the object open now; any
 * other file (cut, damaged, of another version, not ours, a link) is not read and is replaced.
 * Objects without a build-id are built every time.  The directory is the recorder's own: owned by
 * the user that runs it and writable by no one else, since a table decides how stacks are walked.
 * At most LFR_UNWIND_CACHE_MAX files: the one used least recently makes room for a new one.
 */
#ifndef LFR_SYM_UNWIND_CACHE_H
#define LFR_SYM_UNWIND_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym/unwind_table.h"

#define LFR_UNWIND_CACHE_MAX 1024

struct lfr_unwind_cache;

/*
 * Opens the cache directory dir, made (mode 0700) when it does not exist.  Returns 0, or a
 * negative errno with a message in err: not a directory, owned by another user, writable by
 * group or others.
 */
int lfr_unwind_cache_open(const char *dir, struct lfr_unwind_cache **out, char *err, size_t errlen);
void lfr_unwind_cache_close(struct lfr_unwind_cache *c);

/* For the tests: another bound than LFR_UNWIND_CACHE_MAX on the files kept (at least 1). */
void lfr_unwind_cache_set_max(struct lfr_unwind_cache *c, unsigned int max);

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
 * One thread at a time.
 */
int lfr_unwind_cache_get(struct lfr_unwind_cache *c, int fd, struct lfr_unwind_table *t,
                         struct lfr_unwind_cache_result *res, char *err, size_t errlen);

#endif

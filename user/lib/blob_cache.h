/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A directory of files lfr builds from the machine's objects and reads back at its next start
 * instead of building them again (unwind tables: sym/unwind_cache.h; symbol tables:
 * sym/sym_cache.h), each named by its object's build-id.
 *
 * A file is a header (magic, the payload's length and CRC-32) and the payload; it is read only
 * when it is a regular file of this user whose size and CRC agree, and written whole under a
 * temporary name, then renamed.  The directory must be the user's own, writable by no one else
 * and not reached through a symbolic link: what is in it decides how stacks are walked and named.
 * At most LFR_BLOB_CACHE_MAX files: the least recently used (a read updates its time) makes room
 * for a new one.  Only the cache's own files (HEX.SUFFIX, and .HEX.SUFFIX.PID.tmp that a write
 * which never finished left) are counted or removed: anything else there is left alone.
 */
#ifndef LFR_LIB_BLOB_CACHE_H
#define LFR_LIB_BLOB_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define LFR_BLOB_CACHE_MAX 2048

struct lfr_blob_cache;

/*
 * Opens the directory dir, made (mode 0700) when it does not exist.  Returns 0, or a negative
 * errno with a message in err: not a directory, owned by another user, writable by others.
 */
int lfr_blob_cache_open(const char *dir, struct lfr_blob_cache **out, char *err, size_t errlen);
void lfr_blob_cache_close(struct lfr_blob_cache *c);

/* For the tests: another bound than LFR_BLOB_CACHE_MAX on the files kept (at least 1). */
void lfr_blob_cache_set_max(struct lfr_blob_cache *c, unsigned int max);

/*
 * A file's payload, read where it lies: a read-only mapping of the file, the page cache's own
 * pages (no copy, no fresh memory cleared for it).  The files are never changed in place (a write
 * is a new file renamed over the old one), so a mapping keeps the bytes it was checked with.
 */
struct lfr_blob {
	const void *data; /* the payload, len bytes */
	size_t len;
	void *map; /* the whole file's mapping */
	size_t map_len;
};

/*
 * The payload of file name (at most max bytes) into *b.  Returns 0; -ENOENT when there is none
 * (why ""); another negative errno when the file cannot be used, why saying what is wrong with it
 * ("NAME: damaged (CRC)").  Each 0 returned is released with lfr_blob_release().
 */
int lfr_blob_cache_read(struct lfr_blob_cache *c, const char *name, size_t max, struct lfr_blob *b,
                        char *why, size_t whylen);
void lfr_blob_release(struct lfr_blob *b);

/* Writes file name with the payload iov[0..n).  Returns 0 or a negative errno with why. */
int lfr_blob_cache_write(struct lfr_blob_cache *c, const char *name, const struct iovec *iov, int n,
                         char *why, size_t whylen);

/* The file name of a build-id: its hex and the suffix (".unwind", ".syms"); out holds 160. */
void lfr_blob_cache_name(const uint8_t *build_id, size_t len, const char *suffix, char *out,
                         size_t outlen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chunks read, checked, rebased and written whole, for the commands that copy chunks from file to
 * file: lfr dump (jfr/repository.c: chunk files of a repository) and lfr merge (cli/cmd_merge.c:
 * the chunks of recordings).  The policy (which chunks, onto which clock, what is said) is theirs.
 */
#ifndef LFR_JFR_CHUNK_IO_H
#define LFR_JFR_CHUNK_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jfr/encode.h"
#include "jfr/reader.h"

/* pread()s n bytes at off: 0, -errno, or -ENODATA when the file ends first. */
int jfr_pread_full(int fd, void *buf, size_t n, uint64_t off);

/*
 * The bytes of the chunk in fd worth copying: up to the terminator after its last checkpoint (the
 * header's constant-pool offset), which drops the room a writer preallocated after it; the
 * header's size when that structure is not there.  *h receives the header, size patched.  0,
 * -EINVAL when the reader rejects the header, or pread's error.
 */
int jfr_chunk_extent(int fd, uint8_t *h, uint64_t file_size, uint64_t *len);

/* jfr_chunk_at(): no chunk magic at the file's start; a header that does not hold; a chunk whose
 * header holds but whose metadata or constant pools do not parse */
#define JFR_CHUNK_NO_MAGIC 1
#define JFR_CHUNK_UNFINISHED 2
#define JFR_CHUNK_DAMAGED 3

/*
 * Loads the chunk at off of r into ch: 0, or one of the above.  UNFINISHED (a header the reader
 * rejects, or whose state byte says a JVM writes it) says why in why; DAMAGED leaves the chunk's
 * size in ch->size (so the next one is found) and the reason in r->err.
 */
int jfr_chunk_at(struct jfr_reader *r, uint64_t off, struct jfr_chunk *ch, char *why, size_t n);

/* Whether the chunk in buf has a header the reader accepts, with ticks of 1 ns, in *hdr. */
bool jfr_chunk_ns_header(const uint8_t *buf, uint64_t len, struct jfr_chunk *hdr);

/*
 * The chunk in buf (len bytes) with its ticks moved by delta, in *out; false when the reader does
 * not accept it.
 */
bool jfr_chunk_rebase_mem(const uint8_t *buf, uint64_t len, const char *name, int64_t delta,
                          struct jfr_buf *out);

/*
 * Whether the chunk in buf (len bytes) loads and every one of its events parses; why says what
 * does not otherwise.  cache: the reader's metadata cache (jfr_reader.meta_cache), or NULL.
 */
bool jfr_chunk_readable(const uint8_t *buf, uint64_t len, const char *name,
                        struct jfr_meta_cache *cache, char *why, size_t n);

/* The first chunk copied to an output, whose clock later chunks are rebased onto. */
struct jfr_clock_origin {
	bool seen, known;     /* a chunk was copied; its header counts ns */
	struct jfr_chunk hdr; /* its header fields */
};

/* Makes hdr (known: its ticks count ns) the origin if there is none yet: whether it did. */
bool jfr_clock_origin_note(struct jfr_clock_origin *o, const struct jfr_chunk *hdr, bool known);

/* Writes n bytes to fd: 0, or -errno with "writing WHAT: why" in err. */
int jfr_chunk_write(int fd, const void *p, size_t n, const char *what, char *err, size_t errlen);

#endif

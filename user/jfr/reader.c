// SPDX-License-Identifier: GPL-2.0
/* JFR reader: file mapping, chunk headers, chunk loading, the event cursor (the others:
 * reader_*.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jfr/reader_internal.h"
#include "lib/regular_file.h"

/* ---- open / close ---- */

struct jfr_reader *jfr_open_mem(const void *data, size_t size, const char *name)
{
	struct jfr_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->name = name ? name : "(memory)";
	r->data = data;
	r->size = size;
	r->fd = -1;
	return r;
}

/* Reads LEN bytes of FD at OFF into DATA.  0, or -1 with a message in ERR. */
static int read_at(int fd, uint8_t *data, uint64_t off, uint64_t len, const char *path, char *err,
                   size_t errlen)
{
	uint64_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, data + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: read error at offset %llu: %s", path,
			         (unsigned long long)(off + got), strerror(errno));
			return -1;
		}
		if (n == 0) {
			snprintf(
			    err, errlen,
			    "%s: the file was cut short while being read (at %llu of %llu bytes): "
			    "something truncated or rewrote it; read it again",
			    path, (unsigned long long)(off + got), (unsigned long long)(off + len));
			return -1;
		}
		got += (uint64_t)n;
	}
	return 0;
}

/*
 * How many bytes from OFF to copy, given the first bytes H there: a whole chunk when H is a chunk
 * header (it may have grown past SIZE, the size seen at open: a writer extends the file before a
 * chunk says it is that long, so a file shorter than its chunk was cut, and what it holds is for
 * the parser), else the rest of the file as seen at open.
 */
static uint64_t copy_length(int fd, const uint8_t *h, uint64_t off, uint64_t size)
{
	uint64_t csize = jfr_be(h + JFR_H_SIZE, 8);
	struct stat st;

	if (memcmp(h, "FLR\0", 4) || csize < JFR_CHUNK_HEADER_SIZE || csize > (1ULL << 40))
		return size - off;
	if (csize <= size - off)
		return csize;
	if (!fstat(fd, &st) && (uint64_t)st.st_size < off + csize)
		return (uint64_t)st.st_size > size ? (uint64_t)st.st_size - off : size - off;
	return csize;
}

/*
 * Copies the chunk at OFF into DATA + OFF (CAP bytes allocated, grown as needed), one state of it:
 * a recorder writing the file publishes every step of a flush or a rotation through the chunk's
 * header (constant-pool offset, duration, size), so a copy during which the header did not change
 * is a state it meant to be read; a copy that saw the header change is taken again.  A chunk that
 * is complete never changes.  Returns the bytes copied (copy_length()), or -1.
 */
static int64_t read_chunk_state(int fd, uint8_t **data, uint64_t *cap, uint64_t off, uint64_t size,
                                const char *path, char *err, size_t errlen)
{
	uint8_t h[JFR_CHUNK_HEADER_SIZE];

	for (int attempt = 0;; attempt++) {
		uint64_t len = size - off, hl = len < sizeof(h) ? len : sizeof(h);

		/* a header cut by the size seen at open may be whole by now */
		if (pread(fd, h, sizeof(h), (off_t)off) == (ssize_t)sizeof(h))
			len = copy_length(fd, h, off, size), hl = len < sizeof(h) ? len : sizeof(h);
		else if (read_at(fd, h, off, hl, path, err, errlen))
			return -1;
		if (off + len > *cap) {
			uint64_t ncap = (off + len) + (off + len) / 4;
			uint8_t *nd = realloc(*data, ncap);

			if (!nd) {
				snprintf(err, errlen, "%s: out of memory reading %llu bytes", path,
				         (unsigned long long)(off + len));
				return -1;
			}
			*data = nd;
			*cap = ncap;
		}
		if (read_at(fd, *data + off, off, len, path, err, errlen))
			return -1;
		/* the header before, during and after the copy: one state */
		bool same = !memcmp(h, *data + off, hl);

		if (attempt == 50 || (same && !read_at(fd, h, off, hl, path, err, errlen) &&
		                      !memcmp(h, *data + off, hl)))
			return (int64_t)len;
	}
}

/* The offset of the first chunk of the copy whose header reads differently now, or SIZE. */
static uint64_t changed_chunk(int fd, const uint8_t *data, uint64_t size)
{
	uint8_t h[JFR_CHUNK_HEADER_SIZE];
	uint64_t off = 0;

	while (size - off >= sizeof(h) && !memcmp(data + off, "FLR\0", 4)) {
		uint64_t csize = jfr_be(data + off + JFR_H_SIZE, 8);

		if (pread(fd, h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h) ||
		    memcmp(h, data + off, sizeof(h)))
			return off;
		if (csize < sizeof(h) || csize > size - off)
			break;
		off += csize;
	}
	return size;
}

static bool all_zero(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

struct jfr_reader *jfr_open_fd(int fd, uint64_t size, const char *path, char *err, size_t errlen)
{
	/*
	 * Read, not mapped: a file cut while mapped kills the reader with SIGBUS, a short read is
	 * an error the user can be told about.  The chunks that start within the size seen at open
	 * are read, each as one state of it (read_chunk_state()): a file that a recorder is
	 * writing is read as a valid prefix of it.
	 */
	uint8_t *data = NULL;
	uint64_t cap = 0, off = 0, from = 0;

	for (int attempt = 0;; attempt++) {
		for (off = from; off < size;) {
			int64_t n = read_chunk_state(fd, &data, &cap, off, size, path, err, errlen);

			if (n < 0) {
				free(data);
				return NULL;
			}
			/*
			 * Zeros after a chunk: the file was extended for the last chunk to grow
			 * into, and its header does not say so yet.  What precedes is the file.
			 */
			if (off && n && memcmp(data + off, "FLR\0", 4) &&
			    all_zero(data + off, (uint64_t)n))
				break;
			off += (uint64_t)n;
		}
		/* a chunk whose header changed since it was copied is copied again, and all after
		 * it */
		from = changed_chunk(fd, data, off);
		if (from == off || attempt == 50)
			break;
	}
	size = off;
	struct jfr_reader *r = jfr_open_mem(data, size, NULL);
	if (!r || !(r->name = strdup(path))) {
		snprintf(err, errlen, "out of memory");
		if (r) {
			r->name = NULL;
			jfr_close(r);
		}
		free(data);
		return NULL;
	}
	r->owned = data;
	r->fd = fd;
	return r;
}

struct jfr_reader *jfr_open_file(const char *path, char *err, size_t errlen)
{
	struct stat st;
	/* a regular file only, never opened otherwise: a FIFO would wait for a writer, a device
	 * act on its open (a link another user planted at lfr.jfr may name either) */
	int fd = lfr_open_regular(path, O_RDONLY, &st);

	if (fd == -ENODEV) {
		snprintf(
		    err, errlen,
		    "%s: not a regular file (a FIFO, a device or a directory): name a recording "
		    "file",
		    path);
		return NULL;
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-fd));
		return NULL;
	}
	struct jfr_reader *r = jfr_open_fd(fd, (uint64_t)st.st_size, path, err, errlen);
	if (!r)
		close(fd);
	return r;
}

void jfr_close(struct jfr_reader *r)
{
	if (!r)
		return;
	free(r->owned);
	if (r->fd >= 0) {
		close(r->fd);
		free((char *)r->name);
	}
	jfr_meta_cache_release(r);
	jfr_arena_free(r);
	free(r->type_names);
	hashtab_free(&r->type_name_index);
	free(r->metas);
	free(r);
}

int jfr_chunk_header(struct jfr_chunk *ch, const uint8_t *h, uint64_t left, char *why, size_t n,
                     unsigned *at)
{
	*at = 0;
	if (left < JFR_CHUNK_HEADER_SIZE) {
		snprintf(why, n, "truncated chunk header (%llu bytes left, a header is %d)",
		         (unsigned long long)left, JFR_CHUNK_HEADER_SIZE);
		return -1;
	}
	if (memcmp(h, "FLR\0", 4)) {
		snprintf(why, n, "no chunk magic \"FLR\\0\": not a JFR file or a corrupt chunk");
		return -1;
	}
	ch->major = jfr_be(h + JFR_H_MAJOR, 2);
	ch->minor = jfr_be(h + JFR_H_MINOR, 2);
	ch->size = jfr_be(h + JFR_H_SIZE, 8);
	ch->cp_off = jfr_be(h + JFR_H_CP_OFFSET, 8);
	ch->meta_off = jfr_be(h + JFR_H_META_OFFSET, 8);
	ch->start_nanos = jfr_be(h + JFR_H_START_NANOS, 8);
	ch->duration_nanos = jfr_be(h + JFR_H_DURATION, 8);
	ch->start_ticks = jfr_be(h + JFR_H_START_TICKS, 8);
	ch->ticks_per_second = jfr_be(h + JFR_H_TPS, 8);
	ch->state = h[JFR_H_STATE];
	ch->flags = jfr_be(h + JFR_H_FLAGS, 2);
	if (ch->major != 2 && ch->major != 1) {
		*at = 4;
		snprintf(why, n, "unsupported JFR version %u.%u (2.x is read)", ch->major,
		         ch->minor);
		return -1;
	}
	if (ch->size < JFR_CHUNK_HEADER_SIZE || ch->size > left) {
		*at = 8;
		snprintf(why, n,
		         "chunk size %llu does not fit in the file (%llu bytes from here)%s",
		         (unsigned long long)ch->size, (unsigned long long)left,
		         ch->size == 0 || ch->state ? ": the chunk is still being written" : "");
		return -1;
	}
	if (ch->meta_off < JFR_CHUNK_HEADER_SIZE || (uint64_t)ch->meta_off >= ch->size) {
		*at = 24;
		snprintf(why, n, "metadata offset %lld is outside the chunk",
		         (long long)ch->meta_off);
		return -1;
	}
	if (ch->cp_off < JFR_CHUNK_HEADER_SIZE || (uint64_t)ch->cp_off >= ch->size) {
		*at = 16;
		snprintf(why, n, "constant-pool offset %lld is outside the chunk",
		         (long long)ch->cp_off);
		return -1;
	}
	if (ch->ticks_per_second <= 0) {
		*at = 56;
		snprintf(why, n, "ticks per second is %lld", (long long)ch->ticks_per_second);
		return -1;
	}
	return 0;
}

int jfr_chunk_load(struct jfr_reader *r, uint64_t off, struct jfr_chunk *ch)
{
	char why[256];
	unsigned at;

	memset(ch, 0, sizeof(*ch));
	ch->off = off;
	if (jfr_chunk_header(ch, r->data + off, r->size - off, why, sizeof(why), &at))
		return jfr_fail(r, off + at, "%s", why);
	if (jfr_meta_parse(r, ch, (struct jfr_meta **)&ch->meta) < 0)
		return -1;
	/*
	 * The chain runs backwards, from the header's last checkpoint to the first (delta 0), as
	 * the JDK and lfr write it: each delta leads to a checkpoint that ends before the one that
	 * points at it, so the chain ends and no byte is read twice, whatever the deltas say.
	 */
	uint64_t cp = ch->off + ch->cp_off, limit = ch->off + ch->size;
	for (;;) {
		int64_t delta = 0;
		if (jfr_checkpoint_parse(r, ch, cp, limit, &delta) < 0)
			goto fail;
		ch->ncheckpoints++;
		if (!delta)
			break;
		/* unsigned: no delta overflows, INT64_MIN included */
		uint64_t back = -(uint64_t)delta, here = cp - ch->off;
		if (delta > 0) {
			jfr_fail(r, cp,
			         "constant-pool chain points forward (delta %lld): a checkpoint's "
			         "delta leads back to an earlier one",
			         (long long)delta);
			goto fail;
		}
		if (back > here - JFR_CHUNK_HEADER_SIZE) {
			jfr_fail(
			    r, cp,
			    "constant-pool chain points before the chunk's events (delta %lld)",
			    (long long)delta);
			goto fail;
		}
		limit = cp;
		cp -= back;
	}
	return 0;
fail:
	jfr_chunk_release(ch);
	return -1;
}

void jfr_chunk_release(struct jfr_chunk *ch)
{
	hashtab_free(&ch->pool);
}

/* ---- events ---- */

void jfr_event_iter_init(struct jfr_event_iter *it, struct jfr_reader *r,
                         const struct jfr_chunk *ch)
{
	it->r = r;
	it->p = r->data + ch->off + JFR_CHUNK_HEADER_SIZE;
	it->end = r->data + ch->off + ch->size;
}

int jfr_event_next(struct jfr_event_iter *it, uint64_t *type, uint64_t *size, struct jfr_cur *ev)
{
	if (it->p >= it->end)
		return 0;
	struct jfr_cur c = {.p = it->p, .end = it->end, .r = it->r};
	uint64_t sz = jfr_varint(&c);
	if (c.bad)
		return -1;
	if (sz == 0 || sz > (uint64_t)(it->end - it->p)) {
		jfr_fail(it->r, it->p - it->r->data, "event size %llu %s", (unsigned long long)sz,
		         sz ? "runs past the end of the chunk" : "is zero (zero-filled tail?)");
		return -1;
	}
	c.end = it->p + sz;
	*type = jfr_varint(&c);
	if (c.bad)
		return -1;
	*size = sz;
	*ev = c;
	it->p += sz;
	return 1;
}

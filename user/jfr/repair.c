// SPDX-License-Identifier: GPL-2.0
/*
 * Repair of a recording whose writer died in one of the two moments where the file is not readable
 * (see writer.c): the file then ends with bytes after its last complete chunk (a chunk grew in the
 * file before its header did, or shrank in its header before the file did).  Cutting them off gives
 * the recording as of its last flush.  Every complete chunk is first read as lfr report reads it
 * (its metadata, constant pools and every event): a file damaged inside a chunk is no file a cut
 * repairs, and it is left as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jfr/encode.h"
#include "jfr/reader.h"
#include "jfr/writer.h"
#include "lib/regular_file.h"

/*
 * The number of complete chunks in the chain that starts at the first valid chunk header found in
 * (off, size): 0 when the bytes after off hold none.  Reads the file in windows that overlap by a
 * header, so that a header across two windows is seen.
 */
static int repair_intact_after(int fd, uint64_t off, uint64_t size, uint64_t *found)
{
	enum { WIN = 1 << 20 };
	uint8_t *buf = malloc(WIN + JFR_CHUNK_HEADER_SIZE);
	uint64_t pos = off + 1, chain = 0;
	int ret = 0;

	*found = 0;
	if (!buf)
		return -ENOMEM;
	while (!chain && size - pos >= JFR_CHUNK_HEADER_SIZE) {
		uint64_t want = size - pos < WIN + JFR_CHUNK_HEADER_SIZE
		                    ? size - pos
		                    : WIN + JFR_CHUNK_HEADER_SIZE;
		ssize_t r = pread(fd, buf, want, (off_t)pos);

		if (r != (ssize_t)want) {
			ret = r < 0 ? -errno : -EIO;
			goto out;
		}
		for (uint64_t i = 0; i + JFR_CHUNK_HEADER_SIZE <= want; i++) {
			struct jfr_chunk ch;
			char why[256];
			unsigned at;

			if (memcmp(buf + i, "FLR", 4) ||
			    jfr_chunk_header(&ch, buf + i, size - pos - i, why, sizeof(why), &at))
				continue;
			chain = pos + i;
			break;
		}
		pos += want - JFR_CHUNK_HEADER_SIZE + 1;
	}
	while (chain && size - chain >= JFR_CHUNK_HEADER_SIZE) {
		uint8_t h[JFR_CHUNK_HEADER_SIZE];
		struct jfr_chunk ch;
		char why[256];
		unsigned at;

		if (pread(fd, h, sizeof(h), (off_t)chain) != (ssize_t)sizeof(h) ||
		    jfr_chunk_header(&ch, h, size - chain, why, sizeof(why), &at))
			break;
		(*found)++;
		chain += ch.size;
	}
out:
	free(buf);
	return ret;
}

/* the writer's filler: a checkpoint event whose size is a 5-byte padded varint (writer.c) */
#define FILLER_SIZE_BYTES 5

/*
 * The writer's filler of the chunk in buf (size bytes) when it reaches past the chunk's end: a
 * writer killed while it rotated (writer.c: the chunk's size set, its filler not yet trimmed to
 * it).  The JDK reads such a chunk while bytes follow it, neither lfr report nor the JDK once the
 * file ends there.  Returns the filler's offset in buf, its size field trimmed in buf to end at
 * the chunk's end, or 0 when no event reaches past the end (or one that is no filler does: the
 * walk that follows says so).
 */
static uint64_t trim_filler(uint8_t *buf, uint64_t size)
{
	uint64_t p = JFR_CHUNK_HEADER_SIZE;

	while (p < size) {
		uint64_t sz, type;
		unsigned used = jfr_varint_decode(buf + p, size - p, &sz), tused;

		if (!used || !sz)
			return 0;
		if (sz <= size - p) {
			p += sz;
			continue;
		}
		tused = jfr_varint_decode(buf + p + used, size - p - used, &type);
		if (used != FILLER_SIZE_BYTES || !tused || type != JFR_EVENT_CHECKPOINT ||
		    size - p < used + tused)
			return 0;
		jfr_varint_encode_padded(buf + p, size - p, FILLER_SIZE_BYTES);
		return p;
	}
	return 0;
}

/* The fillers to trim: where each size field is, and its new bytes. */
struct trims {
	struct trim {
		uint64_t off;
		uint8_t bytes[FILLER_SIZE_BYTES];
	} * v;
	size_t n;
};

/*
 * Reads the complete chunks in [0, end) as lfr report does, one at a time (at most one chunk in
 * memory): 0 when each loads and every event of it parses, -EUCLEAN with the first damaged one in
 * err, or a negative errno.  A chunk is read with its filler trimmed when the writer did not get to
 * it (trim_filler()); the trim is added to t, for the caller to write.
 */
static int verify_chunks(int fd, uint64_t end, const char *path, struct trims *t, char *err,
                         size_t errlen)
{
	uint8_t h[JFR_CHUNK_HEADER_SIZE];
	uint64_t off = 0;

	while (off < end) {
		struct jfr_chunk ch;
		char why[256];
		unsigned at;
		int ret = 0;

		/* the chain was walked: these headers hold */
		if (pread(fd, h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h) ||
		    jfr_chunk_header(&ch, h, end - off, why, sizeof(why), &at))
			return -EIO;
		uint64_t size = ch.size;
		uint8_t *buf = size <= SIZE_MAX ? malloc((size_t)size) : NULL;

		if (!buf) {
			snprintf(err, errlen, "out of memory reading the chunk at offset %llu",
			         (unsigned long long)off);
			return -ENOMEM;
		}
		for (uint64_t got = 0; got < size && !ret;) {
			ssize_t r = pread(fd, buf + got, (size_t)(size - got), (off_t)(off + got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				ret = r < 0 ? -errno : -EIO;
				snprintf(err, errlen, "reading the chunk at offset %llu: %s",
				         (unsigned long long)off, strerror(-ret));
			}
			got += r > 0 ? (uint64_t)r : 0;
		}
		uint64_t filler = ret ? 0 : trim_filler(buf, size);
		struct jfr_reader *r = ret ? NULL : jfr_open_mem(buf, (size_t)size, path);

		if (!ret && !r) {
			snprintf(err, errlen, "out of memory reading the chunk at offset %llu",
			         (unsigned long long)off);
			ret = -ENOMEM;
		}
		if (r && !jfr_chunk_load(r, 0, &ch)) {
			jfr_chunk_verify(r, &ch);
			jfr_chunk_release(&ch);
		}
		if (r && r->failed) {
			/* "PATH: offset N: what", N from the chunk's start: told from the file's */
			const char *what = r->err + strlen(path) + 2;
			unsigned long long in = 0;
			int used = 0;

			if (sscanf(what, "offset %llu: %n", &in, &used) == 1 && used)
				what += used;
			snprintf(
			    err, errlen,
			    "the chunk at offset %llu is damaged (offset %llu: %s): not repaired, "
			    "the file is left as it was (only an unfinished tail that reaches the "
			    "end of the file is cut); lfr merge -o NEW.jfr %s writes its other "
			    "chunks to NEW.jfr, leaving this one out",
			    (unsigned long long)off, (unsigned long long)off + in, what, path);
			ret = -EUCLEAN;
		} else if (r && filler) {
			/* the chunk reads with its filler trimmed: what the writer's next write was
			 */
			struct trim *v = realloc(t->v, (t->n + 1) * sizeof(*v));

			if (!v) {
				snprintf(err, errlen, "out of memory");
				ret = -ENOMEM;
			} else {
				t->v = v;
				v[t->n].off = off + filler;
				memcpy(v[t->n++].bytes, buf + filler, FILLER_SIZE_BYTES);
			}
		}
		if (r)
			jfr_close(r);
		free(buf);
		if (ret)
			return ret;
		off += size;
	}
	return 0;
}

/*
 * The end of the complete chunks at the start of the file (size bytes), in *off; why the next one
 * is not, in bad.  0, or -errno with err set.
 */
static int complete_chunks(int fd, uint64_t size, uint64_t *off, char *bad, size_t badlen,
                           char *err, size_t errlen)
{
	uint8_t h[JFR_CHUNK_HEADER_SIZE];

	while (size - *off >= JFR_CHUNK_HEADER_SIZE) {
		ssize_t r = pread(fd, h, JFR_CHUNK_HEADER_SIZE, (off_t)*off);
		struct jfr_chunk ch;
		unsigned at;

		if (r != JFR_CHUNK_HEADER_SIZE) {
			int ret = r < 0 ? -errno : -EIO;

			snprintf(err, errlen, "reading a chunk header at %llu: %s",
			         (unsigned long long)*off, r < 0 ? strerror(-ret) : "short read");
			return ret;
		}
		/* the reader's header checks: a chunk it would reject is not complete */
		if (jfr_chunk_header(&ch, h, size - *off, bad, badlen, &at))
			break; /* the tail starts here */
		*off += ch.size;
	}
	return 0;
}

/* Ends the fillers of trims, then cuts the file at off: 1 with what was done in err, or -errno. */
static int cut(int fd, uint64_t off, uint64_t size, const struct trims *trims, char *err,
               size_t errlen)
{
	int ret;

	/* the fillers first: killed before the cut, the file reads as it did */
	for (size_t i = 0; i < trims->n; i++) {
		if (pwrite(fd, trims->v[i].bytes, FILLER_SIZE_BYTES, (off_t)trims->v[i].off) !=
		    FILLER_SIZE_BYTES) {
			ret = -errno;
			snprintf(err, errlen, "trimming the filler at offset %llu: %s",
			         (unsigned long long)trims->v[i].off, strerror(errno));
			return ret;
		}
	}
	if ((off < size && ftruncate(fd, (off_t)off) < 0) || fsync(fd) < 0) {
		ret = -errno;
		snprintf(err, errlen, "truncating to %llu bytes: %s", (unsigned long long)off,
		         strerror(errno));
		return ret;
	}
	if (off < size)
		snprintf(err, errlen, "cut %llu bytes after the last complete chunk%s",
		         (unsigned long long)(size - off),
		         trims->n ? ", and ended the writer's filler of a chunk at its end" : "");
	else
		snprintf(
		    err, errlen,
		    "ended the writer's filler of %zu chunk%s at %s end (its writer was killed "
		    "while it started a new chunk)",
		    trims->n, trims->n == 1 ? "" : "s", trims->n == 1 ? "its" : "their");
	return 1;
}

int lfr_jfr_repair(const char *path, char *err, size_t errlen)
{
	struct stat st;
	uint64_t off = 0;
	struct trims trims = {0};
	int ret = 0;
	/* a regular file only: no FIFO is waited on, no device written to */
	int fd = lfr_open_regular(path, O_RDWR, &st);

	if (fd < 0) {
		ret = fd == -ENODEV ? -EINVAL : fd;
		snprintf(err, errlen, "%s",
		         fd == -ENODEV ? "not a regular file (a FIFO, a device or a directory): "
		                         "name a recording file"
		                       : strerror(-fd));
		fd = -1;
		goto out;
	}
	uint64_t size = (uint64_t)st.st_size;
	if (!size) {
		/* nothing to keep: not "nothing to repair", which would call it readable */
		ret = -EINVAL;
		snprintf(err, errlen, "empty file: not a recording");
		goto out;
	}
	char bad[256] = "";

	ret = complete_chunks(fd, size, &off, bad, sizeof(bad), err, errlen);
	if (ret)
		goto out;
	if (!off) {
		ret = -EINVAL;
		snprintf(err, errlen, "no complete chunk at the start: not a recording");
		goto out;
	}
	/*
	 * What is kept must read: a chunk damaged inside is not cut away, nor called repaired.  A
	 * writer killed while it rotated left a filler past its chunk's end: that one is trimmed.
	 */
	ret = verify_chunks(fd, off, path, &trims, err, errlen);
	if (ret)
		goto out;
	if (off == size && !trims.n)
		goto out; /* nothing to repair */
	/*
	 * A writer leaves at most the end of one chunk unreadable.  Complete chunks after the bad
	 * bytes mean damage in the middle of the file: cutting would lose them.
	 */
	uint64_t found = 0;
	int r = off < size ? repair_intact_after(fd, off, size, &found) : 0;
	if (r < 0) {
		ret = r;
		snprintf(err, errlen, "reading the bytes after offset %llu: %s",
		         (unsigned long long)off, strerror(-r));
		goto out;
	}
	if (found) {
		ret = -EUCLEAN;
		snprintf(
		    err, errlen,
		    "the chunk at offset %llu is damaged (%s) and %llu intact chunk%s follow%s "
		    "it: not repaired, the file is left as it was (only an unfinished tail "
		    "that reaches the end of the file is cut)",
		    (unsigned long long)off, bad, (unsigned long long)found, found == 1 ? "" : "s",
		    found == 1 ? "s" : "");
		goto out;
	}
	ret = cut(fd, off, size, &trims, err, errlen);
out:
	free(trims.v);
	if (fd >= 0 && close(fd) < 0 && ret >= 0) {
		ret = -errno;
		snprintf(err, errlen, "close: %s", strerror(errno));
	}
	return ret;
}

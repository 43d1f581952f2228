// SPDX-License-Identifier: GPL-2.0
/*
 * Repair of a recording whose writer died in one of the two moments where the file is not readable
 * (see writer.c): the file then ends with bytes after its last complete chunk (a chunk grew in the
 * file before its header did, or shrank in its header before the file did).  Cutting them off gives
 * the recording as of its last flush.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jfr/reader.h"
#include "jfr/writer.h"

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

int lfr_jfr_repair(const char *path, char *err, size_t errlen)
{
	struct stat st;
	uint8_t h[JFR_CHUNK_HEADER_SIZE];
	uint64_t off = 0;
	int ret = 0;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
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

	while (size - off >= JFR_CHUNK_HEADER_SIZE) {
		ssize_t r = pread(fd, h, JFR_CHUNK_HEADER_SIZE, (off_t)off);
		struct jfr_chunk ch;
		unsigned at;

		if (r != JFR_CHUNK_HEADER_SIZE) {
			ret = r < 0 ? -errno : -EIO;
			snprintf(err, errlen, "reading a chunk header at %llu: %s",
			         (unsigned long long)off, r < 0 ? strerror(errno) : "short read");
			goto out;
		}
		/* the reader's header checks: a chunk it would reject is not complete */
		if (jfr_chunk_header(&ch, h, size - off, bad, sizeof(bad), &at))
			break; /* the tail starts here */
		off += ch.size;
	}
	if (off == size)
		goto out; /* nothing to repair */
	if (!off) {
		ret = -EINVAL;
		snprintf(err, errlen, "no complete chunk at the start: not a recording");
		goto out;
	}
	/*
	 * A writer leaves at most the end of one chunk unreadable.  Complete chunks after the bad
	 * bytes mean damage in the middle of the file: cutting would lose them.
	 */
	uint64_t found = 0;
	int r = repair_intact_after(fd, off, size, &found);
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
	if (ftruncate(fd, (off_t)off) < 0 || fsync(fd) < 0) {
		ret = -errno;
		snprintf(err, errlen, "truncating to %llu bytes: %s", (unsigned long long)off,
		         strerror(errno));
		goto out;
	}
	ret = 1;
	snprintf(err, errlen, "cut %llu bytes after the last complete chunk",
	         (unsigned long long)(size - off));
out:
	if (fd >= 0 && close(fd) < 0 && ret >= 0) {
		ret = -errno;
		snprintf(err, errlen, "close: %s", strerror(errno));
	}
	return ret;
}

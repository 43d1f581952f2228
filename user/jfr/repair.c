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
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jfr/reader.h"
#include "jfr/writer.h"

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
	while (size - off >= JFR_CHUNK_HEADER_SIZE) {
		ssize_t r = pread(fd, h, JFR_CHUNK_HEADER_SIZE, (off_t)off);
		struct jfr_chunk ch;
		char why[256];
		unsigned at;

		if (r != JFR_CHUNK_HEADER_SIZE) {
			ret = r < 0 ? -errno : -EIO;
			snprintf(err, errlen, "reading a chunk header at %llu: %s",
			         (unsigned long long)off, r < 0 ? strerror(errno) : "short read");
			goto out;
		}
		/* the reader's header checks: a chunk it would reject is not complete */
		if (jfr_chunk_header(&ch, h, size - off, why, sizeof(why), &at))
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

// SPDX-License-Identifier: GPL-2.0
/* Files built from objects, kept by build-id (blob_cache.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>

#include "lib/blob_cache.h"

#define BLOB_MAGIC "LFRBLOB1"
/* a temporary file older than this is a write that never finished: removed */
#define STALE_TMP_SECS 600

struct blob_hdr {
	char magic[8];
	uint64_t len; /* of the payload */
	uint32_t crc; /* CRC-32 of the payload (libdeflate's: carry-less multiplication) */
	uint32_t reserved;
};

struct lfr_blob_cache {
	int dirfd;
	unsigned int max;
	uid_t uid;
};

static int say(char *err, size_t errlen, int ret, const char *fmt, const char *a, const char *b)
{
	if (errlen)
		snprintf(err, errlen, fmt, a, b);
	return ret;
}

int lfr_blob_cache_open(const char *dir, struct lfr_blob_cache **out, char *err, size_t errlen)
{
	struct lfr_blob_cache *c;
	struct stat st;
	int fd;

	*out = NULL;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return say(err, errlen, -errno, "%s: cannot make the directory: %s", dir,
		           strerror(errno));
	/* not through a final symbolic link: one that another user placed could lead anywhere */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOTDIR && !lstat(dir, &st) && S_ISLNK(st.st_mode))
			e = ELOOP;
		return say(err, errlen, -e, "%s: %s", dir,
		           e == ENOTDIR ? "not a directory"
		           : e == ELOOP ? "a symbolic link: give the directory itself"
		                        : strerror(e));
	}
	if (fstat(fd, &st)) {
		close(fd);
		return say(err, errlen, -errno, "%s: %s", dir, strerror(errno));
	}
	/* what is in it decides how stacks are walked and named: no one else may put it there */
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return say(err, errlen, -EPERM,
		           "%s: owned by another user or writable by others: give a directory of "
		           "your own, mode 700%s",
		           dir, "");
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	c->dirfd = fd;
	c->max = LFR_BLOB_CACHE_MAX;
	c->uid = st.st_uid;
	*out = c;
	return 0;
}

void lfr_blob_cache_close(struct lfr_blob_cache *c)
{
	if (!c)
		return;
	close(c->dirfd);
	free(c);
}

void lfr_blob_cache_set_max(struct lfr_blob_cache *c, unsigned int max)
{
	c->max = max ? max : 1;
}

void lfr_blob_cache_name(const uint8_t *build_id, size_t len, const char *suffix, char *out,
                         size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < len && o + 3 < outlen; i++) {
		out[o++] = hex[build_id[i] >> 4];
		out[o++] = hex[build_id[i] & 15];
	}
	snprintf(out + o, outlen - o, "%s", suffix);
}

static bool read_all(int fd, void *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return false;
		}
		buf = (char *)buf + n;
		len -= (size_t)n;
		off += n;
	}
	return true;
}

int lfr_blob_cache_read(struct lfr_blob_cache *c, const char *name, size_t max, struct lfr_blob *b,
                        char *why, size_t whylen)
{
	int fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	const char *bad = NULL;
	struct blob_hdr h;
	struct stat st;
	void *p = MAP_FAILED;
	size_t size = 0;
	int ret;

	memset(b, 0, sizeof(*b));
	if (whylen)
		why[0] = '\0';
	if (fd < 0) {
		ret = -errno;
		if (ret != -ENOENT)
			say(why, whylen, 0, "%s: %s", name, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != c->uid)
		bad = "not a regular file of this user";
	else if ((size_t)st.st_size < sizeof(h) || !read_all(fd, &h, sizeof(h), 0))
		bad = "cut short";
	else if (memcmp(h.magic, BLOB_MAGIC, sizeof(h.magic)) || h.reserved)
		bad = "of another format";
	else if (h.len > max || (uint64_t)st.st_size != sizeof(h) + h.len)
		bad = "of the wrong size";
	else if ((p = mmap(NULL, size = (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
	                   fd, 0)) == MAP_FAILED)
		bad = "too large for the memory left";
	else if (libdeflate_crc32(0, (const char *)p + sizeof(h), h.len) != h.crc)
		bad = "damaged (CRC)";
	if (bad) {
		if (p != MAP_FAILED)
			munmap(p, size);
		close(fd);
		say(why, whylen, 0, "%s: %s", name, bad);
		return -EBADMSG;
	}
	futimens(fd, NULL); /* the most recently used now */
	close(fd);
	*b = (struct lfr_blob){(const char *)p + sizeof(h), h.len, p, size};
	return 0;
}

void lfr_blob_release(struct lfr_blob *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	memset(b, 0, sizeof(*b));
}

/*
 * Whether name is one of the cache's files: a build-id in hex and a suffix of letters (or, with
 * tmp, ".NAME.PID.tmp").  Nothing else in the directory is counted or ever removed.
 */
static bool is_ours(const char *name, bool tmp)
{
	const char *p = name + tmp, *q;
	size_t hex = 0;

	if (tmp && name[0] != '.')
		return false;
	while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
		p++, hex++;
	if (!hex || *p != '.' || !(p[1] >= 'a' && p[1] <= 'z'))
		return false;
	for (q = p + 1; *q >= 'a' && *q <= 'z'; q++)
		;
	if (!tmp)
		return !*q;
	if (*q != '.' || q[1] < '0' || q[1] > '9')
		return false;
	for (q++; *q >= '0' && *q <= '9'; q++)
		;
	return !strcmp(q, ".tmp");
}

/* Makes room for one more file: removes the least recently used while max are there. */
static void make_room(struct lfr_blob_cache *c)
{
	int fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct timespec oldest = {0};
	char victim[256] = "";
	unsigned int count = 0;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct stat st;

		if (is_ours(de->d_name, true)) {
			if (!fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
			    S_ISREG(st.st_mode) && st.st_mtim.tv_sec + STALE_TMP_SECS < time(NULL))
				unlinkat(c->dirfd, de->d_name, 0);
			continue;
		}
		if (!is_ours(de->d_name, false) || len >= sizeof(victim) ||
		    fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		count++;
		if (!victim[0] || st.st_mtim.tv_sec < oldest.tv_sec ||
		    (st.st_mtim.tv_sec == oldest.tv_sec && st.st_mtim.tv_nsec < oldest.tv_nsec)) {
			oldest = st.st_mtim;
			memcpy(victim, de->d_name, len + 1);
		}
	}
	closedir(d);
	if (count >= c->max && victim[0])
		unlinkat(c->dirfd, victim, 0);
}

int lfr_blob_cache_write(struct lfr_blob_cache *c, const char *name, const struct iovec *iov, int n,
                         char *why, size_t whylen)
{
	struct blob_hdr h = {0};
	char tmp[300];
	bool ok = true;
	int fd;

	memcpy(h.magic, BLOB_MAGIC, sizeof(h.magic));
	for (int i = 0; i < n; i++) {
		h.crc = libdeflate_crc32(h.crc, iov[i].iov_base, iov[i].iov_len);
		h.len += iov[i].iov_len;
	}
	make_room(c);
	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return say(why, whylen, -errno, "%s: cannot write it: %s", name, strerror(errno));
	errno = 0;
	ok = write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h);
	for (int i = 0; ok && i < n; i++)
		ok = write(fd, iov[i].iov_base, iov[i].iov_len) == (ssize_t)iov[i].iov_len;
	if (close(fd))
		ok = false;
	if (!ok || renameat(c->dirfd, tmp, c->dirfd, name)) {
		int err = errno ? errno : EIO;

		unlinkat(c->dirfd, tmp, 0);
		return say(why, whylen, -err, "%s: cannot write it: %s", name, strerror(err));
	}
	return 0;
}

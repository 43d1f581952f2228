// SPDX-License-Identifier: GPL-2.0
/* Unwind tables on disk by build-id (unwind_cache.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include <elfutils/libdwelf.h>
#include <libdeflate.h>
#include <gelf.h>

#include "sym/unwind_cache.h"

#define CACHE_MAGIC "LFRUWTC1"
#define SUFFIX ".unwind"
#define MAX_BUILD_ID 64
/* a temporary file older than this is a store that never finished: removed */
#define STALE_TMP_SECS 600

struct cache_hdr {
	char magic[8];        /* CACHE_MAGIC */
	uint32_t version;     /* LFR_UNWIND_VERSION of the rows */
	uint32_t nr_rows;     /* 1 .. LFR_UNWIND_MAX_ROWS */
	uint64_t object_size; /* the object's st_size */
	uint32_t build_id_len;
	uint32_t crc; /* CRC-32 of this header (crc 0) and the rows */
	uint8_t build_id[MAX_BUILD_ID];
};

struct lfr_unwind_cache {
	int dirfd;
	unsigned int max;
	uid_t uid;
};

/* The file name of a build-id: its hex and the suffix. */
struct name {
	char s[2 * MAX_BUILD_ID + sizeof(SUFFIX)];
};

static int say(char *err, size_t errlen, int ret, const char *fmt, const char *a)
{
	if (errlen)
		snprintf(err, errlen, fmt, a);
	return ret;
}

int lfr_unwind_cache_open(const char *dir, struct lfr_unwind_cache **out, char *err, size_t errlen)
{
	struct lfr_unwind_cache *c;
	struct stat st;
	int fd;

	*out = NULL;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return say(err, errlen, -errno, "%s: cannot make the directory", dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return say(err, errlen, -errno,
		           errno == ENOTDIR ? "%s: not a directory" : "%s: cannot open it", dir);
	if (fstat(fd, &st)) {
		close(fd);
		return say(err, errlen, -errno, "%s: cannot stat it", dir);
	}
	/* a table decides how stacks are walked: no one else may put one there */
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return say(err, errlen, -EPERM,
		           "%s: owned by another user or writable by others: give a directory of "
		           "your own, mode 700",
		           dir);
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	c->dirfd = fd;
	c->max = LFR_UNWIND_CACHE_MAX;
	c->uid = st.st_uid;
	*out = c;
	return 0;
}

void lfr_unwind_cache_close(struct lfr_unwind_cache *c)
{
	if (!c)
		return;
	close(c->dirfd);
	free(c);
}

void lfr_unwind_cache_set_max(struct lfr_unwind_cache *c, unsigned int max)
{
	c->max = max ? max : 1;
}

/* The object's GNU build-id into h; false when it has none (or is no ELF file). */
static bool build_id_of(int fd, struct cache_hdr *h)
{
	const void *p;
	ssize_t n = -1;
	Elf *e;

	elf_version(EV_CURRENT);
	/* read, not mapped, as the table's build does; only the notes are read */
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		n = dwelf_elf_gnu_build_id(e, &p);
	if (n > 0 && n <= MAX_BUILD_ID) {
		memcpy(h->build_id, p, (size_t)n);
		h->build_id_len = (uint32_t)n;
	}
	elf_end(e);
	return n > 0 && n <= MAX_BUILD_ID;
}

static void name_of(const struct cache_hdr *h, struct name *n)
{
	static const char hex[] = "0123456789abcdef";
	char *s = n->s;

	for (uint32_t i = 0; i < h->build_id_len; i++) {
		*s++ = hex[h->build_id[i] >> 4];
		*s++ = hex[h->build_id[i] & 15];
	}
	memcpy(s, SUFFIX, sizeof(SUFFIX));
}

static uint32_t crc_of(const struct cache_hdr *h, const struct lfr_unwind_row *rows)
{
	struct cache_hdr z = *h;

	/* libdeflate's: carry-less multiplication where the CPU has it, a tenth of zlib's */
	z.crc = 0;
	return libdeflate_crc32(libdeflate_crc32(0, &z, sizeof(z)), rows,
	                        h->nr_rows * sizeof(*rows));
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

/*
 * The cached table of the object whose header want describes, into t; false with why when the
 * cache has none (why "") or a file that does not agree (why says what).
 */
static bool load(struct lfr_unwind_cache *c, const struct cache_hdr *want, const struct name *n,
                 struct lfr_unwind_table *t, char *why, size_t whylen)
{
	struct cache_hdr h;
	struct stat st;
	size_t rows_bytes;
	const char *bad = NULL;
	int fd = openat(c->dirfd, n->s, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	why[0] = '\0';
	if (fd < 0) {
		if (errno != ENOENT)
			snprintf(why, whylen, "%s: %s, built again", n->s, strerror(errno));
		return false;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != c->uid)
		bad = "not a regular file of this user";
	else if ((size_t)st.st_size < sizeof(h) || !read_all(fd, &h, sizeof(h), 0))
		bad = "cut short";
	else if (memcmp(h.magic, CACHE_MAGIC, sizeof(h.magic)) || h.version != LFR_UNWIND_VERSION)
		bad = "of another format";
	else if (h.build_id_len != want->build_id_len ||
	         memcmp(h.build_id, want->build_id, h.build_id_len) ||
	         h.object_size != want->object_size)
		bad = "of another object";
	else if (!h.nr_rows || h.nr_rows > LFR_UNWIND_MAX_ROWS ||
	         (size_t)st.st_size != sizeof(h) + (rows_bytes = h.nr_rows * sizeof(*t->rows)))
		bad = "of the wrong size";
	if (bad)
		goto refuse;
	t->rows = malloc(rows_bytes);
	if (!t->rows) {
		close(fd);
		return false;
	}
	if (!read_all(fd, t->rows, rows_bytes, sizeof(h)))
		bad = "cut short";
	else if (crc_of(&h, t->rows) != h.crc)
		bad = "damaged (CRC)";
	for (uint32_t i = 1; !bad && i < h.nr_rows; i++)
		if (t->rows[i].start <= t->rows[i - 1].start)
			bad = "damaged (rows out of order)";
	if (bad) {
		free(t->rows);
		t->rows = NULL;
		goto refuse;
	}
	/* a hit: the file is the most recently used now */
	futimens(fd, NULL);
	close(fd);
	t->hdr.magic = LFR_UNWIND_MAGIC;
	t->hdr.version = LFR_UNWIND_VERSION;
	t->hdr.nr_rows = h.nr_rows;
	return true;
refuse:
	close(fd);
	snprintf(why, whylen, "%s: %s, built again", n->s, bad);
	return false;
}

/* Makes room for one more file: removes the least recently used while max are there. */
static void make_room(struct lfr_unwind_cache *c)
{
	int fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct timespec oldest = {0};
	char victim[sizeof(struct name)] = "";
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

		if (de->d_name[0] == '.' && len > 4 && !strcmp(de->d_name + len - 4, ".tmp")) {
			if (!fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
			    st.st_mtim.tv_sec + STALE_TMP_SECS < time(NULL))
				unlinkat(c->dirfd, de->d_name, 0);
			continue;
		}
		if (len <= strlen(SUFFIX) || len >= sizeof(victim) ||
		    strcmp(de->d_name + len - strlen(SUFFIX), SUFFIX) ||
		    fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
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

/* Writes the table as file n: whole under a temporary name, then renamed over any old one. */
static bool store(struct lfr_unwind_cache *c, struct cache_hdr *h, const struct name *n,
                  const struct lfr_unwind_table *t, char *why, size_t whylen)
{
	char tmp[sizeof(struct name) + 32];
	size_t rows_bytes = t->hdr.nr_rows * sizeof(*t->rows);
	bool ok;
	int fd;

	memcpy(h->magic, CACHE_MAGIC, sizeof(h->magic));
	h->version = LFR_UNWIND_VERSION;
	h->nr_rows = t->hdr.nr_rows;
	h->crc = crc_of(h, t->rows);
	make_room(c);
	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", n->s, (int)getpid());
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(why, whylen, "%s: cannot write it: %s", n->s, strerror(errno));
		return false;
	}
	ok = write(fd, h, sizeof(*h)) == (ssize_t)sizeof(*h) &&
	     write(fd, t->rows, rows_bytes) == (ssize_t)rows_bytes;
	if (close(fd))
		ok = false;
	if (!ok || renameat(c->dirfd, tmp, c->dirfd, n->s)) {
		snprintf(why, whylen, "%s: cannot write it: %s", n->s,
		         errno ? strerror(errno) : "short write");
		unlinkat(c->dirfd, tmp, 0);
		return false;
	}
	return true;
}

int lfr_unwind_cache_get(struct lfr_unwind_cache *c, int fd, struct lfr_unwind_table *t,
                         struct lfr_unwind_cache_result *res, char *err, size_t errlen)
{
	struct cache_hdr h;
	struct stat st;
	struct name n;
	int ret;

	memset(res, 0, sizeof(*res));
	memset(t, 0, sizeof(*t));
	memset(&h, 0, sizeof(h));
	if (!c || fstat(fd, &st) || !S_ISREG(st.st_mode) || !build_id_of(fd, &h))
		return lfr_unwind_table_build(fd, t, err, errlen);
	h.object_size = (uint64_t)st.st_size;
	name_of(&h, &n);
	if (load(c, &h, &n, t, res->problem, sizeof(res->problem))) {
		/* the same file as when it was built, for the module: its ctime now */
		t->hdr.ctime_sec = st.st_ctim.tv_sec;
		t->hdr.ctime_nsec = (uint32_t)st.st_ctim.tv_nsec;
		res->how = LFR_UNWIND_CACHE_HIT;
		return 0;
	}
	ret = lfr_unwind_table_build(fd, t, err, errlen);
	if (ret)
		return ret;
	errno = 0;
	if (store(c, &h, &n, t, res->problem[0] ? NULL : res->problem,
	          res->problem[0] ? 0 : sizeof(res->problem)))
		res->how = LFR_UNWIND_CACHE_STORED;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* A continuous recording's repository of chunk files: naming, listing, eviction, dumps. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jfr/chunk_io.h"
#include "jfr/rebase.h"
#include "jfr/repository.h"
#include "lib/outfile.h"

/* the writer's terminator after the last checkpoint: an event of size 2 and type 0 */

static const char name_template[] = "dddd-dd-ddTdd-dd-dd.dddddddddZ.jfr";

void lfr_jfr_repo_name(char *buf, int64_t start_nanos)
{
	time_t secs = (time_t)(start_nanos / 1000000000);
	long ns = (long)(start_nanos % 1000000000);
	struct tm tm;

	if (ns < 0) {
		ns += 1000000000;
		secs--;
	}
	gmtime_r(&secs, &tm);
	/* the year stays 4 digits until 9999: the names sort in time order */
	snprintf(buf, LFR_JFR_REPO_NAME_MAX, "%04u-%02u-%02uT%02u-%02u-%02u.%09luZ.jfr",
	         (unsigned)(tm.tm_year + 1900) % 10000, (unsigned)(tm.tm_mon + 1) % 100,
	         (unsigned)tm.tm_mday % 100, (unsigned)tm.tm_hour % 100, (unsigned)tm.tm_min % 100,
	         (unsigned)tm.tm_sec % 100, (unsigned long)ns % 1000000000);
}

bool lfr_jfr_repo_is_chunk_name(const char *s)
{
	size_t i;

	for (i = 0; name_template[i]; i++) {
		char t = name_template[i];

		if (t == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != t)
			return false;
	}
	return !s[i];
}

/* The start time a chunk file's name gives (epoch ns); the name is a chunk name (is_chunk_name). */
static int64_t name_nanos(const char *s)
{
	struct tm tm = {0};
	int64_t ns = 0;

	tm.tm_year = atoi(s) - 1900;
	tm.tm_mon = atoi(s + 5) - 1;
	tm.tm_mday = atoi(s + 8);
	tm.tm_hour = atoi(s + 11);
	tm.tm_min = atoi(s + 14);
	tm.tm_sec = atoi(s + 17);
	for (int i = 20; i < 29; i++)
		ns = ns * 10 + (s[i] - '0');
	return (int64_t)timegm(&tm) * 1000000000 + ns;
}

static const char *file_kind(unsigned type)
{
	switch (type) {
	case S_IFIFO:
		return "a FIFO";
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	default:
		return "no regular file";
	}
}

void lfr_jfr_repo_why(const struct lfr_jfr_repo_chunk *c, char *buf, size_t n)
{
	if (c->err == ELOOP)
		snprintf(buf, n, "a symbolic link, not followed");
	else if (c->err)
		snprintf(buf, n, "%s", strerror(c->err));
	else
		snprintf(buf, n, "%s, not a regular file", file_kind(c->type));
}

/*
 * Describes the chunk file name in dir; -ENOENT when it is gone.  A file that cannot be read is
 * described as unreadable, and why.
 */
static int describe(int dirfd, const char *name, struct lfr_jfr_repo_chunk *c)
{
	uint8_t h[JFR_CHUNK_HEADER_SIZE];
	struct stat st;
	/* O_NONBLOCK, O_NOCTTY: a FIFO or a device under a chunk's name is never waited on */
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int err = 0;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%.*s", (int)sizeof(c->name) - 1, name);
	c->done = true;
	/* until the header says otherwise (a file it cannot read keeps its name's time) */
	c->start_nanos = c->end_nanos = name_nanos(name);
	if (fd < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		c->unreadable = true;
		c->err = errno;
		return 0;
	}
	if (fstat(fd, &st) < 0) {
		c->unreadable = true;
		c->err = errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		c->unreadable = true;
		c->type = (unsigned)(st.st_mode & S_IFMT);
		goto out;
	}
	c->bytes = (uint64_t)st.st_size;
	struct jfr_chunk ch;
	char why[128];
	unsigned at;

	/* the reader's header checks: a file they reject is no chunk of a writer's */
	err = jfr_pread_full(fd, h, sizeof(h), 0);
	if (err && err != -ENODATA) { /* not short: an error reading it */
		c->unreadable = true;
		c->err = -err;
		err = 0;
	} else if (!err && !jfr_chunk_header(&ch, h, c->bytes, why, sizeof(why), &at)) {
		c->chunk = true;
		c->start_nanos = ch.start_nanos;
		c->end_nanos =
		    jfr_sat_add(ch.start_nanos, ch.duration_nanos > 0 ? ch.duration_nanos : 0);
	}
	err = 0;
out:
	close(fd);
	return err;
}

static int by_start(const void *a, const void *b)
{
	const struct lfr_jfr_repo_chunk *x = a, *y = b;

	if (x->start_nanos != y->start_nanos)
		return x->start_nanos < y->start_nanos ? -1 : 1;
	return strcmp(x->name, y->name);
}

int lfr_jfr_repo_list(const char *dir, struct lfr_jfr_repo_chunk **out, size_t *n, char *err,
                      size_t errlen)
{
	struct lfr_jfr_repo_chunk *v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	*out = NULL;
	*n = 0;
	if (!d) {
		int e = errno;

		snprintf(err, errlen, "cannot read the repository %s: %s", dir, strerror(e));
		return -e;
	}
	while ((de = readdir(d))) {
		if (!lfr_jfr_repo_is_chunk_name(de->d_name))
			continue;
		if (cnt == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct lfr_jfr_repo_chunk *nv = realloc(v, ncap * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				snprintf(err, errlen, "out of memory listing %s", dir);
				return -ENOMEM;
			}
			v = nv;
			cap = ncap;
		}
		if (!describe(dirfd(d), de->d_name, &v[cnt]))
			cnt++;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), by_start);
	*out = v;
	*n = cnt;
	return 0;
}

/*
 * Opens the repository directory dir, which must be no symbolic link, belong to the caller (or,
 * for a dump, to root) and be writable by nobody else: whoever can write to it can delete the
 * chunks or plant one.  Returns the directory's fd, or a negative errno with a message in err.
 */
int lfr_jfr_repo_open_trusted(const char *dir, bool reader, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int ret;

	if (fd < 0) {
		ret = -errno;
		if (errno == ELOOP || errno == ENOTDIR) {
			struct stat lst;

			if (!lstat(dir, &lst) && S_ISLNK(lst.st_mode)) {
				snprintf(err, errlen,
				         "the repository %s is a symbolic link: name the directory "
				         "itself",
				         dir);
				return -ELOOP;
			}
		}
		snprintf(err, errlen, "cannot open the repository %s: %s", dir, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the repository %s: %s", dir, strerror(errno));
		close(fd);
		return ret;
	}
	if (st.st_uid != geteuid() && !(reader && st.st_uid == 0)) {
		snprintf(err, errlen,
		         "the repository %s belongs to uid %u, not to you (uid %u): another user "
		         "could remove its chunks or plant one; use a directory of your own",
		         dir, (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen,
		         "the repository %s is writable by other users (mode %04o): they could "
		         "remove its chunks or plant one; run chmod go-w %s, or use another "
		         "directory",
		         dir, (unsigned)(st.st_mode & 07777), dir);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Chunk files a killed writer left half created (NAME.tmp): nobody else writes here. */
static void drop_leftovers(const char *dir)
{
	char name[LFR_JFR_REPO_NAME_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 4 || len >= sizeof(name) || strcmp(de->d_name + len - 4, ".tmp"))
			continue;
		memcpy(name, de->d_name, len - 4);
		name[len - 4] = 0;
		if (lfr_jfr_repo_is_chunk_name(name))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
}

int lfr_jfr_repo_open(struct lfr_jfr_repo *r, const char *dir, uint64_t max_bytes,
                      uint64_t max_age_ns, char *err, size_t errlen)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->lock_fd = -1;
	r->max_bytes = max_bytes;
	r->max_age_ns = max_age_ns;
	if (mkdir(dir, 0750) < 0 && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "cannot create the repository %s: %s", dir, strerror(errno));
		return ret;
	}
	int dfd = lfr_jfr_repo_open_trusted(dir, false, err, errlen);

	if (dfd < 0)
		return dfd;
	r->dir = strdup(dir);
	if (!r->dir) {
		close(dfd);
		snprintf(err, errlen, "out of memory opening %s", dir);
		return -ENOMEM;
	}
	r->lock_fd = openat(dfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
	close(dfd);
	if (r->lock_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the repository %s: %s", dir, strerror(errno));
		return ret;
	}
	if (flock(r->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		snprintf(err, errlen, "%s: %s", dir,
		         ret == -EBUSY ? "another recording writes to this repository"
		                       : strerror(errno));
		return ret;
	}
	drop_leftovers(dir);
	ret = lfr_jfr_repo_list(dir, &r->chunks, &r->n, err, errlen);
	r->cap = r->n;
	/* files with a chunk's name and no chunk's header are not this writer's to count or evict
	 */
	size_t kept = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->chunks[i].chunk)
			r->chunks[kept++] = r->chunks[i];
	r->n = kept;
	return ret;
}

void lfr_jfr_repo_close(struct lfr_jfr_repo *r)
{
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	free(r->chunks);
	free(r->dir);
	memset(r, 0, sizeof(*r));
	r->lock_fd = -1;
}

int lfr_jfr_repo_add(struct lfr_jfr_repo *r, const char *name, int64_t start_nanos)
{
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 64;
		struct lfr_jfr_repo_chunk *nv = realloc(r->chunks, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		r->chunks = nv;
		r->cap = ncap;
	}
	struct lfr_jfr_repo_chunk *c = &r->chunks[r->n++];

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%.*s", (int)sizeof(c->name) - 1, name);
	c->start_nanos = c->end_nanos = start_nanos;
	c->chunk = true;
	return 0;
}

void lfr_jfr_repo_update(struct lfr_jfr_repo *r, uint64_t bytes, int64_t end_nanos, bool done)
{
	if (!r->n)
		return;
	r->chunks[r->n - 1].bytes = bytes;
	r->chunks[r->n - 1].end_nanos = end_nanos;
	r->chunks[r->n - 1].done = done;
}

uint64_t lfr_jfr_repo_bytes(const struct lfr_jfr_repo *r)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < r->n; i++)
		sum += r->chunks[i].bytes;
	return sum;
}

int lfr_jfr_repo_evict(struct lfr_jfr_repo *r, int64_t now_nanos, char *err, size_t errlen)
{
	uint64_t total = lfr_jfr_repo_bytes(r);
	size_t drop = 0;
	int ret = 0;

	while (drop < r->n && r->chunks[drop].done) {
		const struct lfr_jfr_repo_chunk *c = &r->chunks[drop];
		bool too_big = r->max_bytes && total > r->max_bytes;
		bool too_old = r->max_age_ns && c->end_nanos < now_nanos - (int64_t)r->max_age_ns;
		int dfd;

		if (!too_big && !too_old)
			break;
		dfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0 || (unlinkat(dfd, c->name, 0) < 0 && errno != ENOENT)) {
			ret = -errno;
			snprintf(err, errlen, "cannot evict %s/%s: %s", r->dir, c->name,
			         strerror(errno));
			if (dfd >= 0)
				close(dfd);
			break;
		}
		close(dfd);
		if (r->on_evict)
			r->on_evict(r->on_evict_arg, c->name, c->bytes);
		total -= c->bytes;
		r->evicted++;
		r->evicted_bytes += c->bytes;
		drop++;
	}
	memmove(r->chunks, r->chunks + drop, (r->n - drop) * sizeof(*r->chunks));
	r->n -= drop;
	return ret;
}

/* Notes a chunk file the dump leaves out because it does not parse. */
static void damaged(struct lfr_jfr_dump_stats *st, const char *name, const char *why)
{
	size_t len = strlen(st->damaged_names);

	if (!st->damaged++)
		snprintf(st->damaged_why, sizeof(st->damaged_why), "%s", why);
	if (len + strlen(name) + 6 < sizeof(st->damaged_names))
		snprintf(st->damaged_names + len, sizeof(st->damaged_names) - len, "%s%s",
		         len ? ", " : "", name);
	else if (len + 5 < sizeof(st->damaged_names) && !strstr(st->damaged_names, "..."))
		strcat(st->damaged_names, ", ...");
}

/* Notes a chunk file the dump leaves out because it cannot be read, and why. */
static void unreadable(struct lfr_jfr_dump_stats *st, const struct lfr_jfr_repo_chunk *c)
{
	size_t len = strlen(st->unreadable_names);
	char why[96], item[LFR_JFR_REPO_NAME_MAX + 112];

	st->unreadable++;
	lfr_jfr_repo_why(c, why, sizeof(why));
	snprintf(item, sizeof(item), "%s%s (%s)", len ? ", " : "", c->name, why);
	if (len + strlen(item) + 6 < sizeof(st->unreadable_names))
		strcat(st->unreadable_names, item);
	else if (len + 5 < sizeof(st->unreadable_names) && !strstr(st->unreadable_names, "..."))
		strcat(st->unreadable_names, ", ...");
}

/*
 * Reads the chunk file c->name of dirfd into *data (malloc'ed, len bytes) as of its writer's last
 * flush: 0; 1 when it is gone; 2 when it does not parse (why; with walk false, only its header
 * is checked); 3 when it cannot be read (c->err, c->type: lfr_jfr_repo_why()); -ENOMEM (why).
 */
static int read_chunk(int dirfd, struct lfr_jfr_repo_chunk *c, bool walk, uint8_t **data,
                      uint64_t *len, char *why, size_t whylen)
{
	uint8_t h[JFR_CHUNK_HEADER_SIZE];
	struct stat st;
	uint8_t *buf = NULL;
	int ret = 3, r;
	/* O_NONBLOCK, O_NOCTTY: a FIFO or a device under a chunk's name is never waited on */
	int fd = openat(dirfd, c->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	*data = NULL;
	*len = 0;
	c->err = 0;
	c->type = 0;
	if (fd < 0) {
		if (errno == ENOENT)
			return 1; /* evicted meanwhile */
		c->err = errno;
		return 3;
	}
	if (fstat(fd, &st) < 0) {
		c->err = errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		c->type = (unsigned)(st.st_mode & S_IFMT);
		goto out;
	}
	r = jfr_chunk_extent(fd, h, (uint64_t)st.st_size, len);
	if (r == -EINVAL || r == -ENODATA) {
		snprintf(why, whylen, "no complete chunk header");
		ret = 2;
		goto out;
	}
	if (r) {
		c->err = -r;
		goto out;
	}
	buf = malloc(*len ? *len : 1);
	if (!buf) {
		snprintf(why, whylen, "out of memory reading %s (%llu bytes)", c->name,
		         (unsigned long long)*len);
		ret = -ENOMEM;
		goto out;
	}
	r = jfr_pread_full(fd, buf, *len, 0);
	/* finished shorter meanwhile: cannot happen, the cut is at its content */
	if (r == -ENODATA) {
		snprintf(why, whylen, "cut short while it was read");
		ret = 2;
		goto out;
	}
	if (r) {
		c->err = -r;
		goto out;
	}
	memcpy(buf, h, JFR_CHUNK_HEADER_SIZE);
	if (walk && !jfr_chunk_readable(buf, *len, c->name, NULL, why, whylen)) {
		ret = 2;
		goto out;
	}
	*data = buf;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

int lfr_jfr_repo_read(int dirfd, const char *name, uint8_t **data, uint64_t *len, char *why,
                      size_t whylen)
{
	struct lfr_jfr_repo_chunk c = {0};
	char what[96];
	int ret;

	snprintf(c.name, sizeof(c.name), "%s", name);
	ret = read_chunk(dirfd, &c, false, data, len, why, whylen);
	if (ret != 3)
		return ret;
	lfr_jfr_repo_why(&c, what, sizeof(what));
	snprintf(why, whylen, "%s cannot be read: %s", name, what);
	return c.err ? -c.err : -EINVAL;
}

/*
 * Appends the chunk of the file c in dir to out; 1 when it is gone, 2 when it does not parse
 * (noted in stats), 3 when it cannot be read (c says why).  The first
 * chunk copied sets *first; a later chunk whose ticks count from another origin (by a millisecond
 * or more: two clock readings of one boot differ by microseconds) is rebased onto it.
 */
static int dump_chunk(int dirfd, struct lfr_jfr_repo_chunk *c, int out,
                      struct jfr_clock_origin *first, struct lfr_jfr_dump_stats *stats, char *err,
                      size_t errlen)
{
	const char *name = c->name;
	uint64_t len = 0;
	uint8_t *buf = NULL, *data;
	struct jfr_buf moved = {0};
	struct jfr_chunk hdr;
	int64_t delta = 0;
	bool known;
	char why[256];
	int ret = read_chunk(dirfd, c, true, &buf, &len, why, sizeof(why));

	if (ret == 2)
		damaged(stats, name, why);
	if (ret < 0)
		snprintf(err, errlen, "%s", why);
	if (ret)
		return ret;
	ret = 1;
	data = buf;
	known = jfr_chunk_ns_header(buf, len, &hdr);
	if (!jfr_clock_origin_note(first, &hdr, known) && known && first->known)
		delta = jfr_rebase_delta(&first->hdr, &hdr);
	if (delta >= 1000000 || delta <= -1000000) {
		if (jfr_chunk_rebase_mem(buf, len, name, delta, &moved) && !moved.oom) {
			data = moved.data;
			len = moved.len;
			stats->rebased++;
		} else {
			stats->unrebased++;
		}
	}
	ret = jfr_chunk_write(out, data, len, "the dump", err, errlen);
	if (ret)
		goto out;
	stats->bytes += len;
	ret = 0;
out:
	jfr_buf_free(&moved);
	free(buf);
	return ret;
}

/*
 * Whether chunk i of v (n of them, by start) may end at or after since: its own end when its header
 * gave one, else (a file that could not be read or parsed, known by its name's time only) the next
 * chunk's start, before which it ended.
 */
static bool in_span(const struct lfr_jfr_repo_chunk *v, size_t n, size_t i, int64_t since)
{
	if (!since || v[i].end_nanos >= since)
		return true;
	return !v[i].chunk && (i + 1 == n || v[i + 1].start_nanos >= since);
}

int lfr_jfr_repo_dump(const char *dir, const char *out, int64_t since_nanos,
                      struct lfr_jfr_dump_stats *st, char *err, size_t errlen)
{
	struct lfr_jfr_repo_chunk *v;
	struct lfr_outfile of = LFR_OUTFILE_INIT;
	struct jfr_clock_origin first = {0};
	size_t n;
	int dfd = -1, ofd = -1;
	int ret;

	memset(st, 0, sizeof(*st));
	dfd = lfr_jfr_repo_open_trusted(dir, true, err, errlen);
	if (dfd < 0)
		return dfd;
	ret = lfr_jfr_repo_list(dir, &v, &n, err, errlen);
	if (ret) {
		close(dfd);
		return ret;
	}
	struct stat ost, cst;

	for (size_t i = 0; i < n && strcmp(out, "-") && !stat(out, &ost); i++) {
		if (!fstatat(dfd, v[i].name, &cst, AT_SYMLINK_NOFOLLOW) &&
		    ost.st_dev == cst.st_dev && ost.st_ino == cst.st_ino) {
			ret = -EEXIST;
			snprintf(err, errlen,
			         "the output %s is the repository's chunk %s: write the dump "
			         "outside the repository",
			         out, v[i].name);
			goto out;
		}
	}
	/* 0640 as the repository's chunks: the recording holds every command line */
	ret = lfr_outfile_open(&of, out, LFR_OUTFILE_STDOUT, 0640, err, errlen);
	if (ret)
		goto out;
	ofd = of.fd;
	for (size_t i = 0; i < n; i++) {
		if (!in_span(v, n, i, since_nanos))
			continue;
		if (v[i].unreadable) {
			unreadable(st, &v[i]);
			continue;
		}
		ret = dump_chunk(dfd, &v[i], ofd, &first, st, err, errlen);
		if (ret < 0)
			goto out;
		if (ret == 3)
			unreadable(st, &v[i]);
		if (ret) {
			st->skipped += ret == 1;
			continue;
		}
		if (!st->chunks++)
			st->start_nanos = v[i].start_nanos;
		st->end_nanos = v[i].end_nanos;
	}
	ret = 0;
	if (!st->chunks && st->unreadable) {
		ret = -EIO;
		snprintf(err, errlen, "%s: no chunk file of the span could be read: %s%s%s", dir,
		         st->unreadable_names, st->damaged ? "; damaged: " : "",
		         st->damaged ? st->damaged_names : "");
		goto out;
	}
	if (!st->chunks && st->damaged) {
		ret = -EUCLEAN;
		snprintf(err, errlen, "%s: every chunk that covers the span is damaged: %s (%s)",
		         dir, st->damaged_names, st->damaged_why);
		goto out;
	}
	if (!st->chunks) {
		ret = -ENOENT;
		snprintf(err, errlen, "%s: no chunk %s", dir,
		         n ? "covers that span"
		           : "is there: is it a continuous recording's repository?");
		goto out;
	}
	ret = lfr_outfile_commit(&of, err, errlen);
out:
	lfr_outfile_abort(&of);
	if (dfd >= 0)
		close(dfd);
	free(v);
	return ret;
}

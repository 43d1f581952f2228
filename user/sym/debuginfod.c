// SPDX-License-Identifier: GPL-2.0
/*
 * Debug files by build-id from the debuginfod servers of DEBUGINFOD_URLS, through elfutils'
 * libdebuginfod: the last place the symbolizer looks, and only when asked (LFR_SYM_DEBUGINFOD).
 * libdebuginfod keeps its own cache (DEBUGINFOD_CACHE_PATH, else
 * $XDG_CACHE_HOME/debuginfod_client). After a failure other than "not there" (server down, a bound
 * reached, a wrong file), no other object is asked for: one bad server costs one query, not one per
 * object.
 *
 * Each query is bounded, whatever the server does:
 * - in time: DEBUGINFOD_MAXTIME seconds in all (connection, transfer, libdebuginfod's retries).
 *   libdebuginfod 0.188 (Debian 12) checks it only between its retries' transfers, in whole
 *   seconds, and DEBUGINFOD_TIMEOUT only gives up on a server that sends less than 100 KiB in
 *   that many seconds: one that trickles faster held a report for its whole file;
 * - in size: DEBUGINFOD_MAXSIZE bytes.  libdebuginfod sends it to the server and checks the size
 *   the server announces (Content-Length), not what arrives: a file sent without its length, or
 *   compressed (libcurl inflates it, a thousand times for zeros), was written whole into the
 *   cache.
 * So lfr sets both when the environment has no positive value, and checks both itself in
 * libdebuginfod's progress callback, called at least once a second while a query runs: the
 * clock, the size announced, and whether the download went past the size: during a query the
 * process's file size limit (RLIMIT_FSIZE) is the size plus one byte, so the kernel stops the
 * download's writes there, however fast it comes, and the file's size (or SIGXFSZ, caught)
 * says so.  A query it ends
 * leaves libdebuginfod's "not there" mark in the cache, which lfr removes (the next report asks
 * again).
 * And what arrives is checked before it is used or kept: an ELF file whose build-id is the one
 * asked for, within the size.  Anything else is removed from the cache, and said.
 *
 * The library is opened (dlopen) at the first query, not linked: it brings libcurl and some thirty
 * more libraries (TLS, Kerberos, LDAP...), whose loading and relocation was most of what every
 * `lfr` command cost to start (0.8 s of an emulated debug kernel's time for `lfr status`), and
 * which no command needs before it asks a server.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "lib/clock.h"
#include "sym/internal.h"

#ifdef LFR_HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#ifdef LFR_HAVE_DEBUGINFOD
/* The library's soname (its ABI) and the calls lfr makes. */
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"
struct debuginfod_calls {
	void *lib;
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
	void (*end)(debuginfod_client *);
};
#endif

struct sym_debuginfod {
#ifdef LFR_HAVE_DEBUGINFOD
	struct debuginfod_calls calls;
	debuginfod_client *client;
#endif
	long max_s;         /* DEBUGINFOD_MAXTIME: seconds a query may take in all */
	long long max_size; /* DEBUGINFOD_MAXSIZE: bytes a debug file may have */
	/* the query under way */
	uint64_t deadline_ns;     /* CLOCK_MONOTONIC */
	char dir[PATH_MAX];       /* the build-id's directory in the cache, "" when not known */
	int stopped;              /* ETIME or EFBIG: the progress callback ended the query */
	long long announced;      /* the size the server announced, when that ended it */
	int down;                 /* the error that stopped every further query, or 0 */
	char why[PATH_MAX + 200]; /* the last failure, for lfr_sym_object.unnamed_why */
};

const char *sym_debuginfod_why(const struct sym_debuginfod *d)
{
	return d ? d->why : "";
}

void sym_debuginfod_free(struct sym_debuginfod *d)
{
	if (!d)
		return;
#ifdef LFR_HAVE_DEBUGINFOD
	if (d->client)
		d->calls.end(d->client);
	if (d->calls.lib)
		dlclose(d->calls.lib);
#endif
	free(d);
}

#ifdef LFR_HAVE_DEBUGINFOD
/* Opens the library and finds its calls: 0, or -1 with d->down and d->why set. */
static int open_library(struct sym_debuginfod *d)
{
	struct debuginfod_calls *c = &d->calls;
	static const char *const names[] = {
	    "debuginfod_begin",         "debuginfod_find_debuginfo", "debuginfod_set_progressfn",
	    "debuginfod_set_user_data", "debuginfod_get_user_data",  "debuginfod_end"};
	void *f[sizeof(names) / sizeof(names[0])];

	if (!c->lib)
		c->lib = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!c->lib) {
		d->down = ENOSYS;
		snprintf(d->why, sizeof(d->why),
		         "%s cannot be loaded: install libdebuginfod1 to ask the "
		         "debuginfod servers",
		         DEBUGINFOD_SONAME);
		return -1;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(f[i] = dlsym(c->lib, names[i]))) {
			d->down = ENOSYS;
			snprintf(d->why, sizeof(d->why), "%s lacks %s", DEBUGINFOD_SONAME,
			         names[i]);
			return -1;
		}
	}
	/* POSIX's way from a data pointer to a function pointer: copy the bytes */
	memcpy(&c->begin, &f[0], sizeof(f[0]));
	memcpy(&c->find_debuginfo, &f[1], sizeof(f[1]));
	memcpy(&c->set_progressfn, &f[2], sizeof(f[2]));
	memcpy(&c->set_user_data, &f[3], sizeof(f[3]));
	memcpy(&c->get_user_data, &f[4], sizeof(f[4]));
	memcpy(&c->end, &f[5], sizeof(f[5]));
	return 0;
}

/*
 * The bound NAME gives, a positive number; the default otherwise, then also put in the
 * environment for libdebuginfod's own checks.
 */
static long long bound(const char *name, long long def, long long max)
{
	const char *v = getenv(name);
	char *end, buf[32];
	long long n;

	if (v && *v) {
		errno = 0;
		n = strtoll(v, &end, 10);
		if (!errno && !*end && n > 0 && n <= max)
			return n;
	}
	snprintf(buf, sizeof(buf), "%lld", def);
	setenv(name, buf, 1);
	return def;
}

/*
 * The directory libdebuginfod keeps the files of build-id HEX in (0.188's rule:
 * DEBUGINFOD_CACHE_PATH, else $HOME/.debuginfod_client_cache when it exists, else
 * $XDG_CACHE_HOME/debuginfod_client or $HOME/.cache/debuginfod_client), or "" when too long.
 */
static void cache_dir(char *out, size_t cap, const char *hex)
{
	const char *p = getenv("DEBUGINFOD_CACHE_PATH"), *home = getenv("HOME");
	const char *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;
	int n;

	if (!home)
		home = "/";
	if (p && *p) {
		n = snprintf(out, cap, "%s/%s", p, hex);
	} else {
		n = snprintf(out, cap, "%s/.debuginfod_client_cache", home);
		if (n > 0 && (size_t)n < cap && !stat(out, &st))
			n = snprintf(out, cap, "%s/.debuginfod_client_cache/%s", home, hex);
		else if (xdg && *xdg)
			n = snprintf(out, cap, "%s/debuginfod_client/%s", xdg, hex);
		else
			n = snprintf(out, cap, "%s/.cache/debuginfod_client/%s", home, hex);
	}
	if (n < 0 || (size_t)n >= cap)
		out[0] = '\0';
}

/*
 * The bytes libdebuginfod has written into dir (its download, debuginfo.XXXXXX), which the file
 * size limit stops one byte past the size: the write that reaches it is cut short, without a
 * signal, and libcurl ends the transfer.
 */
static long long bytes_on_disk(const char *dir)
{
	DIR *dp = *dir ? opendir(dir) : NULL;
	struct dirent *de;
	long long n = 0;
	struct stat st;

	if (!dp)
		return 0;
	while ((de = readdir(dp)))
		if (!strncmp(de->d_name, "debuginfo.", 10) &&
		    !fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode))
			n += st.st_size;
	closedir(dp);
	return n;
}

/* A write went past the file size limit a query runs with (SIGXFSZ). */
static volatile sig_atomic_t file_too_large;

static void on_file_too_large(int sig)
{
	(void)sig;
	file_too_large = 1;
}

/* The library's debuginfod_get_user_data, for the progress callback (one library per process). */
static void *(*lib_get_user_data)(debuginfod_client *);

/*
 * libdebuginfod's progress callback, at least once a second while a query runs (b: the size the
 * server announced, when it did): non-zero ends the query.
 */
static int on_progress(debuginfod_client *c, long a, long b)
{
	struct sym_debuginfod *d = lib_get_user_data ? lib_get_user_data(c) : NULL;

	(void)a; /* the bytes received, or before a server answers the number of waits */
	if (!d)
		return 0;
	if (lfr_mono_ns() >= d->deadline_ns) {
		d->stopped = ETIME;
		return 1;
	}
	if (b > d->max_size || file_too_large || bytes_on_disk(d->dir) > d->max_size) {
		d->stopped = EFBIG;
		d->announced = b > d->max_size ? b : 0;
		return 1;
	}
	return 0;
}

/*
 * After a query the progress callback ended: libdebuginfod has removed its download and marked
 * the build-id "not there" (an empty file, which it believes for ten minutes): that mark goes, so
 * that the next report asks again.
 */
static void remove_mark(const char *dir)
{
	char path[PATH_MAX + 16];
	struct stat st;

	if (!*dir)
		return;
	snprintf(path, sizeof(path), "%s/debuginfo", dir);
	if (!lstat(path, &st) && S_ISREG(st.st_mode) && !st.st_size)
		unlink(path);
	rmdir(dir);
}

/* Removes a wrong file libdebuginfod put into its cache at path, and its directory if empty. */
static void remove_cached(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	unlink(path);
	if (slash && (size_t)(slash - path) < sizeof(dir)) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		rmdir(dir);
	}
}

/*
 * Whether fd, the file libdebuginfod gives for build-id bid, is what was asked for: an ELF file
 * within the size, with that build-id.  0, or -1 with d->why set.
 */
static int check_file(struct sym_debuginfod *d, int fd, const uint8_t *bid, size_t len,
                      const char *hex)
{
	struct stat st;
	const void *got = NULL;
	ssize_t n = -1;
	Elf *e;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(d->why, sizeof(d->why),
		         "the debuginfod cache's file for build-id %.8s.. is not a regular file",
		         hex);
		return -1;
	}
	if (st.st_size > d->max_size) {
		snprintf(
		    d->why, sizeof(d->why),
		    "the debuginfod server's file for build-id %.8s.. has %lld bytes, more than "
		    "DEBUGINFOD_MAXSIZE (%lld): removed from the cache",
		    hex, (long long)st.st_size, d->max_size);
		return -1;
	}
	/* read, not mapped: a file cut meanwhile is an error, not a SIGBUS */
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		n = dwelf_elf_gnu_build_id(e, &got);
	if (n == (ssize_t)len && !memcmp(got, bid, len)) {
		elf_end(e);
		return 0;
	}
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(
		    d->why, sizeof(d->why),
		    "the debuginfod server's file for build-id %.8s.. is not an ELF file (%lld "
		    "bytes): removed from the cache",
		    hex, (long long)st.st_size);
	} else if (n <= 0) {
		snprintf(
		    d->why, sizeof(d->why),
		    "the debuginfod server's file for build-id %.8s.. has no build-id: removed "
		    "from the cache",
		    hex);
	} else {
		char other[2 * 8 + 1] = "";

		for (ssize_t i = 0; i < n && i < 4; i++)
			snprintf(other + 2 * i, 3, "%02x", ((const uint8_t *)got)[i]);
		snprintf(d->why, sizeof(d->why),
		         "the debuginfod server's file for build-id %.8s.. has build-id %s..: "
		         "removed from the cache",
		         hex, other);
	}
	if (e)
		elf_end(e);
	return -1;
}

/* Opens the library and a client with lfr's bounds: 0, or -1 with d->down and d->why set. */
static int start_client(struct sym_debuginfod *d)
{
	char t[16];

	if (open_library(d))
		return -1;
	lib_get_user_data = d->calls.get_user_data;
	snprintf(t, sizeof(t), "%d", LFR_DEBUGINFOD_TIMEOUT_S);
	setenv("DEBUGINFOD_TIMEOUT", t, 0);
	d->max_s = (long)bound("DEBUGINFOD_MAXTIME", LFR_DEBUGINFOD_MAXTIME_S, 86400);
	d->max_size = bound("DEBUGINFOD_MAXSIZE", LFR_DEBUGINFOD_MAXSIZE, LLONG_MAX / 2);
	d->client = d->calls.begin();
	if (!d->client) {
		d->down = ENOMEM;
		snprintf(d->why, sizeof(d->why), "libdebuginfod could not start a client");
		return -1;
	}
	d->calls.set_user_data(d->client, d);
	d->calls.set_progressfn(d->client, on_progress);
	return 0;
}

/* A failed query's reason in d->why; whether the servers may be asked again (404). */
/* d->why from fmt, and the servers not asked again for the reason down (0: they may be). */
__attribute__((format(printf, 3, 4))) static void give_up(struct sym_debuginfod *d, int down,
                                                          const char *fmt, ...)
{
	va_list ap;

	if (down)
		d->down = down;
	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
}

static void query_failed(struct sym_debuginfod *d, int err)
{
	if (d->stopped == ETIME)
		give_up(
		    d, ETIME,
		    "the debuginfod servers gave no debug file within %ld s (DEBUGINFOD_MAXTIME): "
		    "given up, nothing cached",
		    d->max_s);
	else if (d->stopped == EFBIG && d->announced)
		give_up(d, EFBIG,
		        "the debuginfod server announced a debug file of %lld bytes, more than "
		        "DEBUGINFOD_MAXSIZE (%lld): given up, nothing cached",
		        d->announced, d->max_size);
	else if (d->stopped == EFBIG)
		give_up(
		    d, EFBIG,
		    "the debuginfod server sent more than DEBUGINFOD_MAXSIZE (%lld bytes): given "
		    "up, nothing cached",
		    d->max_size);
	else if (err == -EFBIG) /* the size announced, seen by libdebuginfod, or the server's 406 */
		give_up(
		    d, EFBIG,
		    "the debuginfod server's debug file is larger than DEBUGINFOD_MAXSIZE (%lld "
		    "bytes): not fetched",
		    d->max_size);
	else if (err == -ENOENT)
		give_up(d, 0, "no debug file on the debuginfod servers (404)");
	else if (err == -ETIME)
		give_up(d, ETIME,
		        "debuginfod servers failed: %s (less than 100 KiB in %s s: "
		        "DEBUGINFOD_TIMEOUT)",
		        strerror(ETIME), getenv("DEBUGINFOD_TIMEOUT"));
	else
		give_up(d, -err, "debuginfod servers failed: %s", strerror(-err));
}

/*
 * The query itself, bounded: no write past the size (the file size limit one byte beyond,
 * SIGXFSZ caught).  The descriptor of the file, or a negative errno; *got its path.
 */
static int find_bounded(struct sym_debuginfod *d, const uint8_t *bid, size_t len, char **got)
{
	struct sigaction xfsz = {.sa_handler = on_file_too_large}, old_xfsz;
	struct rlimit old_lim, lim;
	bool limit =
	    !getrlimit(RLIMIT_FSIZE, &old_lim) &&
	    (old_lim.rlim_cur == RLIM_INFINITY || old_lim.rlim_cur > (rlim_t)d->max_size + 1);

	sigemptyset(&xfsz.sa_mask);
	sigaction(SIGXFSZ, &xfsz, &old_xfsz);
	file_too_large = 0;
	if (limit) {
		lim = old_lim;
		lim.rlim_cur = (rlim_t)d->max_size + 1;
		limit = !setrlimit(RLIMIT_FSIZE, &lim);
	}
	int fd = d->calls.find_debuginfo(d->client, bid, (int)len, got);

	if (limit)
		setrlimit(RLIMIT_FSIZE, &old_lim);
	sigaction(SIGXFSZ, &old_xfsz, NULL);
	return fd;
}
#endif

int sym_debuginfod_fetch(struct sym_debuginfod **dp, const uint8_t *bid, size_t len, char *path,
                         size_t cap)
{
	struct sym_debuginfod *d = *dp;
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		*dp = d;
	}
	if (!len) {
		snprintf(d->why, sizeof(d->why), "no build-id to ask the debuginfod servers for");
		return -ENOENT;
	}
	if (!urls || !*urls) {
		snprintf(d->why, sizeof(d->why),
		         "no debug file found locally, DEBUGINFOD_URLS unset");
		return -ENOENT;
	}
#ifdef LFR_HAVE_DEBUGINFOD
	char hex[2 * 64 + 1], mark[PATH_MAX + 16];
	struct stat st;

	if (d->down) {
		snprintf(d->why, sizeof(d->why),
		         "debuginfod servers not asked after an earlier "
		         "failure (%s)",
		         strerror(d->down));
		return -d->down;
	}
	if (!d->client && start_client(d))
		return -d->down;
	if (len > 64)
		len = 64;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	cache_dir(d->dir, sizeof(d->dir), hex);
	/* libdebuginfod opens a cached file without O_NONBLOCK: never a FIFO planted there */
	snprintf(mark, sizeof(mark), "%s/debuginfo", d->dir);
	if (*d->dir && !lstat(mark, &st) && !S_ISREG(st.st_mode)) {
		d->down = EEXIST;
		snprintf(d->why, sizeof(d->why),
		         "%s in the debuginfod cache is not a regular file: not asked (remove it)",
		         mark);
		return -EEXIST;
	}
	d->deadline_ns = lfr_mono_ns() + (uint64_t)d->max_s * 1000000000ull;
	d->stopped = 0;
	d->announced = 0;

	char *got = NULL;
	int fd = find_bounded(d, bid, len, &got);

	if (fd < 0) {
		if (d->stopped)
			remove_mark(d->dir);
		free(got);
		query_failed(d, fd);
		return d->stopped ? -d->stopped : fd;
	}
	/* a whole file (one that came as a bound was reached too): checked as any other */
	if (!got || snprintf(path, cap, "%s", got) >= (int)cap) {
		close(fd);
		free(got);
		snprintf(d->why, sizeof(d->why), "debuginfod cache path too long");
		return -ENAMETOOLONG;
	}
	if (check_file(d, fd, bid, len, hex)) {
		close(fd);
		remove_cached(got);
		free(got);
		d->down = EBADMSG;
		return -EBADMSG;
	}
	close(fd);
	free(got);
	d->why[0] = '\0';
	return 0;
#else
	(void)bid;
	(void)path;
	(void)cap;
	snprintf(d->why, sizeof(d->why), "lfr built without libdebuginfod");
	return -ENOSYS;
#endif
}

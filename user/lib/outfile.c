// SPDX-License-Identifier: GPL-2.0
/* Output files: see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/outfile.h"

/*
 * ---- temporary names a signal removes ----
 * The handler reads the table without a lock: an entry is filled before it is marked live and
 * unmarked before it is reused, and the signals are blocked while a name is created or removed
 * with its entry, so a signal never finds a name it would remove wrongly.
 */
#define NAMED_MAX 8

enum { SLOT_FREE, SLOT_FILLING, SLOT_LIVE };

static struct {
	atomic_int state;
	int dirfd;
	char name[NAME_MAX + 1];
} named[NAMED_MAX];

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
static atomic_int handlers_installed;

static void on_fatal_signal(int sig)
{
	int saved = errno;

	for (int i = 0; i < NAMED_MAX; i++)
		if (atomic_load(&named[i].state) == SLOT_LIVE)
			unlinkat(named[i].dirfd, named[i].name, 0);
	errno = saved;
	/* SA_RESETHAND made the default action current, SA_NODEFER lets it act at once */
	raise(sig);
}

/* The handler, for each signal whose action is still the default (ending the process). */
static void install_handlers(void)
{
	int expect = 0;

	if (!atomic_compare_exchange_strong(&handlers_installed, &expect, 1))
		return;
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++) {
		struct sigaction old,
		    sa = {.sa_handler = on_fatal_signal, .sa_flags = SA_RESETHAND | SA_NODEFER};

		sigemptyset(&sa.sa_mask);
		if (!sigaction(cleanup_signals[i], NULL, &old) && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO))
			sigaction(cleanup_signals[i], &sa, NULL);
	}
}

static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
		sigaddset(&set, cleanup_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Enters o->tmp in the table (signals blocked by the caller); a full table leaves it out. */
static void name_enter(struct lfr_outfile *o)
{
	install_handlers();
	for (int i = 0; i < NAMED_MAX; i++) {
		int expect = SLOT_FREE;

		if (!atomic_compare_exchange_strong(&named[i].state, &expect, SLOT_FILLING))
			continue;
		named[i].dirfd = o->dirfd;
		snprintf(named[i].name, sizeof(named[i].name), "%s", o->tmp);
		atomic_store(&named[i].state, SLOT_LIVE);
		o->slot = i;
		return;
	}
}

/* Takes o->tmp out of the table (signals blocked by the caller). */
static void name_leave(struct lfr_outfile *o)
{
	if (o->slot < 0)
		return;
	atomic_store(&named[o->slot].state, SLOT_FREE);
	o->slot = -1;
}

/* ---- the target ---- */

static const char *kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/*
 * Whether the entry at the target's name may be replaced: absent, or a regular file that is not
 * another user's in a sticky directory others can write to.  Looks at the name itself (O_PATH,
 * O_NOFOLLOW: a link is the entry, not what it names), never opens it for reading or writing.
 */
static int check_target(const struct lfr_outfile *o, char *err, size_t n)
{
	struct stat st, dst;
	int fd = openat(o->dirfd, o->base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	int ret;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		snprintf(err, n, "cannot write %s: %s", o->path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) < 0 || fstat(o->dirfd, &dst) < 0) {
		ret = -errno;
		snprintf(err, n, "cannot write %s: %s", o->path, strerror(errno));
		close(fd);
		return ret;
	}
	close(fd);
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, n, "%s is a directory: name a file to write", o->path);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, n,
		         "%s is %s (owner uid %u), not a regular file: refused, so that nothing "
		         "planted there receives the output; remove it or name another file%s",
		         o->path, kind(st.st_mode), (unsigned)st.st_uid,
		         o->stdout_ok ? " (- writes to standard output)" : "");
		return -EEXIST;
	}
	if ((dst.st_mode & S_ISVTX) && (dst.st_mode & (S_IWGRP | S_IWOTH)) &&
	    st.st_uid != geteuid() && st.st_uid != dst.st_uid) {
		snprintf(
		    err, n,
		    "%s belongs to uid %u, in a sticky directory other users can write to: it "
		    "may have been planted there for lfr to replace; remove it or name another "
		    "file",
		    o->path, (unsigned)st.st_uid);
		return -EEXIST;
	}
	return 0;
}

/* A temporary name beside the target: .NAME.XXXXXX, six random letters and digits. */
static int temp_name(struct lfr_outfile *o)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];
	char suffix[7];

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		struct timespec ts;
		static atomic_uint counter;
		unsigned v;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = (unsigned)ts.tv_nsec ^ (unsigned)getpid() << 12 ^ atomic_fetch_add(&counter, 1);
		for (size_t i = 0; i < sizeof(rnd); i++, v = v * 2654435761u + 1)
			rnd[i] = (unsigned char)(v >> 24);
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		suffix[i] = set[rnd[i] % (sizeof(set) - 1)];
	suffix[6] = 0;
	free(o->tmp);
	if (asprintf(&o->tmp, ".%s.%s", o->base, suffix) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Removes the temporary name (signals blocked meanwhile) and forgets it. */
static void remove_tmp(struct lfr_outfile *o)
{
	sigset_t old;

	if (!o->tmp)
		return;
	block_signals(&old);
	unlinkat(o->dirfd, o->tmp, 0);
	name_leave(o);
	restore_signals(&old);
	free(o->tmp);
	o->tmp = NULL;
}

/* O_TMPFILE: an error that says the file system (or kernel) has none, rather than a failure. */
static bool no_tmpfile(int e)
{
	return e == EOPNOTSUPP || e == EISDIR || e == EINVAL;
}

/*
 * Gives o a fresh temporary name (o->tmp) that make() creates, signals blocked meanwhile, the name
 * entered for the signal handler once made: 0, or -errno.  make() returns 0, or -1 with errno set.
 */
static int make_temp(struct lfr_outfile *o, int (*make)(struct lfr_outfile *o, const void *arg),
                     const void *arg)
{
	for (int tries = 0; tries < 100; tries++) {
		sigset_t old;
		int r, e;

		if (temp_name(o))
			return -ENOMEM;
		block_signals(&old);
		r = make(o, arg);
		e = errno;
		if (!r)
			name_enter(o);
		restore_signals(&old);
		if (!r)
			return 0;
		free(o->tmp);
		o->tmp = NULL;
		if (e != EEXIST)
			return -e;
	}
	return -EEXIST;
}

static int create_temp(struct lfr_outfile *o, const void *mode)
{
	o->fd = openat(o->dirfd, o->tmp,
	               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
	               *(const mode_t *)mode);
	return o->fd >= 0 ? 0 : -1;
}

/* The new file under a temporary name, where there is no O_TMPFILE. */
static int create_named(struct lfr_outfile *o, mode_t mode)
{
	return make_temp(o, create_temp, &mode);
}

int lfr_outfile_open(struct lfr_outfile *o, const char *path, unsigned flags, mode_t mode,
                     char *err, size_t n)
{
	const char *slash = strrchr(path, '/');
	char *dir = NULL;
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = o->dirfd = o->slot = -1;
	o->path = strdup(path);
	if (!o->path)
		goto oom;
	o->stdout_ok = flags & LFR_OUTFILE_STDOUT;
	if (!strcmp(path, "-")) {
		if (!o->stdout_ok) {
			snprintf(err, n,
			         "this output cannot be standard output ('-'): name a file");
			ret = -EINVAL;
			goto fail;
		}
		o->is_stdout = true;
		o->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (o->fd < 0) {
			ret = -errno;
			snprintf(err, n, "cannot write standard output: %s", strerror(errno));
			goto fail;
		}
		return 0;
	}
	o->base = strdup(slash ? slash + 1 : path);
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!o->base || !dir)
		goto oom;
	if (!*o->base || !strcmp(o->base, ".") || !strcmp(o->base, "..")) {
		snprintf(err, n, "%s names a directory: name a file to write", path);
		ret = -EISDIR;
		goto fail;
	}
	o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0) {
		ret = -errno;
		snprintf(err, n, "cannot write %s: its directory %s: %s", path, dir,
		         strerror(errno));
		goto fail;
	}
	ret = check_target(o, err, n);
	if (ret)
		goto fail;
	o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	if (o->fd < 0 && no_tmpfile(errno))
		ret = create_named(o, mode);
	else if (o->fd < 0)
		ret = -errno;
	if (ret) {
		snprintf(
		    err, n,
		    "cannot create a file in %s (a new output is written beside its target and "
		    "renamed once complete: the directory must be writable): %s",
		    dir, strerror(-ret));
		goto fail;
	}
	free(dir);
	return 0;
oom:
	ret = -ENOMEM;
	snprintf(err, n, "out of memory opening %s", path);
fail:
	free(dir);
	lfr_outfile_abort(o);
	return ret;
}

int lfr_outfile_same(const char *path, const char *input, char *err, size_t n)
{
	struct stat a, b;

	if (!strcmp(path, "-") || stat(path, &a) || stat(input, &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		return 0;
	if (!strcmp(path, input))
		snprintf(err, n, "%s is both an input and the output: choose another output file",
		         path);
	else
		snprintf(err, n,
		         "the output %s is the input %s (the same file): choose another output "
		         "file",
		         path, input);
	return -EEXIST;
}

static int link_temp(struct lfr_outfile *o, const void *proc)
{
	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc's link does not */
	int r = linkat(o->fd, "", o->dirfd, o->tmp, AT_EMPTY_PATH);

	if (r < 0 && errno != EEXIST)
		r = linkat(AT_FDCWD, proc, o->dirfd, o->tmp, AT_SYMLINK_FOLLOW);
	return r;
}

/* Gives the unnamed file a temporary name beside the target (signals blocked meanwhile). */
static int link_unnamed(struct lfr_outfile *o)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	return make_temp(o, link_temp, proc);
}

int lfr_outfile_publish(struct lfr_outfile *o, char *err, size_t n)
{
	bool linked = false;
	sigset_t old;
	int ret;

	if (o->published || o->is_stdout) {
		o->published = true;
		return 0;
	}
	ret = check_target(o, err, n);
	if (ret)
		return ret;
	if (!o->tmp) {
		ret = link_unnamed(o);
		if (ret) {
			snprintf(err, n, "cannot name the new %s in its directory: %s", o->path,
			         strerror(-ret));
			return ret;
		}
		linked = true;
	}
	block_signals(&old);
	ret = renameat(o->dirfd, o->tmp, o->dirfd, o->base) ? -errno : 0;
	if (!ret)
		name_leave(o);
	restore_signals(&old);
	if (ret) {
		snprintf(err, n, "cannot rename the new file to %s: %s", o->path, strerror(-ret));
		if (linked) /* unnamed again, as before */
			remove_tmp(o);
		return ret;
	}
	free(o->tmp);
	o->tmp = NULL;
	o->published = true;
	return 0;
}

int lfr_outfile_commit(struct lfr_outfile *o, char *err, size_t n)
{
	int ret = 0;

	if (!o->is_stdout && fsync(o->fd) < 0) {
		ret = -errno;
		snprintf(err, n, "writing %s: %s", o->path, strerror(errno));
	}
	if (!ret)
		ret = lfr_outfile_publish(o, err, n);
	if (close(o->fd) < 0 && !ret && !o->is_stdout) {
		ret = -errno;
		snprintf(err, n, "writing %s: %s", o->path, strerror(errno));
	}
	o->fd = -1;
	lfr_outfile_abort(o);
	return ret;
}

void lfr_outfile_abort(struct lfr_outfile *o)
{
	if (o->path) { /* opened (a zeroed o holds nothing to close) */
		if (!o->published)
			remove_tmp(o);
		if (o->fd >= 0)
			close(o->fd);
		if (o->dirfd >= 0)
			close(o->dirfd);
	}
	free(o->tmp);
	free(o->base);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->fd = o->dirfd = o->slot = -1;
}

FILE *lfr_outfile_fdopen(struct lfr_outfile *o)
{
	return fdopen(o->fd, "w");
}

int lfr_outfile_fclose(struct lfr_outfile *o, FILE *f, bool keep, char *err, size_t n)
{
	/* the stream's fd is the file's: committing closes it */
	o->fd = dup(o->fd);
	fclose(f);
	if (!keep || o->fd < 0) {
		lfr_outfile_abort(o);
		return 1;
	}
	return lfr_outfile_commit(o, err, n);
}

int lfr_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files: the one way every lfr command writes a file a user names (record -o, report -o,
 * merge -o, dump and its default name, raw -o, top's w key).  lfr runs as root, often in
 * directories other users can write to (/tmp), so:
 *
 * - Nothing is ever opened through the target's name.  A new file is written and renamed over
 *   the target once complete (a failure or a kill leaves an old file as it was), so no FIFO is
 *   waited on, no device is opened, no link is followed, and no file of another user receives
 *   the output.
 * - A target that exists is looked at first, through an O_PATH descriptor of the name itself
 *   (not what a link names), and refused at once unless it is a regular file; in a sticky
 *   directory others can write to, a file of another user (neither the caller's nor the
 *   directory owner's) is refused too, as fs.protected_regular refuses to open it: it may have
 *   been planted.  The check is made again just before the rename.
 * - The new file has no name while it is written (O_TMPFILE) where the file system supports it,
 *   so a killed command leaves nothing behind; it is linked under a unique temporary name beside
 *   the target and renamed.  Elsewhere it is written as .NAME.XXXXXX beside the target.  A
 *   temporary name that exists is removed by abort, and by SIGINT, SIGTERM or SIGHUP when the
 *   command has no handler of its own for them (a handler unlinks it, then the signal ends the
 *   process as it would have).
 * - "-" is standard output, written as it is (a terminal, a pipe, a file), for the commands that
 *   allow it (LFR_OUTFILE_STDOUT); the others refuse it.
 *
 * It never removes a file it did not create, and lfr_outfile_same() refuses an input that is the
 * target itself (the same device and inode), which the rename would replace.
 */
#ifndef LFR_LIB_OUTFILE_H
#define LFR_LIB_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* lfr_outfile_open()'s flags */
enum {
	LFR_OUTFILE_STDOUT = 1, /* "-" names standard output */
};

struct lfr_outfile {
	char *path;     /* the target, as given */
	char *base;     /* its name in its directory */
	char *tmp;      /* the temporary name in the directory while one exists, else NULL */
	int dirfd;      /* the target's directory (O_PATH) */
	int fd;         /* the new file (or a duplicate of standard output) */
	int slot;       /* the temporary name's entry among those a signal removes, or -1 */
	bool is_stdout; /* "-" */
	bool stdout_ok; /* LFR_OUTFILE_STDOUT */
	bool published; /* renamed over the target */
};

/*
 * Checks the target (see above) and creates the new file for path, mode less the umask, open for
 * writing in o->fd.  Returns 0, or a negative errno with a message in err that names the path,
 * says what is wrong and what to do: -EEXIST for a target that may not be replaced, -EINVAL for
 * "-" without LFR_OUTFILE_STDOUT.
 */
int lfr_outfile_open(struct lfr_outfile *o, const char *path, unsigned flags, mode_t mode,
                     char *err, size_t n);
/*
 * Whether input is the file at path (the same device and inode, through links): -EEXIST with a
 * message in err then, 0 when it is not or either does not exist.
 */
int lfr_outfile_same(const char *path, const char *input, char *err, size_t n);
/*
 * Puts the file at its path now (checking the target again), keeping o->fd open for more
 * writes: a writer that publishes its file before it is complete.  Returns 0 or a negative errno
 * with a message in err; the file stays unpublished then.
 */
int lfr_outfile_publish(struct lfr_outfile *o, char *err, size_t n);
/* Makes the file durable (fsync), publishes it and closes it.  Returns 0 or a negative errno with
 * a message in err; the new file is removed on failure. */
int lfr_outfile_commit(struct lfr_outfile *o, char *err, size_t n);
/* Removes the new file unless it was published (never the target) and frees o; safe after commit
 * and on a zeroed o whose fd and dirfd are -1 (LFR_OUTFILE_INIT). */
void lfr_outfile_abort(struct lfr_outfile *o);

/*
 * A stdio stream on the new file (o open), for writers that print: NULL with errno set.  Ended by
 * lfr_outfile_fclose(), not fclose().
 */
FILE *lfr_outfile_fdopen(struct lfr_outfile *o);
/*
 * Closes stream f of o (flushed by the caller, who says what a failed write was) and, when keep,
 * commits the file: 0 committed; 1 abandoned (not keep, or its fd could not be kept); a negative
 * errno with a message in err when the commit failed.
 */
int lfr_outfile_fclose(struct lfr_outfile *o, FILE *f, bool keep, char *err, size_t n);

#define LFR_OUTFILE_INIT                                                                           \
	{                                                                                          \
		.dirfd = -1, .fd = -1, .slot = -1                                                  \
	}

/*
 * Writes len bytes to fd whatever each write() takes (a signal's EINTR retried): 0, or a negative
 * errno (-EIO for a write of nothing).
 */
int lfr_write_all(int fd, const void *buf, size_t len);

#endif

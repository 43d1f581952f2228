/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Atomic output files: a command writes a new file under a unique temporary name in the target's
 * directory (mkstemp), and renames it over the target only once it is complete, so that a failure
 * or a kill leaves the old file as it was.  It never removes a file it did not create, and it
 * refuses an input that is the target itself (the same device and inode), which the rename would
 * replace.  A target that exists and is not a regular file (/dev/stdout, a FIFO) is written
 * directly.
 */
#ifndef LFR_LIB_OUTFILE_H
#define LFR_LIB_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct lfr_outfile {
	char *path; /* the target */
	char *tmp;  /* the temporary file, NULL when the target is written directly */
	int fd;
};

/*
 * Creates the temporary file for path with permissions mode (less the umask).  Returns 0, or a
 * negative errno with a message in err.
 */
int lfr_outfile_open(struct lfr_outfile *o, const char *path, mode_t mode, char *err, size_t n);
/*
 * Whether input is the file at path (the same device and inode, through links): -EEXIST with a
 * message in err then, 0 when it is not or either does not exist.
 */
int lfr_outfile_same(const char *path, const char *input, char *err, size_t n);
/* Makes the file durable (fsync) and renames it over the target.  Returns 0 or a negative errno
 * with a message in err; the temporary file is removed on failure. */
int lfr_outfile_commit(struct lfr_outfile *o, char *err, size_t n);
/* Removes the temporary file (never the target) and frees o; safe after commit. */
void lfr_outfile_abort(struct lfr_outfile *o);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Atomic output files: see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/outfile.h"

/* The process's umask, read without changing it (umask(2) would race with other threads). */
static mode_t current_umask(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[128];
	unsigned m = 022;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &m) == 1)
			break;
	if (f)
		fclose(f);
	return (mode_t)m;
}

int lfr_outfile_open(struct lfr_outfile *o, const char *path, mode_t mode, char *err, size_t n)
{
	struct stat st;
	const char *slash = strrchr(path, '/');
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = strdup(path);
	if (!o->path)
		goto oom;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		/* a device or a FIFO: nothing to replace, nothing to keep */
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, n, "%s is a directory: name a file to write", path);
			ret = -EISDIR;
			goto fail;
		}
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			ret = -errno;
			snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
			goto fail;
		}
		return 0;
	}
	if (asprintf(&o->tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
	             slash ? slash + 1 : path) < 0) {
		o->tmp = NULL;
		goto oom;
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		ret = -errno;
		snprintf(err, n,
		         "cannot create a file beside %s (a new output is written beside its "
		         "target and renamed once complete: the directory must be writable): %s",
		         path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	if (fchmod(o->fd, mode & ~current_umask()) < 0) {
		ret = -errno;
		snprintf(err, n, "cannot set the permissions of %s: %s", o->tmp, strerror(errno));
		goto fail;
	}
	return 0;
oom:
	ret = -ENOMEM;
	snprintf(err, n, "out of memory opening %s", path);
fail:
	lfr_outfile_abort(o);
	return ret;
}

int lfr_outfile_same(const char *path, const char *input, char *err, size_t n)
{
	struct stat a, b;

	if (stat(path, &a) || stat(input, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
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

int lfr_outfile_commit(struct lfr_outfile *o, char *err, size_t n)
{
	int ret = 0;

	if (o->tmp && fsync(o->fd) < 0) {
		ret = -errno;
		snprintf(err, n, "writing %s: %s", o->path, strerror(errno));
	}
	if (close(o->fd) < 0 && !ret) {
		ret = -errno;
		snprintf(err, n, "writing %s: %s", o->path, strerror(errno));
	}
	o->fd = -1;
	if (!ret && o->tmp) {
		if (rename(o->tmp, o->path) < 0) {
			ret = -errno;
			snprintf(err, n, "cannot rename %s to %s: %s", o->tmp, o->path,
			         strerror(errno));
		} else {
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	lfr_outfile_abort(o);
	return ret;
}

void lfr_outfile_abort(struct lfr_outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

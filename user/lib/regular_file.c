// SPDX-License-Identifier: GPL-2.0
/* Opening paths others chose, regular files only: see regular_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/regular_file.h"

int lfr_open_regular(const char *path, int flags, struct stat *st)
{
	struct stat own, again;
	char proc[64];
	int ret, fd;
	int pfd = open(path, O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW));

	if (!st)
		st = &own;
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st) < 0) {
		ret = -errno;
		close(pfd);
		return ret;
	}
	if (!S_ISREG(st->st_mode)) {
		close(pfd);
		/* O_PATH | O_NOFOLLOW opens a final link itself: refused as open(2) would */
		return S_ISLNK(st->st_mode) ? -ELOOP : -ENODEV;
	}
	int nofollow = flags & O_NOFOLLOW;

	flags = (flags & O_ACCMODE) | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	/* the very file looked at: its O_PATH descriptor opened again */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, flags);
	if (fd < 0 && errno == ENOENT) /* no /proc: the path again, checked to be that file */
		fd = open(path, flags | nofollow);
	ret = fd < 0 ? -errno : 0;
	close(pfd);
	if (ret)
		return ret;
	if (fstat(fd, &again) < 0 || !S_ISREG(again.st_mode) || again.st_dev != st->st_dev ||
	    again.st_ino != st->st_ino) {
		close(fd);
		return -ENODEV;
	}
	*st = again;
	return fd;
}

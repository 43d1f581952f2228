/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a path that a file, a recording or another user chose (an object a recording names, a
 * debug file a .gnu_debuglink names, a file a process mapped): lfr runs as root, and such a path
 * may name a FIFO (whose open waits for a writer), a device (whose open acts: a watchdog, a tape)
 * or a terminal (which the open would make the controlling one).  The path is first opened with
 * O_PATH, which opens nothing, and only a regular file is then opened through that descriptor, so
 * that no other file can be swapped in between.
 */
#ifndef LFR_LIB_REGULAR_FILE_H
#define LFR_LIB_REGULAR_FILE_H

#include <sys/stat.h>

/*
 * Opens path when it is a regular file: flags are O_RDONLY or O_RDWR, with O_NOFOLLOW when a
 * final symbolic link is refused; O_NONBLOCK, O_NOCTTY and O_CLOEXEC are added.  Returns the
 * descriptor, with its fstat in *st when st is not NULL; -ENODEV when path is no regular file (a
 * FIFO, a device, a socket, a directory: *st says which), -ELOOP for a final link with
 * O_NOFOLLOW, or another negative errno.
 */
int lfr_open_regular(const char *path, int flags, struct stat *st);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * timens: runs a command in a new time namespace whose CLOCK_MONOTONIC (and CLOCK_BOOTTIME) is
 * SECONDS ahead of the kernel's, as a container or a restored checkpoint may see it
 * (time_namespaces(7)); the guest's busybox unshare has no --time.
 *
 *   timens SECONDS COMMAND [ARG...]
 *
 * Exits with the command's status; 2 when the namespace cannot be made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

int main(int argc, char **argv)
{
	char offsets[128];
	int fd, len, status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: timens SECONDS COMMAND [ARG...]\n");
		return 2;
	}
	/* the namespace is the children's: its offsets are set before the first of them */
	if (unshare(CLONE_NEWTIME)) {
		fprintf(stderr, "timens: unshare(CLONE_NEWTIME): %s\n", strerror(errno));
		return 2;
	}
	len = snprintf(offsets, sizeof(offsets), "monotonic %ld 0\nboottime %ld 0\n", atol(argv[1]),
	               atol(argv[1]));
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	if (fd < 0 || write(fd, offsets, (size_t)len) != len) {
		fprintf(stderr, "timens: /proc/self/timens_offsets: %s\n", strerror(errno));
		return 2;
	}
	close(fd);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "timens: fork: %s\n", strerror(errno));
		return 2;
	}
	if (!pid) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "timens: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

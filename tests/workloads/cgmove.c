// SPDX-License-Identifier: GPL-2.0
/*
 * cgmove: moves a process (all its threads) into a cgroup v2 and says exactly when.
 *
 *   cgmove PID CGROUP_DIR
 *
 * Writes PID to CGROUP_DIR/cgroup.procs and prints
 *   cgmove pid=PID to=CGROUP_DIR mono_ns=N real_ns=N before_real_ns=N
 * with CLOCK_MONOTONIC and CLOCK_REALTIME read right after the write returned, and CLOCK_REALTIME
 * right before it began, so a recording's sample times can be compared with the move: it took
 * effect between the two, however long a loaded machine took over the write.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	char path[4096];
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: cgmove PID CGROUP_DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", argv[2]);
	fd = open(path, O_WRONLY);
	long long before = ns(CLOCK_REALTIME);
	if (fd < 0 || write(fd, argv[1], strlen(argv[1])) < 0) {
		fprintf(stderr, "cgmove: %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(fd);
	long long mono = ns(CLOCK_MONOTONIC), real = ns(CLOCK_REALTIME);
	printf("cgmove pid=%s to=%s mono_ns=%lld real_ns=%lld before_real_ns=%lld\n", argv[1],
	       argv[2], mono, real, before);
	return 0;
}

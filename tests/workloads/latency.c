// SPDX-License-Identifier: GPL-2.0
/*
 * latency: a workload that spends long stretches of CPU time in the kernel, each bounded by its own
 * clock: main -> read_loop -> read_urandom reads KIB KiB from /dev/urandom per read() (the kernel
 * generates them on the CPU, with no wait), CALLS times.  Every call's [start, end]
 * (CLOCK_MONOTONIC, read right around the system call) is printed at the end:
 *
 *   latency pid=PID tid=TID calls=N kib=KIB
 *   call start=NS end=NS bytes=N        (one line per read(), in order)
 *
 * A tick that lands in one of those reads is walked only when the thread returns to user space, at
 * the end of that read: tests/vm/scenarios/latency-check.py checks each lfr.SamplingLatency event
 * against them.
 *
 * Usage: latency CALLS KIB
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FN __attribute__((noinline, used))

struct call {
	uint64_t start, end;
	ssize_t bytes;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

FN static ssize_t read_urandom(int fd, char *buf, size_t n, struct call *c)
{
	c->start = now_ns();
	c->bytes = read(fd, buf, n);
	c->end = now_ns();
	return c->bytes;
}

FN static int read_loop(int fd, char *buf, size_t n, struct call *calls, int ncalls)
{
	for (int i = 0; i < ncalls; i++)
		if (read_urandom(fd, buf, n, &calls[i]) <= 0)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	int ncalls = argc > 1 ? atoi(argv[1]) : 0;
	size_t n = argc > 2 ? (size_t)atol(argv[2]) << 10 : 0;
	struct call *calls;
	char *buf;
	int fd;

	if (ncalls <= 0 || !n) {
		fprintf(stderr, "usage: latency CALLS KIB\n");
		return 2;
	}
	calls = calloc((size_t)ncalls, sizeof(*calls));
	buf = malloc(n);
	fd = open("/dev/urandom", O_RDONLY);
	if (!calls || !buf || fd < 0) {
		perror("latency");
		return 1;
	}
	printf("latency pid=%d tid=%ld calls=%d kib=%zu\n", getpid(), (long)syscall(SYS_gettid),
	       ncalls, n >> 10);
	fflush(stdout);
	if (read_loop(fd, buf, n, calls, ncalls)) {
		perror("latency: read");
		return 1;
	}
	for (int i = 0; i < ncalls; i++)
		printf("call start=%llu end=%llu bytes=%zd\n", (unsigned long long)calls[i].start,
		       (unsigned long long)calls[i].end, calls[i].bytes);
	return 0;
}

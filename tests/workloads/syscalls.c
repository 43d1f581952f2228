// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls: threads that spend their time in the kernel.
 *
 *   syscalls busy SECONDS [THREADS]   each thread loops over short system calls (read of /dev/zero,
 *                                     write to /dev/null, getppid, sched_yield) for SECONDS
 *   syscalls clock SECONDS [THREADS]  each thread loops over clock_gettime(CLOCK_MONOTONIC) for
 *                                     SECONDS: in the vDSO, which makes the system call itself
 *                                     when the clock source has no vDSO read
 *   syscalls sleep [THREADS]          each thread blocks in a long system call (nanosleep, read on
 * an empty pipe, poll without fds, futex wait) until the process is killed syscalls pipe [THREADS]
 * each thread writes 2 MiB into its own 1 MiB pipe that nobody reads: it spends CPU time in the
 * kernel copying the first MiB (so a tick lands there and queues a stack walk) and then blocks in
 * that same write until the process is killed, with the walk still pending
 *
 * Prints "syscalls pid=PID mode=MODE threads=N" once every thread is running, and for "busy" and
 * "clock" a closing line with the number of calls made.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double deadline;
static atomic_ulong calls;
static atomic_int running;
static int pipefd[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *busy(void *arg)
{
	char buf[4096];
	int zero = open("/dev/zero", O_RDONLY), null = open("/dev/null", O_WRONLY);
	unsigned long n = 0;

	(void)arg;
	if (zero < 0 || null < 0) {
		perror("syscalls: open /dev/zero or /dev/null");
		exit(1);
	}
	atomic_fetch_add(&running, 1);
	while (now() < deadline) {
		for (int i = 0; i < 64; i++) {
			if (read(zero, buf, sizeof(buf)) < 0 || write(null, buf, sizeof(buf)) < 0) {
				perror("syscalls: read/write");
				exit(1);
			}
			getppid();
			sched_yield();
			n += 4;
		}
	}
	atomic_fetch_add(&calls, n);
	close(zero);
	close(null);
	return NULL;
}

static void *sleeper(void *arg)
{
	long kind = (long)arg % 4;
	char c;
	int futex_word = 0;
	struct timespec ts = {24 * 3600, 0};

	atomic_fetch_add(&running, 1);
	for (;;) {
		switch (kind) {
		case 0:
			nanosleep(&ts, NULL);
			break;
		case 1:
			if (read(pipefd[0], &c, 1) < 0)
				perror("syscalls: read pipe");
			break;
		case 2:
			poll(NULL, 0, -1);
			break;
		default:
			syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
			break;
		}
	}
	return NULL;
}

static void *pipe_filler(void *arg)
{
	size_t len = 2u << 20;
	char *buf = malloc(len);
	int fds[2];

	(void)arg;
	if (!buf || pipe(fds)) {
		perror("syscalls: pipe");
		exit(1);
	}
	memset(buf, 'x', len);
	if (fcntl(fds[1], F_SETPIPE_SZ, 1 << 20) < 0)
		perror("syscalls: F_SETPIPE_SZ (the pipe keeps its default size)");
	atomic_fetch_add(&running, 1);
	for (;;)
		if (write(fds[1], buf, len) < 0)
			perror("syscalls: write pipe");
	return NULL;
}

static void *clocker(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	atomic_fetch_add(&running, 1);
	while (now() < deadline)
		n++;
	atomic_fetch_add(&calls, n);
	return NULL;
}

static int usage(void)
{
	fprintf(stderr, "usage: syscalls busy|clock SECONDS [THREADS] | syscalls sleep [THREADS] | "
	                "syscalls pipe [THREADS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	int sleep_mode, pipe_mode, nthreads;
	void *(*fn)(void *) = busy;
	const char *name = "sc-busy";
	pthread_t *t;

	if (argc < 2)
		return usage();
	pipe_mode = !strcmp(argv[1], "pipe");
	sleep_mode = !strcmp(argv[1], "sleep") || pipe_mode;
	if (!sleep_mode && ((strcmp(argv[1], "busy") && strcmp(argv[1], "clock")) || argc < 3))
		return usage();
	if (!strcmp(argv[1], "clock")) {
		fn = clocker;
		name = "sc-clock";
	}
	if (sleep_mode) {
		fn = pipe_mode ? pipe_filler : sleeper;
		name = pipe_mode ? "sc-pipe" : "sc-sleep";
	}
	nthreads =
	    argc > (sleep_mode ? 2 : 3) ? atoi(argv[sleep_mode ? 2 : 3]) : (sleep_mode ? 4 : 2);
	if (nthreads < 1 || nthreads > 4096)
		return usage();
	if (!sleep_mode)
		deadline = now() + atof(argv[2]);
	if (pipe(pipefd)) {
		perror("syscalls: pipe");
		return 1;
	}
	t = calloc(nthreads, sizeof(*t));
	if (!t)
		return 1;
	for (long i = 0; i < nthreads; i++) {
		int err = pthread_create(&t[i], NULL, fn, (void *)i);

		if (err) {
			fprintf(stderr, "syscalls: pthread_create: %s\n", strerror(err));
			return 1;
		}
		pthread_setname_np(t[i], name);
	}
	while (atomic_load(&running) < nthreads)
		sched_yield();
	printf("syscalls pid=%d mode=%s threads=%d\n", (int)getpid(), argv[1], nthreads);
	fflush(stdout);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("syscalls pid=%d calls=%lu\n", (int)getpid(), atomic_load(&calls));
	free(t);
	return 0;
}

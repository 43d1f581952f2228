// SPDX-License-Identifier: GPL-2.0
/*
 * sleepers: a crowd of threads that each ran a little and now sleep, then a workload beside them.
 *
 * Usage: sleepers THREADS MS SECONDS     (THREADS 1..16384, SECONDS 0: no workload)
 *
 * Starts THREADS threads (64 KiB stacks); each burns MS ms of its own CPU time and then blocks in
 * read(2) on a pipe nobody writes, until the process exits.  Once every one of them has burned
 * its share it prints
 *
 *   sleepers asleep threads=N
 *
 * and runs the workload: two threads ("spin-a" and the main thread, renamed "spin-b") that each
 * burn SECONDS of their own CPU time, then it prints
 *
 *   sleepers workload tids=A,B
 *
 * and exits.  A system-wide profiler whose thread table the sleepers fill must still sample A and
 * B.  With SECONDS 0 there is no workload: the sleepers stay asleep until the process is killed
 * (what a profiler costs beside a crowd of idle threads).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int burned;
static int sleep_pipe[2];
static long burn_ms;
static double spin_s;
static volatile unsigned long sink;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void burn(double seconds)
{
	double end = thread_cpu() + seconds;

	while (thread_cpu() < end)
		for (int i = 0; i < 1000; i++)
			sink = sink * 31 + (unsigned long)i;
}

static void *sleeper(void *arg)
{
	char c;

	(void)arg;
	burn((double)burn_ms / 1e3);
	atomic_fetch_add(&burned, 1);
	while (read(sleep_pipe[0], &c, 1) != 0)
		;
	return NULL;
}

static void *spinner(void *arg)
{
	pthread_setname_np(pthread_self(), "spin-a");
	*(long *)arg = syscall(SYS_gettid);
	burn(spin_s);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	struct timespec tick = {0, 10 * 1000 * 1000};
	pthread_attr_t attr;
	pthread_t t;
	long a = 0;

	burn_ms = argc > 2 ? atol(argv[2]) : 0;
	spin_s = argc > 3 ? atof(argv[3]) : 0;
	if (argc != 4 || n < 1 || n > 16384 || burn_ms < 1 || spin_s < 0) {
		fprintf(stderr, "usage: sleepers THREADS MS SECONDS  (THREADS 1..16384, MS >= 1, "
		                "SECONDS 0: the sleepers only, until killed)\n");
		return 2;
	}
	if (pipe(sleep_pipe)) {
		perror("sleepers: pipe");
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < n; i++) {
		int err = pthread_create(&t, &attr, sleeper, NULL);

		if (err) {
			fprintf(stderr, "sleepers: pthread_create (thread %d): %s\n", i,
			        strerror(err));
			return 1;
		}
	}
	while (atomic_load(&burned) < n)
		nanosleep(&tick, NULL);
	printf("sleepers asleep threads=%d\n", n);
	fflush(stdout);
	if (spin_s == 0)
		for (;;)
			pause();
	pthread_setname_np(pthread_self(), "spin-b");
	if (pthread_create(&t, NULL, spinner, &a)) {
		fprintf(stderr, "sleepers: pthread_create (spin-a) failed\n");
		return 1;
	}
	burn(spin_s);
	pthread_join(t, NULL);
	printf("sleepers workload tids=%ld,%ld\n", a, (long)syscall(SYS_gettid));
	fflush(stdout);
	_exit(0);
}

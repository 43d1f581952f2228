// SPDX-License-Identifier: GPL-2.0
/*
 * deepstack: CPU-bound threads whose every sample has a user stack of a chosen depth.
 *
 * Usage: deepstack DEPTH SECONDS [THREADS]     (DEPTH 3..4096, default 1 thread)
 *
 * Each thread recurses through descend() until it is DEPTH - 2 frames below its root, then burns
 * CPU in leaf() without further calls until SECONDS have passed.  A frame-pointer walk from leaf
 * in the main thread sees leaf, DEPTH - 3 descend frames, main and main's caller in libc: DEPTH
 * frames.  (Other threads see their start routine and libc's thread start instead of main.)
 * Work is counted in units of 4096 loop iterations; at the end the program prints
 *
 *   deepstack depth=D threads=T seconds=S ops=N rate=OPS_PER_S utime=S stime=S
 *
 * where seconds is the measured wall time of the burn and utime/stime its own CPU time.  A profiler
 * that costs the thread time shows as a lower rate than a run without one.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static atomic_ulong total_ops;
static int depth;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The volatile local gives leaf a stack slot and so a real frame for the walk to start from. */
__attribute__((noinline)) static unsigned long leaf(void)
{
	volatile unsigned long x = 0;
	unsigned long ops = 0;

	while (!stop) {
		for (int i = 0; i < 4096; i++)
			x = x * 31 + (unsigned long)i;
		ops++;
	}
	return ops;
}

__attribute__((noinline)) static unsigned long descend(int n)
{
	unsigned long r;

	if (n <= 0)
		return leaf();
	r = descend(n - 1);
	__asm__ volatile("" ::: "memory"); /* keeps the call from becoming a tail call */
	return r;
}

static void *thread_main(void *arg)
{
	(void)arg;
	atomic_fetch_add(&total_ops, descend(depth - 3));
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int secs = argc > 2 ? atoi(argv[2]) : 0, nthreads = argc > 3 ? atoi(argv[3]) : 1;
	pthread_t *t;
	struct sigaction sa;
	struct rusage ru;
	double t0, t1;

	depth = argc > 1 ? atoi(argv[1]) : 0;
	if (argc < 3 || depth < 3 || depth > 4096 || secs < 1 || nthreads < 1 || nthreads > 1024) {
		fprintf(stderr,
		        "usage: deepstack DEPTH SECONDS [THREADS]  (DEPTH 3..4096, SECONDS >= 1, "
		        "THREADS 1..1024)\n");
		return 2;
	}
	t = calloc((size_t)nthreads, sizeof(*t));
	if (!t)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	t0 = now();
	alarm((unsigned int)secs);
	for (int i = 1; i < nthreads; i++) {
		int err = pthread_create(&t[i], NULL, thread_main, NULL);

		if (err) {
			fprintf(stderr, "deepstack: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	atomic_fetch_add(&total_ops, descend(depth - 3));
	for (int i = 1; i < nthreads; i++)
		pthread_join(t[i], NULL);
	t1 = now();
	getrusage(RUSAGE_SELF, &ru);
	printf(
	    "deepstack depth=%d threads=%d seconds=%.3f ops=%lu rate=%.1f utime=%.3f stime=%.3f\n",
	    depth, nthreads, t1 - t0, atomic_load(&total_ops),
	    (double)atomic_load(&total_ops) / (t1 - t0),
	    (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	free(t);
	return 0;
}

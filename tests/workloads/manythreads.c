// SPDX-License-Identifier: GPL-2.0
/*
 * manythreads: many CPU-bound threads at once, for profilers' per-thread costs.
 *
 * Usage: manythreads THREADS SECONDS     (THREADS 1..8192)
 *
 * Creates THREADS threads (64 KiB stacks) that wait at a barrier, releases them together and
 * lets each burn CPU in units of 4096 loop iterations until SECONDS have passed, then prints
 *
 *   manythreads threads=N seconds=S ops=N rate=OPS_PER_S utime=S stime=S
 *
 * with the wall time from the release to the stop and the process's CPU time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static pthread_barrier_t go;
static atomic_ulong total_ops;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void burn(void)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < 4096; i++)
		x = x * 31 + (unsigned long)i;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	unsigned long ops = 0;

	(void)arg;
	pthread_barrier_wait(&go);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		burn();
		ops++;
	}
	atomic_fetch_add(&total_ops, ops);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, secs = argc > 2 ? atoi(argv[2]) : 0;
	pthread_attr_t attr;
	pthread_t *t;
	struct rusage ru;
	struct timespec ts;
	double t0, t1;

	if (argc != 3 || n < 1 || n > 8192 || secs < 1) {
		fprintf(stderr,
		        "usage: manythreads THREADS SECONDS  (THREADS 1..8192, SECONDS >= 1)\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	pthread_barrier_init(&go, NULL, (unsigned int)n + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < n; i++) {
		int err = pthread_create(&t[i], &attr, worker, NULL);

		if (err) {
			fprintf(stderr, "manythreads: pthread_create (thread %d): %s\n", i,
			        strerror(err));
			return 1;
		}
	}
	pthread_barrier_wait(&go);
	t0 = now();
	ts.tv_sec = secs;
	ts.tv_nsec = 0;
	while (nanosleep(&ts, &ts))
		;
	t1 = now();
	atomic_store(&stop, 1);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("manythreads threads=%d seconds=%.3f ops=%lu rate=%.1f utime=%.3f stime=%.3f\n", n,
	       t1 - t0, atomic_load(&total_ops), (double)atomic_load(&total_ops) / (t1 - t0),
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	free(t);
	return 0;
}

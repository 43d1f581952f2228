// SPDX-License-Identifier: GPL-2.0
/*
 * deepstack: CPU-bound threads whose every sample has a user stack of a chosen depth.
 *
 * Usage: deepstack [-c] DEPTH SECONDS [THREADS]  (DEPTH 3..4096, -c: 3..66; default 1 thread)
 *
 * Each thread recurses through descend() until it is DEPTH - 2 frames below its root, then burns
 * CPU in leaf() without further calls until SECONDS have passed.  A frame-pointer walk from leaf
 * in the main thread sees leaf, DEPTH - 3 descend frames, main and main's caller in libc: DEPTH
 * frames.  (Other threads see their start routine and libc's thread start instead of main.)
 * With -c the frames between leaf and the root are as many different functions (as many as
 * descend's), c64() down to c1(), each calling the next: a chain, where the recursion repeats one
 * return address (a walker or a stack cache that gains from repeats gains nothing here). Work is
 * counted in units of 4096 loop iterations; at the end the program prints
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

/* c1() .. c64(): each calls the one below it, c1() calls leaf() */
#define CHAIN_MAX 64
#define CHAIN_FN(i, next)                                                                          \
	__attribute__((noinline)) static unsigned long c##i(void)                                  \
	{                                                                                          \
		unsigned long r = next();                                                          \
		__asm__ volatile("" ::: "memory");                                                 \
		return r;                                                                          \
	}
#define CHAIN8(n1, n2, n3, n4, n5, n6, n7, n8, prev)                                               \
	CHAIN_FN(n1, prev)                                                                         \
	CHAIN_FN(n2, c##n1)                                                                        \
	CHAIN_FN(n3, c##n2)                                                                        \
	CHAIN_FN(n4, c##n3)                                                                        \
	CHAIN_FN(n5, c##n4)                                                                        \
	CHAIN_FN(n6, c##n5)                                                                        \
	CHAIN_FN(n7, c##n6)                                                                        \
	CHAIN_FN(n8, c##n7)
CHAIN8(1, 2, 3, 4, 5, 6, 7, 8, leaf)
CHAIN8(9, 10, 11, 12, 13, 14, 15, 16, c8)
CHAIN8(17, 18, 19, 20, 21, 22, 23, 24, c16)
CHAIN8(25, 26, 27, 28, 29, 30, 31, 32, c24)
CHAIN8(33, 34, 35, 36, 37, 38, 39, 40, c32)
CHAIN8(41, 42, 43, 44, 45, 46, 47, 48, c40)
CHAIN8(49, 50, 51, 52, 53, 54, 55, 56, c48)
CHAIN8(57, 58, 59, 60, 61, 62, 63, 64, c56)

static unsigned long (*const chain[CHAIN_MAX + 1])(void) = {
    leaf, c1,  c2,  c3,  c4,  c5,  c6,  c7,  c8,  c9,  c10, c11, c12, c13, c14, c15, c16,
    c17,  c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, c33,
    c34,  c35, c36, c37, c38, c39, c40, c41, c42, c43, c44, c45, c46, c47, c48, c49, c50,
    c51,  c52, c53, c54, c55, c56, c57, c58, c59, c60, c61, c62, c63, c64};
static int use_chain;

/* inlined: the first frame below the thread's root is the chain's or the recursion's */
__attribute__((always_inline)) static inline unsigned long burn(void)
{
	return use_chain ? chain[depth - 2]() : descend(depth - 3);
}

static void *thread_main(void *arg)
{
	(void)arg;
	atomic_fetch_add(&total_ops, burn());
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int secs, nthreads;
	pthread_t *t;
	struct sigaction sa;
	struct rusage ru;
	double t0, t1;

	if (argc > 1 && !strcmp(argv[1], "-c")) {
		use_chain = 1;
		argc--;
		argv++;
	}
	depth = argc > 1 ? atoi(argv[1]) : 0;
	secs = argc > 2 ? atoi(argv[2]) : 0;
	nthreads = argc > 3 ? atoi(argv[3]) : 1;
	if (argc < 3 || depth < 3 || depth > (use_chain ? CHAIN_MAX + 2 : 4096) || secs < 1 ||
	    nthreads < 1 || nthreads > 1024) {
		fprintf(stderr, "usage: deepstack [-c] DEPTH SECONDS [THREADS]  (DEPTH 3..4096, "
		                "with -c (a chain of "
		                "different functions) 3..66; SECONDS >= 1, THREADS 1..1024)\n");
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
	atomic_fetch_add(&total_ops, burn());
	for (int i = 1; i < nthreads; i++)
		pthread_join(t[i], NULL);
	t1 = now();
	getrusage(RUSAGE_SELF, &ru);
	printf("deepstack depth=%d threads=%d shape=%s seconds=%.3f ops=%lu rate=%.1f utime=%.3f "
	       "stime=%.3f\n",
	       depth, nthreads, use_chain ? "chain" : "recursion", t1 - t0, atomic_load(&total_ops),
	       (double)atomic_load(&total_ops) / (t1 - t0),
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	free(t);
	return 0;
}

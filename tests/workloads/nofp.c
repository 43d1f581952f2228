// SPDX-License-Identifier: GPL-2.0
/*
 * nofp: code without frame pointers, for the unwind-table walk.  Built by gcc -O2
 * -fomit-frame-pointer (tests/workloads/Makefile), so only the CFI of the objects can give
 * the callers:
 *
 *   main thread ("nofp-sort"):    main -> qsort (Debian's libc, no frame pointers) -> cmp
 *   worker thread ("nofp-chain"): chain_main -> c40 -> c39 -> ... -> c1 -> leaf
 *
 * cmp and leaf burn CPU, so almost every sample has its pc in one of them.  Each function
 * calls the next and then touches memory, so that no call becomes a tail call, and every
 * one of c1..c40 adjusts its stack around its call (its CFA moves inside it).
 *
 *   nofp pid=PID
 *   cputime tid=TID ns=NS name=NAME   (per thread: its whole CPU time, from its creation)
 *   work sorts=N chain=M compares=K   (sorts done, rounds of leaf's loop, calls of cmp before the
 *                                      time was up: what a profiler slowed; compares counts the
 *                                      sorting thread's work finely, and not the sort it finishes
 *                                      after the time, while the other thread has stopped)
 *   done pid=PID
 *
 * Usage: nofp [SECONDS]   (default 5)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile sig_atomic_t stop;
static volatile unsigned long sink;
static unsigned long rounds;
static unsigned long compares;

NOINLINE void leaf(void)
{
	unsigned long x = sink, n = 0;

	while (!stop) {
		for (int i = 0; i < 4096; i++)
			x = x * 31 + (unsigned long)i;
		n++;
	}
	rounds = n;
	sink = x;
}

#define LINK(n, next)                                                                              \
	NOINLINE void c##n(void)                                                                   \
	{                                                                                          \
		next();                                                                            \
		sink++;                                                                            \
	}

LINK(1, leaf)
LINK(2, c1)
LINK(3, c2)
LINK(4, c3)
LINK(5, c4)
LINK(6, c5)
LINK(7, c6)
LINK(8, c7)
LINK(9, c8)
LINK(10, c9)
LINK(11, c10)
LINK(12, c11)
LINK(13, c12)
LINK(14, c13)
LINK(15, c14)
LINK(16, c15)
LINK(17, c16)
LINK(18, c17)
LINK(19, c18)
LINK(20, c19)
LINK(21, c20)
LINK(22, c21)
LINK(23, c22)
LINK(24, c23)
LINK(25, c24)
LINK(26, c25)
LINK(27, c26)
LINK(28, c27)
LINK(29, c28)
LINK(30, c29)
LINK(31, c30)
LINK(32, c31)
LINK(33, c32)
LINK(34, c33)
LINK(35, c34)
LINK(36, c35)
LINK(37, c36)
LINK(38, c37)
LINK(39, c38)
LINK(40, c39)

/* The comparator burns a little on every call, so the sort's time is mostly here. */
NOINLINE int cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned int *)a;

	compares += !stop;
	for (int i = 0; i < 64; i++)
		x = x * 31 + (unsigned long)i;
	sink += x & 1;
	return (*(const unsigned int *)a > *(const unsigned int *)b) -
	       (*(const unsigned int *)a < *(const unsigned int *)b);
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long chain_ns;
static pid_t chain_tid;

NOINLINE void *chain_main(void *arg)
{
	(void)arg;
	c40();
	chain_ns = thread_cpu_ns();
	chain_tid = gettid();
	sink++;
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

#define N 4096

int main(int argc, char **argv)
{
	unsigned int secs = argc > 1 ? (unsigned int)atoi(argv[1]) : 5;
	static unsigned int v[N];
	unsigned long sorts = 0;
	pthread_t t;
	unsigned int seed = 1;
	int err;

	if (!secs) {
		fprintf(stderr, "usage: nofp [SECONDS] (SECONDS >= 1)\n");
		return 2;
	}
	printf("nofp pid=%d\n", (int)getpid());
	fflush(stdout);
	signal(SIGALRM, on_alarm);
	pthread_setname_np(pthread_self(), "nofp-sort");
	err = pthread_create(&t, NULL, chain_main, NULL);
	if (err) {
		fprintf(stderr, "nofp: pthread_create: %s\n", strerror(err));
		return 1;
	}
	pthread_setname_np(t, "nofp-chain");
	alarm(secs);
	while (!stop) {
		for (int i = 0; i < N; i++)
			v[i] = rand_r(&seed);
		qsort(v, N, sizeof(v[0]), cmp);
		sorts++;
	}
	pthread_join(t, NULL);
	printf("cputime tid=%d ns=%lld name=nofp-sort\n", (int)gettid(), thread_cpu_ns());
	printf("cputime tid=%d ns=%lld name=nofp-chain\n", (int)chain_tid, chain_ns);
	printf("work sorts=%lu chain=%lu compares=%lu\n", sorts, rounds, compares);
	printf("done pid=%d\n", (int)getpid());
	return 0;
}

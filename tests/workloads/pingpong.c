// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: two threads that hand a turn back and forth ROUNDS times: every round trip takes
 * each thread off the CPU once (it blocks until the other hands the turn back), the
 * context-switch-heavy workload of bench/offcpu-cost.  By default the turn is a byte over two
 * pipes (each thread blocks in read()); with "futex", a word both threads wait on with
 * FUTEX_WAIT and hand over with FUTEX_WAKE.  At the end it prints
 *
 *   pingpong rounds=N ns=NS            (CLOCK_MONOTONIC from the first hand-over to the last)
 *
 * Usage: pingpong ROUNDS [pipe|futex]
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FN __attribute__((noinline, used))

static int ping[2], pong[2];
static long rounds;
static int use_futex;
/* futex mode: whose turn it is, 0 (the main thread) or 1 (the ponger) */
static _Atomic int turn;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

FN static void hand(int to, int from)
{
	char c = 'x';

	if (write(to, &c, 1) != 1 || read(from, &c, 1) != 1)
		exit(1);
}

/* Waits, off the CPU, until it is @me's turn. */
FN static void futex_wait_turn(int me)
{
	int t;

	while ((t = atomic_load(&turn)) != me)
		syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, t, NULL, NULL, 0);
}

/* Gives the turn to @other and wakes it. */
FN static void futex_give_turn(int other)
{
	atomic_store(&turn, other);
	syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

FN static void *ponger(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++) {
		if (use_futex) {
			futex_wait_turn(1);
			futex_give_turn(0);
		} else if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1) {
			exit(1);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	uint64_t t0;

	rounds = argc > 1 ? atol(argv[1]) : 0;
	use_futex = argc > 2 && !strcmp(argv[2], "futex");
	if (rounds < 1 || (argc > 2 && !use_futex && strcmp(argv[2], "pipe")) || pipe(ping) ||
	    pipe(pong) || pthread_create(&t, NULL, ponger, NULL)) {
		fprintf(stderr, "usage: pingpong ROUNDS [pipe|futex]\n");
		return 2;
	}
	t0 = now_ns();
	for (long i = 0; i < rounds; i++) {
		if (use_futex) {
			futex_give_turn(1);
			futex_wait_turn(0);
		} else {
			hand(ping[1], pong[0]);
		}
	}
	printf("pingpong rounds=%ld ns=%llu\n", rounds, (unsigned long long)(now_ns() - t0));
	pthread_join(t, NULL);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: two threads that hand a byte back and forth over two pipes ROUNDS times: every round
 * trip takes each thread off the CPU once (it blocks in read() until the other writes), the
 * context-switch-heavy workload of bench/offcpu-cost.  At the end it prints
 *
 *   pingpong rounds=N ns=NS            (CLOCK_MONOTONIC from the first write to the last read)
 *
 * Usage: pingpong ROUNDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define FN __attribute__((noinline, used))

static int ping[2], pong[2];
static long rounds;

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

FN static void *ponger(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	uint64_t t0;

	rounds = argc > 1 ? atol(argv[1]) : 0;
	if (rounds < 1 || pipe(ping) || pipe(pong) || pthread_create(&t, NULL, ponger, NULL)) {
		fprintf(stderr, "usage: pingpong ROUNDS\n");
		return 2;
	}
	t0 = now_ns();
	for (long i = 0; i < rounds; i++)
		hand(ping[1], pong[0]);
	printf("pingpong rounds=%ld ns=%llu\n", rounds, (unsigned long long)(now_ns() - t0));
	pthread_join(t, NULL);
	return 0;
}

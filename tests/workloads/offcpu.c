// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu: a workload whose off-CPU time is known by construction and measured in every run.
 *
 *   thread "offcpu-wait":  main -> wait_loop -> f | g | h, ROUNDS times each:
 *     f()  sleeps ~300 ms in nanosleep (every wait divided by DIVISOR, below)
 *     g()  blocks ~200 ms in read() on a pipe that the "offcpu-feed" thread writes 200 ms after
 *          g asked for it
 *     h()  waits ~500 ms in a futex wait that times out
 *   thread "offcpu-feed":  feeder -> feed_wait (read of the request pipe), feed_sleep (nanosleep)
 *   thread "offcpu-spin":  spin_main -> spin (on the CPU all the time)
 *
 * Each of f, g and h measures its own wait right around the system call: the time off the CPU is
 * the wall time (CLOCK_MONOTONIC) less the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) of the
 * call.  The CPU time matters: whatever the thread runs in the kernel around the wait is not
 * waiting, and that includes a profiler's own work at the return to user space (lfr's walk of the
 * user stack, a millisecond or more per wait under an emulated CPU and a debug kernel).  At the end
 * the program prints
 *
 *   offcpu pid=PID wait_tid=TID spin_tid=TID feed_tid=TID rounds=N
 *   offcpu: f_ns=... g_ns=... h_ns=... f_n=N g_n=N h_n=N        (off the CPU: wall - CPU)
 *   offcpu-wall: f_ns=... g_ns=... h_ns=...                      (wall time of the calls)
 *   offcpu-spin: cpu_ns=... (the spinning thread's CPU time, CLOCK_THREAD_CPUTIME_ID)
 *   offcpu-threads: wait_loop_wall_ns=... spin_wall_ns=...  (wall time of wait_loop, of spin_main)
 *
 * which tests/vm/scenarios/offcpu-check.py compares with the lfr.OffCpu events of a recording, and
 * tests/vm/scenarios/wall-check.py with the wall-clock samples of lfr record --wall.
 *
 * Usage: offcpu ROUNDS [DIVISOR [CPU]]
 *
 * DIVISOR (default 1) shortens every wait by that factor: `offcpu 30 10` waits 30, 20 and 50 ms,
 * where a millisecond lost per wait shows as 2-5 %.  CPU puts all three threads on that one CPU
 * (their waits then include the time a woken thread waits for the CPU the spinner holds).  The
 * program pins itself rather than run under taskset: a profiler that runs `taskset ... offcpu`
 * records a program exec'd by its command, whose libraries it may only learn of when the
 * program maps them, and whose first stacks it may then walk by frame pointers alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FN __attribute__((noinline, used))

static volatile int stop;
static int req[2], data[2];
static uint32_t futex_word;
static pid_t spin_tid, feed_tid;
static unsigned divisor = 1;
static uint64_t spin_cpu_ns, spin_wall_ns;

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
	                      .tv_nsec = (long)(ns % 1000000000u)};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A wait's clocks: wall and CPU time at its start, then its wall time and its time off the CPU. */
struct wait {
	uint64_t m0, c0, wall, off;
};

static void wait_begin(struct wait *w)
{
	w->m0 = now_ns(CLOCK_MONOTONIC);
	w->c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void wait_end(struct wait *w)
{
	uint64_t c1 = now_ns(CLOCK_THREAD_CPUTIME_ID), m1 = now_ns(CLOCK_MONOTONIC);

	w->wall = m1 - w->m0;
	w->off = w->wall - (c1 - w->c0);
}

FN static void f(struct wait *w)
{
	wait_begin(w);
	sleep_ns(300000000u / divisor);
	wait_end(w);
}

FN static void g(struct wait *w)
{
	char c = 'r';

	/* the request is inside the clock: the thread may be preempted in it, off the CPU in g */
	wait_begin(w);
	if (write(req[1], &c, 1) != 1)
		exit(1);
	if (read(data[0], &c, 1) != 1)
		exit(1);
	wait_end(w);
}

FN static void h(struct wait *w)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 500000000 / (long)divisor};

	wait_begin(w);
	/* nobody wakes it: it times out after 500 ms (/ divisor) */
	syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	wait_end(w);
}

FN static void feed_wait(void)
{
	char c;

	if (read(req[0], &c, 1) != 1)
		exit(1);
}

FN static void feed_sleep(void)
{
	sleep_ns(200000000u / divisor);
}

FN static void *feeder(void *arg)
{
	char c = 'd';

	(void)arg;
	feed_tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "offcpu-feed");
	for (;;) {
		feed_wait();
		if (stop)
			return NULL;
		feed_sleep();
		if (write(data[1], &c, 1) != 1)
			exit(1);
	}
}

FN static void spin(void)
{
	volatile uint64_t x = 0;

	while (!stop)
		x++;
}

FN static void *spin_main(void *arg)
{
	(void)arg;
	uint64_t m0 = now_ns(CLOCK_MONOTONIC);

	spin_tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "offcpu-spin");
	spin();
	spin_cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
	spin_wall_ns = now_ns(CLOCK_MONOTONIC) - m0;
	return NULL;
}

FN static void wait_loop(int rounds, uint64_t *sum, uint64_t *wall, unsigned *n)
{
	void (*fn[3])(struct wait *) = {f, g, h};

	for (int i = 0; i < rounds; i++)
		for (int k = 0; k < 3; k++) {
			struct wait w;

			fn[k](&w);
			sum[k] += w.off;
			wall[k] += w.wall;
			n[k]++;
		}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	int div = argc > 2 ? atoi(argv[2]) : 1;
	int cpu = argc > 3 ? atoi(argv[3]) : -1;
	uint64_t sum[3] = {0}, wall[3] = {0};
	unsigned n[3] = {0};
	pthread_t spin_t, feed_t;
	char c = 'q';

	if (rounds < 1 || div < 1 || div > 1000 || pipe(req) || pipe(data))
		return 2;
	divisor = (unsigned)div;
	if (cpu >= 0) {
		cpu_set_t set;

		/* before the threads: they inherit it */
		CPU_ZERO(&set);
		if (cpu < CPU_SETSIZE)
			CPU_SET(cpu, &set);
		if (cpu >= CPU_SETSIZE) {
			fprintf(stderr, "offcpu: CPU %d: no such CPU\n", cpu);
			return 2;
		}
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("offcpu: sched_setaffinity");
			return 2;
		}
	}
	pthread_setname_np(pthread_self(), "offcpu-wait");
	if (pthread_create(&spin_t, NULL, spin_main, NULL) ||
	    pthread_create(&feed_t, NULL, feeder, NULL))
		return 2;
	uint64_t m0 = now_ns(CLOCK_MONOTONIC);

	wait_loop(rounds, sum, wall, n);
	uint64_t loop_ns = now_ns(CLOCK_MONOTONIC) - m0;

	stop = 1;
	if (write(req[1], &c, 1) != 1)
		return 2;
	pthread_join(feed_t, NULL);
	pthread_join(spin_t, NULL);
	printf("offcpu pid=%d wait_tid=%d spin_tid=%d feed_tid=%d rounds=%d divisor=%u\n", getpid(),
	       (int)syscall(SYS_gettid), (int)spin_tid, (int)feed_tid, rounds, divisor);
	printf("offcpu: f_ns=%llu g_ns=%llu h_ns=%llu f_n=%u g_n=%u h_n=%u\n",
	       (unsigned long long)sum[0], (unsigned long long)sum[1], (unsigned long long)sum[2],
	       n[0], n[1], n[2]);
	printf("offcpu-wall: f_ns=%llu g_ns=%llu h_ns=%llu\n", (unsigned long long)wall[0],
	       (unsigned long long)wall[1], (unsigned long long)wall[2]);
	printf("offcpu-spin: cpu_ns=%llu\n", (unsigned long long)spin_cpu_ns);
	printf("offcpu-threads: wait_loop_wall_ns=%llu spin_wall_ns=%llu\n",
	       (unsigned long long)loop_ns, (unsigned long long)spin_wall_ns);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * split: a workload whose CPU split is known by construction and measured in every run.
 *
 *   main thread ("split-loop"):  main -> split_loop -> split_a | split_b | split_c
 *   second thread ("split-chain"): chain_main -> chain01 -> chain02 -> ... -> chain40 (spins)
 *
 * split_loop calls the three leaves in turn with work in the ratio 5:3:2 and measures the time of
 * each, so the program knows how the time of the three really split in this run (the ratio of work
 * is only what it aims at: caches, frequency and the host decide the rest).  At the end it prints
 *
 *   split pid=PID loop_tid=TID chain_tid=TID seconds=S iterations=N overhead_ns=O read_ns=R
 *   split: a=49.60 b=30.17 c=20.23
 *   split-raw: a=49.61 b=30.15 c=20.24 (3 of 30579 intervals were stalled)
 *   split-tsc: a=49.80 b=30.05 c=20.15
 *
 * "split-raw:" sums every interval.  "split:" is the same with each interval longer than its
 * leaf's median plus 5 ms counted as the median: on a busy host a virtual CPU can stand still for
 * milliseconds while the thread is on it, and the thread's CPU clock charges all of it to the one
 * leaf it hit, although nothing ran; no profiler sees such time as work.  The "split:" line is the
 * truth, in percent of the three leaves' summed time, that a profiler's
 * share of samples whose leaf is split_a, split_b or split_c must match
 * (tests/vm/scenarios/split-check.py).
 *
 * The three leaves and chain40 call nothing, so gcc gives them no frame (even with
 * -fno-omit-frame-pointer): a frame-pointer walk from them skips their caller unless the caller is
 * recovered otherwise (Documentation/symbolizer.md, "The leaf rule").  The build makes `split` with
 * clang -mno-omit-leaf-frame-pointer (every function has a frame) and `split-gcc` with gcc
 * (frameless leaves).  chain01..chain40 are 40 distinct functions, not recursion, so every frame
 * of the chain can be checked by name.
 *
 * How the time is measured.  A profiler samples CPU time, so the truth is the thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID): time the thread spends preempted is not CPU time, and on a loaded
 * machine one preemption of a few milliseconds would otherwise be charged whole to the one leaf it
 * hit (the time stamp counter counts wall time: in test runs on a shared 2-core machine it put b at
 * 18 % instead of 30 %).  Reading that clock is a system call (the vDSO does not serve CPU-time
 * clocks), so the leaves must not read it themselves or they would no longer be leaves, and
 * samples in the vDSO and the kernel would fall inside the measured intervals.  split_loop reads
 * it between the calls instead; each interval then also holds one clock read and a call.  Their
 * cost is the interval of a fourth leaf without work, split_z, called in the same loop: its mean
 * (overhead_ns) is subtracted from every interval.  It must be measured there, under the same
 * sampling: a tick that hits a clock read makes the profiler walk the stack on the way out of
 * that system call, inside the next interval, and on the debug kernel under emulation that walk
 * costs far more than the read (back-to-back reads before the loop, read_ns, gave a third to
 * a fifth of it).  The leaves also time
 * themselves with rdtsc (one instruction, no call; on arm64 the virtual counter, cntvct_el0),
 * printed as "split-tsc:" for comparison: the two agree on an idle machine, and differ by the
 * preemptions on a busy one.
 *
 * Usage: split SECONDS [START_DELAY_MS [UNIT [CHAIN_SECONDS]]]   (UNIT: iterations of one work
 * unit, default 200000: larger where a clock read costs much, so that its error weighs less;
 * START_DELAY_MS: sleep after printing the pid, before the work starts, so that a recorder can
 * attach; default 0; CHAIN_SECONDS: the chain spins until the loop thread has had that much CPU
 * time, then its thread ends; default 0: the whole run.  A shorter chain halves what a run
 * costs an emulated machine whose CPUs take turns, and changes nothing in the split: the truth
 * is the loop thread's own CPU time)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define FN __attribute__((noinline, used))

/* The CPU's wall-time counter, read by one instruction. */
static inline uint64_t ticks(void)
{
#if defined(__aarch64__)
	uint64_t t;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(t));
	return t;
#else
	return __rdtsc();
#endif
}

static volatile sig_atomic_t stop;
/* Ends the chain (chain40 tests it, the loop sets it: see CHAIN_SECONDS). */
static volatile sig_atomic_t chain_stop;
static uint64_t chain_ns;
/* Iterations of one work unit; a variable, so that no compiler specializes the leaves on it. */
static volatile uint64_t unit = 200000;
uint64_t split_tsc[4], split_ns[4];

/* Every interval measured, per leaf and for split_z, for the robust truth (see main). */
static uint64_t *intervals[4];
static size_t nintervals, capintervals;

static void note_intervals(uint64_t a, uint64_t b, uint64_t c, uint64_t z)
{
	if (nintervals == capintervals) {
		size_t ncap = capintervals ? 2 * capintervals : 4096;

		for (int i = 0; i < 4; i++) {
			uint64_t *p = realloc(intervals[i], ncap * sizeof(*p));

			if (!p) {
				perror("split: realloc");
				exit(1);
			}
			intervals[i] = p;
		}
		capintervals = ncap;
	}
	intervals[0][nintervals] = a;
	intervals[1][nintervals] = b;
	intervals[2][nintervals] = c;
	intervals[3][nintervals] = z;
	nintervals++;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * A leaf's time with every interval longer than the leaf's median plus STALL_NS replaced by the
 * median: the thread CPU clock also counts the time a virtual CPU stood still while the thread was
 * on it (a busy host), charged whole to the one leaf it hit, which no profiler can see as work.
 * STALL_NS is far above what a sample costs the thread (its stack walk: tens of microseconds, up
 * to a millisecond or two on the debug kernel under emulation), so the profiler's own cost stays
 * in the truth.
 */
#define STALL_NS 5000000ull

static uint64_t robust_ns(int leaf, size_t *outliers)
{
	uint64_t *v = malloc(nintervals * sizeof(*v)), med, sum = 0;

	if (!v || !nintervals) {
		free(v);
		return 0;
	}
	memcpy(v, intervals[leaf], nintervals * sizeof(*v));
	qsort(v, nintervals, sizeof(*v), cmp_u64);
	med = v[nintervals / 2];
	for (size_t i = 0; i < nintervals; i++) {
		uint64_t d = intervals[leaf][i];

		if (d > med + STALL_NS) {
			d = med;
			(*outliers)++;
		}
		sum += d;
	}
	free(v);
	return sum;
}
volatile uint64_t split_sink;

/*
 * The work of the leaves: a dependent chain of multiplications, in registers only (a stack slot
 * would make gcc give the leaf a frame).
 */
#define SPIN(n, x)                                                                                 \
	do {                                                                                       \
		for (uint64_t i_ = 0; i_ < (n); i_++)                                              \
			(x) = (x)*6364136223846793005ull + i_;                                     \
	} while (0)

FN void split_a(uint64_t n)
{
	uint64_t t0 = ticks(), x = n;

	SPIN(5 * n, x);
	split_sink = x;
	split_tsc[0] += ticks() - t0;
}

FN void split_b(uint64_t n)
{
	uint64_t t0 = ticks(), x = n + 1;

	SPIN(3 * n, x);
	split_sink = x;
	split_tsc[1] += ticks() - t0;
}

FN void split_c(uint64_t n)
{
	uint64_t t0 = ticks(), x = n + 2;

	SPIN(2 * n, x);
	split_sink = x;
	split_tsc[2] += ticks() - t0;
}

/*
 * No work: its interval is what every leaf's interval holds besides the leaf's work (a call, a
 * return, a clock read, and the share of the profiler's cost that falls on them), measured in
 * the same loop under the same sampling, so that it can be subtracted.
 */
FN void split_z(uint64_t n)
{
	uint64_t t0 = ticks(), x = n + 3;

	split_sink = x;
	split_tsc[3] += ticks() - t0;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Each interval: a call, the leaf, its return and one clock read.  split_z's interval also holds
 * the loop's bookkeeping, so that none of it falls on one leaf; its mean is subtracted from every
 * leaf's intervals at the end.
 */
FN uint64_t split_loop(void)
{
	uint64_t iterations = 0, t = cpu_ns(), chain_end = t + chain_ns;

	while (!stop) {
		uint64_t n = unit, t0, t1, t2, t3;

		split_z(n);
		t0 = cpu_ns();
		split_a(n);
		t1 = cpu_ns();
		split_b(n);
		t2 = cpu_ns();
		split_c(n);
		t3 = cpu_ns();
		split_ns[0] += t1 - t0;
		split_ns[1] += t2 - t1;
		split_ns[2] += t3 - t2;
		split_ns[3] += t0 - t;
		note_intervals(t1 - t0, t2 - t1, t3 - t2, t0 - t);
		t = t3;
		iterations++;
		if (chain_ns && t3 >= chain_end)
			chain_stop = 1;
	}
	return iterations;
}

/* The mean cost of one clock read, from back-to-back reads (printed for comparison only). */
static uint64_t read_overhead(void)
{
	uint64_t t0 = cpu_ns(), t1 = t0;

	for (int i = 0; i < 1000; i++)
		t1 = cpu_ns();
	return (t1 - t0) / 1000;
}

/* The 40-frame chain: chainNN calls chainNN+1, chain40 spins. */
FN void chain40(void)
{
	uint64_t x = 1;

	while (!stop && !chain_stop)
		SPIN(4096, x);
	split_sink = x;
}

/* The empty asm keeps each call from becoming a tail call (which would drop the frame). */
#define CHAIN(n, next)                                                                             \
	FN void chain##n(void)                                                                     \
	{                                                                                          \
		chain##next();                                                                     \
		__asm__ volatile("" ::: "memory");                                                 \
	}

CHAIN(39, 40)
CHAIN(38, 39)
CHAIN(37, 38)
CHAIN(36, 37)
CHAIN(35, 36)
CHAIN(34, 35)
CHAIN(33, 34)
CHAIN(32, 33)
CHAIN(31, 32)
CHAIN(30, 31)
CHAIN(29, 30)
CHAIN(28, 29)
CHAIN(27, 28)
CHAIN(26, 27)
CHAIN(25, 26)
CHAIN(24, 25)
CHAIN(23, 24)
CHAIN(22, 23)
CHAIN(21, 22)
CHAIN(20, 21)
CHAIN(19, 20)
CHAIN(18, 19)
CHAIN(17, 18)
CHAIN(16, 17)
CHAIN(15, 16)
CHAIN(14, 15)
CHAIN(13, 14)
CHAIN(12, 13)
CHAIN(11, 12)
CHAIN(10, 11)
CHAIN(09, 10)
CHAIN(08, 09)
CHAIN(07, 08)
CHAIN(06, 07)
CHAIN(05, 06)
CHAIN(04, 05)
CHAIN(03, 04)
CHAIN(02, 03)
CHAIN(01, 02)

static pthread_barrier_t go;
static pid_t chain_tid;

FN void *chain_main(void *arg)
{
	(void)arg;
	chain_tid = gettid();
	pthread_barrier_wait(&go);
	chain01();
	__asm__ volatile("" ::: "memory");
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 0, delay_ms = argc > 2 ? atoi(argv[2]) : 0;
	long long u = argc > 3 ? atoll(argv[3]) : (long long)unit;
	int chain_secs = argc > 4 ? atoi(argv[4]) : 0;
	struct sigaction sa;
	uint64_t iterations, sum, tsc, overhead;
	double pct[3];
	double t0, t1;
	pthread_t t;
	int err;

	if (argc < 2 || secs < 1 || delay_ms < 0 || u < 1 || chain_secs < 0) {
		fprintf(stderr, "usage: split SECONDS [START_DELAY_MS [UNIT [CHAIN_SECONDS]]]  "
		                "(SECONDS >= 1, UNIT >= 1, CHAIN_SECONDS >= 0)\n");
		return 2;
	}
	unit = (uint64_t)u;
	chain_ns = (uint64_t)chain_secs * 1000000000ull;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	pthread_setname_np(pthread_self(), "split-loop");
	pthread_barrier_init(&go, NULL, 2);
	err = pthread_create(&t, NULL, chain_main, NULL);
	if (err) {
		fprintf(stderr, "split: pthread_create: %s\n", strerror(err));
		return 1;
	}
	pthread_setname_np(t, "split-chain");
	printf("split pid=%d\n", (int)getpid());
	fflush(stdout);
	if (delay_ms > 0) {
		struct timespec ts = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};

		nanosleep(&ts, NULL);
	}
	alarm((unsigned int)secs);
	pthread_barrier_wait(&go);
	overhead = read_overhead();
	t0 = now();
	iterations = split_loop();
	pthread_join(t, NULL);
	t1 = now();
	sum = 0;
	for (int i = 0; i < 3; i++) {
		split_ns[i] -= split_ns[i] > split_ns[3] ? split_ns[3] : split_ns[i];
		sum += split_ns[i];
	}
	tsc = split_tsc[0] + split_tsc[1] + split_tsc[2];
	if (!sum || !tsc) {
		fprintf(stderr, "split: no time measured (SECONDS too short?)\n");
		return 1;
	}
	uint64_t robust[4], rsum = 0;
	size_t outliers = 0;

	robust[3] = robust_ns(3, &outliers);
	for (int i = 0; i < 3; i++) {
		robust[i] = robust_ns(i, &outliers);
		robust[i] -= robust[i] > robust[3] ? robust[3] : robust[i];
		rsum += robust[i];
	}
	if (!rsum) {
		fprintf(stderr, "split: no time measured (SECONDS too short?)\n");
		return 1;
	}
	for (int i = 0; i < 3; i++)
		pct[i] = 100.0 * (double)robust[i] / (double)rsum;
	printf("split pid=%d loop_tid=%d chain_tid=%d seconds=%.3f iterations=%lu overhead_ns=%lu "
	       "read_ns=%lu\n",
	       (int)getpid(), (int)gettid(), (int)chain_tid, t1 - t0, (unsigned long)iterations,
	       (unsigned long)(nintervals ? robust[3] / nintervals : 0), (unsigned long)overhead);
	printf("split: a=%.2f b=%.2f c=%.2f\n", pct[0], pct[1], pct[2]);
	printf("split-raw: a=%.2f b=%.2f c=%.2f (%zu of %zu intervals were stalled)\n",
	       100.0 * (double)split_ns[0] / (double)sum, 100.0 * (double)split_ns[1] / (double)sum,
	       100.0 * (double)split_ns[2] / (double)sum, outliers, 4 * nintervals);
	printf("split-tsc: a=%.2f b=%.2f c=%.2f\n", 100.0 * (double)split_tsc[0] / (double)tsc,
	       100.0 * (double)split_tsc[1] / (double)tsc,
	       100.0 * (double)split_tsc[2] / (double)tsc);
	return 0;
}

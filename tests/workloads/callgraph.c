// SPDX-License-Identifier: GPL-2.0
/*
 * callgraph: a known call graph for checking stack completeness.
 *
 *   main thread ("cg-main"):        main        -> a -> b -> leaf
 *   worker thread ("cg-worker"):    thread_main -> a -> b -> leaf
 *
 * leaf burns CPU in a loop without calls until SECONDS have passed (SIGALRM), so almost every
 * sample taken in this process has its pc inside leaf and the frames b, a and the thread's root
 * above it. Each function sits in its own section so that the program can print the exact address
 * range of each one (the linker provides __start_SECTION and __stop_SECTION):
 *
 *   callgraph pid=PID threads=2
 *   range main 0xLO 0xHI
 *   ...
 *   cputime tid=TID ns=NS start=T0 end=T1  (per thread: its CPU time over its burn, which ran from
 *                                          CLOCK_MONOTONIC T0 to T1, in ns)
 *   cputime process ns=NS     (the whole process's CPU time, from its exec to its end)
 *   done pid=PID
 *
 * Usage: callgraph [SECONDS [START_DELAY_MS | usr1]]   (default 5 s, no delay)
 * START_DELAY_MS sleeps before burning, so a recorder can attach after the ranges are printed: the
 * setup (signal handler, thread creation, thread names) is done before that sleep and the worker
 * waits on a barrier, so a recording that starts during the sleep sees the call graph only.
 * "usr1" waits for SIGUSR1 instead: a test that checks the CPU time of the burn against a
 * recording sends it once the recording runs, however long a loaded machine took to start it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FN(sect) __attribute__((noinline, used, section(sect)))

static volatile sig_atomic_t stop;
static volatile unsigned long sink;

/*
 * GCC gives a function without stack slots no frame even with -fno-omit-frame-pointer
 * -mno-omit-leaf-frame-pointer; a frame-pointer walk from inside such a leaf skips its caller.
 * The volatile local gives leaf a stack slot and so a real frame (push %rbp; mov %rsp,%rbp).
 */
FN("cg_leaf") void leaf(void)
{
	volatile unsigned long x = 0;

	while (!stop)
		for (int i = 0; i < 4096; i++)
			x = x * 31 + (unsigned long)i;
	sink = x;
}

FN("cg_b") void b(void)
{
	leaf();
	__asm__ volatile("" ::: "memory"); /* keeps the call from becoming a tail call */
}

FN("cg_a") void a(void)
{
	b();
	__asm__ volatile("" ::: "memory");
}

static pthread_barrier_t go;

/* A thread's CPU time so far, as the kernel accounts it (sum_exec_runtime). */
static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct burn {
	pid_t tid;
	long long cpu_ns, start, end;
};

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct burn worker_burn;

/*
 * Burns through a() and notes this thread's CPU time over it; a macro, so that a() is called
 * from the thread's root function itself.
 */
#define BURN(out)                                                                                  \
	do {                                                                                       \
		long long t0_ = thread_cpu_ns();                                                   \
		(out)->start = mono_ns();                                                          \
		a();                                                                               \
		(out)->end = mono_ns();                                                            \
		(out)->cpu_ns = thread_cpu_ns() - t0_;                                             \
		(out)->tid = gettid();                                                             \
	} while (0)

FN("cg_thread_main") void *thread_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	BURN(&worker_burn);
	__asm__ volatile("" ::: "memory");
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

extern char __start_cg_leaf[], __stop_cg_leaf[], __start_cg_b[], __stop_cg_b[];
extern char __start_cg_a[], __stop_cg_a[], __start_cg_main[], __stop_cg_main[];
extern char __start_cg_thread_main[], __stop_cg_thread_main[];

static void print_range(const char *name, const char *lo, const char *hi)
{
	printf("range %s %p %p\n", name, (const void *)lo, (const void *)hi);
}

FN("cg_main") int main(int argc, char **argv)
{
	unsigned int secs = argc > 1 ? (unsigned int)atoi(argv[1]) : 5;
	bool on_usr1 = argc > 2 && !strcmp(argv[2], "usr1");
	int delay_ms = argc > 2 && !on_usr1 ? atoi(argv[2]) : 0;
	sigset_t usr1;
	struct sigaction sa;
	pthread_t t;
	int err;

	if (secs == 0) {
		fprintf(stderr,
		        "usage: callgraph [SECONDS [START_DELAY_MS | usr1]] (SECONDS >= 1)\n");
		return 2;
	}
	printf("callgraph pid=%d threads=2\n", (int)getpid());
	print_range("main", __start_cg_main, __stop_cg_main);
	print_range("thread_main", __start_cg_thread_main, __stop_cg_thread_main);
	print_range("a", __start_cg_a, __stop_cg_a);
	print_range("b", __start_cg_b, __stop_cg_b);
	print_range("leaf", __start_cg_leaf, __stop_cg_leaf);
	fflush(stdout);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* blocked before the worker exists, so that it inherits the mask and main takes the signal
	 */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_setname_np(pthread_self(), "cg-main");
	pthread_barrier_init(&go, NULL, 2);
	err = pthread_create(&t, NULL, thread_main, NULL);
	if (err) {
		fprintf(stderr, "callgraph: pthread_create: %s\n", strerror(err));
		return 1;
	}
	pthread_setname_np(t, "cg-worker");
	if (on_usr1) {
		int sig;

		sigwait(&usr1, &sig);
	} else if (delay_ms > 0) {
		struct timespec ts = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};

		nanosleep(&ts, NULL);
	}
	alarm(secs);
	pthread_barrier_wait(&go);
	struct burn main_burn;

	BURN(&main_burn);
	pthread_join(t, NULL);
	printf("cputime tid=%d ns=%lld start=%lld end=%lld\n", (int)main_burn.tid, main_burn.cpu_ns,
	       main_burn.start, main_burn.end);
	printf("cputime tid=%d ns=%lld start=%lld end=%lld\n", (int)worker_burn.tid,
	       worker_burn.cpu_ns, worker_burn.start, worker_burn.end);
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("cputime process ns=%lld\n",
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	printf("done pid=%d\n", (int)getpid());
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * named: threads that name themselves and burn CPU, for the thread lifecycle and naming tests.
 *
 *   named SECONDS [THREADS] [PREFIX]     (default 2 threads, prefix "nw")
 *
 * The main thread renames itself PREFIX-main with prctl(PR_SET_NAME), then starts THREADS threads;
 * thread i is named PREFIX-w<i> by its creator with pthread_setname_np and burns CPU until SECONDS
 * have passed, as does the main thread; the threads are joined before exit.  Each thread prints
 * one line, in the order they start:
 *
 *   named pid=PID tid=TID ptid=CREATOR name=NAME
 *
 * and when all are done: "named done pid=PID cpu_s=S" with the process's user+system CPU time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double end_time;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void burn(void)
{
	volatile unsigned long x = 0;

	while (now() < end_time)
		for (int i = 0; i < 100000; i++)
			x += i;
}

struct arg {
	pid_t creator;
	pthread_barrier_t *named;
};

static void say(pid_t creator)
{
	char name[16] = "";

	prctl(PR_GET_NAME, name);
	pthread_mutex_lock(&out_lock);
	printf("named pid=%d tid=%ld ptid=%d name=%s\n", getpid(), (long)syscall(SYS_gettid),
	       (int)creator, name);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static void *worker(void *p)
{
	struct arg *a = p;

	pthread_barrier_wait(a->named); /* the creator has named this thread */
	say(a->creator);
	burn();
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	int n = argc > 2 ? atoi(argv[2]) : 2;
	const char *prefix = argc > 3 ? argv[3] : "nw";
	pid_t self = (pid_t)syscall(SYS_gettid);
	pthread_t *th = calloc(n > 0 ? n : 1, sizeof(*th));
	pthread_barrier_t *named = calloc(n > 0 ? n : 1, sizeof(*named));
	struct arg *args = calloc(n > 0 ? n : 1, sizeof(*args));
	struct rusage ru;
	char name[16];

	if (!th || !named || !args || n < 0)
		return 1;
	end_time = now() + secs;
	snprintf(name, sizeof(name), "%s-main", prefix);
	prctl(PR_SET_NAME, name);
	say(getppid());
	for (int i = 0; i < n; i++) {
		args[i].creator = self;
		args[i].named = &named[i];
		pthread_barrier_init(&named[i], NULL, 2);
		if (pthread_create(&th[i], NULL, worker, &args[i]))
			return 1;
		snprintf(name, sizeof(name), "%s-w%d", prefix, i);
		pthread_setname_np(th[i], name);
		pthread_barrier_wait(&named[i]);
	}
	burn();
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("named done pid=%d cpu_s=%.3f\n", getpid(),
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	           ru.ru_stime.tv_usec / 1e6);
	return 0;
}

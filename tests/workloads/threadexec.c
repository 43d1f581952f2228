// SPDX-License-Identifier: GPL-2.0
/*
 * threadexec: a thread other than the main one execs, for the thread lifecycle tests.
 *
 *   threadexec SECONDS
 *
 * The main thread starts a thread named te-execer and waits; that thread burns CPU for half of
 * SECONDS, prints
 *
 *   threadexec pid=PID tid=TID ptid=PID name=te-execer
 *
 * and execs this program again.  The kernel ends every other thread of the process (the main one
 * too) and the exec'ing thread goes on under the main thread's id, PID: its own id TID ends there,
 * with no exit of its own.  The new image names itself te-after, burns CPU for the other half and
 * prints "threadexec after pid=PID tid=PID".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double seconds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void burn(double secs)
{
	volatile unsigned long x = 0;
	double end = now() + secs;

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			x += i;
}

static void *execer(void *unused)
{
	char arg[32];

	(void)unused;
	burn(seconds / 2);
	printf("threadexec pid=%d tid=%ld ptid=%d name=te-execer\n", getpid(),
	       (long)syscall(SYS_gettid), getpid());
	fflush(stdout);
	snprintf(arg, sizeof(arg), "%g", seconds / 2);
	execl("/proc/self/exe", "threadexec", "--after", arg, (char *)NULL);
	perror("threadexec: exec /proc/self/exe");
	exit(1);
}

int main(int argc, char **argv)
{
	pthread_t t;
	int err;

	if (argc == 3 && !strcmp(argv[1], "--after")) {
		prctl(PR_SET_NAME, "te-after");
		burn(atof(argv[2]));
		printf("threadexec after pid=%d tid=%ld\n", getpid(), (long)syscall(SYS_gettid));
		return 0;
	}
	if (argc != 2 || (seconds = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: threadexec SECONDS\n");
		return 2;
	}
	if ((err = pthread_create(&t, NULL, execer, NULL))) {
		fprintf(stderr, "threadexec: pthread_create: %s\n", strerror(err));
		return 1;
	}
	pthread_setname_np(t, "te-execer");
	/* the exec ends this thread; the join never returns */
	pthread_join(t, NULL);
	return 1;
}

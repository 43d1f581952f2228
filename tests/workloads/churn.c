// SPDX-License-Identifier: GPL-2.0
/*
 * churn: threads and processes being created, exec-ing and exiting in a loop, for stress tests.
 *
 *   churn SECONDS [THREADS]      (default 200 threads)
 *
 * The parent keeps CELLS child processes ("cells") alive until SECONDS have passed.  Each cell
 * keeps THREADS / CELLS threads alive, of two kinds.  Three quarters are long-lived: each burns a
 * random 0.05-2 ms of CPU, sleeps 4-12 s and exits.  The others churn fast: each burns 0.05-2 ms,
 * sleeps up to 20 ms, now and then forks a child that execs "churn --noop" and exits at once, and
 * exits.  The cell starts a new thread in the place of each one that exits.  After a random 4-10 s
 * a cell execs itself again while all its threads are alive, so exec always races with running,
 * sleeping and exiting threads.  (The long-lived threads keep the population up even when thread
 * creation is slow, as it is under heavy sampling in an emulated machine.)  Counters survive the
 * exec in argv; each cell reports its totals through a pipe when the deadline has passed, and the
 * parent prints:
 *
 *   churn pid=PID seconds=S threads=N
 *   churn done threads_created=T execs=E forks=F cells=C peak_threads=P
 *
 * peak_threads is the sum over the cells of the most threads each had alive at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CELLS 8

static atomic_ulong threads_created, forks_done;
static atomic_int alive, alive_long;
static int64_t deadline;
static volatile unsigned long sink;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void burn_ns(int64_t ns)
{
	struct timespec ts;
	int64_t end;
	unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + ns;
	do {
		for (int i = 0; i < 2000; i++)
			x = x * 33 + (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec < end);
	sink = x;
}

/* Sleeps NS, but not past the deadline. */
static void sleep_until_deadline(int64_t ns)
{
	int64_t end = now_ns() + ns;

	if (end > deadline)
		end = deadline;
	while (now_ns() < end)
		usleep(100000);
}

static void *worker(void *arg)
{
	unsigned int seed = (unsigned int)((uintptr_t)arg >> 1);
	bool long_lived = (uintptr_t)arg & 1;

	burn_ns(50000 + rand_r(&seed) % 1950000);
	if (long_lived) {
		sleep_until_deadline(4000000000 + (int64_t)(rand_r(&seed) % 8000) * 1000000);
		atomic_fetch_sub(&alive_long, 1);
		atomic_fetch_sub(&alive, 1);
		return NULL;
	}
	usleep(rand_r(&seed) % 20000);
	if (rand_r(&seed) % 16 == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/proc/self/exe", "churn", "--noop", (char *)NULL);
			_exit(127);
		}
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			atomic_fetch_add(&forks_done, 1);
		}
	}
	atomic_fetch_sub(&alive, 1);
	return NULL;
}

/* churn --cell DEADLINE_NS THREADS REPORT_FD CREATED EXECS FORKS PEAK */
static int cell(char **argv)
{
	int nthreads = atoi(argv[1]), report_fd = atoi(argv[2]);
	unsigned long created = strtoul(argv[3], NULL, 10), execs = strtoul(argv[4], NULL, 10);
	unsigned long forks = strtoul(argv[5], NULL, 10), peak = strtoul(argv[6], NULL, 10);
	unsigned int seed = (unsigned int)getpid() ^ (unsigned int)now_ns();
	int64_t exec_at = now_ns() + 4000000000 + (int64_t)(rand_r(&seed) % 6000) * 1000000;
	int nlong = nthreads * 3 / 4;
	pthread_attr_t attr;

	deadline = strtoll(argv[0], NULL, 10);
	prctl(PR_SET_NAME, "churn-cell"); /* exec of /proc/self/exe would name it "exe" */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		int64_t t = now_ns();

		if (t >= deadline) {
			char line[128];
			int len;

			while (atomic_load(&alive) > 0)
				usleep(1000);
			len = snprintf(line, sizeof(line), "%lu %lu %lu %lu\n",
			               created + atomic_load(&threads_created), execs,
			               forks + atomic_load(&forks_done), peak);
			if (write(report_fd, line, (size_t)len) != len)
				return 1;
			return 0;
		}
		if (t >= exec_at) {
			char a[7][32];

			snprintf(a[0], sizeof(a[0]), "%" PRId64, deadline);
			snprintf(a[1], sizeof(a[1]), "%d", nthreads);
			snprintf(a[2], sizeof(a[2]), "%d", report_fd);
			snprintf(a[3], sizeof(a[3]), "%lu",
			         created + atomic_load(&threads_created));
			snprintf(a[4], sizeof(a[4]), "%lu", execs + 1);
			snprintf(a[5], sizeof(a[5]), "%lu", forks + atomic_load(&forks_done));
			snprintf(a[6], sizeof(a[6]), "%lu", peak);
			execl("/proc/self/exe", "churn", "--cell", a[0], a[1], a[2], a[3], a[4],
			      a[5], a[6], (char *)NULL);
			fprintf(stderr, "churn: exec /proc/self/exe: %s\n", strerror(errno));
			return 1;
		}
		/* a bounded batch, so that exec and the deadline are checked even when threads die
		 * as fast as they are created */
		for (int batch = 0; batch < 16 && atomic_load(&alive) < nthreads; batch++) {
			bool long_lived = atomic_load(&alive_long) < nlong;
			uintptr_t warg = ((uintptr_t)rand_r(&seed) << 1) | long_lived;
			pthread_t th;

			atomic_fetch_add(&alive, 1);
			if (long_lived)
				atomic_fetch_add(&alive_long, 1);
			if (pthread_create(&th, &attr, worker, (void *)warg)) {
				atomic_fetch_sub(&alive, 1);
				if (long_lived)
					atomic_fetch_sub(&alive_long, 1);
				break;
			}
			atomic_fetch_add(&threads_created, 1);
		}
		if ((unsigned long)atomic_load(&alive) > peak)
			peak = (unsigned long)atomic_load(&alive);
		usleep(500);
	}
}

int main(int argc, char **argv)
{
	unsigned long created = 0, execs = 0, forks = 0, peak = 0;
	int nthreads, fds[2];
	double secs;
	char a[3][32];
	FILE *report;

	if (argc >= 2 && !strcmp(argv[1], "--noop"))
		return 0;
	if (argc == 9 && !strcmp(argv[1], "--cell"))
		return cell(argv + 2);
	if (argc < 2 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: churn SECONDS [THREADS]\n");
		return 2;
	}
	nthreads = argc > 2 ? atoi(argv[2]) : 200;
	if (nthreads < CELLS) {
		fprintf(stderr, "churn: THREADS must be at least %d\n", CELLS);
		return 2;
	}
	if (pipe(fds)) {
		perror("churn: pipe");
		return 1;
	}
	printf("churn pid=%d seconds=%g threads=%d\n", (int)getpid(), secs, nthreads);
	fflush(stdout);
	snprintf(a[0], sizeof(a[0]), "%" PRId64, now_ns() + (int64_t)(secs * 1e9));
	snprintf(a[1], sizeof(a[1]), "%d", nthreads / CELLS);
	snprintf(a[2], sizeof(a[2]), "%d", fds[1]);
	for (int i = 0; i < CELLS; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("churn: fork");
			return 1;
		}
		if (pid == 0) {
			close(fds[0]);
			execl("/proc/self/exe", "churn", "--cell", a[0], a[1], a[2], "0", "0", "0",
			      "0", (char *)NULL);
			_exit(127);
		}
	}
	close(fds[1]);
	report = fdopen(fds[0], "r");
	for (int i = 0; i < CELLS; i++) {
		unsigned long c, e, f, p;

		if (!report || fscanf(report, "%lu %lu %lu %lu", &c, &e, &f, &p) != 4) {
			fprintf(stderr, "churn: a cell died before reporting\n");
			return 1;
		}
		created += c;
		execs += e;
		forks += f;
		peak += p;
	}
	for (int i = 0; i < CELLS; i++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "churn: a cell failed\n");
			return 1;
		}
	}
	printf("churn done threads_created=%lu execs=%lu forks=%lu cells=%d peak_threads=%lu\n",
	       created, execs, forks, CELLS, peak);
	return 0;
}

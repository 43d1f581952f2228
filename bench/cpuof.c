// SPDX-License-Identifier: GPL-2.0
/*
 * cpuof: runs a command and reports the CPU time of that process itself, apart from its children.
 *
 * Usage: cpuof [-c COMM] COMMAND [ARGS...]
 *
 * A profiler that runs its workload as a child (lfr record -- CMD, perf record -- CMD) is charged
 * with that child's CPU time by wait4()'s rusage and by `time`.  cpuof waits for the process with
 * WNOWAIT, reads the still unreaped process's /proc/PID/stat (its own utime and stime, and its
 * waited-for children's), then reaps it.  It prints on stderr
 *
 *   cpuof: status=S wall=SECONDS self_user=S self_sys=S children_user=S children_sys=S
 *
 * While it waits it also looks every 5 ms whether the process has a child (the workload; with -c,
 * a child whose name is COMM, that is after the workload's exec), and adds the CPU time the
 * process itself used between the first and the last look that found one:
 *
 *   cpuof: ... during_child=S child_seen=SECONDS
 *
 * which leaves out a profiler's start-up and tear-down (reading symbol tables, build ids).
 * It exits with the command's exit status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Fields 14-17 of /proc/PID/stat: utime stime cutime cstime, in clock ticks. */
static int read_times(pid_t pid, unsigned long long t[4])
{
	char path[64], buf[4096], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the command name may hold spaces */
	if (!p)
		return -1;
	/* after ") " come field 3 (state) .. : skip fields 3..13 */
	p += 2;
	for (int i = 3; i < 14; i++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	return sscanf(p, "%llu %llu %llu %llu", &t[0], &t[1], &t[2], &t[3]) == 4 ? 0 : -1;
}

static int has_child(pid_t pid, const char *comm)
{
	char path[64], buf[64];
	FILE *f;
	size_t n;
	int child;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (!n || !comm)
		return n > 0;
	child = atoi(buf);
	snprintf(path, sizeof(path), "/proc/%d/comm", child);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return !strcmp(buf, comm);
}

int main(int argc, char **argv)
{
	unsigned long long first[4] = {0}, last[4] = {0}, cur[4];
	double seen0 = 0, seen1 = 0;
	int seen = 0;
	unsigned long long t[4] = {0};
	double hz = (double)sysconf(_SC_CLK_TCK), t0;
	siginfo_t si;
	pid_t pid;
	int status;

	const char *comm = NULL;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		comm = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: cpuof [-c COMM] COMMAND [ARGS...]\n");
		return 2;
	}
	t0 = now();
	pid = fork();
	if (pid < 0) {
		perror("cpuof: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "cpuof: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	for (;;) {
		struct timespec ts = {0, 5000000};

		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | WNOHANG) < 0) {
			if (errno == EINTR)
				continue;
			perror("cpuof: waitid");
			return 1;
		}
		if (si.si_pid == pid)
			break;
		if (has_child(pid, comm) && !read_times(pid, cur)) {
			if (!seen) {
				memcpy(first, cur, sizeof(cur));
				seen0 = now();
				seen = 1;
			}
			memcpy(last, cur, sizeof(cur));
			seen1 = now();
		}
		nanosleep(&ts, NULL);
	}
	if (read_times(pid, t))
		fprintf(stderr, "cpuof: cannot read /proc/%d/stat\n", (int)pid);
	if (waitpid(pid, &status, 0) < 0) {
		perror("cpuof: waitpid");
		return 1;
	}
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(stderr,
	        "cpuof: status=%d wall=%.3f self_user=%.2f self_sys=%.2f children_user=%.2f "
	        "children_sys=%.2f during_child=%.2f child_seen=%.3f\n",
	        status, now() - t0, (double)t[0] / hz, (double)t[1] / hz, (double)t[2] / hz,
	        (double)t[3] / hz, (double)(last[0] + last[1] - first[0] - first[1]) / hz,
	        seen1 - seen0);
	return status;
}

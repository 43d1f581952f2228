// SPDX-License-Identifier: GPL-2.0
/*
 * undumpable [--caps UID] [--dumpable] [--pidfile FILE] [SECS]: a process that ptrace would not
 * let its user read, burning CPU for SECS seconds (default 1) once it is so.
 *
 *   (default)     it makes itself not dumpable (prctl PR_SET_DUMPABLE 0), as a set-id program
 *                 that dropped its ids stays
 *   --caps UID    run as root: it becomes UID (all its user and group ids, group = UID) but keeps
 *                 CAP_NET_RAW in its permitted set and makes itself dumpable again: its ids are
 *                 UID's, yet it holds a capability that UID does not
 *   --dumpable    it changes nothing (a set-uid copy of it is another user's process)
 *   --pidfile F   once it is so, it writes its pid to F, so that a test can move it into a
 *                 cgroup only then
 *
 * A session without privileges of its user must never sample it in that state
 * (tests/vm/scenarios/unpriv-cgroup.sh).
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Becomes @uid with CAP_NET_RAW permitted, dumpable: 0, or -1 with a message. */
static int keep_cap_as(unsigned int uid)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid)) {
		perror("undumpable: keepcaps, setresgid, setresuid");
		return -1;
	}
	memset(d, 0, sizeof(d));
	d[0].permitted = 1u << CAP_NET_RAW;
	if (syscall(SYS_capset, &h, d) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		perror("undumpable: capset, dumpable");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL;
	volatile unsigned long x = 0;
	bool dumpable = false;
	double secs = 1.0, end;
	int caps_uid = -1, i;
	FILE *f;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--caps") && i + 1 < argc)
			caps_uid = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dumpable"))
			dumpable = true;
		else if (!strcmp(argv[i], "--pidfile") && i + 1 < argc)
			pidfile = argv[++i];
		else
			secs = atof(argv[i]);
	}
	if (caps_uid >= 0) {
		if (keep_cap_as((unsigned int)caps_uid))
			return 1;
	} else if (!dumpable && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		perror("undumpable: prctl");
		return 1;
	}
	if (pidfile) {
		f = fopen(pidfile, "w");
		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
			perror(pidfile);
			return 1;
		}
	}
	end = now() + secs;
	while (now() < end)
		for (int k = 0; k < 100000; k++)
			x += k;
	return 0;
}

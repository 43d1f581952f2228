// SPDX-License-Identifier: GPL-2.0
/* A caller without CAP_PERFMON (privileges.h). */
#include <errno.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/privileges.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

/*
 * Whether the process is in the initial user namespace, whose capabilities are the module's
 * (its uid_map maps every id to itself): in a container's, CAP_PERFMON of the container is none.
 */
static bool initial_user_ns(void)
{
	unsigned long long inside, outside, count;
	FILE *f = fopen("/proc/self/uid_map", "re");
	bool initial = true;

	if (!f)
		return true;
	if (fscanf(f, "%llu %llu %llu", &inside, &outside, &count) == 3)
		initial = !inside && !outside && count == 4294967295ull;
	fclose(f);
	return initial;
}

bool cli_privileged(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {0};

	if (!initial_user_ns())
		return false;
	if (syscall(SYS_capget, &h, d))
		return geteuid() == 0;
	return (d[CAP_PERFMON / 32].effective >> (CAP_PERFMON % 32) & 1) ||
	       (d[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32) & 1);
}

int cli_kernel_proof(char *why, size_t whylen)
{
	struct perf_event_attr a = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(a),
	    .config = PERF_COUNT_SW_DUMMY,
	    .disabled = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC), err;
	char level[16] = "?";
	FILE *f;

	if (fd >= 0)
		return fd;
	err = errno;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (!fgets(level, sizeof(level), f))
			snprintf(level, sizeof(level), "?");
		level[strcspn(level, "\n")] = 0;
		fclose(f);
	}
	snprintf(why, whylen,
	         "perf refuses this user the kernel (%s; kernel.perf_event_paranoid is %s, "
	         "1 or less allows it)",
	         strerror(err), level);
	return -1;
}

uint64_t cli_locked_budget(void)
{
	unsigned long long kb = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rlimit rl;
	uint64_t b = 0;
	FILE *f = fopen("/sys/module/lfr/parameters/mlock_kb", "re");

	if (f) {
		if (fscanf(f, "%llu", &kb) != 1)
			kb = 0;
		fclose(f);
	}
	if (cpus > 0)
		b = (uint64_t)kb * 1024 * (uint64_t)cpus;
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		b += rl.rlim_cur;
	else if (!getrlimit(RLIMIT_MEMLOCK, &rl))
		return 0;
	return b;
}

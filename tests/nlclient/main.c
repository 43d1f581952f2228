// SPDX-License-Identifier: GPL-2.0
/*
 * lfr-nl: a second client of lfr.ko, independent of liblfr (libnl-3 instead of libmnl).
 *   lfr-nl overrun      a START whose reply cannot be delivered leaves no session running
 *   lfr-nl listen       join the event group: exit 0 joined, 13 refused (EPERM)
 *   lfr-nl mmap         /dev/lfr: bad offsets and sizes refused, data read-only, sessions bound
 *                       to their starter
 *   lfr-nl unwind       UNWIND_ADD: bad descriptors and tables refused, the cap, eviction
 *   lfr-nl unwind-count UNWIND_ADD of LFR_UNWIND_MAX_TABLES + 1 tables: one is dropped
 *   lfr-nl status       STATUS: totals in the reply, per-CPU counters as a dump that sums to them
 *   lfr-nl owner        STOP and ABANDON of another user's session are refused, STATUS is not
 *   lfr-nl memlock ALLOWED TOO_MANY   as uid 65534 with CAP_PERFMON and RLIMIT_MEMLOCK 0: a
 *                       session of ALLOWED ring pages starts, one of TOO_MANY is refused (EPERM),
 *                       and the charge of a freed session is given back
 *   lfr-nl unpriv CGROUP ROOT_SESSION   as a user without CAP_PERFMON whose delegated cgroup is
 *                       CGROUP: every way in the module closes to it, then what it may do
 *   lfr-nl map SESSION [RING_PAGES]   maps CPU 0's ring of SESSION (default 8 pages): exit 0
 *                       mapped, 13 EACCES, 1 otherwise
 *   lfr-nl privmap      uid 65534 without CAP_PERFMON maps not the session it started with it
 *   lfr-nl netns-portid a socket of the owner's port id closing in another network namespace
 *                       stops no session (exit 2: no network namespaces)
 *   lfr-nl ksym         KSYM: names as /proc/kallsyms gives them, bad requests and senders refused
 *   lfr-nl nosyslog PROG ARGS   runs PROG without CAP_SYSLOG (dropped from the bounding set)
 *   lfr-nl fuzz [-t SECONDS] [-n MESSAGES] [-r]   the fuzzer (-r: also rmmod/insmod)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "overrun"))
		return check_overrun();
	if (argc >= 2 && !strcmp(argv[1], "listen"))
		return check_listen();
	if (argc >= 2 && !strcmp(argv[1], "mmap"))
		return check_mmap();
	if (argc >= 2 && !strcmp(argv[1], "owner"))
		return check_owner();
	if (argc >= 2 && !strcmp(argv[1], "unwind"))
		return check_unwind();
	if (argc >= 2 && !strcmp(argv[1], "unwind-count"))
		return check_unwind_count();
	if (argc >= 2 && !strcmp(argv[1], "status"))
		return check_status();
	if (argc >= 4 && !strcmp(argv[1], "memlock"))
		return check_memlock((uint32_t)strtoul(argv[2], NULL, 10),
		                     (uint32_t)strtoul(argv[3], NULL, 10));
	if (argc >= 4 && !strcmp(argv[1], "unpriv"))
		return check_unpriv(argv[2], (uint32_t)strtoul(argv[3], NULL, 10));
	if (argc >= 2 && !strcmp(argv[1], "privmap"))
		return check_privmap();
	if (argc >= 2 && !strcmp(argv[1], "netns-portid"))
		return check_netns_portid();
	if (argc >= 3 && !strcmp(argv[1], "map"))
		return check_map((uint32_t)strtoul(argv[2], NULL, 10),
		                 argc >= 4 ? (uint32_t)strtoul(argv[3], NULL, 10) : 8);
	if (argc >= 2 && !strcmp(argv[1], "ksym"))
		return check_ksym();
	if (argc >= 3 && !strcmp(argv[1], "nosyslog"))
		return run_nosyslog(argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "fuzz"))
		return fuzz_main(argc - 1, argv + 1);
	fprintf(stderr,
	        "usage: lfr-nl overrun|listen|mmap|owner|status|unwind|unwind-count|"
	        "memlock A B|unpriv CGROUP ROOT_SESSION|map "
	        "SESSION [RING_PAGES]|privmap|netns-portid|ksym|nosyslog PROG|fuzz [-t SECONDS] "
	        "[-n MESSAGES] [-r]\n");
	return 2;
}

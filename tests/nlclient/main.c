// SPDX-License-Identifier: GPL-2.0
/*
 * lfr-nl: a second client of lfr.ko, independent of liblfr (libnl-3 instead of libmnl).
 *   lfr-nl overrun      a START whose reply cannot be delivered leaves no session running
 *   lfr-nl listen       join the event group: exit 0 joined, 13 refused (EPERM)
 *   lfr-nl mmap         /dev/lfr: bad offsets and sizes refused, data read-only, sessions bound
 *                       to their starter
 *   lfr-nl fuzz [-t SECONDS] [-n MESSAGES] [-r]   the fuzzer (-r: also rmmod/insmod)
 */
#include <stdio.h>
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
	if (argc >= 2 && !strcmp(argv[1], "fuzz"))
		return fuzz_main(argc - 1, argv + 1);
	fprintf(stderr, "usage: lfr-nl overrun|listen|mmap|fuzz [-t SECONDS] [-n MESSAGES] [-r]\n");
	return 2;
}

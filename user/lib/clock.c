// SPDX-License-Identifier: GPL-2.0
/* The time namespace's offset of CLOCK_MONOTONIC (see clock.h). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"

int64_t lfr_timens_parse(const char *text)
{
	const char *line = text;

	while (line && *line) {
		long long sec, nsec;

		if (sscanf(line, "monotonic %lld %lld", &sec, &nsec) == 2 && nsec > -1000000000ll &&
		    nsec < 1000000000ll && sec > -(1ll << 32) && sec < (1ll << 32))
			return (int64_t)sec * 1000000000 + nsec;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

static int64_t offset;
static pthread_once_t offset_once = PTHREAD_ONCE_INIT;

static void read_offset(void)
{
	char buf[256];
	int fd = open("/proc/self/timens_offsets", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	offset = lfr_timens_parse(buf);
}

int64_t lfr_timens_mono_offset(void)
{
	pthread_once(&offset_once, read_offset);
	return offset;
}

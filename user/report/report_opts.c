// SPDX-License-Identifier: GPL-2.0
/* The options of `lfr report`'s aggregation: defaults, --wall's types, durations. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

void report_opts_init(struct report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->from_ns = -1;
	o->to_ns = -1;
	o->top = 20;
}

const char *const wall_types[3] = {"profiler.WallClockSample", "jdk.ExecutionSample",
                                   "jdk.NativeMethodSample"};

void report_opts_wall(struct report_opts *o)
{
	o->wall = true;
	for (int i = 0; i < 3; i++)
		o->events[o->nevents++] = wall_types[i];
}

int64_t report_parse_duration(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);

	if (end == s || errno || v < 0)
		return -1;
	double mult = 1e9;
	if (!*end || !strcmp(end, "s"))
		mult = 1e9;
	else if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "ns"))
		mult = 1;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mult = 60e9;
	else if (!strcmp(end, "h"))
		mult = 3600e9;
	else
		return -1;
	if (v * mult > 9.2e18)
		return -1;
	return (int64_t)(v * mult);
}

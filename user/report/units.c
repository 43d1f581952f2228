// SPDX-License-Identifier: GPL-2.0
/* What a report's values are and what time a sample stands for.  See units.h. */
#include <string.h>

#include "report/units.h"

enum sampled { SAMPLED_NONE, SAMPLED_CPU, SAMPLED_WALL };

/*
 * The time one counted event stands for, by the event types counted: the sampler's samples of
 * threads on the CPU (jdk.ExecutionSample, or JDK 25's jdk.CPUTimeSample, which lfr writes for
 * the same ticks: one of the two) stand for CPU time; the wall-clock samples of lfr record --wall
 * (profiler.WallClockSample, or, in files of earlier lfr versions, the samples of threads off the
 * CPU, jdk.NativeMethodSample, with those on it) for wall-clock time.
 */
static enum sampled sampled_time(const struct report_opts *o)
{
	int on_cpu = 0;
	bool off_cpu = o->wall;

	if (!o->nevents)
		return SAMPLED_CPU; /* jdk.ExecutionSample */
	for (int i = 0; i < o->nevents; i++) {
		const char *e = o->events[i];

		if (!strcmp(e, "jdk.ExecutionSample") || !strcmp(e, "jdk.CPUTimeSample"))
			on_cpu++;
		else if (!strcmp(e, "jdk.NativeMethodSample") ||
		         !strcmp(e, "profiler.WallClockSample"))
			off_cpu = true;
		else
			return SAMPLED_NONE; /* "all", lfr.OffCpu, another program's events */
	}
	if (on_cpu > 1)
		return SAMPLED_NONE; /* the same ticks twice */
	return off_cpu ? SAMPLED_WALL : SAMPLED_CPU;
}

void report_units(const struct report *rep, const struct report_opts *o, struct report_units *u)
{
	memset(u, 0, sizeof(*u));
	if (o->off_cpu) {
		u->type = "off-cpu";
		u->unit = "nanoseconds";
		u->words = "off-CPU ns";
		return;
	}
	if (o->latency) {
		u->type = "latency";
		u->unit = "nanoseconds";
		u->words = "latency ns";
		return;
	}
	if (o->value_field) {
		/* a field's unit is not known: summed as it is */
		u->type = u->words = o->value_field;
		u->unit = "count";
		return;
	}
	u->type = u->words = "samples";
	u->unit = "count";
	if (rep->period_ns <= 0 || rep->period_mixed)
		return;
	switch (sampled_time(o)) {
	case SAMPLED_CPU:
		u->time_type = "cpu";
		u->time_name = "CPU time";
		break;
	case SAMPLED_WALL:
		u->time_type = "wall";
		u->time_name = "wall-clock time";
		break;
	default:
		return;
	}
	u->time_unit = "nanoseconds";
	u->period_ns = rep->period_ns;
}

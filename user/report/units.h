/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a report's values are, and what time one sample stands for: the one rule that pprof's
 * sample and period types, speedscope's unit and weights and the text views' units follow (and
 * any other exporter: OTLP's profiles take pprof's types).
 *
 * The values are counted events ("samples"/"count"), or a field summed: the durations of
 * --off-cpu ("off-cpu"/"nanoseconds") and --latency ("latency"/"nanoseconds"), any other
 * --value field (its name/"count").  A counted sample stands for one sampling period of time
 * when the recording gives its period (lfr.SamplerSettings, the same in every chunk) and the
 * events counted are its sampler's: jdk.ExecutionSample alone stands for CPU time ("cpu"), with
 * --wall (or jdk.NativeMethodSample, lfr's samples of a thread off the CPU) for wall-clock time
 * ("wall").  Anything else (another event type, a JVM's recording without that event) stands
 * for no known time: counts only.
 */
#ifndef LFR_REPORT_UNITS_H
#define LFR_REPORT_UNITS_H

#include <stdint.h>

#include "report/report.h"

/* v as a percentage of total (0 of nothing). */
static inline double report_pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

struct report_units {
	const char *type;      /* the values: "samples", "off-cpu", "latency" or the field */
	const char *unit;      /* "count" or "nanoseconds" */
	const char *words;     /* the values as the text views name them: "samples", "off-CPU ns" */
	const char *time_type; /* what one sample stands for: "cpu", "wall"; NULL: no known time */
	const char *time_unit; /* "nanoseconds" with time_type */
	const char *time_name; /* time_type as the text views name it: "CPU time" */
	int64_t period_ns;     /* ns of time_type one sample stands for; 0 without time_type */
};

void report_units(const struct report *rep, const struct report_opts *o, struct report_units *u);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A chunk of an lfr recording as an OpenTelemetry profiles request: the
 * ExportProfilesServiceRequest of opentelemetry-proto v1.10.0 (collector/profiles/v1development),
 * which OTLP/HTTP posts as application/x-protobuf to /v1development/profiles.
 *
 * One ResourceProfiles per process, its Resource's attributes service.name, host.name,
 * process.pid, process.executable.name, container.id, k8s.pod.uid and the recording's other
 * labels where known (lfr.Label events, report/labels.h), its ScopeProfiles (scope "lfr") holding
 * a profile per kind of sample the chunk has for it:
 *
 *   cpu      jdk.ExecutionSample (jdk.CPUTimeSample in a recording of those only): sample type
 *            cpu/nanoseconds, each sample the sampling period (lfr.SamplerSettings), period type
 *            cpu/nanoseconds; samples/count when the period is unknown
 *   wall     lfr record --wall's: profiler.WallClockSample (of earlier files, jdk.ExecutionSample
 *            and jdk.NativeMethodSample), wall/nanoseconds
 *   off_cpu  lfr.OffCpu: off_cpu/nanoseconds, each interval its length, at its start
 *
 * A Sample per (stack, thread, trace context), with the thread's thread.name and thread.id
 * attributes, and per event its time (timestamps_unix_nano) and value.  A sample that ran in a
 * trace context (lfr.TraceContext, OpenTelemetry's thread context) links to it: its link_index
 * names a Link (trace id, span id) of the dictionary's link_table, and the context's attributes
 * follow the thread's.  Stacks, locations (a mapping per object file,
 * with its build-id where the recording carries it, an address for frames left unnamed, the
 * profile.frame.type attribute), functions, strings and attributes are in the request's
 * dictionary.  Each profile's profile_id is a hash of the recording's host.name, the chunk's
 * start, the process and the kind: the same chunk sent again (after a restart, from a dump)
 * carries the same ids, which a backend may deduplicate by.
 */
#ifndef LFR_EXPORT_OTLP_H
#define LFR_EXPORT_OTLP_H

#include <stddef.h>
#include <stdint.h>

#include "report/protobuf.h"

struct lfr_otlp_stats {
	uint64_t cpu_samples, cpu_ns; /* the cpu profiles' samples and values */
	uint64_t wall_samples;
	uint64_t off_cpu_intervals, off_cpu_ns;
	uint32_t resources; /* processes */
};

/*
 * Encodes the request of the chunk in data (len bytes; name for messages and the profiles' ids)
 * into out, replacing what it held.  Returns 0; 1 when the chunk holds no sample (no request);
 * -1 with why set when it does not parse or memory runs out.  cache: the metadata cache of the
 * readers it opens (jfr/reader.h), or NULL.
 */
struct jfr_meta_cache;
int lfr_otlp_chunk(const uint8_t *data, size_t len, const char *name, struct jfr_meta_cache *cache,
                   struct pb_buf *out, struct lfr_otlp_stats *st, char *why, size_t whylen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monotonic clocks in nanoseconds.  lfr_mono_ns(): this process's CLOCK_MONOTONIC, for
 * intervals, deadlines and rate limits of every part.  lfr_kernel_mono_ns(): the kernel's, the
 * clock of every record lfr.ko writes (ktime_get_ns()), for whatever is compared with or paired
 * to a record's time: the two differ in a time namespace (time_namespaces(7): a container or a
 * restored checkpoint may see its CLOCK_MONOTONIC offset by hours).
 */
#ifndef LFR_LIB_CLOCK_H
#define LFR_LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t lfr_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * This process's time namespace's CLOCK_MONOTONIC offset in ns, read once from
 * /proc/self/timens_offsets (0 outside one, or where the file cannot be read).
 */
int64_t lfr_timens_mono_offset(void);
/* The monotonic offset of a timens_offsets text ("monotonic SECS NSECS" lines): 0 when none. */
int64_t lfr_timens_parse(const char *text);

static inline uint64_t lfr_kernel_mono_ns(void)
{
	return lfr_mono_ns() - (uint64_t)lfr_timens_mono_offset();
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* The monotonic clock in nanoseconds: intervals, deadlines and rate limits of every part. */
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

#endif

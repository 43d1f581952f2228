/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: a session's per-CPU counters (LFR_CTR_*). */
#ifndef LFR_COUNTERS_H
#define LFR_COUNTERS_H

#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/lfr.h>

/* Per-CPU counters; every field is only changed with this_cpu ops. */
struct lfr_counters {
	u64 c[LFR_CTR_MAX + 1];
};

static inline bool lfr_counter_valid(int c)
{
	return (c >= LFR_CTR_TICKS && c <= LFR_CTR_KSTACK_MISMATCH) ||
	       (c > LFR_CTR_LOST_FIRST && c <= LFR_CTR_MAX);
}

static inline bool lfr_counter_gauge(int c)
{
	return c == LFR_CTR_WORKS_PENDING || c == LFR_CTR_THREADS ||
	       c == LFR_CTR_TICKS_PENDING || c == LFR_CTR_UNWIND_TABLES ||
	       c == LFR_CTR_UNWIND_BYTES;
}

static inline void lfr_counters_add(struct lfr_counters __percpu *c, int ctr,
				    u64 n)
{
	this_cpu_add(c->c[ctr], n);
}

#endif /* LFR_COUNTERS_H */

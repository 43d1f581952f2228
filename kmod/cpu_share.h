/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the share of each CPU lfr may spend sampling, for all sessions (cpu_share.c). */
#ifndef LFR_CPU_SHARE_H
#define LFR_CPU_SHARE_H

#include <linux/time64.h>
#include <linux/types.h>

#define LFR_SHARE_WINDOW_NS	(100 * NSEC_PER_MSEC)

/* One CPU's current window: lfr's time on it there, every session's. */
struct lfr_cpu_share {
	u64 start;	/* local_clock() at the window's start */
	u64 ns;		/* lfr's time on this CPU in the window */
};

extern unsigned int lfr_max_cpu_percent;

/*
 * Whether @w's budget of @pct percent is spent at @now, starting a new
 * window first when the current one is over (pct 0 or >= 100: no limit).
 */
bool lfr_share_spent(struct lfr_cpu_share *w, u64 now, unsigned int pct);
/* Whole periods from @expires to the first at or after @until. */
u64 lfr_share_skip(u64 expires, u64 until, u64 period);

/* This CPU's window (hard irq, or any context for the charge). */
bool lfr_cpu_share_spent(u64 now);
u64 lfr_cpu_share_left_ns(u64 now);
void lfr_cpu_share_charge(u64 ns);

#endif /* LFR_CPU_SHARE_H */

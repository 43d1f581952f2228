// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the CPU budget, perf's perf_cpu_time_max_percent for lfr.  Within each
 * window of LFR_SHARE_WINDOW_NS, once lfr's own time on a CPU (timer handlers
 * and walks, of every session) passed max_cpu_percent of the window, the
 * sessions' timers on that CPU skip to the window's end: the periods they skip
 * are counted, and no interrupt is taken for them.  The budget is the
 * machine's, not a session's: eight sessions get the one share together.
 */
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include "cpu_share.h"

unsigned int lfr_max_cpu_percent = 25;
module_param_named(max_cpu_percent, lfr_max_cpu_percent, uint, 0644);
MODULE_PARM_DESC(max_cpu_percent,
		 "share of each CPU lfr may spend sampling, all sessions together, percent (0: no limit; default 25, as perf's perf_cpu_time_max_percent)");

static DEFINE_PER_CPU(struct lfr_cpu_share, lfr_cpu_share);

bool lfr_share_spent(struct lfr_cpu_share *w, u64 now, unsigned int pct)
{
	if (now - w->start >= LFR_SHARE_WINDOW_NS) {
		w->start = now;
		WRITE_ONCE(w->ns, 0);
		return false;
	}
	return pct && pct < 100 &&
	       READ_ONCE(w->ns) * 100 > (u64)pct * LFR_SHARE_WINDOW_NS;
}

u64 lfr_share_skip(u64 expires, u64 until, u64 period)
{
	if (!period || expires >= until)
		return 0;
	return div64_u64(until - expires + period - 1, period);
}

bool lfr_cpu_share_spent(u64 now)
{
	return lfr_share_spent(this_cpu_ptr(&lfr_cpu_share), now,
			       READ_ONCE(lfr_max_cpu_percent));
}

u64 lfr_cpu_share_left_ns(u64 now)
{
	u64 end = this_cpu_read(lfr_cpu_share.start) + LFR_SHARE_WINDOW_NS;

	return end > now ? end - now : 0;
}

/*
 * A walk charges from task context, a handler from hard irq on the same CPU:
 * this_cpu_add() is one instruction, which no interrupt splits.
 */
void lfr_cpu_share_charge(u64 ns)
{
	this_cpu_add(lfr_cpu_share.ns, ns);
}

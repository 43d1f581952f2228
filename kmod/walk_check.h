/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: whether a walk may walk its snapshot.  The walk runs in the sampled
 * thread (current) on its way back to user space, some time after the tick
 * that took the snapshot; it walks only a thread that is still the image
 * the snapshot was taken in.
 */
#ifndef LFR_WALK_CHECK_H
#define LFR_WALK_CHECK_H

#include <linux/ptrace.h>
#include <linux/sched.h>
#include "lfr_internal.h"

/*
 * 0 when @sn may be walked in @t, or the reason its ticks are lost:
 * LFR_LOST_EXIT when @t is exiting or has no mm (the work ran from
 * exit_task_work), LFR_LOST_EXEC when @t has another image (mm, exec id).
 * @regs: the user registers @t returns to user space with,
 * task_pt_regs(@t).
 */
static inline int lfr_walk_check(const struct lfr_snapshot *sn,
				 const struct task_struct *t,
				 const struct pt_regs *regs)
{
	if ((t->flags & PF_EXITING) || !t->mm)
		return LFR_LOST_EXIT;
	if (t->mm != sn->mm || t->self_exec_id != sn->exec_id)
		return LFR_LOST_EXEC;
	return 0;
}

#endif /* LFR_WALK_CHECK_H */

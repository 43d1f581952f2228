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
#include <linux/lfr.h>
#include "arch_regs.h"
#include "walk_obj.h"

/*
 * 0 when @sn may be walked in @t, or the reason its ticks are lost:
 * LFR_LOST_EXIT when @t is exiting or has no mm (the work ran from
 * exit_task_work), LFR_LOST_EXEC when @t has another image (mm, exec id)
 * or returns to user space with other registers than the snapshot's.
 * @regs: the user registers @t returns to user space with,
 * task_pt_regs(@t).
 *
 * The registers: execve switches the mm and bumps self_exec_id in
 * begin_new_exec(), well before the binary loader's start_thread() writes
 * the new image's entry point into the saved registers.  A tick in
 * between (the thread is in the kernel, so its snapshot is those saved
 * registers) took the old image's pc, sp and bp with the new mm and exec
 * id.  The walk runs on the way back to user space, where the saved
 * registers are the ones user space resumes with: a tick that saw the
 * same image sees the same registers (a tick in user mode snapshots that
 * very frame, and a signal frame is set up only after get_signal() ran the
 * pending task_work), so the registers, and the 64-bit or compat mode,
 * must be the snapshot's.  What else changes them between a tick in the
 * kernel and its walk (a ptrace stop that sets them, a sigreturn, a uprobe,
 * a signal frame set up after get_signal() ran the task_work queued
 * before the tick) loses the tick as well rather than walk a stack the
 * thread has left.
 *
 * LFR_LOST_COMPAT: a 32-bit task where lfr does not walk 32-bit stacks
 * (arm64: arch_regs.h).
 */
static inline int lfr_walk_check(const struct lfr_snapshot *sn,
				 const struct task_struct *t,
				 struct pt_regs *regs)
{
	bool compat = sn->flags & LFR_SAMPLE_F_COMPAT;

	if ((t->flags & PF_EXITING) || !t->mm)
		return LFR_LOST_EXIT;
	if (t->mm != sn->mm || t->self_exec_id != sn->exec_id)
		return LFR_LOST_EXEC;
	if (instruction_pointer(regs) != sn->ip ||
	    user_stack_pointer(regs) != sn->sp || lfr_user_fp(regs) != sn->bp ||
	    lfr_user_lr(regs) != sn->lr || lfr_user_compat(regs) != compat)
		return LFR_LOST_EXEC;
	if (!LFR_WALKS_COMPAT && compat)
		return LFR_LOST_COMPAT;
	return 0;
}

#endif /* LFR_WALK_CHECK_H */

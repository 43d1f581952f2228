// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the kernel stack of a task that is not running, on x86-64: the
 * kernel's unwinder (ORC), through its exported interface.
 */
#include <linux/sched.h>
#include <asm/unwind.h>
#include <linux/lfr.h>
#include "kstack.h"

u32 lfr_task_kstack(struct task_struct *t, u64 *ips, bool *truncated)
{
	struct unwind_state st;
	struct pt_regs *regs;
	unsigned long addr;
	u32 n = 0;

	*truncated = false;
	for (unwind_start(&st, t, NULL, NULL); !unwind_done(&st);
	     unwind_next_frame(&st)) {
		regs = unwind_get_entry_regs(&st, NULL);
		if (regs && user_mode(regs))
			break;
		addr = regs ? regs->ip : unwind_get_return_address(&st);
		if (!addr)
			break;
		if (n == LFR_MAX_KERNEL_STACK_DEPTH) {
			*truncated = true;
			break;
		}
		ips[n++] = addr;
		if (regs) {
			addr = unwind_get_return_address(&st);
			if (!addr)
				break;
			if (n == LFR_MAX_KERNEL_STACK_DEPTH) {
				*truncated = true;
				break;
			}
			ips[n++] = addr;
		}
	}
	return n;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the kernel stack of a task that is not running, on arm64: its frame
 * records, from the context its last switch saved (what the kernel's own
 * unwinder starts from, thread_saved_fp() and thread_saved_pc(): neither
 * arch_stack_walk() nor stack_trace_save_tsk() is exported to modules in
 * 6.1).  The kernel keeps frame pointers on arm64, and its records end at
 * the final one of the task's entry from user space, {0, 0}.  Each record
 * must lie on the task's stack above the one before; kernel return
 * addresses signed with pointer authentication are stripped.
 */
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/pointer_auth.h>
#include <asm/processor.h>
#include <linux/lfr.h>
#include "kstack.h"

static unsigned long lfr_kernel_ret(unsigned long ret)
{
#ifdef LFR_HAVE_PTRAUTH_STRIP_KERNEL
	return ptrauth_strip_kernel_insn_pac(ret);
#else
	return ptrauth_strip_insn_pac(ret);
#endif
}

/* Two loads a frame: no cache of its stacks would be cheaper. */
const bool lfr_task_kstack_cacheable;

unsigned long lfr_task_kstack_sp(struct task_struct *t)
{
	return 0;
}

u32 lfr_task_kstack(struct task_struct *t, u64 *ips, bool *truncated,
		    struct lfr_kstack_checks *ck)
{
	unsigned long lo = (unsigned long)task_stack_page(t);
	unsigned long hi = lo + THREAD_SIZE;
	unsigned long fp = thread_saved_fp(t);
	unsigned long pc = thread_saved_pc(t);
	u32 n = 0;

	*truncated = false;
	if (ck)
		ck->ok = false;
	while (pc) {
		const unsigned long *rec;
		unsigned long next;

		if (n == LFR_MAX_KERNEL_STACK_DEPTH) {
			*truncated = true;
			break;
		}
		ips[n++] = lfr_kernel_ret(pc);
		if (fp < lo || fp > hi - 16 || (fp & 7))
			break;
		/* the task is not running: its stack holds still */
		rec = (const unsigned long *)fp;
		next = READ_ONCE_NOCHECK(rec[0]);
		pc = READ_ONCE_NOCHECK(rec[1]);
		if (next && next <= fp)
			break;
		fp = next;
	}
	return n;
}

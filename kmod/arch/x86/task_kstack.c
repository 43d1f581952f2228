// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the kernel stack of a task that is not running, on x86-64: the
 * kernel's unwinder (ORC), through its exported interface.  It costs about
 * 350 instructions a frame (the ORC lookup and the checks of each stack
 * access), so the unwind also says which words of the stack it read: what
 * kstack_cache.c needs to repeat it without the unwinder.
 */
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/unwind.h>
#include <linux/lfr.h>
#include "kstack.h"

const bool lfr_task_kstack_cacheable = true;

unsigned long lfr_task_kstack_sp(struct task_struct *t)
{
	return READ_ONCE(t->thread.sp);
}

/* The word at @addr of the stack holds @val, as the unwind read it. */
static void lfr_kstack_check(struct lfr_kstack_checks *ck, unsigned long addr,
			     unsigned long val)
{
	if (!ck->ok)
		return;
	if (ck->n == LFR_KSTACK_CHECKS_MAX || addr < ck->sp0 || addr & 7 ||
	    addr > ck->top - sizeof(long) ||
	    READ_ONCE_NOCHECK(*(unsigned long *)addr) != val) {
		ck->ok = false;
		return;
	}
	ck->addr[ck->n] = addr;
	ck->val[ck->n++] = val;
}

/* Where a step of the unwinder put the next frame: its registers or stack. */
static unsigned long lfr_kstack_where(const struct unwind_state *st)
{
	return st->regs ? (unsigned long)st->regs : st->sp;
}

/*
 * How the unwinder finds the frame after @st's, asked of it on copies with
 * the frame pointer, then the stack pointer, 16 bytes lower (higher, the
 * registers of the entry from user space would pass the top): 0 at a fixed
 * distance from this frame, 1 by the frame pointer (a frame whose size
 * varies: the random offset of a system call's stack), -1 any other way.
 */
static int lfr_kstack_step(const struct unwind_state *st, unsigned long next)
{
	struct unwind_state a = *st;

	a.bp -= 16;
	if (!unwind_next_frame(&a))
		return -1;
	if (lfr_kstack_where(&a) == next - 16)
		return 1;
	if (lfr_kstack_where(&a) != next)
		return -1;
	a = *st;
	a.sp -= 16;
	if (!unwind_next_frame(&a) || lfr_kstack_where(&a) != next - 16)
		return -1;
	return 0;
}

/*
 * What the unwinder read for the frame it stands at: the return address at
 * the top of a call frame (so that a return address that ftrace's graph
 * tracer or a kretprobe replaced, which the unwinder recovers, is not
 * repeated from the stack), or the ip and stack pointer of an entry's
 * registers.
 */
static void lfr_kstack_check_frame(struct lfr_kstack_checks *ck,
				   struct unwind_state *st,
				   struct pt_regs *regs)
{
	if (regs) {
		lfr_kstack_check(ck, (unsigned long)&regs->ip, st->ip);
		lfr_kstack_check(ck, (unsigned long)&regs->sp, st->sp);
	} else {
		lfr_kstack_check(ck, st->sp - sizeof(long), st->ip);
	}
}

/*
 * The unwinder's next frame, and with @ck how it found it: the frames after
 * the last one found by its frame pointer lie at fixed places from the top.
 */
static bool lfr_kstack_next(struct unwind_state *st,
			    struct lfr_kstack_checks *ck)
{
	struct unwind_state prev;
	int how;

	if (!ck || !ck->ok)
		return unwind_next_frame(st);
	prev = *st;
	if (!unwind_next_frame(st))
		return false;
	how = lfr_kstack_step(&prev, lfr_kstack_where(st));
	if (how < 0)
		ck->ok = false;
	else if (how == 1)
		ck->from_top = ck->n;
	return true;
}

u32 lfr_task_kstack(struct task_struct *t, u64 *ips, bool *truncated,
		    struct lfr_kstack_checks *ck)
{
	struct unwind_state st;
	struct pt_regs *regs;
	unsigned long addr;
	bool user = false;
	u32 n = 0;

	*truncated = false;
	if (ck) {
		ck->ok = true;
		ck->n = 0;
		ck->from_top = 0;
		ck->sp0 = lfr_task_kstack_sp(t);
		ck->top = (unsigned long)task_stack_page(t) + THREAD_SIZE;
	}
	for (unwind_start(&st, t, NULL, NULL); !unwind_done(&st);
	     lfr_kstack_next(&st, ck)) {
		regs = unwind_get_entry_regs(&st, NULL);
		if (regs && user_mode(regs)) {
			if (ck)	/* the end: user_mode() reads cs */
				lfr_kstack_check(ck, (unsigned long)&regs->cs,
						 regs->cs);
			user = true;
			break;
		}
		if (ck)
			lfr_kstack_check_frame(ck, &st, regs);
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
	if (ck && (!user || *truncated))
		ck->ok = false;
	return n;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the kernel stack of a tick, cut to start at the interrupted ip. */
#ifndef LFR_KSTACK_H
#define LFR_KSTACK_H

#include <linux/build_bug.h>
#include <linux/string.h>
#include <asm/thread_info.h>
#include <linux/types.h>

struct task_struct;

/* Words of a task's stack that an unwind read, by their offset in it. */
#define LFR_KSTACK_CHECKS_MAX	40

/*
 * A word's place: its offset above the task's saved stack pointer, or with
 * LFR_KSTACK_FROM_TOP, below the top of its stack.  A system call's frames
 * lie at a random distance from the top (randomize_kstack_offset): those
 * below the gap move with the stack pointer, the entry's stay at the top.
 */
#define LFR_KSTACK_FROM_TOP	0x8000u
static_assert(THREAD_SIZE <= LFR_KSTACK_FROM_TOP);

/*
 * What an unwind of a task that is not running depended on, for
 * kstack_cache.c: each word it read a return address or a frame's stack
 * pointer from, with the value it found there.  The words from @from_top
 * on belong to the frames after the last one the unwinder found by its
 * frame pointer (do_syscall_64()'s, whose size varies with the random
 * offset): their places are kept from the top of the stack, the others'
 * from the saved stack pointer.  @ok: the unwind may be repeated by
 * checking these words alone (every return address as it lies on the
 * stack, each frame found from the one before at a fixed distance or by
 * its frame pointer, the stack ending at the entry from user space,
 * nothing truncated).
 */
struct lfr_kstack_checks {
	bool ok;
	u16 n, from_top;
	unsigned long sp0, top;
	unsigned long addr[LFR_KSTACK_CHECKS_MAX];
	u64 val[LFR_KSTACK_CHECKS_MAX];
};

/*
 * The kernel stack of @t, which is not running (it is being switched in and
 * has not run since its switch-out): the stack it left the CPU with, from
 * the switch down to its entry from user space, as /proc/PID/stack shows
 * it, at most LFR_MAX_KERNEL_STACK_DEPTH pcs into @ips; *@truncated when
 * it went on past them.  With @ck, also what the unwind depended on (left
 * with ok false where the architecture's walk needs no cache).  Its
 * architecture's (arch/ARCH/task_kstack.c).
 */
u32 lfr_task_kstack(struct task_struct *t, u64 *ips, bool *truncated,
		    struct lfr_kstack_checks *ck);

/*
 * @t's saved kernel stack pointer, or 0 where the architecture keeps no
 * cache of its stacks (lfr_task_kstack_cacheable false: its walk costs
 * less than a lookup).
 */
unsigned long lfr_task_kstack_sp(struct task_struct *t);
extern const bool lfr_task_kstack_cacheable;

/*
 * @ips holds the @n return addresses stack_trace_save() found with room for
 * @max: the timer handler's own frames and the irq entry's come first.
 * Moves the frames from @ip (the interrupted one) on to the front and
 * returns how many they are.  *@truncated tells whether the trace filled
 * the buffer (the stack may go on past it): that is a matter of the trace
 * as saved, so it is decided before the lfr and irq frames are dropped,
 * which leave fewer than @max even when the stack was cut.
 */
static inline u32 lfr_kstack_trim(u64 *ips, u32 n, u32 max, u64 ip,
				  bool *truncated)
{
	u32 i;

	*truncated = n >= max;
	for (i = 0; i < n; i++) {
		if (ips[i] == ip) {
			memmove(ips, ips + i, (n - i) * sizeof(*ips));
			return n - i;
		}
	}
	return n;
}

#endif /* LFR_KSTACK_H */

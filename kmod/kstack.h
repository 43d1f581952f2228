/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the kernel stack of a tick, cut to start at the interrupted ip. */
#ifndef LFR_KSTACK_H
#define LFR_KSTACK_H

#include <linux/string.h>
#include <linux/types.h>

struct task_struct;

/*
 * The kernel stack of @t, which is not running (it is being switched in and
 * has not run since its switch-out): the stack it left the CPU with, from
 * the switch down to its entry from user space, as /proc/PID/stack shows
 * it, at most LFR_MAX_KERNEL_STACK_DEPTH pcs into @ips; *@truncated when
 * it went on past them.  Its architecture's (arch/ARCH/task_kstack.c).
 */
u32 lfr_task_kstack(struct task_struct *t, u64 *ips, bool *truncated);

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

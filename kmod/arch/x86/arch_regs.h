/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the user registers of a sample on x86-64: what a tick snapshots
 * (sampler.c) and a walk checks again (walk_check.h).  The frame pointer
 * is rbp; there is no link register.
 */
#ifndef LFR_ARCH_REGS_H
#define LFR_ARCH_REGS_H

#include <linux/ptrace.h>
#include <linux/lfr.h>

static __always_inline u64 lfr_user_fp(const struct pt_regs *regs)
{
	return regs->bp;
}

static __always_inline u64 lfr_user_lr(const struct pt_regs *regs)
{
	return 0;
}

static __always_inline bool lfr_user_compat(struct pt_regs *regs)
{
	return !user_64bit_mode(regs);
}

/* No pointer authentication: return addresses are as they are. */
static __always_inline u64 lfr_user_pac_mask(void)
{
	return 0;
}

/* 32-bit tasks are walked by their {u32 ebp, u32 ret} frames. */
#define LFR_WALKS_COMPAT	1

/* USTACK records carry no registers: a leaf's caller is on the stack. */
#define LFR_ARCH_USTACK_REGS	0

#endif /* LFR_ARCH_REGS_H */

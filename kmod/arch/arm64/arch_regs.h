/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the user registers of a sample on arm64: what a tick snapshots
 * (sampler.c) and a walk checks again (walk_check.h).  The frame pointer is
 * x29; the link register x30 holds the return address of a function that
 * has not saved it (a leaf, a prologue, an epilogue).
 */
#ifndef LFR_ARCH_REGS_H
#define LFR_ARCH_REGS_H

#include <linux/ptrace.h>
#include <linux/lfr.h>
#include <asm/cpufeature.h>
#include <asm/pointer_auth.h>

static __always_inline u64 lfr_user_fp(const struct pt_regs *regs)
{
	return regs->regs[29];
}

static __always_inline u64 lfr_user_lr(const struct pt_regs *regs)
{
	return regs->regs[30];
}

static __always_inline bool lfr_user_compat(struct pt_regs *regs)
{
	return compat_user_mode(regs);
}

/*
 * The bits of a user return address that hold its pointer authentication
 * code when the CPU signs them (-mbranch-protection=pac-ret, standard):
 * the mask the kernel's own strip clears in a user address
 * (ptrauth_strip_insn_pac() in 6.1, from ptrauth_user_pac_mask(); xpaclri
 * in later kernels gives the same address).  0 without address
 * authentication.
 */
static __always_inline u64 lfr_user_pac_mask(void)
{
#ifdef CONFIG_ARM64_PTR_AUTH
	if (system_supports_address_auth())
		return ptrauth_user_pac_mask();
#endif
	return 0;
}

/*
 * 32-bit (AArch32) tasks are not walked: their frames differ between the
 * ARM and Thumb states and between compilers.  Their ticks are lost, as
 * LFR_LOST_COMPAT.
 */
#define LFR_WALKS_COMPAT	0

/*
 * USTACK records carry x30 and the PAC mask after the stack words
 * (LFR_USTACK_F_REGS): the leaf rule of user space takes a frameless
 * leaf's caller from x30.
 */
#define LFR_ARCH_USTACK_REGS	LFR_USTACK_REGS

#endif /* LFR_ARCH_REGS_H */

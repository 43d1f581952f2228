/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the walk of a user stack by frame pointers alone, the frame-record
 * read it shares with the walk by unwind-table rows (frame_walk.h), and the
 * return-address ranges a walk in ranges described before checks.  Pure
 * logic, inlined into its caller with the reader passed as a constant.
 */
#ifndef LFR_FRAME_FP_H
#define LFR_FRAME_FP_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <linux/lfr.h>
#include "frame_check.h"

/*
 * A return address as the walk keeps it: on arm64 without the pointer
 * authentication code a function built with -mbranch-protection signed it
 * with (@pac_mask: the bits that hold it, those of the kernel's
 * ptrauth_user_pac_mask(), which the kernel's own strip clears in a user
 * address); on x86-64 as it is.
 */
static __always_inline u64 lfr_ret_addr(const enum lfr_isa isa, u64 pac_mask,
					u64 ret)
{
	return isa == LFR_ISA_ARM64 ? ret & ~pac_mask : ret;
}

/*
 * Reads the frame record at @fp, {next fp, return address}, in the word
 * size of @compat (a constant): 0, or -EFAULT.  The one read of both
 * frame-pointer walks: the loop of lfr_walk_fp_frames() and the single
 * step of the mixed walk (lfr_step_fp()).  Each keeps its own checks: the
 * step lfr_frame_check()'s against the sp the mixed walk carries (a table
 * row moves it), the loop one range per frame.
 */
static __always_inline int lfr_fp_record(void *ctx, lfr_read_fn read, u64 fp,
					 const bool compat, u64 *next, u64 *ret)
{
	if (compat) {
		u32 f[2];

		if (read(ctx, fp, f, sizeof(f)))
			return -EFAULT;
		*next = f[0];
		*ret = f[1];
	} else {
		u64 f[2];

		if (read(ctx, fp, f, sizeof(f)))
			return -EFAULT;
		*next = f[0];
		*ret = f[1];
	}
	return 0;
}

/*
 * Address ranges every return address of a frame-pointer walk must lie in
 * (the mappings its process described before): @n ranges [lo, hi).  A
 * return address outside them all stops the walk with @miss set.
 */
struct lfr_pc_ranges {
	const unsigned long *lo, *hi;
	u32 n;
	bool miss;
};

/*
 * The range of @in that holds @pc, as *@start and *@span; false, with
 * @in's miss set, when none does.
 */
static __always_inline bool lfr_pc_range(struct lfr_pc_ranges *in, u64 pc,
					 u64 *start, u64 *span)
{
	u32 j;

	for (j = 0; j < in->n; j++) {
		if (pc - in->lo[j] < in->hi[j] - in->lo[j]) {
			*start = in->lo[j];
			*span = in->hi[j] - in->lo[j];
			return true;
		}
	}
	in->miss = true;
	return false;
}

/*
 * The frame records from @fp up, by frame pointers alone, with the checks
 * of lfr_frame_check() folded into one range per frame: a record lies at or
 * above @lo (sp, then the record before + 1), and whole below @limit, so
 * @read_in reads it.  With @in (NULL, a constant, in every other walk), each
 * return address is checked against its ranges in the same loop: most lie
 * in the range of the one before, a subtraction and a compare.  Inlined
 * once per word size (@compat is a constant), with its state in locals:
 * this loop is most of a frame-pointer walk.  Cut by the depth cap, it
 * leaves the next record and its @lo in w->rs_bp and w->rs_sp, to go on
 * from (lfr_walk_user_resume()).
 */
static __always_inline void lfr_walk_fp_frames(struct lfr_uwalk *w,
					       lfr_read_fn read_in, u64 fp,
					       u64 lo, const bool compat,
					       struct lfr_pc_ranges *in,
					       const enum lfr_isa isa)
{
	const u64 pac_mask = isa == LFR_ISA_ARM64 ? w->pac_mask : 0;
	const u64 word = compat ? 4 : 8;
	u64 hi = w->limit - 2 * word;
	u64 *const first = w->ips, *const end = w->ips + w->max;
	u64 *p = first + w->nr;
	u64 start = 0, span = 0;
	u32 flags = 0;

	if (w->limit < 2 * word)
		hi = 0;
	while (fp) {
		u64 next, ret;

		if (fp < lo || fp > hi || (fp & (word - 1))) {
			flags = LFR_SAMPLE_F_USER_BAD_FRAME;
			break;
		}
		if (p >= end) {
			flags = LFR_SAMPLE_F_USER_TRUNCATED;
			w->rs_bp = fp;
			w->rs_sp = lo;
			break;
		}
		if (lfr_fp_record(w->ctx, read_in, fp, compat, &next, &ret)) {
			flags = LFR_SAMPLE_F_USER_FAULT;
			break;
		}
		ret = lfr_ret_addr(isa, pac_mask, ret);
		if (!ret) {
			flags = LFR_SAMPLE_F_USER_BAD_FRAME;
			break;
		}
		if (in && ret - start >= span &&
		    !lfr_pc_range(in, ret, &start, &span))
			break;
		*p++ = ret;
		lo = fp + 1;
		fp = next;
	}
	w->nr = p - first;
	w->flags |= flags;
}

/*
 * lfr_walk_fp_frames() from the record at @fp, at or above @lo, inlined
 * once per word size of @w's task.
 */
static __always_inline void lfr_walk_fp_from(struct lfr_uwalk *w,
					     lfr_read_fn read_in, u64 fp,
					     u64 lo, struct lfr_pc_ranges *in,
					     const enum lfr_isa isa)
{
	if (w->compat)
		lfr_walk_fp_frames(w, read_in, fp, lo, true, in, isa);
	else
		lfr_walk_fp_frames(w, read_in, fp, lo, false, in, isa);
}

#endif /* LFR_FRAME_FP_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: validation and walk of a frame-pointer chain.  Pure logic: the caller
 * supplies the memory reader, so the same code runs on a live user stack and
 * on synthetic stacks in KUnit.
 */
#include <linux/errno.h>
#include <linux/lfr.h>
#include "frame_check.h"

enum lfr_frame_verdict lfr_frame_check(u64 fp, u64 prev_fp, u64 sp,
				       bool compat, u64 limit)
{
	u64 word = compat ? 4 : 8;

	if (!fp)
		return LFR_FRAME_END;
	if (fp & (word - 1))
		return LFR_FRAME_MISALIGNED;
	if (fp < sp)
		return LFR_FRAME_BELOW_SP;
	if (prev_fp && fp <= prev_fp)
		return LFR_FRAME_NOT_INCREASING;
	if (fp >= limit || limit - fp < 2 * word)
		return LFR_FRAME_OUT_OF_RANGE;
	return LFR_FRAME_OK;
}

/*
 * Where the return address of the interrupted function is when the pc is
 * at an instruction that runs while the frame pointer still belongs to the
 * caller: before "push %bp" (function entry, also after endbr), before
 * "mov %sp,%bp" (the push done), or at "ret" (after "leave"/"pop %bp").
 * Returns the byte offset of the return address from sp, or -1 when the
 * pc is elsewhere (the frame pointer is the function's own).
 */
static int lfr_leaf_ret_offset(struct lfr_uwalk *w)
{
	u8 insn[8];
	int i = 0, word = w->compat ? 4 : 8;

	if (w->read(w->ctx, w->ip, insn, sizeof(insn)))
		return -1;
	if (!w->compat && insn[0] == 0xf3 && insn[1] == 0x0f &&
	    insn[2] == 0x1e && insn[3] == 0xfa)
		i = 4;				/* endbr64 */
	if (insn[i] == 0x55 || insn[i] == 0xc3)
		return 0;			/* push %bp / ret */
	if (!w->compat && insn[i] == 0x48 && insn[i + 1] == 0x89 &&
	    insn[i + 2] == 0xe5)
		return word;			/* mov %rsp,%rbp */
	if (w->compat && insn[i] == 0x89 && insn[i + 1] == 0xe5)
		return word;			/* mov %esp,%ebp */
	return -1;
}

void lfr_walk_user(struct lfr_uwalk *w)
{
	u64 fp = w->fp, prev = 0;
	int off;

	w->nr = 0;
	w->flags = 0;
	if (!w->max)
		return;
	w->ips[w->nr++] = w->ip;

	off = lfr_leaf_ret_offset(w);
	if (off >= 0 && w->nr < w->max) {
		u64 ret = 0;
		u32 ret32 = 0;
		int err;

		if (w->compat) {
			err = w->read(w->ctx, w->sp + off, &ret32, sizeof(ret32));
			ret = ret32;
		} else {
			err = w->read(w->ctx, w->sp + off, &ret, sizeof(ret));
		}
		if (err) {
			w->flags |= LFR_SAMPLE_F_USER_FAULT;
			return;
		}
		if (!ret) {
			w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
			return;
		}
		/* The caller's frame is the one fp points to. */
		w->ips[w->nr++] = ret;
	}

	for (;;) {
		enum lfr_frame_verdict v;
		u64 next, ret;

		v = lfr_frame_check(fp, prev, w->sp, w->compat, w->limit);
		if (v == LFR_FRAME_END)
			return;
		if (v != LFR_FRAME_OK) {
			w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
			return;
		}
		if (w->nr >= w->max) {
			w->flags |= LFR_SAMPLE_F_USER_TRUNCATED;
			return;
		}
		if (w->compat) {
			u32 f[2];

			if (w->read(w->ctx, fp, f, sizeof(f)))
				goto fault;
			next = f[0];
			ret = f[1];
		} else {
			u64 f[2];

			if (w->read(w->ctx, fp, f, sizeof(f)))
				goto fault;
			next = f[0];
			ret = f[1];
		}
		if (!ret) {
			w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
			return;
		}
		w->ips[w->nr++] = ret;
		prev = fp;
		fp = next;
	}
fault:
	w->flags |= LFR_SAMPLE_F_USER_FAULT;
}

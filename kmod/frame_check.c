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

void lfr_walk_user(struct lfr_uwalk *w)
{
	u64 fp = w->fp, prev = 0;

	w->nr = 0;
	w->flags = 0;
	if (!w->max)
		return;
	w->ips[w->nr++] = w->ip;

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

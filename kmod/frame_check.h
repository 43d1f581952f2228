/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: frame-pointer walk of a user stack, independent of how memory is read. */
#ifndef LFR_FRAME_CHECK_H
#define LFR_FRAME_CHECK_H

#include <linux/types.h>

enum lfr_frame_verdict {
	LFR_FRAME_OK,
	LFR_FRAME_END,		/* fp == 0: the outermost frame was reached */
	LFR_FRAME_MISALIGNED,
	LFR_FRAME_BELOW_SP,	/* fp below the stack pointer */
	LFR_FRAME_NOT_INCREASING, /* fp <= previous fp: cycle or corruption */
	LFR_FRAME_OUT_OF_RANGE,	/* frame does not fit the address space */
};

/* Reads @len bytes of user memory at @addr into @buf; 0 or -EFAULT. */
typedef int (*lfr_read_fn)(void *ctx, u64 addr, void *buf, size_t len);

struct lfr_uwalk {
	u64 ip, sp, fp;		/* interrupted user registers */
	bool compat;		/* 32-bit frames {u32 next_fp, u32 ret} */
	u64 limit;		/* first address past user space */
	unsigned int max;	/* entries that fit in @ips (depth cap) */
	lfr_read_fn read;
	void *ctx;
	u64 *ips;		/* out: pc then return addresses */
	unsigned int nr;	/* out */
	u32 flags;		/* out: LFR_SAMPLE_F_USER_* */
};

enum lfr_frame_verdict lfr_frame_check(u64 fp, u64 prev_fp, u64 sp,
				       bool compat, u64 limit);
void lfr_walk_user(struct lfr_uwalk *w);

#endif /* LFR_FRAME_CHECK_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the walk of a user stack by frame pointers and unwind-table rows.
 * Pure logic: the caller supplies the memory reader and the row lookup, so
 * the same code runs on a live user stack and on synthetic stacks in KUnit.
 *
 * The body is inlined into its caller with the reader and the lookup passed
 * as constants, so a frame costs direct calls only: an indirect call goes
 * through a retpoline in Debian's kernel, and the walk made three per frame.
 */
#ifndef LFR_FRAME_WALK_H
#define LFR_FRAME_WALK_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/lfr.h>
#include "frame_check.h"

static __always_inline enum lfr_frame_verdict lfr_frame_check(u64 fp,
							      u64 prev_fp,
							      u64 sp,
							      bool compat,
							      u64 limit)
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
static __always_inline int lfr_leaf_ret_offset(struct lfr_uwalk *w,
					       lfr_read_fn read)
{
	u8 insn[8];
	int i = 0, word = w->compat ? 4 : 8;

	if (read(w->ctx, w->ip, insn, sizeof(insn)))
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

/*
 * One step by an unwind-table rule: the caller's sp is the CFA, its pc the
 * word below it, its rbp as the rule says.  Returns false with w->flags set
 * when the chain ends (true at the outermost frame with nothing set).
 */
static __always_inline bool lfr_step_row(struct lfr_uwalk *w,
					 const struct lfr_unwind_row *r,
					 u64 *pc, u64 *sp, u64 *bp,
					 lfr_read_fn read)
{
	u64 cfa, ret, nbp = *bp;

	if (r->cfa == LFR_UNWIND_OUTERMOST)
		return false;
	cfa = (r->cfa == LFR_UNWIND_CFA_SP ? *sp : *bp) + (s64)r->cfa_off;
	/* The caller's frame lies above this one: the stack only grows up. */
	if (cfa <= *sp || (cfa & 7) || cfa >= w->limit || cfa < 8) {
		w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
		return false;
	}
	if (read(w->ctx, cfa - 8, &ret, sizeof(ret)))
		goto fault;
	if (r->bp == LFR_UNWIND_BP_AT_CFA) {
		if (read(w->ctx, cfa + (s64)r->bp_off, &nbp, sizeof(nbp)))
			goto fault;
	} else if (r->bp == LFR_UNWIND_BP_UNDEFINED) {
		nbp = 0;
	}
	if (!ret) {
		w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
		return false;
	}
	if (w->nr >= w->max) {
		w->flags |= LFR_SAMPLE_F_USER_TRUNCATED;
		return false;
	}
	w->ips[w->nr++] = ret;
	*pc = ret;
	*sp = cfa;
	*bp = nbp;
	return true;
fault:
	w->flags |= LFR_SAMPLE_F_USER_FAULT;
	return false;
}

/*
 * Reads the frame record at @fp, {next fp, return address}, in the word
 * size of @compat (a constant): 0, or -EFAULT.  The one read of both
 * frame-pointer walks: the loop of lfr_walk_fp_frames() and the single
 * step of the mixed walk (lfr_step_fp()).  Each keeps its own checks: the
 * step lfr_frame_check()'s against the sp the mixed walk carries (a table
 * row moves it), the loop one range per frame.
 */
static __always_inline int lfr_fp_record(struct lfr_uwalk *w, lfr_read_fn read,
					 u64 fp, const bool compat, u64 *next,
					 u64 *ret)
{
	if (compat) {
		u32 f[2];

		if (read(w->ctx, fp, f, sizeof(f)))
			return -EFAULT;
		*next = f[0];
		*ret = f[1];
	} else {
		u64 f[2];

		if (read(w->ctx, fp, f, sizeof(f)))
			return -EFAULT;
		*next = f[0];
		*ret = f[1];
	}
	return 0;
}

/*
 * One step by the frame pointer: the frame record {saved rbp, return
 * address} at rbp.  rbp == 0 is the outermost frame, as in the plain walk.
 */
static __always_inline bool lfr_step_fp(struct lfr_uwalk *w, u64 *pc,
					u64 *sp, u64 *bp, lfr_read_fn read)
{
	enum lfr_frame_verdict v = lfr_frame_check(*bp, 0, *sp, false,
						   w->limit);
	u64 next, ret;

	if (v == LFR_FRAME_END)
		return false;
	if (v != LFR_FRAME_OK) {
		w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
		return false;
	}
	if (lfr_fp_record(w, read, *bp, false, &next, &ret)) {
		w->flags |= LFR_SAMPLE_F_USER_FAULT;
		return false;
	}
	if (!ret) {
		w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
		return false;
	}
	if (w->nr >= w->max) {
		w->flags |= LFR_SAMPLE_F_USER_TRUNCATED;
		return false;
	}
	w->ips[w->nr++] = ret;
	*pc = ret;
	*sp = *bp + 16;
	*bp = next;
	return true;
}

/*
 * One frame of the mixed walk, as the lookup @f of its pc found: by its row,
 * or by the frame pointer (at the leaf, also by the prologue's rule).
 * Returns false when the chain ends.
 */
static __always_inline bool lfr_step_mixed(struct lfr_uwalk *w,
					   enum lfr_row_found f,
					   struct lfr_unwind_row *r, u64 *pc,
					   u64 *sp, u64 *bp, bool first,
					   lfr_read_fn read)
{
	if (f == LFR_ROW_FOUND) {
		if (first)
			w->flags |= LFR_SAMPLE_F_USER_CFI;
		if (!lfr_step_row(w, r, pc, sp, bp, read))
			return false;
		w->frames++;
		return true;
	}
	if (first) {
		int off = lfr_leaf_ret_offset(w, read);

		/*
		 * No frame of its own yet, or no longer: rbp is the caller's
		 * and the return address is at sp + off.
		 */
		if (off >= 0) {
			r->cfa = LFR_UNWIND_CFA_SP;
			r->cfa_off = off + 8;
			r->bp = LFR_UNWIND_BP_SAME;
			return lfr_step_row(w, r, pc, sp, bp, read);
		}
	}
	return lfr_step_fp(w, pc, sp, bp, read);
}

/*
 * The walk of a 64-bit task whose objects may have unwind tables: each
 * frame is unwound by its object's table where there is one and by the
 * frame pointer elsewhere, in one chain.  The state carried from frame to
 * frame is the caller's pc, sp and rbp, so a frame-pointer frame above a
 * table frame starts from the rbp the table restored.  Every step must
 * move sp up, so the chain cannot loop.  With @open, each frame's reads
 * run inside one section, the row lookup outside.
 */
static __always_inline void lfr_walk_mixed(struct lfr_uwalk *w,
					   lfr_read_fn read, lfr_row_fn row,
					   lfr_open_fn open,
					   lfr_close_fn close)
{
	struct lfr_unwind_row r;
	u64 pc = w->ip, sp = w->sp, bp = w->fp;
	bool first = true, more;

	for (;;) {
		enum lfr_row_found f = row(w->row_ctx, first ? pc : pc - 1, &r);

		if (f == LFR_ROW_NONE) {
			w->flags |= LFR_SAMPLE_F_USER_NO_CFI;
			return;
		}
		if (open && !open(w->ctx)) {
			w->flags |= LFR_SAMPLE_F_USER_FAULT;
			return;
		}
		more = lfr_step_mixed(w, f, &r, &pc, &sp, &bp, first, read);
		if (close)
			close(w->ctx);
		if (!more)
			return;
		first = false;
	}
}

/*
 * The frame records from @fp up, by frame pointers alone, with the checks
 * of lfr_frame_check() folded into one range per frame: a record lies at or
 * above sp, above the one before, and whole below @limit.  Inlined once per
 * word size (@compat is a constant), so a frame costs about twenty
 * instructions: this loop is most of a frame-pointer walk.
 */
static __always_inline void lfr_walk_fp_frames(struct lfr_uwalk *w,
					       lfr_read_fn read, u64 fp,
					       const bool compat)
{
	const u64 word = compat ? 4 : 8;
	u64 lo = w->sp, hi = w->limit - 2 * word;
	unsigned int nr = w->nr;

	if (w->limit < 2 * word)
		hi = 0;
	for (; fp; nr++) {
		u64 next, ret;

		if (fp < lo || fp > hi || (fp & (word - 1))) {
			w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
			break;
		}
		if (nr >= w->max) {
			w->flags |= LFR_SAMPLE_F_USER_TRUNCATED;
			break;
		}
		if (lfr_fp_record(w, read, fp, compat, &next, &ret))
			goto fault;
		if (!ret) {
			w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
			break;
		}
		w->ips[nr] = ret;
		lo = fp + 1;
		fp = next;
	}
	w->nr = nr;
	return;
fault:
	w->nr = nr;
	w->flags |= LFR_SAMPLE_F_USER_FAULT;
}

/*
 * Walks w's stack with @read and, for a 64-bit task, @row (NULL: frame
 * pointers only); with @row, @open and @close (or NULL) bracket the reads
 * of each frame (lfr_walk_mixed()).
 */
static __always_inline void lfr_walk_user_sections(struct lfr_uwalk *w,
						   lfr_read_fn read,
						   lfr_row_fn row,
						   lfr_open_fn open,
						   lfr_close_fn close)
{
	u64 fp = w->fp;
	int off;

	w->nr = 0;
	w->flags = 0;
	w->frames = 0;
	if (!w->max)
		return;
	if (row && !w->compat) {
		w->ips[w->nr++] = w->ip;
		lfr_walk_mixed(w, read, row, open, close);
		return;
	}
	w->ips[w->nr++] = w->ip;

	off = lfr_leaf_ret_offset(w, read);
	if (off >= 0 && w->nr < w->max) {
		u64 ret = 0;
		u32 ret32 = 0;
		int err;

		if (w->compat) {
			err = read(w->ctx, w->sp + off, &ret32, sizeof(ret32));
			ret = ret32;
		} else {
			err = read(w->ctx, w->sp + off, &ret, sizeof(ret));
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

	if (w->compat)
		lfr_walk_fp_frames(w, read, fp, true);
	else
		lfr_walk_fp_frames(w, read, fp, false);
}

/* lfr_walk_user_sections() without sections. */
static __always_inline void lfr_walk_user(struct lfr_uwalk *w,
					  lfr_read_fn read, lfr_row_fn row)
{
	lfr_walk_user_sections(w, read, row, NULL, NULL);
}

#endif /* LFR_FRAME_WALK_H */

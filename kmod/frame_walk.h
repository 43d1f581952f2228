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

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/lfr.h>
#include "frame_check.h"
#include "frame_fp.h"

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
static __always_inline int lfr_leaf_ret_offset(void *ctx, u64 ip,
					       const bool compat,
					       lfr_read_fn read)
{
	u8 insn[8];
	int i = 0, word = compat ? 4 : 8;

	if (read(ctx, ip, insn, sizeof(insn)))
		return -1;
	if (!compat && insn[0] == 0xf3 && insn[1] == 0x0f &&
	    insn[2] == 0x1e && insn[3] == 0xfa)
		i = 4;				/* endbr64 */
	if (insn[i] == 0x55 || insn[i] == 0xc3)
		return 0;			/* push %bp / ret */
	if (!compat && insn[i] == 0x48 && insn[i + 1] == 0x89 &&
	    insn[i + 2] == 0xe5)
		return word;			/* mov %rsp,%rbp */
	if (compat && insn[i] == 0x89 && insn[i + 1] == 0xe5)
		return word;			/* mov %esp,%ebp */
	return -1;
}

/* The arm64 instructions lfr_a64_leaf_cfa() looks for (A64, little-endian). */
#define LFR_A64_PACIASP		0xd503233fu
#define LFR_A64_PACIBSP		0xd503237fu
#define LFR_A64_BTI_C		0xd503245fu
#define LFR_A64_BTI_JC		0xd50324dfu
#define LFR_A64_MOV_FP_SP	0x910003fdu	/* mov x29, sp */
#define LFR_A64_RET		0xd65f03c0u
#define LFR_A64_RETAA		0xd65f0bffu
#define LFR_A64_RETAB		0xd65f0fffu
#define LFR_A64_AUTIASP		0xd50323bfu
#define LFR_A64_AUTIBSP		0xd50323ffu
/* stp x29, x30, [sp, #-n]!, whatever n: its bits 15..21 hold -n / 8 */
#define LFR_A64_STP_FP_LR_MASK	0xffc07fffu
#define LFR_A64_STP_FP_LR_PRE	0xa9807bfdu

/*
 * arm64: whether at @ip the frame pointer x29 still is the caller's and the
 * return address is in the link register x30: at a function's entry (its
 * landing pad, its PAC instruction, or the store of its frame record not
 * yet done), right after that store (before "mov x29, sp"), or at its
 * return (the frame record loaded back).  Returns the offset of the CFA,
 * the caller's sp, from sp there, or -1 elsewhere (x29 is the function's
 * own, or the function keeps no frame record at all: a leaf, which the
 * leaf rule of user space finds by its CFI).
 */
static __always_inline int lfr_a64_leaf_cfa(void *ctx, u64 ip,
					    lfr_read_fn read)
{
	u32 insn;

	if ((ip & 3) || read(ctx, ip, &insn, sizeof(insn)))
		return -1;
	switch (insn) {
	case LFR_A64_PACIASP:
	case LFR_A64_PACIBSP:
	case LFR_A64_BTI_C:
	case LFR_A64_BTI_JC:
	case LFR_A64_RET:
	case LFR_A64_RETAA:
	case LFR_A64_RETAB:
	case LFR_A64_AUTIASP:
	case LFR_A64_AUTIBSP:
		return 0;
	case LFR_A64_MOV_FP_SP:
		/* the store before it moved sp down by its frame */
		if (read(ctx, ip - 4, &insn, sizeof(insn)) ||
		    (insn & LFR_A64_STP_FP_LR_MASK) != LFR_A64_STP_FP_LR_PRE)
			return -1;
		return -sign_extend32((insn >> 15) & 0x7f, 6) * 8;
	}
	if ((insn & LFR_A64_STP_FP_LR_MASK) == LFR_A64_STP_FP_LR_PRE)
		return 0;
	return -1;
}

/*
 * How a walk reads and looks up, passed as a constant (a static const
 * object: the walk is inlined with it, so a frame costs direct calls
 * only).  @read reads anything; @read_in what the walk has checked lies
 * below its limit (lfr_step_row(), lfr_walk_fp_frames()); @row (NULL:
 * frame pointers only) looks up a pc's unwind row.  With @row, @open and
 * @close (or NULL) bracket the reads: of the whole walk when
 * @one_section (the lookup makes no call), else of each frame, with the
 * lookup outside; without, the caller opened the section the reads need,
 * if any.
 */
struct lfr_walk_fns {
	lfr_read_fn read;
	lfr_read_fn read_in;
	lfr_row_fn row;
	lfr_open_fn open;
	lfr_close_fn close;
	bool one_section;
};

/*
 * The state of a walk with unwind tables, in locals of its loop rather than
 * in struct lfr_uwalk: inlined, they stay in registers, where every store
 * to the output would otherwise reload the fields of @w (the kernel is
 * built without strict aliasing).
 */
struct lfr_mixed_state {
	u64 pc, sp, bp;			/* the frame being unwound */
	u64 *ips;
	u64 limit;
	void *ctx;
	unsigned int nr, max, frames;
	u32 flags;
	bool paused;			/* a lookup returned LFR_ROW_PAUSE */
	/*
	 * arm64: the link register and the PAC bits (struct lfr_uwalk); and
	 * whether sp is only a lower bound of the frame's (a frame record's
	 * step: the record need not lie at the top of its frame), which no
	 * sp-based rule may use
	 */
	u64 lr, pac_mask;
	bool sp_lower;
};

/*
 * A walk's memo (struct lfr_walk_memo), apart from its state: a walk
 * without one passes NULL, a constant, and has none of its code.
 */
struct lfr_memo_state {
	struct lfr_walk_memo *memo;	/* this walk's frames */
	u32 n;				/* the last walk's frames in it */
	unsigned int frames;		/* frames taken from it */
	bool join;			/* the last frame is the memo's */
};

/*
 * Keeps in @ms's memo the step from frame @i - 1 (where it read rbp: @at,
 * 0 when nowhere; by a table row: @table) and the state it found, frame
 * @i's (0 < @i <= LFR_MEMO_FRAMES).  When that state is the one the last
 * walk had at the same depth, the walk may follow it (ms->join).
 */
static __always_inline void lfr_memo_keep(struct lfr_memo_state *ms, u32 i,
					  u64 at, u32 table, u64 pc, u64 sp,
					  u64 bp)
{
	struct lfr_memo_frame *f = &ms->memo->f[i - 1];

	f->bp_at = at;
	f->table = table;
	if (i < LFR_MEMO_FRAMES) {
		f++;
		ms->join = i < ms->n && f->pc == pc && f->sp == sp &&
			   f->bp == bp;
		f->pc = pc;
		f->sp = sp;
		f->bp = bp;
	}
}

/* Ends the chain at the step it is at, with @flag: false. */
static __always_inline bool lfr_mixed_stop(struct lfr_mixed_state *m, u32 flag)
{
	m->flags |= flag;
	return false;
}

/*
 * Moves the walk to the caller it found: its return address @ret appended
 * to the chain, its sp @cfa, its rbp @nbp (read at @at, or 0: not read), by
 * a table row when @table.  False when the chain ends there (a zero return
 * address: a bad frame; or the depth cap).
 */
static __always_inline bool lfr_mixed_caller(struct lfr_mixed_state *m,
					     struct lfr_memo_state *ms,
					     u64 cfa, u64 ret, u64 nbp, u64 at,
					     u32 table)
{
	if (!ret) {
		m->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
		return false;
	}
	if (m->nr >= m->max) {
		m->flags |= LFR_SAMPLE_F_USER_TRUNCATED;
		return false;
	}
	if (ms && m->nr <= LFR_MEMO_FRAMES)
		lfr_memo_keep(ms, m->nr, at, table, ret, cfa, nbp);
	m->ips[m->nr++] = ret;
	m->pc = ret;
	m->sp = cfa;
	m->bp = nbp;
	return true;
}

/*
 * One step by an unwind-table rule: the caller's sp is the CFA, its pc the
 * word below it, its rbp as the rule says.  Returns false with m->flags set
 * when the chain ends (nothing set at the outermost frame).  Both words
 * are read with @read_in, whose caller has checked the address: the CFA is
 * 8-aligned and below the limit (a multiple of 8), so the return address
 * lies whole below it; a saved rbp lies below the CFA (a table's bp_off is
 * negative: unwind_rows.c), and an offset that wrapped it below 0 fails
 * that check.  @sp_aligned: m->sp is a CFA an earlier step checked (every
 * frame's but the leaf's), so with a CFA_SP row, whose offset is a positive
 * multiple of 8 (unwind_rows.c), the CFA is aligned and above sp already:
 * only the limit is left to check, on the most common rule of code built
 * without frame pointers.  @table: the row is a table's (the memo counts
 * the frame as one).
 */
static __always_inline bool lfr_step_row_a64(struct lfr_mixed_state *m,
					     const struct lfr_unwind_row *r,
					     lfr_read_fn read_in,
					     const bool leaf);

static __always_inline bool lfr_step_row(struct lfr_mixed_state *m,
					 struct lfr_memo_state *ms,
					 const struct lfr_unwind_row *r,
					 lfr_read_fn read_in,
					 const bool sp_aligned, const u32 table,
					 const enum lfr_isa isa)
{
	u64 cfa, ret, at, nbp = m->bp;
	u8 rule = r->cfa;

	if (isa == LFR_ISA_ARM64)
		return lfr_step_row_a64(m, r, read_in, !sp_aligned);
	if (sp_aligned && rule == LFR_UNWIND_CFA_SP) {
		cfa = m->sp + (s64)r->cfa_off;
		if (cfa >= m->limit)
			goto bad;
	} else {
		if (rule == LFR_UNWIND_OUTERMOST)
			return false;
		cfa = (rule == LFR_UNWIND_CFA_SP ? m->sp : m->bp) +
		      (s64)r->cfa_off;
		/* The caller's frame lies above this one: the stack grows up. */
		if (cfa <= m->sp || (cfa & 7) || cfa >= m->limit)
			goto bad;
	}
	if (read_in(m->ctx, cfa - 8, &ret, sizeof(ret)))
		goto fault;
	rule = r->bp;
	if (likely(rule == LFR_UNWIND_BP_SAME))
		return lfr_mixed_caller(m, ms, cfa, ret, nbp, 0, table);
	if (rule == LFR_UNWIND_BP_AT_CFA) {
		at = cfa + (s64)r->bp_off;
		if (at >= cfa)
			goto bad;
		if (read_in(m->ctx, at, &nbp, sizeof(nbp)))
			goto fault;
		return lfr_mixed_caller(m, ms, cfa, ret, nbp, at, table);
	}
	if (rule == LFR_UNWIND_BP_UNDEFINED)
		nbp = 0;
	return lfr_mixed_caller(m, ms, cfa, ret, nbp, 0, table);
bad:
	return lfr_mixed_stop(m, LFR_SAMPLE_F_USER_BAD_FRAME);
fault:
	return lfr_mixed_stop(m, LFR_SAMPLE_F_USER_FAULT);
}

/*
 * lfr_step_row() on arm64, where the return address may be in the link
 * register (@leaf: the interrupted frame's row only; a caller's x30 was
 * overwritten by its call) or anywhere below the CFA (the row's ra rule),
 * and the CFA is sp itself where nothing is pushed yet.  Every return
 * address is stripped of its PAC.  No memo: it assumes x86-64's rule,
 * the return address at CFA - 8.
 */
static __always_inline bool lfr_step_row_a64(struct lfr_mixed_state *m,
					     const struct lfr_unwind_row *r,
					     lfr_read_fn read_in,
					     const bool leaf)
{
	u8 rule = r->cfa, bp = LFR_UNWIND_BP_RULE(r->bp);
	u8 ra = LFR_UNWIND_RA_RULE(r->bp);
	u64 cfa, ret, at = 0, nbp = m->bp;

	if (rule == LFR_UNWIND_OUTERMOST)
		return false;
	if (rule == LFR_UNWIND_CFA_SP && m->sp_lower) {
		/*
		 * Reached by a frame record, which gives no sp: a function
		 * whose row saves x29 below the CFA keeps its frame record
		 * there, at x29 (AAPCS64), so its CFA is x29 - bp_off; its sp
		 * at the call, CFA - cfa_off, must be at or above the bound.
		 */
		if (bp != LFR_UNWIND_BP_AT_CFA)
			goto bad;
		cfa = m->bp - (s64)r->bp_off;
		if (cfa - (s64)r->cfa_off < m->sp || cfa < m->bp)
			goto bad;
	} else if (rule == LFR_UNWIND_CFA_SP) {
		cfa = m->sp + (s64)r->cfa_off;
	} else {
		cfa = m->bp + (s64)r->cfa_off;
	}
	/* the caller's frame lies above this one; only a leaf's may be sp */
	if (cfa < m->sp || (cfa == m->sp && !leaf) || (cfa & 7) ||
	    cfa >= m->limit)
		goto bad;
	switch (ra) {
	case LFR_UNWIND_RA_CFA_M8:
		at = cfa - 8;
		break;
	case LFR_UNWIND_RA_LR:
		if (!leaf)
			goto bad;
		break;
	case LFR_UNWIND_RA_AT_CFA:
		at = cfa + (s64)r->bp_off;
		break;
	default:	/* LFR_UNWIND_RA_PAIR */
		at = cfa + (s64)r->bp_off + 8;
		break;
	}
	if (ra == LFR_UNWIND_RA_LR) {
		ret = m->lr;
	} else {
		/* below the CFA, which lies below the limit */
		if (at >= cfa || at < m->sp)
			goto bad;
		if (read_in(m->ctx, at, &ret, sizeof(ret)))
			goto fault;
	}
	ret = lfr_ret_addr(LFR_ISA_ARM64, m->pac_mask, ret);
	at = 0;
	if (bp == LFR_UNWIND_BP_AT_CFA && ra != LFR_UNWIND_RA_AT_CFA) {
		at = cfa + (s64)r->bp_off;
		if (at >= cfa || at < m->sp)
			goto bad;
		if (read_in(m->ctx, at, &nbp, sizeof(nbp)))
			goto fault;
	} else if (bp == LFR_UNWIND_BP_UNDEFINED) {
		nbp = 0;
	}
	m->sp_lower = false;
	return lfr_mixed_caller(m, NULL, cfa, ret, nbp, at, 0);
bad:
	return lfr_mixed_stop(m, LFR_SAMPLE_F_USER_BAD_FRAME);
fault:
	return lfr_mixed_stop(m, LFR_SAMPLE_F_USER_FAULT);
}

/*
 * The rule of a call site in a function that keeps a frame pointer (most
 * frames of code built with them): CFA = rbp + 16, rbp saved at CFA - 16,
 * its frame record: a recursion by it takes lfr_step_records().
 */
static const struct lfr_unwind_row lfr_frame_record_row = {
	.cfa = LFR_UNWIND_CFA_BP,
	.cfa_off = 16,
	.bp = LFR_UNWIND_BP_AT_CFA,
	.bp_off = -16,
};

/*
 * A row's rule, its four fields after @start, as one word: rows compared by
 * rule in one load and one compare (the first frame of each recursion is).
 */
static __always_inline u64 lfr_row_rule(const struct lfr_unwind_row *r)
{
	u64 rule;

	BUILD_BUG_ON(offsetof(struct lfr_unwind_row, cfa_off) +
		     sizeof(rule) != sizeof(*r));
	BUILD_BUG_ON(sizeof(r->cfa_off) + sizeof(r->bp_off) + sizeof(r->cfa) +
		     sizeof(r->bp) != sizeof(rule));
	memcpy(&rule, (const u8 *)r + offsetof(struct lfr_unwind_row, cfa_off),
	       sizeof(rule));
	return rule;
}

static __always_inline bool lfr_row_is_frame_record(const struct lfr_unwind_row *r)
{
	return lfr_row_rule(r) == lfr_row_rule(&lfr_frame_record_row);
}

/*
 * The frames of a recursion: the caller of the frame at m->pc, a call site
 * whose rule is the frame record, returns to the same site again and
 * again.  Steps them as lfr_step_row() by lfr_frame_record_row would, one
 * after the other, with the state in locals and no lookup: a frame costs
 * its two loads, its checks and its store.  Returns as lfr_step_row() does;
 * when the walk goes on, m->pc is the first return address that is not
 * the site.  Makes no call: it runs inside the walk's user-access section.
 */
static __always_inline bool lfr_step_records(struct lfr_mixed_state *m,
					     struct lfr_memo_state *ms,
					     lfr_read_fn read_in,
					     const enum lfr_isa isa)
{
	const u64 site = m->pc, limit = m->limit;
	u64 *const first = m->ips + m->nr, *const end = m->ips + m->max;
	u64 sp = m->sp, bp = m->bp, *p = first, cfa, ret, nbp;
	/*
	 * the memo's frame of the one unwound, kept as lfr_memo_keep() would
	 * but with no comparison: the walk would have followed the memo from
	 * the recursion's start
	 */
	struct lfr_memo_frame *mf = ms ? &ms->memo->f[m->nr - 1] : NULL;
	bool more = false;

	if (m->nr > m->max)
		return false;
	for (;;) {
		cfa = bp + 16;
		if (unlikely(cfa <= sp || cfa >= limit || (cfa & 7)))
			goto bad;
		if (unlikely(read_in(m->ctx, cfa - 8, &ret, sizeof(ret)) ||
			     read_in(m->ctx, bp, &nbp, sizeof(nbp))))
			goto fault;
		ret = lfr_ret_addr(isa, m->pac_mask, ret);
		if (likely(ret == site)) {
			if (unlikely(p == end))
				goto truncated;
			if (ms && mf < &ms->memo->f[LFR_MEMO_FRAMES - 1]) {
				mf->bp_at = bp;
				mf->table = 1;
				mf++;
				mf->pc = ret;
				mf->sp = cfa;
				mf->bp = nbp;
			}
			*p++ = ret;
			sp = cfa;
			bp = nbp;
			continue;
		}
		/* the frame that returns elsewhere: the loop's last */
		if (!ret)
			goto bad;
		if (p == end)
			goto truncated;
		if (ms && p - m->ips <= LFR_MEMO_FRAMES)
			lfr_memo_keep(ms, p - m->ips, bp, 1, ret, cfa, nbp);
		*p++ = ret;
		m->pc = ret;
		m->sp = cfa;
		m->bp = nbp;
		more = true;
		break;
	}
out:
	m->frames += p - first;
	m->nr += p - first;
	return more;
truncated:
	/*
	 * the state of the last frame kept (all return to the site): a
	 * bounded walk goes on from it
	 */
	m->flags |= LFR_SAMPLE_F_USER_TRUNCATED;
	m->pc = site;
	m->sp = sp;
	m->bp = bp;
	goto out;
bad:
	m->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
	goto out;
fault:
	m->flags |= LFR_SAMPLE_F_USER_FAULT;
	goto out;
}

/*
 * One step by the frame pointer: the frame record {saved rbp, return
 * address} at rbp.  rbp == 0 is the outermost frame, as in the plain walk.
 */
static __always_inline bool lfr_step_fp(struct lfr_mixed_state *m,
					struct lfr_memo_state *ms,
					lfr_read_fn read,
					const enum lfr_isa isa)
{
	enum lfr_frame_verdict v = lfr_frame_check(m->bp, 0, m->sp, false,
						   m->limit);
	u64 next, ret;

	if (v == LFR_FRAME_END)
		return false;
	if (v != LFR_FRAME_OK) {
		m->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
		return false;
	}
	if (lfr_fp_record(m->ctx, read, m->bp, false, &next, &ret)) {
		m->flags |= LFR_SAMPLE_F_USER_FAULT;
		return false;
	}
	/*
	 * x86-64 pushes rbp right after the call's return address: the
	 * caller's sp is rbp + 16.  An arm64 frame record may lie anywhere in
	 * its frame: rbp + 16 is only a lower bound.
	 */
	if (isa == LFR_ISA_ARM64)
		m->sp_lower = true;
	return lfr_mixed_caller(m, ms, m->bp + 16,
				lfr_ret_addr(isa, m->pac_mask, ret), next,
				m->bp, 0);
}

/*
 * The leaf's frame in the mixed walk, as the lookup @f of the interrupted
 * pc found: by its row @r, or by the prologue's rule, or by the frame
 * pointer.  Returns false when the chain ends.
 */
static __always_inline bool lfr_step_leaf(struct lfr_mixed_state *m,
					  struct lfr_memo_state *ms,
					  enum lfr_row_found f,
					  const struct lfr_unwind_row *r,
					  lfr_read_fn read, lfr_read_fn read_in,
					  const enum lfr_isa isa)
{
	int off;

	if (f == LFR_ROW_FOUND) {
		m->flags |= LFR_SAMPLE_F_USER_CFI;
		if (!lfr_step_row(m, ms, r, read_in, false, 1, isa))
			return false;
		m->frames++;
		return true;
	}
	if (isa == LFR_ISA_ARM64) {
		off = lfr_a64_leaf_cfa(m->ctx, m->pc, read);
		if (off >= 0) {
			/* x29 is the caller's, the return address in x30 */
			const struct lfr_unwind_row leaf = {
				.cfa = LFR_UNWIND_CFA_SP,
				.cfa_off = off,
				.bp = LFR_UNWIND_BP_SAME |
				      LFR_UNWIND_RA_LR << LFR_UNWIND_RA_SHIFT,
			};

			return lfr_step_row(m, ms, &leaf, read_in, false, 0,
					    isa);
		}
		return lfr_step_fp(m, ms, read, isa);
	}
	off = lfr_leaf_ret_offset(m->ctx, m->pc, false, read);
	if (off >= 0) {
		/*
		 * No frame of its own yet, or no longer: rbp is the caller's
		 * and the return address is at sp + off.
		 */
		const struct lfr_unwind_row leaf = {
			.cfa = LFR_UNWIND_CFA_SP,
			.cfa_off = off + 8,
			.bp = LFR_UNWIND_BP_SAME,
		};

		return lfr_step_row(m, ms, &leaf, read_in, false, 0, isa);
	}
	return lfr_step_fp(m, ms, read, isa);
}

/*
 * The frames after the one the walk has reached, which is the last walk's
 * at the same depth (m->join): each taken as long as the words its step
 * read hold what they held, with no lookup and nothing written to the memo
 * (it holds them already).  On the first that differs, the walk goes on by
 * the rows from the state it has.  False when the chain ends (the depth
 * cap).  Makes no call: it runs inside the walk's user-access section.
 */
static __always_inline bool lfr_memo_follow(struct lfr_mixed_state *m,
					    struct lfr_memo_state *ms,
					    lfr_read_fn read_in)
{
	/* in locals: a store to the chain may alias any field of @m */
	const struct lfr_memo_frame *a = &ms->memo->f[m->nr - 1];
	const struct lfr_memo_frame *const end = &ms->memo->f[ms->n - 1];
	u64 *const first = m->ips + m->nr, *const cap = m->ips + m->max;
	u64 *p = first, word;
	u32 frames = 0;
	bool more = true;

	ms->join = false;
	for (; a < end; a++) {
		const struct lfr_memo_frame *b = a + 1;

		if (read_in(m->ctx, b->sp - 8, &word, sizeof(word)) ||
		    word != b->pc)
			break;
		if (a->bp_at && (read_in(m->ctx, a->bp_at, &word,
					 sizeof(word)) || word != b->bp))
			break;
		if (unlikely(p >= cap)) {
			m->flags |= LFR_SAMPLE_F_USER_TRUNCATED;
			more = false;
			break;
		}
		*p++ = b->pc;
		frames += a->table;
	}
	m->nr += p - first;
	m->frames += frames;
	ms->frames += p - first;
	m->pc = a->pc;
	m->sp = a->sp;
	m->bp = a->bp;
	return more;
}

/*
 * The state lfr_walk_mixed() starts from: @w's leaf, or with @resume (a
 * constant) the frame where @w paused; and @ms's memo (NULL: none) with
 * the leaf's frame in it.
 */
static __always_inline void lfr_mixed_init(struct lfr_mixed_state *m,
					   struct lfr_memo_state *ms,
					   const struct lfr_uwalk *w,
					   const bool resume)
{
	*m = (struct lfr_mixed_state){
		.pc = resume ? w->rs_pc : w->ip,
		.sp = resume ? w->rs_sp : w->sp,
		.bp = resume ? w->rs_bp : w->fp,
		.ips = w->ips, .limit = w->limit, .ctx = w->ctx,
		.nr = w->nr, .max = w->max, .frames = w->frames,
		.lr = w->lr, .pac_mask = w->pac_mask,
		.sp_lower = resume && w->rs_sp_lower,
	};
	if (ms) {
		ms->n = ms->memo->n;
		ms->memo->f[0].pc = m->pc;
		ms->memo->f[0].sp = m->sp;
		ms->memo->f[0].bp = m->bp;
	}
}

/* What lfr_walk_mixed() leaves in @w: its chain, and the state it ends at. */
static __always_inline void lfr_mixed_done(struct lfr_uwalk *w,
					   const struct lfr_mixed_state *m,
					   const struct lfr_memo_state *ms)
{
	if (ms) {
		ms->memo->n = min_t(u32, m->nr, LFR_MEMO_FRAMES);
		w->memo_frames = ms->frames;
	}
	w->nr = m->nr;
	w->frames = m->frames;
	w->flags |= m->flags;
	w->rs_pc = m->pc;
	w->rs_sp = m->sp;
	w->rs_bp = m->bp;
	w->rs_sp_lower = m->sp_lower;
	w->paused = m->paused;
}

/*
 * The walk of a 64-bit task whose objects may have unwind tables: each
 * frame is unwound by its object's table where there is one and by the
 * frame pointer elsewhere, in one chain.  The state carried from frame to
 * frame is the caller's pc, sp and rbp, so a frame-pointer frame above a
 * table frame starts from the rbp the table restored.  Every step must
 * move sp up, so the chain cannot loop.  Above the leaf, the last call
 * site looked up and its row are kept: the frames of a recursion return to
 * one call site, and take no lookup; when its rule is the frame record, a
 * loop of their own (lfr_step_records()).
 * @fn: the reads, the lookup and their sections (struct lfr_walk_fns).
 * With @memo (a constant: a walk without one has none of its code), in one
 * section or none, the walk follows w->memo's frames from where it meets
 * them (lfr_memo_follow()) and keeps its own there.  With @resume (a
 * constant), the walk goes on from the frame where it paused (w->rs_*:
 * above the leaf, which it does not walk again), its chain so far in
 * w->ips.  It leaves its last frame's state in w->rs_*, and w->paused when
 * a lookup paused it.
 */
static __always_inline void lfr_walk_mixed(struct lfr_uwalk *w,
					   const struct lfr_walk_fns *fn,
					   const bool memo,
					   const bool resume,
					   const enum lfr_isa isa)
{
	const lfr_read_fn read = fn->read, read_in = fn->read_in;
	const lfr_open_fn open = fn->open;
	const lfr_close_fn close = fn->close;
	const bool one_section = fn->one_section;
	struct lfr_mixed_state m;
	struct lfr_memo_state mst = {
		.memo = w->memo,
	};
	/* the memo's frames are x86-64's: the return address at CFA - 8 */
	struct lfr_memo_state *const ms = memo && !resume && isa == LFR_ISA_X86_64 &&
					  (one_section || !open) ? &mst : NULL;
	const struct lfr_unwind_row *r = NULL;
	void *const row_ctx = w->row_ctx;
	/* a return address is never 0: no call site is U64_MAX */
	u64 last = U64_MAX;
	enum lfr_row_found f;
	bool more = true;

	lfr_mixed_init(&m, ms, w, resume);
	if (open && one_section && !open(m.ctx)) {
		m.flags |= LFR_SAMPLE_F_USER_FAULT;
		goto out;
	}
	if (!resume) {
		f = fn->row(row_ctx, m.pc, &r);
		if (f == LFR_ROW_NONE) {
			m.flags |= LFR_SAMPLE_F_USER_NO_CFI;
			goto close;
		}
		if (open && !one_section && !open(m.ctx)) {
			m.flags |= LFR_SAMPLE_F_USER_FAULT;
			goto out;
		}
		more = lfr_step_leaf(&m, ms, f, r, read, read_in, isa);
		if (close && !one_section)
			close(m.ctx);
	}
	while (more) {
		u64 look;

		if (ms && ms->join) {
			if (!lfr_memo_follow(&m, ms, read_in))
				break;
			last = U64_MAX;
		}
		look = m.pc - 1;
		if (look == last) {
			if (lfr_row_is_frame_record(r)) {
				/* a recursion by frame records: its own loop */
				if (open && !one_section && !open(m.ctx)) {
					m.flags |= LFR_SAMPLE_F_USER_FAULT;
					break;
				}
				more = lfr_step_records(&m, ms, read_in, isa);
				if (close && !one_section)
					close(m.ctx);
				continue;
			}
			/* r is still the row found for it */
			f = LFR_ROW_FOUND;
		} else {
			f = fn->row(row_ctx, look, &r);
			if (f == LFR_ROW_NONE) {
				m.flags |= LFR_SAMPLE_F_USER_NO_CFI;
				break;
			}
			if (f == LFR_ROW_PAUSE) {
				m.paused = true;
				break;
			}
			last = f == LFR_ROW_FOUND ? look : U64_MAX;
		}
		if (open && !one_section && !open(m.ctx)) {
			m.flags |= LFR_SAMPLE_F_USER_FAULT;
			break;
		}
		if (f == LFR_ROW_FOUND) {
			more = lfr_step_row(&m, ms, r, read_in, true, 1, isa);
			m.frames += more;
		} else {
			more = lfr_step_fp(&m, ms, read, isa);
		}
		if (close && !one_section)
			close(m.ctx);
	}
close:
	if (close && one_section)
		close(m.ctx);
out:
	lfr_mixed_done(w, &m, ms);
}

/*
 * Walks w's stack with @fn's reads and, for a 64-bit task, its row lookup
 * (struct lfr_walk_fns; by frame pointers alone without one).  @in: see
 * lfr_walk_fp_frames() (frame pointers only; the interrupted pc and the
 * leaf's return address, which come before the loop, are the caller's to
 * check).  @memo (with a row lookup, in one section): the walk follows and
 * keeps w->memo (lfr_walk_mixed(); x86-64 only).  @isa, a constant: the
 * instruction set's rules (the leaf's return address on the stack or in
 * x30, PAC stripped on arm64).
 */
static __always_inline void lfr_walk_user_isa(struct lfr_uwalk *w,
					      const struct lfr_walk_fns *fn,
					      struct lfr_pc_ranges *in,
					      const bool memo,
					      const enum lfr_isa isa)
{
	const lfr_read_fn read = fn->read, read_in = fn->read_in;
	u64 fp = w->fp;
	int off;

	w->nr = 0;
	w->flags = 0;
	w->frames = 0;
	w->memo_frames = 0;
	w->paused = false;
	if (!w->max)
		return;
	if (fn->row && !w->compat) {
		w->ips[w->nr++] = w->ip;
		lfr_walk_mixed(w, fn, memo, false, isa);
		return;
	}
	w->ips[w->nr++] = w->ip;

	if (isa == LFR_ISA_ARM64) {
		/* a 64-bit task: arm64's 32-bit ones are not walked */
		if (lfr_a64_leaf_cfa(w->ctx, w->ip, read) >= 0 &&
		    w->nr < w->max) {
			u64 ret = lfr_ret_addr(isa, w->pac_mask, w->lr);

			if (!ret) {
				w->flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
				return;
			}
			/* the caller's frame is the one x29 points to */
			w->ips[w->nr++] = ret;
		}
		lfr_walk_fp_frames(w, read_in, fp, w->sp, false, in, isa);
		return;
	}

	off = w->compat ? lfr_leaf_ret_offset(w->ctx, w->ip, true, read) :
			  lfr_leaf_ret_offset(w->ctx, w->ip, false, read);
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

	lfr_walk_fp_from(w, read_in, fp, w->sp, in, isa);
}

/* lfr_walk_user_isa() of the native instruction set. */
static __always_inline void lfr_walk_user_in(struct lfr_uwalk *w,
					     const struct lfr_walk_fns *fn,
					     struct lfr_pc_ranges *in,
					     const bool memo)
{
	lfr_walk_user_isa(w, fn, in, memo, LFR_ISA_NATIVE);
}

/*
 * A walk bounded: the walks that run with interrupts off (the commit in
 * place in the ring) walk at most LFR_IRQOFF_FRAMES frames and
 * LFR_IRQOFF_PROBES steps of row searches (their row lookup counts them:
 * up to 24 a search in a table of 16 M rows, and a target chooses the
 * return addresses whose hints collide) before they go on with interrupts
 * on; so a deep stack costs that much with interrupts off at most, not its
 * depth (up to LFR_MAX_USER_STACK_DEPTH) times a search.  A frame taken
 * from a memo or a recursion's loop counts as one.
 */
#define LFR_IRQOFF_FRAMES	128
#define LFR_IRQOFF_PROBES	128

/* Bounds @w's walk to @frames frames (its depth cap stays @w's own). */
static inline void lfr_walk_bound(struct lfr_uwalk *w, unsigned int frames)
{
	w->max = min(w->max, frames);
}

/*
 * After a walk bounded to fewer frames than @max, its depth cap: true when
 * it stopped for its bound (cut there, or a lookup paused it), not at its
 * chain's end, with @w made ready to go on with lfr_walk_user_resume() up
 * to @max.
 */
static inline bool lfr_walk_paused(struct lfr_uwalk *w, unsigned int max)
{
	if (!w->paused && (!(w->flags & LFR_SAMPLE_F_USER_TRUNCATED) ||
			   w->max >= max))
		return false;
	w->flags &= ~LFR_SAMPLE_F_USER_TRUNCATED;
	w->paused = false;
	w->max = max;
	return true;
}

/*
 * Goes on with @w's walk from where it paused (lfr_walk_paused()): the same
 * walk as lfr_walk_user_in() with the same @fn and @in, without a memo; its
 * chain so far is kept, the frames after it are appended.
 */
static __always_inline void lfr_walk_user_resume(struct lfr_uwalk *w,
						 const struct lfr_walk_fns *fn,
						 struct lfr_pc_ranges *in)
{
	if (fn->row && !w->compat) {
		lfr_walk_mixed(w, fn, false, true, LFR_ISA_NATIVE);
		return;
	}
	lfr_walk_fp_from(w, fn->read_in, w->rs_bp, w->rs_sp, in,
			 LFR_ISA_NATIVE);
}

/* A walk by @read alone, with @row (or NULL) and no sections. */
static __always_inline void lfr_walk_user(struct lfr_uwalk *w,
					  lfr_read_fn read, lfr_row_fn row)
{
	const struct lfr_walk_fns fn = {
		.read = read, .read_in = read, .row = row,
	};

	lfr_walk_user_in(w, &fn, NULL, false);
}

#endif /* LFR_FRAME_WALK_H */

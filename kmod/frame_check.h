/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the state of a user-stack walk (frame_walk.h), and its callbacks. */
#ifndef LFR_FRAME_CHECK_H
#define LFR_FRAME_CHECK_H

#include <linux/types.h>

/*
 * The instruction set a walk unwinds, a constant of every inlined walk
 * (frame_walk.h): the native one in the module, either one in KUnit, whose
 * synthetic stacks test arm64's rules in the x86-64 debug kernel too.
 */
enum lfr_isa {
	LFR_ISA_X86_64,
	LFR_ISA_ARM64,
};

#ifdef CONFIG_ARM64
#define LFR_ISA_NATIVE	LFR_ISA_ARM64
#else
#define LFR_ISA_NATIVE	LFR_ISA_X86_64
#endif

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

/*
 * Opens and closes a section in which @lfr_read_fn may run (the live walk's
 * user-access section): one for the whole walk when its row lookup makes no
 * call, else one per frame with the lookup between them (no call may run
 * inside one).  Open returns false when it cannot.
 */
typedef bool (*lfr_open_fn)(void *ctx);
typedef void (*lfr_close_fn)(void *ctx);

struct lfr_unwind_row;

/* What an unwind-table lookup found for a pc (enum lfr_row_found). */
enum lfr_row_found {
	LFR_ROW_FOUND,		/* *row is the pc's rule */
	LFR_ROW_NO_TABLE,	/* no table for the pc's object: frame pointers */
	LFR_ROW_NONE,		/* its object's table has no rule for the pc */
	LFR_ROW_PAUSE,		/* the walk's probes are spent: no search made */
};

/*
 * Looks up the unwind rule of @pc (the interrupted pc of the leaf, or a
 * return address minus one: the call instruction).  With LFR_ROW_FOUND,
 * *@row points to the rule, which stays valid until the walk ends.  A
 * lookup that would pass the walk's budget of row probes (a bounded walk,
 * frame_walk.h) returns LFR_ROW_PAUSE instead, never for the leaf's pc:
 * the walk stops before that frame, to go on later.
 */
typedef enum lfr_row_found (*lfr_row_fn)(void *ctx, u64 pc,
					 const struct lfr_unwind_row **row);

/*
 * The frames of a walk with unwind tables, kept for the next walk on the CPU
 * (lfr_walk_mixed()): each frame's pc, sp and rbp, and of the step from it
 * to the next frame, where it read rbp (0: it did not) and whether a table
 * row made it.  A walk that reaches one of these states at the same depth
 * takes the frames after it by reading again only the words their steps
 * read: the same state, the same words and the same rows give the same
 * frames.
 */
#define LFR_MEMO_FRAMES 64

struct lfr_memo_frame {
	u64 pc, sp, bp;
	u64 bp_at;
	u32 table;
};

struct lfr_walk_memo {
	u32 n;
	struct lfr_memo_frame f[LFR_MEMO_FRAMES];
};

/*
 * A CPU's memo (unwind.c): the frames of @task's last walk, with the ranges
 * and tables it was walked in (struct lfr_known_rows), followed only by a
 * walk in the same ones; @last, the task walked last when it was not
 * @task's (pointers compared only, never followed).
 */
struct lfr_walk_memos {
	const void *task, *last;
	const void *w;
	u64 gen, image;
	unsigned long tables;
	u32 lost;
	struct lfr_walk_memo m;
};

struct lfr_uwalk {
	u64 ip, sp, fp;		/* interrupted user registers */
	/*
	 * arm64: the link register x30 at the tick, the return address of a
	 * function that has not saved it (yet, or again), and the bits of a
	 * return address that hold its pointer authentication code (PAC), 0
	 * without; unused on x86-64
	 */
	u64 lr, pac_mask;
	bool compat;		/* 32-bit frames {u32 next_fp, u32 ret} */
	u64 limit;		/* first address past user space */
	unsigned int max;	/* entries that fit in @ips (depth cap) */
	void *ctx;		/* the reader's */
	void *row_ctx;		/* the row lookup's */
	u64 *ips;		/* out: pc then return addresses */
	unsigned int nr;	/* out */
	unsigned int frames;	/* out: return addresses found by table rows */
	u32 flags;		/* out: LFR_SAMPLE_F_USER_* */
	/*
	 * With unwind tables, in one section: the frames of an earlier walk,
	 * followed where this one meets them, and then this walk's (NULL:
	 * none; its n 0: none to follow).
	 */
	struct lfr_walk_memo *memo;
	unsigned int memo_frames;	/* out: frames taken from the memo */
	/*
	 * out: where the walk stopped short of its chain's end, to go on
	 * from (lfr_walk_paused(), lfr_walk_user_resume()): the state of its
	 * last frame (pc, sp, rbp), or for a frame-pointer walk the next frame
	 * record and the lowest address it may lie at; @paused: a lookup
	 * found the walk's probes spent (LFR_ROW_PAUSE); @rs_sp_lower: arm64,
	 * that sp is a lower bound of the frame's only (struct lfr_mixed_state).
	 */
	u64 rs_pc, rs_sp, rs_bp;
	bool rs_sp_lower;
	bool paused;
};

#endif /* LFR_FRAME_CHECK_H */

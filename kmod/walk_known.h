/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the USTACK walk of a thread whose pcs lie in the ranges its process
 * described before (walk_known.c): no mapping lock, no lookup, so it may
 * run with interrupts off, in place in the ring; and what it shares with
 * the walk that looks mappings up (unwind.c).
 */
#ifndef LFR_WALK_KNOWN_H
#define LFR_WALK_KNOWN_H

#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/lfr.h>
#include "arch_regs.h"
#include "frame_walk.h"
#include "session.h"
#include "user_read.h"
#include "walk_obj.h"

/*
 * A walk that runs with interrupts off, in place in the ring's room
 * (lfr_commit_direct()): its interrupts' flags, its depth cap, and the
 * sample buffer it goes on in once it meets its bound (lfr_irqoff_leave()).
 */
struct lfr_irqoff {
	unsigned long flags;
	unsigned int max;
	struct lfr_rec_ustack *buf;
};

/* The walk of @wk's snapshot, to write its pcs at @ips. */
static inline void lfr_uwalk_init(struct lfr_uwalk *w,
				  const struct lfr_session *s,
				  const struct lfr_snapshot *sn, u64 *ips)
{
	bool compat = sn->flags & LFR_SAMPLE_F_COMPAT;

	w->ip = sn->ip;
	w->sp = sn->sp;
	w->fp = sn->bp;
	w->lr = sn->lr;
	w->pac_mask = lfr_user_pac_mask();
	w->compat = compat;
	w->limit = compat ? 1ULL << 32 : TASK_SIZE_MAX;
	w->max = s->cfg.user_depth;
	w->ctx = NULL;
	w->row_ctx = NULL;
	w->ips = ips;
	w->memo = NULL;
	w->memo_frames = 0;
}

/*
 * @w by frame pointers only, in one user-access section when it opens;
 * with @in (NULL, a constant, for a walk that looks mappings up after), its
 * return addresses checked against those ranges (lfr_walk_fp_frames()).
 * With @resume (a constant), the walk goes on from where it paused.
 */
static __always_inline void lfr_walk_fp_in(struct lfr_uwalk *w,
					   struct lfr_pc_ranges *in,
					   const bool resume)
{
	static const struct lfr_walk_fns open_fns = {
		.read = lfr_read_user_open,
		.read_in = lfr_read_user_in,
	};
	static const struct lfr_walk_fns fns = {
		.read = lfr_read_user,
		.read_in = lfr_read_user,
	};

	/* one inlined walk per reader: each passed as a constant */
	if (user_access_begin((void __user *)0, TASK_SIZE_MAX)) {
		if (resume)
			lfr_walk_user_resume(w, &open_fns, in);
		else
			lfr_walk_user_in(w, &open_fns, in, false);
		user_access_end();
	} else if (resume) {
		lfr_walk_user_resume(w, &fns, in);
	} else {
		lfr_walk_user_in(w, &fns, in, false);
	}
}

/*
 * The stack words copied after @w's pcs in @r: none when a table unwound the
 * leaf (its caller needs none of them).  On arm64 the record's register
 * words take the room of the last ones (lfr_ustack_header()).  Page faults
 * disabled by the caller.
 */
static inline void lfr_ustack_words(struct lfr_rec_ustack *r,
				    const struct lfr_uwalk *w, u64 sp)
{
	r->nr_words = w->compat || (w->flags & LFR_SAMPLE_F_USER_CFI) ? 0 :
		lfr_copy_stack_words(sp, r->ips + w->nr,
				     LFR_USTACK_WORDS - LFR_ARCH_USTACK_REGS);
}

bool lfr_walk_fast(struct lfr_session *s, const struct lfr_walk *wk,
		   struct lfr_rec_ustack *r, struct lfr_irqoff *io);

#endif /* LFR_WALK_KNOWN_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the commit of a walk's records to the ring of the CPU it runs on
 * (walk_commit.c): after the walk, from its buffers (lfr_commit()), or
 * walked in place in the ring's room with interrupts off
 * (lfr_commit_direct()).
 */
#ifndef LFR_WALK_COMMIT_H
#define LFR_WALK_COMMIT_H

struct lfr_rec_ustack;
struct lfr_session;
struct lfr_ustack_ctx;
struct lfr_walk;
struct lfr_walk_buf;

enum lfr_direct {
	LFR_DIRECT_DONE,	/* committed */
	LFR_DIRECT_NOT_KNOWN,	/* a pc outside the described ranges */
	LFR_DIRECT_NOT_TRIED,	/* another record first, or no room */
	LFR_DIRECT_WALKED,	/* walked, gone on with interrupts on: commit */
};

void lfr_commit(struct lfr_session *s, struct lfr_walk *w,
		struct lfr_walk_buf *b, int lost_reason,
		const struct lfr_ustack_ctx *ctx);
enum lfr_direct lfr_commit_direct(struct lfr_session *s, struct lfr_walk *w,
				  const struct lfr_ustack_ctx *ctx,
				  struct lfr_rec_ustack **buf);

#endif /* LFR_WALK_COMMIT_H */

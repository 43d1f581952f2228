// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the USTACK walk in ranges described before (see walk_known.h): by
 * unwind tables in the slot's ranges (this CPU's memo followed where the
 * last walk's frames are met again), or by frame pointers with each return
 * address checked against them.
 */
#include <linux/compat.h>
#include <linux/compiler.h>
#include <linux/irqflags.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seqlock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "core.h"
#include "known_ranges.h"
#include "mm_watch.h"
#include "session.h"
#include "threads.h"
#include "unwind_tables.h"
#include "walk_known.h"
#include "walk_pool.h"
#include "walk_records.h"

/* @e's slot, while the index it holds is valid; NULL when it has none. */
static const struct lfr_mm_slot *lfr_xr_of(struct lfr_session *s,
					   const struct lfr_thread *e)
{
	if (e->xr_slot >= LFR_MM_WATCH_MAX ||
	    e->xr_epoch != READ_ONCE(s->watches.evictions))
		return NULL;
	return &s->watches.slots[e->xr_slot];
}

/*
 * A walk with interrupts off that met its bound (frame_walk.h:
 * LFR_IRQOFF_FRAMES, LFR_IRQOFF_PROBES): its chain so far moves out of the
 * ring's room, which any writer on this CPU may take once interrupts are
 * on, into a sample buffer of the session's pool (no allocation: its lock
 * is raw), and interrupts come back on; the walk goes on there, and is
 * committed from it.  False, interrupts still off, when every buffer is
 * lent: the walk gives up (nothing was published) and is made again with
 * the lookups.
 */
static bool lfr_irqoff_leave(struct lfr_session *s, struct lfr_irqoff *io,
			     struct lfr_uwalk *w)
{
	struct lfr_rec_ustack *buf = lfr_walk_pool_get(&s->walk_bufs);

	if (!buf)
		return false;
	memcpy(buf->ips, w->ips, w->nr * sizeof(u64));
	w->ips = buf->ips;
	io->buf = buf;
	lfr_count(s, LFR_CTR_WALK_RESUMED, 1);
	local_irq_restore(io->flags);
	return true;
}

/*
 * What this CPU's memo holds after a walk that kept its frames there: when
 * @ok (the walk found every pc in @k's ranges and no mapping changed), the
 * ranges, tables and image they were walked in; else nothing.
 */
static __always_inline void lfr_memos_keep(struct lfr_walk_memos *memos,
					   bool ok,
					   const struct lfr_known_rows *k,
					   unsigned long tables, u64 image,
					   u32 lost)
{
	if (!ok) {
		memos->m.n = 0;
		return;
	}
	/* the frames it kept are this walk's */
	memos->w = k->w;
	memos->gen = k->gen;
	memos->tables = tables;
	memos->image = image;
	memos->lost = lost;
}

/*
 * The walk in the slot's ranges: its lookups make no call, so its reads run
 * in one user-access section (lfr_row_known()).
 */
static const struct lfr_walk_fns lfr_known_fns = {
	.read = lfr_read_user_open, .read_in = lfr_read_user_in,
	.row = lfr_row_known,
	.open = lfr_uaccess_open, .close = lfr_uaccess_close,
	.one_section = true,
};

/*
 * Whether the tables kept with @k's ranges describe their files still: a
 * table kept with its range is used while its file is the one it
 * describes (a file written in place keeps its mapping, and the mm's
 * generation).  Its inode is read in the walk's RCU read section, in which
 * the generation said it was mapped, so it is not freed before the section
 * ends.  A changed file sends the walk to the lookups, which keep its range
 * without the table.
 */
static __always_inline bool lfr_known_tables_current(struct lfr_session *s,
						     const struct lfr_known_rows *k)
{
	bool ok = true;
	u32 i;

	for (i = 0; ok && i < k->n; i++) {
		if (!k->r.t[i])
			continue;
		if (unlikely(!lfr_unwind_current(k->r.t[i], k->r.ino[i]))) {
			lfr_unwind_stale(s, k->r.t[i]);
			ok = false;
		}
		lfr_unwind_used(k->r.t[i]);
	}
	return ok;
}

/*
 * @w walked with unwind tables in the ranges of @e's slot, with page faults
 * disabled by the caller: true when every pc was found in them and no
 * mapping of the mm changed before the walk ended.  Their tables are used
 * only while the session's count of table changes is the one they were
 * found at, read in the same RCU read section: a table dropped since was
 * dropped after this section began, and is freed after it ends.  With
 * @memos (a constant: lfr_walk_known_memo(); this CPU's, interrupts off),
 * the walk follows the last walk's frames where it meets them at the same
 * depth, when that walk had the same ranges, tables and mappings
 * (frame_walk.h: lfr_memo_follow()), and keeps its own.  With @io
 * (interrupts off, the walk in the ring's room) the walk is bounded, and
 * goes on with interrupts on once it meets the bound (lfr_irqoff_leave()).
 */
static __always_inline bool lfr_walk_known_in(struct lfr_session *s,
					      const struct lfr_thread *e,
					      u64 image, struct lfr_uwalk *w,
					      struct lfr_walk_memos *memos,
					      struct lfr_irqoff *io)
{
	const struct lfr_mm_slot *m = lfr_xr_of(s, e);
	/* set before it is read (lfr_known_copy()): not zeroed at every walk */
	struct lfr_known_rows k __uninitialized;
	unsigned long tables;
	unsigned int seq;
	u32 lost;
	bool ok;

	if (!m)
		return false;
	lost = atomic_read(&s->mmap_lost);
	rcu_read_lock();
	tables = READ_ONCE(s->unwind.changes);
	do {
		seq = read_seqcount_begin(&m->seq);
		ok = lfr_known_copy(m, image, lost, tables, &k);
	} while (read_seqcount_retry(&m->seq, seq));
	ok = ok && lfr_known_tables_current(s, &k);
	if (ok) {
		k.cur_lo = 0;
		k.cur_span = 0;
		k.miss = false;
		k.probes = io ? LFR_IRQOFF_PROBES : U32_MAX;
		w->row_ctx = &k;
		/*
		 * Two calls rather than one with a memo flag: measured, the
		 * one call cost 30-40 more instructions a walk (one vCPU).
		 */
		if (memos) {
			if (memos->w != k.w || memos->gen != k.gen ||
			    memos->tables != tables ||
			    memos->image != image || memos->lost != lost)
				memos->m.n = 0;
			w->memo = &memos->m;
			lfr_walk_user_in(w, &lfr_known_fns, NULL, true);
			w->memo = NULL;
		} else {
			lfr_walk_user_in(w, &lfr_known_fns, NULL, false);
		}
		w->row_ctx = NULL;
		ok = !k.miss;
		if (io && ok && lfr_walk_paused(w, io->max)) {
			/*
			 * Its bound met with interrupts off: the memo, this
			 * CPU's, keeps the frames walked so far, while they
			 * are off; the walk goes on with them on, without it.
			 */
			if (memos) {
				/* its stack read under the ranges' generation */
				smp_rmb();
				lfr_memos_keep(memos, lfr_mm_watch_gen(k.w) ==
					       k.gen, &k, tables, image, lost);
				memos = NULL;
			}
			ok = lfr_irqoff_leave(s, io, w);
			if (ok) {
				k.probes = U32_MAX;
				w->row_ctx = &k;
				lfr_walk_user_resume(w, &lfr_known_fns, NULL);
				w->row_ctx = NULL;
				ok = !k.miss;
			}
		}
	}
	rcu_read_unlock();
	/* the stack was read under the generation the ranges hold at */
	smp_rmb();
	ok = ok && lfr_mm_watch_gen(k.w) == k.gen;
	if (memos)
		lfr_memos_keep(memos, ok, &k, tables, image, lost);
	return ok;
}

static noinline bool lfr_walk_known(struct lfr_session *s,
				    const struct lfr_thread *e, u64 image,
				    struct lfr_uwalk *w, struct lfr_irqoff *io)
{
	return lfr_walk_known_in(s, e, image, w, NULL, io);
}

static noinline bool lfr_walk_known_memo(struct lfr_session *s,
					 const struct lfr_thread *e, u64 image,
					 struct lfr_uwalk *w,
					 struct lfr_walk_memos *memos,
					 struct lfr_irqoff *io)
{
	return lfr_walk_known_in(s, e, image, w, memos, io);
}

/*
 * This CPU's memo for a walk of current's (interrupts off: the walk's
 * alone), or NULL: a memo is taken over by a thread walked twice in a row
 * on the CPU, not thrown back and forth by threads that take turns.
 */
static struct lfr_walk_memos *lfr_memos_for(struct lfr_session *s)
{
	struct lfr_walk_memos *memos;

	if (!irqs_disabled())
		return NULL;
	memos = s->memos[smp_processor_id()];
	if (memos->task == current)
		return memos;
	if (memos->last != current) {
		memos->last = current;
		return NULL;
	}
	memos->task = current;
	memos->m.n = 0;
	return memos;
}

/*
 * A frame-pointer walk of a thread whose slot holds ranges for this image:
 * each return address checked against them in the walk's loop, read where
 * they are under the slot's seq (numbers only: a write meanwhile fails the
 * retry and the walk is not used).  True when every pc lies in them, with
 * no mapping of the mm changed before the walk ended; false sends the walk
 * to the lookups (lfr_user_stack()).  With @io (interrupts off, the walk in
 * the ring's room) the walk is bounded, and goes on with interrupts on once
 * it meets the bound (lfr_irqoff_leave()).
 */
static bool lfr_walk_fp_known(struct lfr_session *s,
			      const struct lfr_thread *e, u64 image,
			      struct lfr_uwalk *w, struct lfr_irqoff *io)
{
	const struct lfr_mm_slot *m = lfr_xr_of(s, e);
	/* every field set before it is read: not zeroed at every walk */
	struct lfr_pc_ranges in __uninitialized;
	unsigned int seq;
	u32 lost;

	if (!m)
		return false;
	lost = atomic_read(&s->mmap_lost);
	seq = read_seqcount_begin(&m->seq);
	in.n = READ_ONCE(m->n);
	if (!in.n || in.n > LFR_XR_MAX || !lfr_xr_valid(m, image, lost))
		return false;
	in.lo = m->r.lo;
	in.hi = m->r.hi;
	in.miss = false;
	lfr_walk_fp_in(w, &in, false);
	if (in.miss)
		return false;
	if (io && lfr_walk_paused(w, io->max)) {
		if (!lfr_irqoff_leave(s, io, w))
			return false;
		lfr_walk_fp_in(w, &in, true);
		if (in.miss)
			return false;
	}
	/* the pc and the leaf's return address, before the loop */
	if (!lfr_in_ranges(m->r.lo, m->r.hi, in.n, w->ips, min_t(u32, w->nr, 2)))
		return false;
	/* the stack was read under the generation the ranges hold at */
	smp_rmb();
	return lfr_xr_valid(m, image, lost) &&
	       !read_seqcount_retry(&m->seq, seq);
}

/*
 * The USTACK record's walk of a thread whose process described, before,
 * every mapping its pcs lie in (mm_watch.h): no mapping lock, no lookup,
 * nothing to record but the stack, so it may run with interrupts off, in
 * place in the ring (lfr_commit_direct(), with @io: bounded, and gone on
 * with interrupts on in io->buf once it met its bound).  Fills @r's pcs,
 * stack words, flags and sp (io->buf's when it went on there), and returns
 * true; false when a pc lies elsewhere (@r holds nothing then:
 * lfr_user_stack() walks again with the lookups).
 */
bool lfr_walk_fast(struct lfr_session *s, const struct lfr_walk *wk,
		   struct lfr_rec_ustack *r, struct lfr_irqoff *io)
{
	const struct lfr_snapshot *sn = &wk->snap;
	/* set by lfr_uwalk_init() and the walk: not zeroed at every walk */
	struct lfr_uwalk w __uninitialized;
	bool known;

	lfr_uwalk_init(&w, s, sn, r->ips);
	if (io) {
		io->max = w.max;
		io->buf = NULL;
		lfr_walk_bound(&w, LFR_IRQOFF_FRAMES);
	}
	pagefault_disable();
	if (!w.compat && READ_ONCE(s->unwind.nr)) {
		/* in ranges described before: no lookup, no mapping lock */
		struct lfr_walk_memos *memos = lfr_memos_for(s);

		known = memos ? lfr_walk_known_memo(s, wk->e,
						    lfr_image_hash(current),
						    &w, memos, io) :
				lfr_walk_known(s, wk->e, lfr_image_hash(current),
					       &w, io);
	} else {
		/* pcs in ranges described before: nothing to look up */
		known = lfr_walk_fp_known(s, wk->e, lfr_image_hash(current),
					  &w, io);
	}
	if (io && io->buf)
		r = io->buf;
	if (known)
		lfr_ustack_words(r, &w, sn->sp);
	pagefault_enable();
	if (!known)
		return false;
	r->flags = sn->flags | w.flags;
	r->sp = sn->sp;
	r->nr_user = w.nr;
	if (w.frames)
		lfr_count(s, LFR_CTR_UNWIND_FRAMES, w.frames);
	if (w.memo_frames)
		lfr_count(s, LFR_CTR_UNWIND_MEMO_FRAMES, w.memo_frames);
	lfr_count(s, LFR_CTR_WALK_KNOWN_MAPS, 1);
	return true;
}

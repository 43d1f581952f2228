// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the deferred walk.  Runs as a task_work of the sampled thread, on its
 * way back to user space: process context, page faults allowed, the user
 * stack exactly as it was at the tick.  Walks the frame pointers, names the
 * mappings the pcs fall in (once per mapping and process image), then
 * commits everything to the ring of the CPU it runs on.  Here: the task_work
 * and the walk with mapping lookups; the walk in ranges described before is
 * walk_known.c's, the records walk_records.c's, the commit walk_commit.c's.
 */
#include <linux/compat.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include "core.h"
#include "cpu_share.h"
#include "frame_walk.h"
#include "mm_watch.h"
#include "session.h"
#include "thread_ctx.h"
#include "threads.h"
#include "unwind.h"
#include "unwind_tables.h"
#include "user_read.h"
#include "walk_check.h"
#include "walk_commit.h"
#include "walk_known.h"
#include "walk_lock.h"
#include "walk_obj.h"
#include "walk_pool.h"
#include "walk_records.h"

/*
 * The session's slot of the thread's mm (mm_watch.h), or NULL: looked for
 * again after an exec or a slot given up, and at one walk in 64 while none
 * can be had.  May sleep.
 */
static struct lfr_mm_slot *lfr_xr_slot(struct lfr_session *s,
				       struct lfr_thread *e,
				       struct mm_struct *mm, u64 walk_id)
{
	u32 epoch = READ_ONCE(s->watches.evictions);
	int i;

	if (e->xr_epoch == epoch) {
		if (e->xr_slot < LFR_MM_WATCH_MAX &&
		    lfr_mm_slot_watch(&s->watches.slots[e->xr_slot], mm))
			return &s->watches.slots[e->xr_slot];
		if (e->xr_slot == LFR_XR_FULL && walk_id % 64)
			return NULL;
	}
	i = lfr_mm_watch_get(&s->watches, mm);
	e->xr_epoch = epoch;
	e->xr_slot = i < 0 ? LFR_XR_FULL : i;
	return i < 0 ? NULL : &s->watches.slots[i];
}

/*
 * The unwind rule of a pc: its mapping (the last one looked up is kept, as
 * consecutive frames are mostly in one object), the table of the
 * mapping's file, the row of the pc's file offset.  The last pc's row is
 * kept too: the frames of a recursion return to one call site.  Under the
 * mapping lock and RCU.
 */
struct lfr_row_cache {
	struct lfr_session *s;
	struct mm_struct *mm;
	unsigned long lo, hi;		/* the mapping last looked up */
	const struct lfr_unwind_table *t; /* its table, or NULL */
	u64 off;			/* file offset - pc in it */
	struct lfr_vma_memo memo;	/* the mappings looked up */
};

static void lfr_row_cache_init(struct lfr_row_cache *c, struct lfr_session *s,
			       struct mm_struct *mm)
{
	c->s = s;
	c->mm = mm;
	c->lo = 0;
	c->hi = 0;
	c->t = NULL;
	c->memo.n = 0;
	c->memo.has_table = 0;
}

static enum lfr_row_found lfr_row_of(void *ctx, u64 pc,
				     const struct lfr_unwind_row **row)
{
	struct lfr_row_cache *c = ctx;

	if (pc < c->lo || pc >= c->hi) {
		struct vm_area_struct *vma = lfr_vma_of(c->mm, &c->memo, pc);

		c->t = NULL;
		if (!vma || vma->vm_start > pc) {
			c->lo = 0;
			c->hi = 0;
			return LFR_ROW_NO_TABLE;
		}
		c->lo = vma->vm_start;
		c->hi = vma->vm_end;
		c->off = ((u64)vma->vm_pgoff << PAGE_SHIFT) - vma->vm_start;
		if (vma->vm_file && (vma->vm_flags & VM_EXEC))
			c->t = lfr_table_of(c->s, &c->memo, vma);
	}
	if (!c->t)
		return LFR_ROW_NO_TABLE;
	return lfr_unwind_row(c->t, pc + c->off, row);
}

/*
 * The walk with unwind tables that looks mappings up: each frame's reads in
 * their own user-access section, the lookup (which may call) outside.
 */
static const struct lfr_walk_fns lfr_lookup_fns = {
	.read = lfr_read_user_open, .read_in = lfr_read_user_in,
	.row = lfr_row_of,
	.open = lfr_uaccess_open, .close = lfr_uaccess_close,
};

static void lfr_walk_fp_only(struct lfr_uwalk *w)
{
	lfr_walk_fp_in(w, NULL, false);
}

/*
 * The user stack of @wk's snapshot into @b: its pcs (frame_walk.h), the
 * stack words and the records of mappings not yet described; by
 * lfr_walk_fast() first unless @fast_failed says it found a pc elsewhere.
 * Returns 0, or the reason the sample is lost: LFR_LOST_MMAP_LOCK when a
 * fatal signal came while it waited for the mapping lock (a writer may
 * hold it for as long as its I/O takes, and a killed or OOM-victim thread
 * must not wait for it).
 */
static int lfr_user_stack(struct lfr_session *s, const struct lfr_walk *wk,
			  struct lfr_walk_buf *b, bool fast_failed)
{
	const struct lfr_snapshot *sn = &wk->snap;
	struct lfr_rec_ustack *r = b->rec;
	struct lfr_uwalk w;
	/*
	 * Only the fields set below before they are read: not zeroed at every
	 * walk (with the kernel's zeroing of the stack, that was a few
	 * hundred bytes per sample).
	 */
	struct lfr_row_cache rc __uninitialized;
	struct lfr_xr_found found __uninitialized;
	struct mm_struct *mm = current->mm;
	struct lfr_thread *e = wk->e;
	const struct lfr_mm_watch *watch;
	struct lfr_mm_slot *slot;
	bool tables = !(sn->flags & LFR_SAMPLE_F_COMPAT) &&
		      READ_ONCE(s->unwind.nr);
	u64 image = lfr_image_hash(current), gen = 0;
	unsigned long changes = 0;
	u32 lost = 0;

	if (!fast_failed && lfr_walk_fast(s, wk, r, NULL))
		return 0;
	lfr_uwalk_init(&w, s, sn, r->ips);
	lfr_row_cache_init(&rc, s, mm);
	found.ok = true;
	found.n = 0;
	/* read before the lookups: a change after them moves it */
	slot = lfr_xr_slot(s, e, mm, sn->walk_id);
	watch = slot ? lfr_mm_slot_watch(slot, mm) : NULL;
	if (watch) {
		gen = lfr_mm_watch_gen(watch);
		lost = atomic_read(&s->mmap_lost);
	} else {
		slot = NULL;
	}
	if (lfr_walk_lock_mm(mm))
		return LFR_LOST_MMAP_LOCK;
	pagefault_disable();
	/*
	 * With unwind tables the walk looks up the mapping of every frame: it
	 * runs under the mapping lock, which the mapping records need anyway.
	 * The reads do not fault, so holding it costs no waiting.
	 */
	if (tables) {
		rcu_read_lock();
		changes = READ_ONCE(s->unwind.changes);
		w.row_ctx = &rc;
		lfr_walk_user_in(&w, &lfr_lookup_fns, NULL, false);
		rcu_read_unlock();
	} else {
		lfr_walk_fp_only(&w);
	}
	lfr_ustack_words(r, &w, sn->sp);
	pagefault_enable();
	r->flags = sn->flags | w.flags;
	r->sp = sn->sp;
	if (w.frames)
		lfr_count(s, LFR_CTR_UNWIND_FRAMES, w.frames);
	/*
	 * The memo of the mappings looked up: the walk's with unwind tables,
	 * empty for a frame-pointer walk, whose chain mostly leaves the
	 * program for libc and comes back to it (_start) at its outermost
	 * frames: one lookup less.
	 */
	r->nr_user = lfr_collect_maps(s, b, &rc.memo, w.ips, w.nr, image,
				      sn->time_ns, &r->flags, &found, tables);
	/* the words follow the pcs kept */
	if (r->nr_words && r->nr_user < w.nr)
		memmove(r->ips + r->nr_user, r->ips + w.nr,
			r->nr_words * sizeof(u64));
	mmap_read_unlock(mm);
	if (slot)
		lfr_xr_keep(slot, gen, image, lost, changes, &found);
	return 0;
}

void lfr_work_fn(struct callback_head *work)
{
	struct lfr_walk *w = container_of(work, struct lfr_walk, work);
	struct lfr_session *s;
	struct task_struct *t = current;
	/* its fields are set below, before any is read: not zeroed */
	struct lfr_walk_buf b __uninitialized;
	/* read before the walk when the process has one; not zeroed */
	union lfr_ctx_copy ctx __uninitialized;
	const struct lfr_ustack_ctx *c = NULL;
	u64 t0 = local_clock();	/* not ktime_get_ns(): see lfr_timer_fn() */
	unsigned long switches = t->nvcsw + t->nivcsw;
	unsigned long old = atomic_long_read(&w->state);
	enum lfr_direct direct;
	s64 ns;
	int lost = 0;
	bool last;

	/*
	 * Given up by STOP, which counted its ticks, dropped its session
	 * references and took a module reference for it: the session may be
	 * gone, only the object is left.  The hand-off of that reference is
	 * the last statement (lfr_module_put_deferred()).
	 */
	if (!lfr_walk_claim(w, old, LFR_WALK_RUNNING)) {
		lfr_walk_obj_done(w);
		lfr_module_put_deferred();
		return;
	}
	s = w->s;
	b.rec = NULL;
	b.maps = NULL;
	b.maps_len = 0;
	b.nr_maps = 0;
	b.path = NULL;
	lost = lfr_walk_check(&w->snap, t, task_pt_regs(t));
	/* before the walk, which may run with interrupts off: it may fault */
	if (!lost && !(w->snap.flags & LFR_SAMPLE_F_COMPAT) &&
	    lfr_ctx_get(s, &ctx))
		c = &ctx.c;
	direct = lost ? LFR_DIRECT_NOT_TRIED :
			lfr_commit_direct(s, w, c, &b.rec);
	if (direct != LFR_DIRECT_DONE) {
		/* LFR_DIRECT_WALKED: the stack is in b.rec, with no lookup */
		if (!lost && direct != LFR_DIRECT_WALKED) {
			b.rec = lfr_walk_pool_get(&s->walk_bufs);
			if (!b.rec)
				lost = LFR_LOST_NOMEM;
			else
				lost = lfr_user_stack(s, w, &b,
						      direct == LFR_DIRECT_NOT_KNOWN);
		}
		lfr_commit(s, w, &b, lost, c);
		lfr_walk_pool_put(&s->walk_bufs, b.rec);
		kfree(b.maps);
		kfree(b.path);
	}

	/*
	 * The walk's cost is its CPU time: a walk that was switched out (it may
	 * sleep on the mapping lock, or be preempted) measured other threads'
	 * time too, and is only counted as such.
	 */
	ns = local_clock() - t0;
	if (t->nvcsw + t->nivcsw == switches && ns > 0) {
		lfr_count(s, LFR_CTR_WORK_NS, ns);
		lfr_count(s, LFR_CTR_WORK_COUNT, 1);
		lfr_cpu_share_charge(ns);
	} else {
		lfr_count(s, LFR_CTR_WORK_SWITCHED, 1);
	}
	/*
	 * This walk's pending count holds the module (through the reference
	 * START took) until it is dropped, so everything that may sleep comes
	 * first: giving the object back may allocate.  The session reference
	 * is not the last one (the registry keeps a session until it is
	 * STOPPED, which needs this walk's pending count).  Once the count is
	 * dropped nothing may sleep: another walk or STOP may hand the module
	 * reference over meanwhile.  When it was the last, this walk holds that
	 * reference and hands it over as its very last statement: nothing of
	 * the module runs after it but this function's return
	 * (lfr_module_put_deferred()).
	 */
	lfr_walk_obj_done(w);
	lfr_session_put(s);
	last = lfr_pending_put(s);
	if (last)
		lfr_module_put_deferred();
}

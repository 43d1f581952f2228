// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the generation of a process's mappings, from an MMU notifier on its
 * mm (see mm_watch.h).  One subscription per mm, found by mmu_notifier_get
 * and shared by the sessions; each session holds one reference per mm it
 * watches, in its slots (LFR_MM_WATCH_MAX), and drops them all once it is
 * STOPPED.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/slab.h>
#include "mm_watch.h"

/* Adds @vma, whose table is @t, to @f's ranges. */
/* Adds @vma, whose table is @t, to @f's ranges. */
void lfr_xr_add(struct lfr_xr_found *f, struct vm_area_struct *vma,
		bool described, const struct lfr_unwind_table *t)
{
	u32 i;

	if (!described) {
		f->ok = false;
		return;
	}
	for (i = 0; i < f->n; i++)
		if (f->r.lo[i] == vma->vm_start && f->r.hi[i] == vma->vm_end)
			return;
	if (f->n == LFR_XR_MAX) {
		f->ok = false;
		return;
	}
	f->r.lo[f->n] = vma->vm_start;
	f->r.off[f->n] = ((u64)vma->vm_pgoff << PAGE_SHIFT) - vma->vm_start;
	f->r.t[f->n] = t;
	f->r.ino[f->n] = t ? file_inode(vma->vm_file) : NULL;
	f->r.hi[f->n++] = vma->vm_end;
}

/*
 * Keeps in @m the ranges a walk's lookups found at generation @gen, with
 * the session's tables at @tables changes: added to those there when they
 * still hold (a range there takes the table its lookup found now: none
 * once its file changed), in their place otherwise.
 */
void lfr_xr_keep(struct lfr_mm_slot *m, u64 gen, u64 image, u32 lost,
		 unsigned long tables, const struct lfr_xr_found *f)
{
	u32 i, j;

	if (!f->ok || !f->n)
		return;
	raw_spin_lock(&m->lock);
	write_seqcount_begin(&m->seq);
	if (m->n && m->gen == gen && m->image == image && m->lost == lost &&
	    m->tables == tables) {
		for (i = 0; i < f->n; i++) {
			for (j = 0; j < m->n; j++)
				if (m->r.lo[j] == f->r.lo[i] &&
				    m->r.hi[j] == f->r.hi[i])
					break;
			if (j < m->n) {
				m->r.t[j] = f->r.t[i];
				m->r.ino[j] = f->r.ino[i];
				continue;
			}
			if (m->n == LFR_XR_MAX)
				break;
			lfr_xr_copy(&m->r, m->n++, &f->r, i);
		}
		if (i == f->n)
			goto out;
	}
	m->gen = gen;
	m->image = image;
	m->lost = lost;
	m->tables = tables;
	for (i = 0; i < f->n; i++)
		lfr_xr_copy(&m->r, i, &f->r, i);
	m->n = f->n;
out:
	write_seqcount_end(&m->seq);
	raw_spin_unlock(&m->lock);
}

#ifdef CONFIG_MMU_NOTIFIER

/*
 * Any change to come: the callbacks run in any context, may not sleep, and
 * here only count.
 */
static int lfr_mm_invalidate(struct mmu_notifier *mn,
			     const struct mmu_notifier_range *range)
{
	struct lfr_mm_watch *w = container_of(mn, struct lfr_mm_watch, mn);

	atomic64_inc(&w->gen);
	return 0;
}

static void lfr_mm_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct lfr_mm_watch *w = container_of(mn, struct lfr_mm_watch, mn);

	WRITE_ONCE(w->gone, true);
	atomic64_inc(&w->gen);
}

static struct mmu_notifier *lfr_mm_alloc(struct mm_struct *mm)
{
	struct lfr_mm_watch *w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);

	if (!w)
		return ERR_PTR(-ENOMEM);
	w->mm = mm;
	return &w->mn;
}

static void lfr_mm_free(struct mmu_notifier *mn)
{
	kfree(container_of(mn, struct lfr_mm_watch, mn));
}

static const struct mmu_notifier_ops lfr_mm_ops = {
	.invalidate_range_start = lfr_mm_invalidate,
	.release = lfr_mm_release,
	.alloc_notifier = lfr_mm_alloc,
	.free_notifier = lfr_mm_free,
};

int lfr_mm_watches_init(struct lfr_mm_watches *ws)
{
	u32 i;

	mutex_init(&ws->lock);
	ws->slots = kcalloc(LFR_MM_WATCH_MAX, sizeof(*ws->slots),
			    GFP_KERNEL_ACCOUNT);
	if (!ws->slots)
		return -ENOMEM;
	for (i = 0; i < LFR_MM_WATCH_MAX; i++) {
		raw_spin_lock_init(&ws->slots[i].lock);
		seqcount_raw_spinlock_init(&ws->slots[i].seq,
					   &ws->slots[i].lock);
	}
	return 0;
}

/* A slot's watch, its ranges emptied; under ws->lock. */
static void lfr_mm_slot_set(struct lfr_mm_slot *m, struct lfr_mm_watch *w)
{
	raw_spin_lock(&m->lock);
	write_seqcount_begin(&m->seq);
	m->n = 0;
	if (w) {
		WRITE_ONCE(m->w, w);
		/* the watch before its mm: lfr_mm_slot_watch() */
		smp_store_release(&m->mm, w->mm);
	} else {
		WRITE_ONCE(m->mm, NULL);
		WRITE_ONCE(m->w, NULL);
	}
	write_seqcount_end(&m->seq);
	raw_spin_unlock(&m->lock);
}

/* Under ws->lock: the slot of @mm, or -1. */
static int lfr_mm_slot_find(struct lfr_mm_watches *ws, struct mm_struct *mm)
{
	int i;

	for (i = 0; i < LFR_MM_WATCH_MAX; i++)
		if (ws->slots[i].w && ws->slots[i].mm == mm)
			return i;
	return -1;
}

/* Under ws->lock: a free slot, made by giving up an mm torn down; or -1. */
static int lfr_mm_slot_free(struct lfr_mm_watches *ws)
{
	struct lfr_mm_watch *w;
	int i;

	for (i = 0; i < LFR_MM_WATCH_MAX; i++)
		if (!ws->slots[i].w)
			return i;
	for (i = 0; i < LFR_MM_WATCH_MAX; i++) {
		w = ws->slots[i].w;
		if (READ_ONCE(w->gone)) {
			WRITE_ONCE(ws->evictions, ws->evictions + 1);
			lfr_mm_slot_set(&ws->slots[i], NULL);
			mmu_notifier_put(&w->mn);
			return i;
		}
	}
	return -1;
}

/*
 * The slot of @mm, current's, its watch taken for @ws if it has none and a
 * slot is free.  May sleep; -1 when none can be had now: every slot holds
 * a live mm, the session released its watches, or a fatal signal came
 * while waiting for the mapping lock (taken for writing once per mm and
 * session: a subscription changes the mm).  The mapping lock is never
 * taken under ws->lock, which is taken under lfr_lock (session free),
 * itself taken under the mapping lock (mmap of /dev/lfr).
 */
int lfr_mm_watch_get(struct lfr_mm_watches *ws, struct mm_struct *mm)
{
	struct mmu_notifier *mn;
	int i, room = -1;

	mutex_lock(&ws->lock);
	i = lfr_mm_slot_find(ws, mm);
	if (i < 0 && !ws->closed)
		room = lfr_mm_slot_free(ws);
	mutex_unlock(&ws->lock);
	if (i >= 0 || room < 0)
		return i;
	/* a fatal signal ends the wait */
	if (mmap_write_lock_killable(mm))
		return -1;
	mn = mmu_notifier_get_locked(&lfr_mm_ops, mm);
	mmap_write_unlock(mm);
	if (IS_ERR(mn))
		return -1;
	mutex_lock(&ws->lock);
	/* another thread of the process may have been quicker */
	i = lfr_mm_slot_find(ws, mm);
	if (i < 0 && !ws->closed) {
		i = lfr_mm_slot_free(ws);
		if (i >= 0) {
			lfr_mm_slot_set(&ws->slots[i],
					container_of(mn, struct lfr_mm_watch, mn));
			mn = NULL;
		}
	}
	mutex_unlock(&ws->lock);
	if (mn)
		mmu_notifier_put(mn);
	return i;
}

/* Gives every slot up and takes no more; process context, no walk runs. */
void lfr_mm_watches_release(struct lfr_mm_watches *ws)
{
	struct lfr_mm_watch *w;
	u32 i;

	if (!ws->slots)
		return;
	mutex_lock(&ws->lock);
	ws->closed = true;
	WRITE_ONCE(ws->evictions, ws->evictions + 1);
	for (i = 0; i < LFR_MM_WATCH_MAX; i++) {
		w = ws->slots[i].w;
		if (w) {
			lfr_mm_slot_set(&ws->slots[i], NULL);
			mmu_notifier_put(&w->mn);
		}
	}
	mutex_unlock(&ws->lock);
}

void lfr_mm_watches_free(struct lfr_mm_watches *ws)
{
	lfr_mm_watches_release(ws);
	kfree(ws->slots);
	ws->slots = NULL;
}

/* Module exit: the subscriptions' frees (lfr_mm_free) have all run. */
void lfr_mm_watch_exit(void)
{
	mmu_notifier_synchronize();
}

#else /* !CONFIG_MMU_NOTIFIER: no generation, every walk looks up */

int lfr_mm_watches_init(struct lfr_mm_watches *ws)
{
	mutex_init(&ws->lock);
	return 0;
}

int lfr_mm_watch_get(struct lfr_mm_watches *ws, struct mm_struct *mm)
{
	return -1;
}

void lfr_mm_watches_release(struct lfr_mm_watches *ws)
{
}

void lfr_mm_watches_free(struct lfr_mm_watches *ws)
{
}

void lfr_mm_watch_exit(void)
{
}

#endif

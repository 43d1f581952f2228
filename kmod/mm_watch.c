// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the generation of a process's mappings, from an MMU notifier on its
 * mm (see mm_watch.h).  One subscription per mm, found by mmu_notifier_get
 * and shared by the sessions; each session holds one reference per mm it
 * watches, up to LFR_MM_WATCH_MAX, and drops them all once it is STOPPED.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/slab.h>
#include "mm_watch.h"

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

void lfr_mm_watches_init(struct lfr_mm_watches *ws)
{
	mutex_init(&ws->lock);
}

/* Under ws->lock: the watch of @mm that @ws holds, or NULL. */
static struct lfr_mm_watch *lfr_mm_watch_find(struct lfr_mm_watches *ws,
					      struct mm_struct *mm)
{
	u32 i;

	for (i = 0; i < ws->n; i++)
		if (ws->w[i]->mm == mm)
			return ws->w[i];
	return NULL;
}

/* Under ws->lock: true when a place is free, made by dropping an mm torn down. */
static bool lfr_mm_watch_room(struct lfr_mm_watches *ws)
{
	u32 i;

	if (ws->n < LFR_MM_WATCH_MAX)
		return true;
	for (i = 0; i < ws->n && !READ_ONCE(ws->w[i]->gone); i++)
		;
	if (i == ws->n)
		return false;
	WRITE_ONCE(ws->evictions, ws->evictions + 1);
	mmu_notifier_put(&ws->w[i]->mn);
	ws->w[i] = ws->w[--ws->n];
	return true;
}

/*
 * The watch of @mm, current's, taken for @ws if it has none and a place is
 * free (an mm torn down since gives its place up).  May sleep; NULL when
 * none can be had now: the table is full, the session released its
 * watches, or a fatal signal came while waiting for the mapping lock
 * (taken for writing once per mm: a subscription changes the mm).  The
 * mapping lock is never taken under ws->lock, which is taken under
 * lfr_lock (session free), itself taken under the mapping lock (mmap of
 * /dev/lfr).
 */
struct lfr_mm_watch *lfr_mm_watch_get(struct lfr_mm_watches *ws,
				      struct mm_struct *mm)
{
	struct lfr_mm_watch *w;
	struct mmu_notifier *mn;
	bool room;

	mutex_lock(&ws->lock);
	w = lfr_mm_watch_find(ws, mm);
	room = !w && !ws->closed && lfr_mm_watch_room(ws);
	mutex_unlock(&ws->lock);
	if (w || !room)
		return w;
	/* once per mm and session; a fatal signal ends the wait */
	if (mmap_write_lock_killable(mm))
		return NULL;
	mn = mmu_notifier_get_locked(&lfr_mm_ops, mm);
	mmap_write_unlock(mm);
	if (IS_ERR(mn))
		return NULL;
	mutex_lock(&ws->lock);
	/* another thread of the process may have been quicker */
	w = lfr_mm_watch_find(ws, mm);
	if (w || ws->closed || !lfr_mm_watch_room(ws)) {
		mmu_notifier_put(mn);
	} else {
		w = container_of(mn, struct lfr_mm_watch, mn);
		ws->w[ws->n++] = w;
	}
	mutex_unlock(&ws->lock);
	return w;
}

/* Drops every watch of @ws and takes no more; process context. */
void lfr_mm_watches_release(struct lfr_mm_watches *ws)
{
	u32 i;

	mutex_lock(&ws->lock);
	ws->closed = true;
	WRITE_ONCE(ws->evictions, ws->evictions + 1);
	for (i = 0; i < ws->n; i++)
		mmu_notifier_put(&ws->w[i]->mn);
	ws->n = 0;
	mutex_unlock(&ws->lock);
}

/* Module exit: the subscriptions' frees (lfr_mm_free) have all run. */
void lfr_mm_watch_exit(void)
{
	mmu_notifier_synchronize();
}

#else /* !CONFIG_MMU_NOTIFIER: no generation, every walk looks up */

void lfr_mm_watches_init(struct lfr_mm_watches *ws)
{
	mutex_init(&ws->lock);
}

struct lfr_mm_watch *lfr_mm_watch_get(struct lfr_mm_watches *ws,
				      struct mm_struct *mm)
{
	return NULL;
}

void lfr_mm_watches_release(struct lfr_mm_watches *ws)
{
}

void lfr_mm_watch_exit(void)
{
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the generation of a process's mappings (mm_watch.c).  An MMU
 * notifier on the mm, shared by every session that watches it, counts each
 * change of its mappings (unmap, protection change, remap, and the page
 * invalidations of reclaim, migration and copy-on-write) and its end.  A
 * walk that found its pcs in executable mappings it had described keeps
 * their ranges with the generation; while the generation stands, a later
 * walk whose pcs lie in them needs neither the mapping lock nor a lookup.
 */
#ifndef LFR_MM_WATCH_H
#define LFR_MM_WATCH_H

#include <linux/atomic.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/types.h>

#define LFR_MM_WATCH_MAX	64	/* mms a session watches at once */

struct lfr_mm_watch {
#ifdef CONFIG_MMU_NOTIFIER
	struct mmu_notifier mn;
#endif
	struct mm_struct *mm;	/* held (mmgrab) by the subscription */
	atomic64_t gen;		/* changes before any mapping does */
	bool gone;		/* the mm's address space was torn down */
};

/* A session's watches, each holding one reference on its subscription. */
struct lfr_mm_watches {
	struct mutex lock;
	u32 n;
	/*
	 * Watches given up so far (of torn-down mms, for room): a thread
	 * entry trusts the watch it keeps only while this has not changed,
	 * since the mm of an evicted watch may be freed and its address
	 * reused.
	 */
	u32 evictions;
	bool closed;		/* released: no more are taken */
	struct lfr_mm_watch *w[LFR_MM_WATCH_MAX];
};

void lfr_mm_watches_init(struct lfr_mm_watches *ws);
struct lfr_mm_watch *lfr_mm_watch_get(struct lfr_mm_watches *ws,
				      struct mm_struct *mm);
void lfr_mm_watches_release(struct lfr_mm_watches *ws);
void lfr_mm_watch_exit(void);

static inline u64 lfr_mm_watch_gen(const struct lfr_mm_watch *w)
{
	return atomic64_read(&w->gen);
}

#endif /* LFR_MM_WATCH_H */

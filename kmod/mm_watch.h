/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the generation of a process's mappings, and what a session's walks
 * described of them (mm_watch.c).  An MMU notifier on the mm, shared by
 * every session that watches it, counts each change of its mappings
 * (unmap, protection change, remap, and the page invalidations of reclaim,
 * migration and copy-on-write) and its end.  A session keeps, per mm (a
 * slot), the executable ranges its walks found and described, with the
 * generation then: while it stands, a walk whose pcs all lie in them needs
 * neither the mapping lock nor a lookup (unwind.c).
 */
#ifndef LFR_MM_WATCH_H
#define LFR_MM_WATCH_H

#include <linux/atomic.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#define LFR_MM_WATCH_MAX	64	/* mms a session watches at once */
#define LFR_XR_MAX		8	/* described executable ranges per mm */
/* a thread entry's xr_slot when it has none */
#define LFR_XR_NONE		0xff	/* not looked for yet */
#define LFR_XR_FULL		0xfe	/* none to be had at xr_epoch */

struct lfr_mm_watch {
#ifdef CONFIG_MMU_NOTIFIER
	struct mmu_notifier mn;
#endif
	struct mm_struct *mm;	/* held (mmgrab) by the subscription */
	atomic64_t gen;		/* changes before any mapping does */
	bool gone;		/* the mm's address space was torn down */
};

struct inode;
struct lfr_unwind_table;
struct vm_area_struct;

/*
 * Described executable ranges [lo, hi), with the file offset of an address
 * less the address, and the mapping's unwind table (NULL: none) with the
 * file's inode: a slot's, a walk's copy of them, and what a walk's lookups
 * found.
 */
struct lfr_xr_ranges {
	unsigned long lo[LFR_XR_MAX], hi[LFR_XR_MAX];
	u64 off[LFR_XR_MAX];
	const struct lfr_unwind_table *t[LFR_XR_MAX];
	const struct inode *ino[LFR_XR_MAX];
};

/* Range @i of @from as range @j of @to. */
static inline void lfr_xr_copy(struct lfr_xr_ranges *to, u32 j,
			       const struct lfr_xr_ranges *from, u32 i)
{
	to->lo[j] = from->lo[i];
	to->hi[j] = from->hi[i];
	to->off[j] = from->off[i];
	to->t[j] = from->t[i];
	to->ino[j] = from->ino[i];
}

/*
 * A session's slot of one mm: its watch (one reference) and the ranges
 * described while the watch's generation was gen, for the image (tgid,
 * start time, exec id) and the session's count of lost MMAP records then.
 * With each range, what a walk with unwind tables needs of its mapping:
 * the file offset of an address less the address, and the mapping's table
 * (NULL: none) with the file's inode, found while the session's tables had
 * seen @tables changes (lfr_unwind.changes); a walk uses those only at the
 * same count, read in its RCU read section, and while the file is the one
 * the table describes (written in place, it keeps its mapping).  Written under lock inside seq; walks read it
 * under seq alone, some with interrupts off (the commit in place in the
 * ring, unwind.c).  So both are raw: on PREEMPT_RT a reader of a
 * seqcount_spinlock_t that finds a write in progress takes the writer's
 * lock, a sleeping one there, which may not be taken with interrupts off;
 * a raw writer is never preempted, and its readers only spin.  (The debug
 * kernel's lockdep cannot see the sleeping variant: without PREEMPT_RT the
 * reader never takes the lock, and a local_irq_save() section is no wait
 * context lockdep tracks.)
 */
struct lfr_mm_slot {
	raw_spinlock_t lock;
	seqcount_raw_spinlock_t seq;
	struct lfr_mm_watch *w;	/* NULL: free */
	struct mm_struct *mm;	/* w's: lfr_mm_slot_watch() */
	u64 gen;
	u64 image;
	unsigned long tables;
	u32 lost;
	u32 n;
	struct lfr_xr_ranges r;
};

/* A session's watches.  slots[] is taken and given up under lock. */
struct lfr_mm_watches {
	struct mutex lock;
	bool closed;		/* released: no more are taken */
	/*
	 * Slots given up so far (of torn-down mms, for room; all at the
	 * release): a thread entry trusts its slot index only while this
	 * has not changed.
	 */
	u32 evictions;
	struct lfr_mm_slot *slots;	/* LFR_MM_WATCH_MAX */
};

/*
 * The described executable ranges a walk's lookups found, for its mm's
 * slot, with their file offsets and unwind tables when the walk used
 * tables; !ok: one was not described, or more than LFR_XR_MAX.
 */
struct lfr_xr_found {
	bool ok;
	u32 n;
	struct lfr_xr_ranges r;
};

void lfr_xr_add(struct lfr_xr_found *f, struct vm_area_struct *vma,
		bool described, const struct lfr_unwind_table *t);
void lfr_xr_keep(struct lfr_mm_slot *m, u64 gen, u64 image, u32 lost,
		 unsigned long tables, const struct lfr_xr_found *f);

int lfr_mm_watches_init(struct lfr_mm_watches *ws);
int lfr_mm_watch_get(struct lfr_mm_watches *ws, struct mm_struct *mm);
void lfr_mm_watches_release(struct lfr_mm_watches *ws);
void lfr_mm_watches_free(struct lfr_mm_watches *ws);
void lfr_mm_watch_exit(void);

static inline u64 lfr_mm_watch_gen(const struct lfr_mm_watch *w)
{
	return atomic64_read(&w->gen);
}

/*
 * @m's watch when @m is @mm's slot, else NULL; any context.  The mm is
 * read first (acquire) and the watch after it, as lfr_mm_slot_set()
 * writes them the other way round: a walk that finds its mm in a slot
 * finds that mm's watch, never the one of the mm the slot held before
 * (given up, perhaps freed).  A slot is given up only when its mm was torn
 * down or the session stopped, so it does not change under a walk of its
 * own mm.
 */
static inline struct lfr_mm_watch *
lfr_mm_slot_watch(const struct lfr_mm_slot *m, const struct mm_struct *mm)
{
	/* its mm, then its watch, written the other way (lfr_mm_slot_set()) */
	if (smp_load_acquire(&m->mm) != mm)
		return NULL;
	return READ_ONCE(m->w);
}

#endif /* LFR_MM_WATCH_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: how the walk takes its process's mapping lock. */
#ifndef LFR_WALK_LOCK_H
#define LFR_WALK_LOCK_H

#include <linux/lfr.h>
#include <linux/mmap_lock.h>

/*
 * Read-locks @mm for the walk: 0, or LFR_LOST_MMAP_LOCK when a fatal signal
 * came while waiting.  A writer may hold the lock for as long as its I/O
 * takes; a thread that was killed (or chosen by the OOM killer) must be able
 * to stop waiting, so the wait is killable and the sample is lost instead.
 */
static inline int lfr_walk_lock_mm(struct mm_struct *mm)
{
	return mmap_read_lock_killable(mm) ? LFR_LOST_MMAP_LOCK : 0;
}

#endif /* LFR_WALK_LOCK_H */

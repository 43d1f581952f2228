/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: a session's table of tracked threads (threads.c). */
#ifndef LFR_THREADS_H
#define LFR_THREADS_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct lfr_session;
struct lfr_walk;
struct task_struct;

/*
 * One tracked thread.  Entries live in an open-addressing table that is
 * allocated once per session; a thread gets an entry without allocation
 * and gives it back when its task_struct is freed (threads.c).  Only the
 * thread itself (its timer tick, its task_work) and the CPU it runs on
 * touch an entry while the key holds it, but for a timer-mode reclaimer,
 * which pins the entry first (LFR_KEY_BUSY) and takes only one that no
 * walk refers to.
 */
struct lfr_thread {
	unsigned long key;	/* task pointer [| _BUSY], LFR_KEY_EMPTY or _TOMB */
	s64 budget_ns;		/* per-task mode: CPU time left to the tick */
	/* per-task mode: periods its timer skipped over a spent CPU budget */
	u64 throttle_skip;
	/*
	 * The walk queued or running, one at most: set by a tick, cleared by
	 * the walk's commit (both on the thread's CPU, interrupts off) or by
	 * STOP giving it up (the thread blocked in the kernel, no tick).
	 */
	struct lfr_walk *walk;
	u64 last_exec_id;
	u32 comm_hash;
	bool seen;
	bool follow;		/* created by a target: a target itself */
	/*
	 * Off-CPU intervals: the last switch-out and why, and the intervals
	 * shorter than the session's minimum so far (in timer mode, since the
	 * entry was made: a reclaimed entry starts again).
	 */
	u8 off_state;		/* enum lfr_offcpu_state */
	/*
	 * The session's slot of the thread's mm (mm_watch.h: the ranges its
	 * walks described), valid while the session's evictions are xr_epoch;
	 * LFR_XR_NONE or LFR_XR_FULL (none to be had then).  In the padding:
	 * the entry stays as large as it was.
	 */
	u8 xr_slot;
	u32 xr_epoch;
	u64 off_start;		/* ns, 0: on the CPU or not known */
	u64 off_short_count;
	u64 off_short_ns;
	u64 last_ns;		/* timer mode: the thread's last tick */
};

#define LFR_KEY_EMPTY	0UL
#define LFR_KEY_TOMB	1UL
/* In a task's key: pinned by a tick (task_structs are aligned). */
#define LFR_KEY_BUSY	2UL

static inline unsigned long lfr_thread_key(unsigned long key)
{
	return key & ~LFR_KEY_BUSY;
}

struct lfr_threads {
	struct lfr_thread *slots;
	u32 mask;		/* capacity - 1 */
	u32 max;		/* threads allowed at once */
	atomic_t used;
	raw_spinlock_t lock;	/* keys written, slots given back */
};

int lfr_threads_init(struct lfr_threads *tt, u32 max);
void lfr_threads_free(struct lfr_threads *tt);
struct lfr_thread *lfr_thread_get(struct lfr_session *s,
				  struct task_struct *t, bool create);
struct lfr_thread *lfr_thread_follow(struct lfr_session *s,
				     struct task_struct *child);
struct lfr_thread *lfr_thread_pin(struct lfr_session *s,
				  struct task_struct *t, u64 now);
/* As lfr_thread_pin(), but only an entry @t has already: none is made. */
struct lfr_thread *lfr_thread_pin_found(struct lfr_session *s,
					struct task_struct *t, u64 now);

/* Hard irq, the tick that pinned @e ends. */
static inline void lfr_thread_unpin(struct lfr_thread *e)
{
	/* the tick's e->walk, then the key a reclaimer's cmpxchg reads */
	smp_store_release(&e->key, lfr_thread_key(e->key));
}
void lfr_thread_release(struct lfr_session *s, struct task_struct *t);
u64 lfr_threads_pending_ticks(struct lfr_threads *tt);

#endif /* LFR_THREADS_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the object of a queued stack walk (struct lfr_walk), its state word,
 * and its per-CPU caches (walk_obj.c).
 */
#ifndef LFR_WALK_OBJ_H
#define LFR_WALK_OBJ_H

#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

struct lfr_session;
struct lfr_thread;
struct mm_struct;

/*
 * The user state of a thread at the tick that queued its walk, taken in
 * hard irq, walked later.  Ticks until the walk runs share it.
 */
struct lfr_snapshot {
	u64 time_ns;
	u64 walk_id;
	u64 ip, sp, bp;		/* bp: the frame pointer, rbp or x29 */
	u64 lr;			/* arm64's link register x30; 0 on x86-64 */
	struct mm_struct *mm;	/* identity only, never dereferenced */
	u64 exec_id;
	u32 tgid, tid, flags;
	bool in_kernel;		/* the tick interrupted the kernel */
	bool own_tick;		/* its first tick rides in its USTACK record */
};

/*
 * The walk of a thread: queued by its tick (a task_work), claimed when the
 * task_work starts, or given up by STOP with LFR_A_ABANDON while still
 * queued (the task_work then only frees its object when it runs).
 */
enum lfr_walk_state {
	LFR_WALK_FREE,
	LFR_WALK_QUEUED,
	LFR_WALK_RUNNING,
	LFR_WALK_ABANDONED,
};

/*
 * A walk's state word: the state in its low bits and, above them, the
 * object's generation, which each tick that queues a walk in it advances.
 * Objects are reused as soon as their walk ends (walk_obj.c), so STOP,
 * which finds a walk through its thread's entry without owning it, may hold
 * an object that has become another walk meanwhile: its claim then fails.
 */
#define LFR_WALK_STATE_MASK	3UL
#define LFR_WALK_GEN_ONE	4UL

/*
 * One queued stack walk: the task_work of a tick and what the walk needs of
 * it.  Small and apart from the session: a walk given up by STOP (its thread
 * blocked in the kernel, maybe for good) keeps only this object until the
 * thread runs it, not the session's rings and tables (walk_obj.c).  Reused
 * by the next tick on its CPU once the walk ends, and only ever freed after
 * an RCU grace period: STOP and STATUS read it through its thread's entry
 * under rcu_read_lock() and check its generation and owner.
 */
struct lfr_walk {
	struct callback_head work;
	struct lfr_session *s;	/* QUEUED or RUNNING: a session reference */
	struct lfr_thread *e;	/* and its thread's entry */
	atomic_long_t state;	/* generation | enum lfr_walk_state */
	atomic_t ticks;		/* TICK records that refer to this walk */
	atomic_t offcpu;	/* OFFCPU records that refer to this walk */
	struct lfr_snapshot snap;
	struct rcu_head rcu;
};

int lfr_walk_objs_init(void);
void lfr_walk_objs_exit(void);
struct lfr_walk *lfr_walk_obj_get(void);
void lfr_walk_obj_unget(struct lfr_walk *w);
void lfr_walk_obj_done(struct lfr_walk *w);

/*
 * A tick queues a walk in @w (hard irq, before publishing it): a new
 * generation, so that whoever still holds the object's last walk fails.
 */
static inline void lfr_walk_set_queued(struct lfr_walk *w)
{
	unsigned long gen = atomic_long_read(&w->state) & ~LFR_WALK_STATE_MASK;

	atomic_long_set_release(&w->state,
				(gen + LFR_WALK_GEN_ONE) | LFR_WALK_QUEUED);
}

/* The walk in @w has ended: the object is free, its generation kept. */
static inline void lfr_walk_set_free(struct lfr_walk *w)
{
	unsigned long gen = atomic_long_read(&w->state) & ~LFR_WALK_STATE_MASK;

	atomic_long_set(&w->state, gen | LFR_WALK_FREE);
}

/*
 * Moves @w from QUEUED to @to if it is still the walk whose state word read
 * @old (the claim of its task_work, or STOP giving it up).
 */
static inline bool lfr_walk_claim(struct lfr_walk *w, unsigned long old,
				  unsigned long to)
{
	return (old & LFR_WALK_STATE_MASK) == LFR_WALK_QUEUED &&
	       atomic_long_cmpxchg(&w->state, old,
				   (old & ~LFR_WALK_STATE_MASK) | to) == old;
}

#endif /* LFR_WALK_OBJ_H */

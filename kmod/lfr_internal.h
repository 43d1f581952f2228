/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: internal definitions shared by the files of lfr.ko. */
#ifndef LFR_INTERNAL_H
#define LFR_INTERNAL_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/refcount.h>
#include <linux/uidgid.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/rhashtable-types.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/lfr.h>

#include "compat.h"
#include "config.h"
#include "core.h"
#include "frame_check.h"
#include "ring_index.h"

struct lfr_session;
struct inode;
struct mm_struct;
struct task_struct;

/* Per-CPU counters; every field is only changed with this_cpu ops. */
struct lfr_counters {
	u64 c[LFR_CTR_MAX + 1];
};

/*
 * The user state of a thread at the tick that queued its walk, taken in
 * hard irq, walked later.  Ticks until the walk runs share it.
 */
struct lfr_snapshot {
	u64 time_ns;
	u64 walk_id;
	u64 ip, sp, bp;
	struct mm_struct *mm;	/* identity only, never dereferenced */
	u64 exec_id;
	u32 tgid, tid, flags;
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

struct lfr_session;
struct lfr_thread;

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
	 * Off-CPU intervals (per-task mode): the last switch-out and why, and
	 * the intervals shorter than the session's minimum so far.
	 */
	u8 off_state;		/* enum lfr_offcpu_state */
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

/*
 * What a ring needs of its owner, given at allocation: the ring calls
 * nothing of the session's but @full.
 */
struct lfr_ring_owner {
	struct lfr_session *owner;	/* only passed to @full */
	/*
	 * The ring was found full, the first time since it last was not; on
	 * the ring's CPU, interrupts off (hard irq or a walk's commit).
	 */
	void (*full)(struct lfr_session *owner, u32 cpu);
	wait_queue_head_t *wq;		/* woken when wakeup_bytes are ready */
	struct lfr_counters __percpu *ctr;	/* RECORDS_LOST */
	u32 session_id;
	u32 pages;			/* of data, a power of two */
	u32 wakeup_bytes;
};

struct lfr_ring {
	struct lfr_session *owner;
	void (*full)(struct lfr_session *owner, u32 cpu);
	wait_queue_head_t *wq;
	struct lfr_counters __percpu *ctr;
	u32 wakeup_bytes;
	void *base;			/* vmalloc_user: ctrl page + data */
	struct lfr_ring_ctrl *ctrl;
	u8 *data;
	size_t map_size;
	u64 size;			/* data bytes, power of two */
	u64 head;			/* producer's private copy */
	u32 cpu;
	u64 lost_total[LFR_LOST_MAX + 1];	/* what ctrl->lost[] shows */
	u64 lost_count[LFR_LOST_MAX + 1];	/* not yet reported in band */
	u32 lost_pending;			/* reasons with lost_count set */
	u64 lost_ticks[LFR_LOST_MAX + 1];
	bool overflow;			/* OVERFLOW event sent, not yet cleared */
	struct irq_work wake;
};

/* Sample buffers of the walks, reused (walk_pool.c). */
struct lfr_walk_pool {
	spinlock_t lock;
	void **free;
	u32 nr, cap;
	size_t size;
};

/* The largest OFFCPU record, built in place by the off-CPU irq_work. */
#define LFR_OFFCPU_REC_MAX \
	(sizeof(struct lfr_rec_offcpu) + LFR_MAX_KERNEL_STACK_DEPTH * sizeof(u64))

/* The largest TICK record, built in place by the timer handler. */
#define LFR_TICK_REC_MAX \
	(sizeof(struct lfr_rec_tick) + LFR_MAX_KERNEL_STACK_DEPTH * sizeof(u64))

struct lfr_pcpu {
	struct hrtimer timer;
	struct lfr_session *s;
	struct lfr_thread *cur;		/* per-task mode: target running here */
	/*
	 * Per-task mode, at cur's switch-in: ktime_get() and the scheduler's
	 * sum_exec_runtime of the thread (U64_MAX: unknown, see lfr_kick_cpu).
	 */
	ktime_t in_time;
	u64 in_runtime;
	struct rnd_state rnd;
	u64 walk_seq;			/* walk ids queued on this CPU */
	bool online;
	/*
	 * Off-CPU: the interval that ended at cur's switch-in, written by
	 * off_work (hard irq, right after the switch, current == cur).
	 */
	struct irq_work off_work;
	struct lfr_thread *off_e;
	u64 off_start, off_end;
	u32 off_state;
	u64 tick_buf[LFR_TICK_REC_MAX / sizeof(u64)];
	u64 off_buf[LFR_OFFCPU_REC_MAX / sizeof(u64)];
};

/* Locked memory charged for the rings (budget.c). */
struct lfr_charge {
	struct user_struct *user;	/* user->locked_vm, reference held */
	unsigned long user_pages;
	struct mm_struct *mm;		/* mm->pinned_vm beyond the allowance */
	unsigned long mm_pages;
	u64 bytes;			/* in the module's total (max_total_mb) */
};

/* Process and thread targets, by identity (target.c). */
struct lfr_targets {
	struct pid **tgids;		/* sorted by address, references held */
	struct pid **tids;
	u32 nr_tgids, nr_tids;
};

/*
 * Sessions sampling at once.  Each running session holds one run index, the
 * index of its pointer in the probes' tables (sampler.c, task_events.c).
 */
#define LFR_MAX_RUNNING		8
#define LFR_MAX_DRAINING	8	/* START is EBUSY with as many */

/*
 * A probe's table of running sessions: a session's pointer is published under
 * lfr_lock and read by the probes under RCU-sched (they run with preemption
 * or interrupts off); after clearing it, a synchronize_rcu() makes sure no
 * probe still works for that session.  The first session published in
 * @table at or after index *@i, or NULL:
 */
struct lfr_session;

static inline struct lfr_session *
lfr_next_published(struct lfr_session __rcu **table, int *i)
{
	struct lfr_session *s;

	for (; *i < LFR_MAX_RUNNING; (*i)++) {
		s = rcu_dereference_sched(table[*i]);
		if (s)
			return s;
	}
	return NULL;
}

#define lfr_for_each_published(table, s, i)				\
	for ((i) = 0; ((s) = lfr_next_published(table, &(i))); (i)++)

/* A session's unwind tables (unwind_tables.c). */
struct lfr_unwind {
	struct mutex lock;		/* adding, loading and evicting */
	struct rhashtable ht;		/* by inode, RCU for walks */
	bool ht_ready;
	struct list_head clock;		/* eviction order, under lock */
	u32 nr;				/* tables, read by walks */
	u64 bytes;
	u64 max_bytes;
};

struct lfr_unwind_table;

struct lfr_session {
	refcount_t ref;
	u32 id;
	atomic_t state;			/* enum lfr_state */
	struct lfr_config cfg;
	int run_idx;		/* while running: 0..LFR_MAX_RUNNING-1 */
	u32 owner_portid;
	kuid_t owner_euid;		/* START sender: may map the rings */
	struct list_head node;		/* lfr_sessions, under lfr_lock */
	struct hlist_node cpuhp_node;
	bool cpuhp_added;
	bool probes_on;
	bool task_probes_on;		/* task_events.c */
	struct lfr_targets targets;
	struct lfr_charge charge;
	struct cgroup **cgroups;	/* cgroup_filter.c, held references */
	u32 nr_cgroups;

	atomic_t pending;		/* queued walks + 1 while sampling */
	atomic_t readers;		/* /dev/lfr files bound to it */
	struct lfr_counters __percpu *ctr;
	struct lfr_pcpu __percpu *pcpu;
	struct lfr_ring **rings;	/* nr_cpu_ids, possible CPUs only */
	struct lfr_threads threads;
	u64 *seen;			/* mapping/name records written */
	u32 seen_mask;
	struct lfr_walk_pool walk_bufs;
	struct lfr_unwind unwind;

	wait_queue_head_t wq;
	struct work_struct notify_work;
	unsigned long notify_bits;	/* 1 << enum lfr_event */
	u32 overflow_cpu;		/* last ring found full */
};


static inline bool lfr_counter_valid(int c)
{
	return (c >= LFR_CTR_TICKS && c <= LFR_CTR_TICKS_SKIPPED) ||
	       (c > LFR_CTR_LOST_FIRST && c <= LFR_CTR_MAX);
}

static inline bool lfr_counter_gauge(int c)
{
	return c == LFR_CTR_WORKS_PENDING || c == LFR_CTR_THREADS ||
	       c == LFR_CTR_TICKS_PENDING || c == LFR_CTR_UNWIND_TABLES ||
	       c == LFR_CTR_UNWIND_BYTES;
}

static inline void lfr_counters_add(struct lfr_counters __percpu *c, int ctr,
				    u64 n)
{
	this_cpu_add(c->c[ctr], n);
}

static inline void lfr_count(struct lfr_session *s, int ctr, u64 n)
{
	lfr_counters_add(s->ctr, ctr, n);
}

static inline void lfr_count_lost(struct lfr_session *s, int reason, u64 ticks)
{
	this_cpu_add(s->ctr->c[LFR_CTR_LOST_FIRST + reason], ticks);
}

/* session.c */
typedef void (*lfr_event_fn)(struct lfr_session *s, enum lfr_event ev);
void lfr_sessions_event_sink(lfr_event_fn fn);
struct lfr_session *lfr_session_alloc(u32 id, struct lfr_config *cfg,
				      u32 portid,
				      struct netlink_ext_ack *extack);
/* registry.c */
struct lfr_session *lfr_session_create(struct lfr_config *cfg, u32 portid,
				       struct netlink_ext_ack *extack);
int lfr_session_start(struct lfr_session *s, struct netlink_ext_ack *extack);
void lfr_session_stop(struct lfr_session *s);
void lfr_session_get(struct lfr_session *s);
void lfr_session_put(struct lfr_session *s);
struct lfr_session *lfr_session_find(u32 id);	/* under lfr_lock */
int lfr_sessions_running(struct lfr_session **newest);	/* under lfr_lock */
int lfr_session_ids(u32 *ids, int max);		/* under lfr_lock */
struct lfr_session *lfr_session_newest(void);	/* under lfr_lock */
void lfr_session_drop_finished(void);		/* under lfr_lock */
void lfr_sessions_release_portid(u32 portid);
bool lfr_portid_owns_session(u32 portid);	/* lock-free */
void lfr_sessions_shutdown(void);
bool __must_check lfr_pending_put(struct lfr_session *s);
void lfr_session_abandon(struct lfr_session *s);

int lfr_walk_pool_init(struct lfr_walk_pool *p, size_t size);
void *lfr_walk_pool_get(struct lfr_walk_pool *p);
void lfr_walk_pool_put(struct lfr_walk_pool *p, void *buf);
void lfr_walk_pool_free(struct lfr_walk_pool *p);
void lfr_session_event(struct lfr_session *s, enum lfr_event ev);

int lfr_unwind_init(struct lfr_unwind *u, u32 max_kb);
void lfr_unwind_free(struct lfr_unwind *u);
int lfr_unwind_add(struct lfr_session *s, int obj_fd, int table_fd,
		   struct netlink_ext_ack *extack);
/* Under rcu_read_lock(); the table stays valid until rcu_read_unlock(). */
const struct lfr_unwind_table *lfr_unwind_find(struct lfr_unwind *u,
					       struct inode *inode);
enum lfr_row_found lfr_unwind_row(const struct lfr_unwind_table *t, u64 off,
				  struct lfr_unwind_row *out);

/* budget.c */
#define LFR_SEEN_SLOTS	16384
u64 lfr_session_bytes(const struct lfr_config *cfg);
int lfr_budget_charge(struct lfr_session *s, struct netlink_ext_ack *extack);
void lfr_budget_uncharge(struct lfr_session *s);

/* target.c */
int lfr_targets_get(struct lfr_session *s, struct netlink_ext_ack *extack);
void lfr_targets_put(struct lfr_session *s);
bool lfr_is_target(struct lfr_session *s, struct task_struct *t);

/*
 * Timer mode: the timers run on every online CPU and each tick filters the
 * interrupted thread (system-wide and cgroup targets); otherwise they only
 * run while a target thread is on the CPU.
 */
static inline bool lfr_timer_mode(const struct lfr_session *s)
{
	return s->cfg.system || s->cfg.nr_cgroups;
}
u64 lfr_counter_sum(struct lfr_session *s, int ctr);

/* cgroup_filter.c */
int lfr_cgroups_get(struct lfr_session *s, struct netlink_ext_ack *extack);
void lfr_cgroups_put(struct lfr_session *s);
bool lfr_cgroup_match(const struct lfr_session *s, struct task_struct *t);

/* task_events.c */
int lfr_task_events_init(void);
int lfr_task_events_start(struct lfr_session *s);
void lfr_task_events_unpublish(struct lfr_session *s);
void lfr_task_events_exit(void);

/* threads.c */
int lfr_threads_init(struct lfr_threads *tt, u32 max);
void lfr_threads_free(struct lfr_threads *tt);
struct lfr_thread *lfr_thread_get(struct lfr_session *s,
				  struct task_struct *t, bool create);
struct lfr_thread *lfr_thread_follow(struct lfr_session *s,
				     struct task_struct *child);
struct lfr_thread *lfr_thread_pin(struct lfr_session *s,
				  struct task_struct *t, u64 now);

/* Hard irq, the tick that pinned @e ends. */
static inline void lfr_thread_unpin(struct lfr_thread *e)
{
	/* the tick's e->walk, then the key a reclaimer's cmpxchg reads */
	smp_store_release(&e->key, lfr_thread_key(e->key));
}
void lfr_thread_release(struct lfr_session *s, struct task_struct *t);
u64 lfr_threads_pending_ticks(struct lfr_threads *tt);

/* sampler.c */
int lfr_sampler_start(struct lfr_session *s);
void lfr_sampler_unpublish(struct lfr_session *s);
void lfr_sampler_stop(struct lfr_session *s);
void lfr_sampler_exit(void);
int lfr_sampler_init(void);
int lfr_sampler_hotplug_init(void);
void lfr_sampler_hotplug_exit(void);

/* unwind.c */
void lfr_work_fn(struct callback_head *work);

/* walk_obj.c */
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

/* ring.c */
struct lfr_ring *lfr_ring_alloc(const struct lfr_ring_owner *o, int cpu);
void lfr_ring_free(struct lfr_ring *r);
int lfr_ring_write(struct lfr_ring *r, const void *rec, u32 len);
void lfr_ring_lost(struct lfr_ring *r, int reason, u64 ticks);
bool lfr_ring_readable(struct lfr_ring *r);

/* dev.c */
int lfr_dev_init(void);
void lfr_dev_exit(void);

/* genl.c */
int lfr_genl_init(void);
void lfr_genl_quiesce(void);
void lfr_genl_exit(void);

#endif /* LFR_INTERNAL_H */

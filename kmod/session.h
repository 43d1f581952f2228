/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the session object (session.c): what a session owns, its references
 * and pending count, its events and counters.  Everything that works for a
 * session uses this; session.c calls only what a session owns.
 */
#ifndef LFR_SESSION_H
#define LFR_SESSION_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/lfr.h>
#include "budget.h"
#include "config.h"
#include "counters.h"
#include "mm_watch.h"
#include "permission.h"
#include "target.h"
#include "thread_ctx.h"
#include "threads.h"
#include "unwind_tables.h"
#include "walk_pool.h"

struct cgroup;
struct lfr_pcpu;
struct lfr_ring;
struct netlink_ext_ack;
struct lfr_walk_memos;
struct lfr_kstack_cache;

struct lfr_session {
	refcount_t ref;
	u32 id;
	atomic_t state;			/* enum lfr_state */
	struct lfr_config cfg;
	int run_idx;		/* while running: 0..LFR_MAX_RUNNING-1 */
	u32 owner_portid;
	const struct net *owner_net;	/* of owner_portid (a key only) */
	kuid_t owner_euid;		/* START sender: may map the rings */
	struct lfr_user user;		/* permission.h: a starter without privileges */
	struct list_head node;		/* lfr_sessions, under lfr_lock */
	struct hlist_node cpuhp_node;
	bool cpuhp_added;
	bool probes_on;
	bool task_probes_on;		/* task_events.c */
	struct lfr_targets targets;
	struct lfr_charge charge;
	/*
	 * cgroup_filter.c: held references, sorted by address, none inside
	 * another; bit l of cgroup_levels: one lies at level l (63: or deeper)
	 */
	struct cgroup **cgroups;
	u32 nr_cgroups;
	u64 cgroup_levels;

	atomic_t pending;		/* queued walks + 1 while sampling */
	atomic_t readers;		/* /dev/lfr files bound to it */
	struct lfr_counters __percpu *ctr;
	struct lfr_pcpu __percpu *pcpu;
	struct lfr_ring **rings;	/* nr_cpu_ids, possible CPUs only */
	struct lfr_walk_memos **memos;	/* nr_cpu_ids, possible CPUs only */
	/* off-CPU kernel stacks kept, nr_cpu_ids or NULL (kstack_cache.h) */
	struct lfr_kstack_cache **kstacks;
	struct lfr_threads threads;
	u64 *seen;			/* mapping/name records written */
	u32 seen_mask;
	struct lfr_walk_pool walk_bufs;
	struct lfr_unwind unwind;
	struct lfr_mm_watches watches;	/* the mms its walks know */
	atomic_t mmap_lost;		/* MMAP records lost (ring full) */
	struct lfr_ctx_procs ctx;	/* thread_ctx.c: LFR_CMD_CTX_ADD */

	wait_queue_head_t wq;
	struct work_struct notify_work;
	unsigned long notify_bits;	/* 1 << enum lfr_event */
	u32 overflow_cpu;		/* last ring found full */
};

static inline void lfr_count(struct lfr_session *s, int ctr, u64 n)
{
	lfr_counters_add(s->ctr, ctr, n);
}

static inline void lfr_count_lost(struct lfr_session *s, int reason, u64 ticks)
{
	this_cpu_add(s->ctr->c[LFR_CTR_LOST_FIRST + reason], ticks);
}

/*
 * Timer mode: the timers run on every online CPU and each tick filters the
 * interrupted thread (system-wide and cgroup targets); otherwise they only
 * run while a target thread is on the CPU.
 */
static inline bool lfr_timer_mode(const struct lfr_session *s)
{
	return s->cfg.system || s->cfg.nr_cgroups;
}

struct lfr_session *lfr_session_alloc(u32 id, struct lfr_config *cfg,
				      u32 portid,
				      struct netlink_ext_ack *extack);
void lfr_session_get(struct lfr_session *s);
void lfr_session_put(struct lfr_session *s);
bool __must_check lfr_pending_put(struct lfr_session *s);
/* Any context: the event is sent from lfr_wq. */
void lfr_session_event(struct lfr_session *s, enum lfr_event ev);
u64 lfr_counter_sum(struct lfr_session *s, int ctr);

/* Sends a session's event (from lfr_wq): the netlink family's multicast. */
typedef void (*lfr_event_fn)(struct lfr_session *s, enum lfr_event ev);
void lfr_sessions_event_sink(lfr_event_fn fn);

#endif /* LFR_SESSION_H */

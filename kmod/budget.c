// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: what a session may cost.  START computes everything the session
 * allocates and refuses it above the module's cap (max_session_mb) or when
 * all sessions not yet freed would hold more than max_total_mb, and
 * charges the ring pages, which stay resident while mapped, as locked
 * memory the way perf charges its buffers: each user has an allowance of
 * mlock_kb per online CPU (perf_event_mlock_kb's meaning) in
 * user->locked_vm; pages beyond it go to the starter's mm->pinned_vm and
 * must fit RLIMIT_MEMLOCK unless the starter has CAP_IPC_LOCK.  Both are
 * given back when the session is freed.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include "budget.h"
#include "counters.h"
#include "frame_check.h"
#include "kstack_cache.h"
#include "mm_watch.h"
#include "params.h"
#include "ring.h"
#include "sampler.h"
#include "seen.h"
#include "session.h"
#include "threads.h"
#include "walk_pool.h"

LFR_PARAM_UINT(max_session_mb, 256, "memory one session may allocate, MiB (default 256)");

LFR_PARAM_UINT(max_total_mb, 1024, "memory all sessions not yet freed (running, draining, or stopped and kept) may hold together, MiB (default 1024)");

/* What the sessions not yet freed hold (lfr_session_bytes of each). */
static atomic64_t lfr_total_bytes = ATOMIC64_INIT(0);

LFR_PARAM_UINT(mlock_kb, 516, "ring memory per online CPU a user may lock without RLIMIT_MEMLOCK or CAP_IPC_LOCK, KiB (default 516, as perf_event_mlock_kb)");

static u64 lfr_ring_pages_total(const struct lfr_config *cfg)
{
	return (u64)num_possible_cpus() * (cfg->ring_pages + 1);
}

/*
 * Everything a session may allocate: what lfr_session_alloc() and START
 * do (rings, per-CPU data, walk memos and kernel stacks, the thread table, the mapping
 * set, the walks' buffer pool, the target arrays), the slots of the mms
 * its walks watch with their watches (one per mm, shared by the sessions
 * that watch it: counted whole for each), and its unwind tables, up to
 * their cap (LFR_A_UNWIND_MAX_KB).
 */
u64 lfr_session_bytes(const struct lfr_config *cfg)
{
	u64 cpus = num_possible_cpus();
	u64 slots = roundup_pow_of_two(2 * (u64)cfg->max_threads);
	u64 thread = sizeof(struct lfr_thread);
	u64 walk = lfr_config_ustack_max(cfg);
	u64 targets = (u64)cfg->nr_tgids + cfg->nr_tids + cfg->nr_cgroups;
	/* the index of thread contexts, and what fills it at most */
	u64 ctx = cfg->thread_ctx ? 2 * LFR_CTX_MAX_PROCS * sizeof(void *) +
				    LFR_CTX_MAX_PROCS * 128 : 0;

	return sizeof(struct lfr_session) +
	       lfr_ring_pages_total(cfg) * PAGE_SIZE +
	       cpus * (sizeof(struct lfr_ring) + sizeof(struct lfr_counters) +
		       sizeof(struct lfr_pcpu) +
		       sizeof(struct lfr_walk_memos)) +
	       nr_cpu_ids * (sizeof(struct lfr_ring *) +
			     sizeof(struct lfr_walk_memos *)) +
	       slots * thread +
	       LFR_SEEN_SLOTS * sizeof(u64) +
	       (u64)lfr_walk_pool_cap() * (walk + sizeof(void *)) +
	       targets * sizeof(void *) +
	       LFR_MM_WATCH_MAX * (sizeof(struct lfr_mm_slot) +
				   sizeof(struct lfr_mm_watch)) +
	       ((u64)cfg->unwind_max_kb << 10) + ctx +
	       (lfr_kstack_cache_of(cfg) ?
		cpus * sizeof(struct lfr_kstack_cache) +
		nr_cpu_ids * sizeof(struct lfr_kstack_cache *) : 0);
}

int lfr_budget_charge(struct lfr_session *s, struct netlink_ext_ack *extack)
{
	struct lfr_charge *ch = &s->charge;
	unsigned long pages = lfr_ring_pages_total(&s->cfg);
	unsigned long allowance, locked, extra = 0;
	u64 bytes = lfr_session_bytes(&s->cfg);
	struct user_struct *user;

	if (bytes > (u64)READ_ONCE(max_session_mb) << 20) {
		NL_SET_ERR_MSG(extack, "the session needs more memory than the module's cap (parameter lfr.max_session_mb, default 256 MiB): use fewer ring pages or threads, less memory for unwind tables (--unwind-max), or raise /sys/module/lfr/parameters/max_session_mb");
		return -ENOMEM;
	}
	user = get_current_user();
	allowance = ((unsigned long)READ_ONCE(mlock_kb) >> (PAGE_SHIFT - 10)) *
		    num_online_cpus();
	locked = min_t(unsigned long, atomic_long_read(&user->locked_vm),
		       allowance) + pages;
	if (locked > allowance)
		extra = locked - allowance;
	if (extra && !capable(CAP_IPC_LOCK) &&
	    atomic64_read(&current->mm->pinned_vm) + extra >
	    rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT) {
		free_uid(user);
		NL_SET_ERR_MSG(extack, "the rings exceed the locked-memory allowance (lfr.mlock_kb per CPU, then RLIMIT_MEMLOCK): use fewer ring pages, raise 'ulimit -l', or grant CAP_IPC_LOCK");
		return -EPERM;
	}
	/* STARTs are serialized by lfr_lock; frees only lower the total */
	if (atomic64_read(&lfr_total_bytes) + bytes >
	    (u64)READ_ONCE(max_total_mb) << 20) {
		free_uid(user);
		NL_SET_ERR_MSG(extack, "with this session, the sessions not yet freed (running, draining, or stopped and kept) would hold more memory than the module's total cap (parameter lfr.max_total_mb, default 1024 MiB): stop one ('lfr stop -S ID' also gives up a draining one's walks), or raise /sys/module/lfr/parameters/max_total_mb");
		return -ENOSPC;
	}
	atomic64_add(bytes, &lfr_total_bytes);
	ch->bytes = bytes;
	atomic_long_add(pages - extra, &user->locked_vm);
	ch->user = user;
	ch->user_pages = pages - extra;
	if (extra) {
		atomic64_add(extra, &current->mm->pinned_vm);
		mmgrab(current->mm);
		ch->mm = current->mm;
		ch->mm_pages = extra;
	}
	return 0;
}

/* When the session's rings are freed. */
void lfr_budget_uncharge(struct lfr_session *s)
{
	struct lfr_charge *ch = &s->charge;

	if (ch->mm) {
		atomic64_sub(ch->mm_pages, &ch->mm->pinned_vm);
		mmdrop(ch->mm);
	}
	if (ch->user) {
		atomic_long_sub(ch->user_pages, &ch->user->locked_vm);
		free_uid(ch->user);
	}
	atomic64_sub(ch->bytes, &lfr_total_bytes);
	memset(ch, 0, sizeof(*ch));
}

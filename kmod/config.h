/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: START attributes, their policy and the session configuration. */
#ifndef LFR_CONFIG_H
#define LFR_CONFIG_H

#include <linux/math.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <net/netlink.h>
#include <linux/lfr.h>

struct lfr_config {
	u64 period_ns;
	u32 user_depth;
	u32 ring_pages;
	u32 wakeup_bytes;
	u32 max_threads;
	u32 jitter_pct;
	u32 unwind_max_kb;	/* memory for unwind tables, KiB */
	u64 offcpu_min_ns;	/* 0: no off-CPU intervals */
	u64 latency_min_ns;	/* 0: no sampling latencies */
	bool kernel_stack;
	bool detached;
	bool thread_ctx;	/* LFR_A_THREAD_CTX: read thread contexts */
	bool system;
	bool follow_children;
	/* the lists it follows, owned by the config (lfr_config_free()) */
	struct_group(lists,
		u32 nr_tgids, nr_tids, nr_cgroups, nr_cgroup_fds;
		u32 *tgids;		/* sorted, unique */
		u32 *tids;		/* sorted, unique */
		/* as given (cgroup_filter.c prunes them); room for the fds' cgroups after them */
		u64 *cgroup_ids;
		u32 *cgroup_fds;	/* cgroup.procs descriptors (permission.c) */
	);
	s32 kernel_proof_fd;	/* LFR_A_KERNEL_PROOF_FD, or -1 */
};

/*
 * The largest record one sample can commit: a USTACK record at the
 * session's depth with its stack words, or a TICK record with a whole
 * kernel stack.  A ring must be at least twice as large, or such a sample is
 * lost as "ring full" whenever the ring's head lies past its middle
 * (records do not wrap); START refuses smaller rings.
 */
static inline u64 lfr_config_max_record(u32 user_depth, bool kernel_stack)
{
	u64 ustack = sizeof(struct lfr_rec_ustack) +
		     8 * ((u64)user_depth + LFR_USTACK_WORDS);
	u64 tick = sizeof(struct lfr_rec_tick) +
		   (kernel_stack ? 8 * LFR_MAX_KERNEL_STACK_DEPTH : 0);

	return max(ustack, tick);
}

/* The room a thread context takes at the end of a USTACK record. */
#define LFR_CTX_ROOM	(sizeof(struct lfr_ustack_ctx) + \
			 round_up(LFR_CTX_ATTRS_MAX, 8))

/* The largest USTACK record of a session: its stack, its thread context. */
static inline u64 lfr_config_ustack_max(const struct lfr_config *cfg)
{
	return sizeof(struct lfr_rec_ustack) +
	       8 * ((u64)cfg->user_depth + LFR_USTACK_WORDS) +
	       (cfg->thread_ctx ? LFR_CTX_ROOM : 0);
}

/* An OFFCPU record always carries a whole kernel stack. */
static inline u64 lfr_config_max_record_offcpu(const struct lfr_config *cfg)
{
	u64 offcpu = sizeof(struct lfr_rec_offcpu) +
		     8 * LFR_MAX_KERNEL_STACK_DEPTH;
	u64 other = max(lfr_config_max_record(cfg->user_depth,
					      cfg->kernel_stack),
			lfr_config_ustack_max(cfg));

	return cfg->offcpu_min_ns ? max(offcpu, other) : other;
}

extern const struct nla_policy lfr_policy[LFR_A_MAX + 1];
extern const struct nla_policy lfr_target_policy[LFR_TARGET_A_MAX + 1];

/*
 * Fills @cfg from attributes already validated against lfr_policy.  Checks
 * what a policy cannot express (period xor frequency, power-of-two ring,
 * target combinations) and sets an extack message for every rejection.
 * On success the caller owns cfg->tgids/tids/cgroup_ids
 * (lfr_config_free()).
 */
int lfr_config_parse(struct nlattr **attrs, struct lfr_config *cfg,
		     struct netlink_ext_ack *extack);
void lfr_config_free(struct lfr_config *cfg);

#endif /* LFR_CONFIG_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the START policy and its parsing into a session configuration.
 * No session state here, so KUnit runs it on hand-built messages.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sort.h>
#include <linux/lfr.h>
#include "config.h"
#include "ctx_parse.h"
#include "ksym.h"

/* Not const: 6.1's nla_policy points to a mutable range. */
static struct netlink_range_validation lfr_period_range = {
	.min = LFR_MIN_PERIOD_NS,
	.max = LFR_MAX_PERIOD_NS,
};

static struct netlink_range_validation lfr_session_range = {
	.min = 1,
	.max = LFR_MAX_SESSION_ID,
};

static struct netlink_range_validation lfr_freq_range = {
	.min = 1,
	.max = LFR_MAX_FREQ_HZ,
};

static struct netlink_range_validation lfr_threads_range = {
	.min = LFR_MIN_MAX_THREADS,
	.max = LFR_MAX_MAX_THREADS,
};

static struct netlink_range_validation lfr_unwind_kb_range = {
	.max = LFR_MAX_UNWIND_MAX_KB,
};

static struct netlink_range_validation lfr_offcpu_range = {
	.min = LFR_MIN_OFFCPU_MIN_NS,
	.max = LFR_MAX_OFFCPU_MIN_NS,
};

static struct netlink_range_validation lfr_latency_range = {
	.min = LFR_MIN_LATENCY_MIN_NS,
	.max = LFR_MAX_LATENCY_MIN_NS,
};

static struct netlink_range_validation lfr_fd_range = {
	.max = INT_MAX,
};

const struct nla_policy lfr_target_policy[LFR_TARGET_A_MAX + 1] = {
	[LFR_TARGET_A_UNSPEC] = { .strict_start_type = 1 },
	[LFR_TARGET_A_PAD] = { .type = NLA_REJECT },
	[LFR_TARGET_A_SYSTEM] = { .type = NLA_FLAG },
	[LFR_TARGET_A_TGID] = NLA_POLICY_MIN(NLA_U32, 1),
	[LFR_TARGET_A_TID] = NLA_POLICY_MIN(NLA_U32, 1),
	[LFR_TARGET_A_CGROUP_ID] = { .type = NLA_U64 },
	[LFR_TARGET_A_FOLLOW_CHILDREN] = { .type = NLA_FLAG },
	[LFR_TARGET_A_CGROUP_PROCS_FD] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &lfr_fd_range),
};

#define LFR_REPLY_ONLY { .type = NLA_REJECT, \
			 .reject_message = "attribute is only sent by the kernel" }

const struct nla_policy lfr_policy[LFR_A_MAX + 1] = {
	[LFR_A_UNSPEC] = { .strict_start_type = 1 },
	[LFR_A_PAD] = { .type = NLA_REJECT },
	[LFR_A_SESSION_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &lfr_session_range),
	[LFR_A_STATE] = LFR_REPLY_ONLY,
	[LFR_A_EVENT] = LFR_REPLY_ONLY,
	[LFR_A_PERIOD_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &lfr_period_range),
	[LFR_A_FREQ_HZ] = NLA_POLICY_FULL_RANGE(NLA_U32, &lfr_freq_range),
	[LFR_A_USER_STACK_DEPTH] =
		NLA_POLICY_RANGE(NLA_U32, 1, LFR_MAX_USER_STACK_DEPTH),
	[LFR_A_KERNEL_STACK] = { .type = NLA_FLAG },
	[LFR_A_DETACHED] = { .type = NLA_FLAG },
	[LFR_A_RING_PAGES] =
		NLA_POLICY_RANGE(NLA_U32, LFR_MIN_RING_PAGES, LFR_MAX_RING_PAGES),
	[LFR_A_WAKEUP_BYTES] = { .type = NLA_U32 },
	[LFR_A_MAX_THREADS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &lfr_threads_range),
	[LFR_A_JITTER_PCT] = NLA_POLICY_MAX(NLA_U32, LFR_MAX_JITTER_PCT),
	[LFR_A_TARGETS] = NLA_POLICY_NESTED(lfr_target_policy),
	[LFR_A_NR_CPU_IDS] = LFR_REPLY_ONLY,
	[LFR_A_COUNTERS] = LFR_REPLY_ONLY,
	[LFR_A_CPU] = LFR_REPLY_ONLY,
	[LFR_A_CPU_ID] = LFR_REPLY_ONLY,
	[LFR_A_ABANDON] = { .type = NLA_FLAG },
	[LFR_A_SESSIONS] = LFR_REPLY_ONLY,
	[LFR_A_UNWIND_MAX_KB] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &lfr_unwind_kb_range),
	[LFR_A_UNWIND_OBJECT_FD] = NLA_POLICY_FULL_RANGE(NLA_U32, &lfr_fd_range),
	[LFR_A_UNWIND_TABLE_FD] = NLA_POLICY_FULL_RANGE(NLA_U32, &lfr_fd_range),
	[LFR_A_OFFCPU_MIN_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &lfr_offcpu_range),
	[LFR_A_LATENCY_MIN_NS] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &lfr_latency_range),
	[LFR_A_THREAD_CTX] = { .type = NLA_FLAG },
	[LFR_A_CTX] = NLA_POLICY_NESTED(lfr_ctx_policy),
	[LFR_A_KERNEL_PROOF_FD] = NLA_POLICY_FULL_RANGE(NLA_U32, &lfr_fd_range),
	/* no length in the policy: the function's message says what fits */
	[LFR_A_KSYM_ADDRS] = NLA_POLICY_VALIDATE_FN(NLA_BINARY, lfr_ksym_validate),
	[LFR_A_KSYMS] = LFR_REPLY_ONLY,
};

static int lfr_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static u32 lfr_sort_unique(u32 *ids, u32 nr)
{
	u32 i, n = 0;

	sort(ids, nr, sizeof(*ids), lfr_cmp_u32, NULL);
	for (i = 0; i < nr; i++)
		if (!n || ids[n - 1] != ids[i])
			ids[n++] = ids[i];
	return n;
}

static int lfr_parse_targets(struct nlattr *nest, struct lfr_config *cfg,
			     struct netlink_ext_ack *extack)
{
	u32 ntg = 0, ntid = 0, ncg = 0, nfd = 0;
	struct nlattr *a;
	int rem;

	if (!nest) {
		NL_SET_ERR_MSG(extack, "LFR_A_TARGETS is required: give tgids, tids or system-wide");
		return -EINVAL;
	}
	nla_for_each_nested(a, nest, rem) {
		switch (nla_type(a)) {
		case LFR_TARGET_A_SYSTEM:
			cfg->system = true;
			break;
		case LFR_TARGET_A_TGID:
			ntg++;
			break;
		case LFR_TARGET_A_TID:
			ntid++;
			break;
		case LFR_TARGET_A_CGROUP_ID:
			ncg++;
			break;
		case LFR_TARGET_A_CGROUP_PROCS_FD:
			nfd++;
			break;
		case LFR_TARGET_A_FOLLOW_CHILDREN:
			cfg->follow_children = true;
			break;
		default:
			NL_SET_ERR_MSG_ATTR(extack, a, "unknown target attribute");
			return -EINVAL;
		}
	}
	if (cfg->system && (ntg || ntid || ncg || nfd)) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "system-wide cannot be combined with tgid, tid or cgroup targets");
		return -EINVAL;
	}
	if (!cfg->system && !ntg && !ntid && !ncg && !nfd) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "no target: give tgids, tids, cgroups or system-wide");
		return -EINVAL;
	}
	if (ntg + ntid + ncg + nfd > LFR_MAX_TARGETS) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "too many targets (max LFR_MAX_TARGETS)");
		return -E2BIG;
	}
	if (ntg) {
		cfg->tgids = kcalloc(ntg, sizeof(u32), GFP_KERNEL_ACCOUNT);
		if (!cfg->tgids)
			return -ENOMEM;
	}
	if (ntid) {
		cfg->tids = kcalloc(ntid, sizeof(u32), GFP_KERNEL_ACCOUNT);
		if (!cfg->tids)
			return -ENOMEM;
	}
	if (ncg + nfd) {
		cfg->cgroup_ids = kcalloc(ncg + nfd, sizeof(u64), GFP_KERNEL_ACCOUNT);
		if (!cfg->cgroup_ids)
			return -ENOMEM;
	}
	if (nfd) {
		cfg->cgroup_fds = kcalloc(nfd, sizeof(u32), GFP_KERNEL_ACCOUNT);
		if (!cfg->cgroup_fds)
			return -ENOMEM;
	}
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == LFR_TARGET_A_TGID)
			cfg->tgids[cfg->nr_tgids++] = nla_get_u32(a);
		else if (nla_type(a) == LFR_TARGET_A_TID)
			cfg->tids[cfg->nr_tids++] = nla_get_u32(a);
		else if (nla_type(a) == LFR_TARGET_A_CGROUP_ID)
			cfg->cgroup_ids[cfg->nr_cgroups++] = nla_get_u64(a);
		else if (nla_type(a) == LFR_TARGET_A_CGROUP_PROCS_FD)
			cfg->cgroup_fds[cfg->nr_cgroup_fds++] = nla_get_u32(a);
	}
	cfg->nr_tgids = lfr_sort_unique(cfg->tgids, cfg->nr_tgids);
	cfg->nr_tids = lfr_sort_unique(cfg->tids, cfg->nr_tids);
	return 0;
}

/*
 * Records never wrap: one that does not fit before the end of the ring is
 * preceded by padding up to it (lfr_ring_plan()).  An empty ring therefore
 * takes a record of len bytes at every head only when len <= size / 2 (the
 * padding is then shorter than the record); a larger maximal sample would be
 * lost as "ring full" whenever the head lies in the wrong place, however
 * fast the reader.  Extack messages are static, so the sizes are in lfr(1).
 */
static int lfr_check_ring_fits(struct nlattr **attrs, struct lfr_config *cfg,
			       u64 ring_bytes, struct netlink_ext_ack *extack)
{
	struct nlattr *bad = attrs[LFR_A_RING_PAGES] ?:
			     attrs[LFR_A_USER_STACK_DEPTH];

	if (lfr_config_max_record_offcpu(cfg) <=
	    ring_bytes / 2)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, bad,
			    "the ring is smaller than two user-stack records at this stack depth (56 + 8 * (depth + 16) bytes each): give more ring pages or a smaller depth");
	return -EINVAL;
}

int lfr_config_parse(struct nlattr **attrs, struct lfr_config *cfg,
		     struct netlink_ext_ack *extack)
{
	u64 ring_bytes;
	int err;

	memset(cfg, 0, sizeof(*cfg));
	cfg->kernel_proof_fd = -1;
	if (attrs[LFR_A_ABANDON]) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[LFR_A_ABANDON],
				    "abandon is an attribute of STOP");
		return -EINVAL;
	}
	if (attrs[LFR_A_CTX]) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[LFR_A_CTX],
				    "a thread context location is an attribute of CTX_ADD");
		return -EINVAL;
	}
	if (attrs[LFR_A_UNWIND_OBJECT_FD] || attrs[LFR_A_UNWIND_TABLE_FD]) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[LFR_A_UNWIND_OBJECT_FD] ?:
				    attrs[LFR_A_UNWIND_TABLE_FD],
				    "unwind descriptors are attributes of UNWIND_ADD");
		return -EINVAL;
	}
	cfg->period_ns = div_u64(NSEC_PER_SEC, LFR_DEFAULT_FREQ_HZ);
	cfg->unwind_max_kb = LFR_DEFAULT_UNWIND_MAX_KB;
	cfg->user_depth = LFR_DEFAULT_USER_STACK_DEPTH;
	cfg->ring_pages = LFR_DEFAULT_RING_PAGES;
	cfg->max_threads = LFR_DEFAULT_MAX_THREADS;
	cfg->jitter_pct = LFR_DEFAULT_JITTER_PCT;

	if (attrs[LFR_A_PERIOD_NS] && attrs[LFR_A_FREQ_HZ]) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[LFR_A_FREQ_HZ],
				    "give either a period or a frequency, not both");
		return -EINVAL;
	}
	if (attrs[LFR_A_PERIOD_NS])
		cfg->period_ns = nla_get_u64(attrs[LFR_A_PERIOD_NS]);
	if (attrs[LFR_A_FREQ_HZ])
		cfg->period_ns = div_u64(NSEC_PER_SEC,
					 nla_get_u32(attrs[LFR_A_FREQ_HZ]));
	if (attrs[LFR_A_USER_STACK_DEPTH])
		cfg->user_depth = nla_get_u32(attrs[LFR_A_USER_STACK_DEPTH]);
	if (attrs[LFR_A_RING_PAGES]) {
		cfg->ring_pages = nla_get_u32(attrs[LFR_A_RING_PAGES]);
		if (!is_power_of_2(cfg->ring_pages)) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[LFR_A_RING_PAGES],
					    "ring pages must be a power of two");
			return -EINVAL;
		}
	}
	ring_bytes = (u64)cfg->ring_pages << PAGE_SHIFT;
	cfg->wakeup_bytes = ring_bytes / 4;
	if (attrs[LFR_A_WAKEUP_BYTES]) {
		cfg->wakeup_bytes = nla_get_u32(attrs[LFR_A_WAKEUP_BYTES]);
		if (cfg->wakeup_bytes > ring_bytes) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[LFR_A_WAKEUP_BYTES],
					    "wakeup bytes larger than the ring");
			return -ERANGE;
		}
	}
	if (attrs[LFR_A_MAX_THREADS])
		cfg->max_threads = nla_get_u32(attrs[LFR_A_MAX_THREADS]);
	if (attrs[LFR_A_JITTER_PCT])
		cfg->jitter_pct = nla_get_u32(attrs[LFR_A_JITTER_PCT]);
	if (attrs[LFR_A_UNWIND_MAX_KB])
		cfg->unwind_max_kb = nla_get_u32(attrs[LFR_A_UNWIND_MAX_KB]);
	if (attrs[LFR_A_OFFCPU_MIN_NS])
		cfg->offcpu_min_ns = nla_get_u64(attrs[LFR_A_OFFCPU_MIN_NS]);
	if (attrs[LFR_A_LATENCY_MIN_NS])
		cfg->latency_min_ns = nla_get_u64(attrs[LFR_A_LATENCY_MIN_NS]);
	cfg->kernel_stack = nla_get_flag(attrs[LFR_A_KERNEL_STACK]);
	cfg->detached = nla_get_flag(attrs[LFR_A_DETACHED]);
	cfg->thread_ctx = nla_get_flag(attrs[LFR_A_THREAD_CTX]);
	if (attrs[LFR_A_KERNEL_PROOF_FD])
		cfg->kernel_proof_fd = nla_get_u32(attrs[LFR_A_KERNEL_PROOF_FD]);
	err = lfr_check_ring_fits(attrs, cfg, ring_bytes, extack);
	if (err)
		return err;

	err = lfr_parse_targets(attrs[LFR_A_TARGETS], cfg, extack);
	if (err) {
		lfr_config_free(cfg);
		return err;
	}
	return 0;
}

void lfr_config_free(struct lfr_config *cfg)
{
	kfree(cfg->tgids);
	kfree(cfg->tids);
	kfree(cfg->cgroup_ids);
	kfree(cfg->cgroup_fds);
	memset(&cfg->lists, 0, sizeof(cfg->lists));
}

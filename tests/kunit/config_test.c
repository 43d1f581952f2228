// SPDX-License-Identifier: GPL-2.0
/* KUnit: the START policy and parsing, on hand-built attribute streams. */
#include <kunit/test.h>
#include <linux/bsearch.h>
#include <linux/skbuff.h>
#include <net/netlink.h>
#include "../../kmod/config.c"

/* Whether the sorted ids of a parsed configuration hold @id. */
static bool has_id(const u32 *ids, u32 nr, u32 id)
{
	return nr && bsearch(&id, ids, nr, sizeof(*ids), lfr_cmp_u32);
}

struct cfg_ctx {
	struct sk_buff *skb;
	struct nlattr *tb[LFR_A_MAX + 1];
	struct netlink_ext_ack ext;
	struct lfr_config cfg;
};

static struct cfg_ctx *cfg_new(struct kunit *test)
{
	struct cfg_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->skb = alloc_skb(4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->skb);
	return c;
}

static void put_targets(struct sk_buff *skb, bool system, const u32 *tgids,
			int n)
{
	struct nlattr *nest = nla_nest_start(skb, LFR_A_TARGETS);
	int i;

	if (system)
		nla_put_flag(skb, LFR_TARGET_A_SYSTEM);
	for (i = 0; i < n; i++)
		nla_put_u32(skb, LFR_TARGET_A_TGID, tgids[i]);
	nla_nest_end(skb, nest);
}

/* Validates like genetlink does (strict), then parses. */
static int cfg_parse(struct cfg_ctx *c)
{
	int err;

	memset(&c->ext, 0, sizeof(c->ext));
	err = nla_parse(c->tb, LFR_A_MAX, (struct nlattr *)c->skb->data,
			c->skb->len, lfr_policy, &c->ext);
	if (err)
		return err;
	return lfr_config_parse(c->tb, &c->cfg, &c->ext);
}

static void cfg_done(struct cfg_ctx *c)
{
	lfr_config_free(&c->cfg);
	kfree_skb(c->skb);
}

static void lfr_cfg_defaults(struct kunit *test)
{
	struct cfg_ctx *c = cfg_new(test);

	put_targets(c->skb, true, NULL, 0);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_TRUE(test, c->cfg.system);
	KUNIT_EXPECT_EQ(test, c->cfg.period_ns, NSEC_PER_SEC / LFR_DEFAULT_FREQ_HZ);
	KUNIT_EXPECT_EQ(test, c->cfg.user_depth, (u32)LFR_DEFAULT_USER_STACK_DEPTH);
	KUNIT_EXPECT_EQ(test, c->cfg.ring_pages, (u32)LFR_DEFAULT_RING_PAGES);
	KUNIT_EXPECT_EQ(test, c->cfg.max_threads, (u32)LFR_DEFAULT_MAX_THREADS);
	KUNIT_EXPECT_EQ(test, c->cfg.wakeup_bytes,
			(u32)(LFR_DEFAULT_RING_PAGES * PAGE_SIZE / 4));
	KUNIT_EXPECT_FALSE(test, c->cfg.kernel_stack);
	KUNIT_EXPECT_FALSE(test, c->cfg.detached);
	cfg_done(c);
}

static void lfr_cfg_targets(struct kunit *test)
{
	static const u32 ids[] = { 5, 3, 5, 9 };
	struct cfg_ctx *c = cfg_new(test);
	struct nlattr *nest;

	put_targets(c->skb, false, ids, ARRAY_SIZE(ids));
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_EQ(test, c->cfg.nr_tgids, 3U);
	KUNIT_EXPECT_EQ(test, c->cfg.tgids[0], 3U);
	KUNIT_EXPECT_EQ(test, c->cfg.tgids[2], 9U);
	KUNIT_EXPECT_TRUE(test, has_id(c->cfg.tgids, 3, 5));
	KUNIT_EXPECT_FALSE(test, has_id(c->cfg.tgids, 3, 4));
	cfg_done(c);

	/* No targets at all. */
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_USER_STACK_DEPTH, 10);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);

	/* An empty target nest. */
	c = cfg_new(test);
	put_targets(c->skb, false, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);

	/* System-wide plus a process. */
	c = cfg_new(test);
	put_targets(c->skb, true, ids, 1);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);

	/* tgid 0 is out of the policy's range. */
	c = cfg_new(test);
	nest = nla_nest_start(c->skb, LFR_A_TARGETS);
	nla_put_u32(c->skb, LFR_TARGET_A_TGID, 0);
	nla_nest_end(c->skb, nest);
	KUNIT_EXPECT_LT(test, cfg_parse(c), 0);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);

	/* cgroup ids repeat and combine with processes and following. */
	c = cfg_new(test);
	nest = nla_nest_start(c->skb, LFR_A_TARGETS);
	nla_put_u64_64bit(c->skb, LFR_TARGET_A_CGROUP_ID, 1ULL << 40,
			  LFR_TARGET_A_PAD);
	nla_put_u64_64bit(c->skb, LFR_TARGET_A_CGROUP_ID, 7, LFR_TARGET_A_PAD);
	nla_put_u32(c->skb, LFR_TARGET_A_TGID, 9);
	nla_put_flag(c->skb, LFR_TARGET_A_FOLLOW_CHILDREN);
	nla_nest_end(c->skb, nest);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_EQ(test, c->cfg.nr_cgroups, 2U);
	KUNIT_ASSERT_NOT_NULL(test, c->cfg.cgroup_ids);
	KUNIT_EXPECT_EQ(test, c->cfg.cgroup_ids[0], 1ULL << 40);
	KUNIT_EXPECT_EQ(test, c->cfg.cgroup_ids[1], 7ULL);
	KUNIT_EXPECT_EQ(test, c->cfg.nr_tgids, 1U);
	KUNIT_EXPECT_TRUE(test, c->cfg.follow_children);
	KUNIT_EXPECT_FALSE(test, c->cfg.system);
	cfg_done(c);

	/* A cgroup alone is a target; following alone is not. */
	c = cfg_new(test);
	nest = nla_nest_start(c->skb, LFR_A_TARGETS);
	nla_put_u64_64bit(c->skb, LFR_TARGET_A_CGROUP_ID, 1, LFR_TARGET_A_PAD);
	nla_nest_end(c->skb, nest);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_FALSE(test, c->cfg.follow_children);
	cfg_done(c);

	c = cfg_new(test);
	nest = nla_nest_start(c->skb, LFR_A_TARGETS);
	nla_put_flag(c->skb, LFR_TARGET_A_FOLLOW_CHILDREN);
	nla_nest_end(c->skb, nest);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);

	/* System-wide plus a cgroup. */
	c = cfg_new(test);
	nest = nla_nest_start(c->skb, LFR_A_TARGETS);
	nla_put_flag(c->skb, LFR_TARGET_A_SYSTEM);
	nla_put_u64_64bit(c->skb, LFR_TARGET_A_CGROUP_ID, 1, LFR_TARGET_A_PAD);
	nla_nest_end(c->skb, nest);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);

	/* A cgroup id must be a full u64. */
	c = cfg_new(test);
	nest = nla_nest_start(c->skb, LFR_A_TARGETS);
	nla_put_u32(c->skb, LFR_TARGET_A_CGROUP_ID, 1);
	nla_nest_end(c->skb, nest);
	KUNIT_EXPECT_LT(test, cfg_parse(c), 0);
	cfg_done(c);
}

static void lfr_cfg_limits(struct kunit *test)
{
	struct {
		int type;
		u64 val;
		bool is64;
		int err;
	} cases[] = {
		{ LFR_A_USER_STACK_DEPTH, 0, false, -ERANGE },
		{ LFR_A_USER_STACK_DEPTH, 1, false, 0 },
		{ LFR_A_USER_STACK_DEPTH, 1024, false, 0 },
		{ LFR_A_USER_STACK_DEPTH, LFR_MAX_USER_STACK_DEPTH, false, 0 },
		{ LFR_A_USER_STACK_DEPTH, LFR_MAX_USER_STACK_DEPTH + 1, false, -ERANGE },
		{ LFR_A_FREQ_HZ, 0, false, -ERANGE },
		{ LFR_A_FREQ_HZ, LFR_MAX_FREQ_HZ, false, 0 },
		{ LFR_A_FREQ_HZ, LFR_MAX_FREQ_HZ + 1, false, -ERANGE },
		{ LFR_A_PERIOD_NS, LFR_MIN_PERIOD_NS - 1, true, -ERANGE },
		{ LFR_A_PERIOD_NS, LFR_MIN_PERIOD_NS, true, 0 },
		{ LFR_A_PERIOD_NS, LFR_MAX_PERIOD_NS + 1, true, -ERANGE },
		{ LFR_A_RING_PAGES, 1, false, -ERANGE },
		{ LFR_A_RING_PAGES, 3, false, -EINVAL },
		{ LFR_A_RING_PAGES, LFR_MAX_RING_PAGES, false, 0 },
		{ LFR_A_RING_PAGES, LFR_MAX_RING_PAGES * 2, false, -ERANGE },
		{ LFR_A_MAX_THREADS, LFR_MIN_MAX_THREADS - 1, false, -ERANGE },
		{ LFR_A_MAX_THREADS, LFR_MAX_MAX_THREADS + 1, false, -ERANGE },
		{ LFR_A_JITTER_PCT, LFR_MAX_JITTER_PCT + 1, false, -ERANGE },
		{ LFR_A_WAKEUP_BYTES, LFR_DEFAULT_RING_PAGES * PAGE_SIZE + 1, false,
		  -ERANGE },
		{ LFR_A_OFFCPU_MIN_NS, LFR_MIN_OFFCPU_MIN_NS - 1, true, -ERANGE },
		{ LFR_A_OFFCPU_MIN_NS, LFR_MAX_OFFCPU_MIN_NS + 1, true, -ERANGE },
		/* system-wide, as every case here */
		{ LFR_A_OFFCPU_MIN_NS, LFR_DEFAULT_OFFCPU_MIN_NS, true, 0 },
		{ LFR_A_LATENCY_MIN_NS, LFR_MIN_LATENCY_MIN_NS - 1, true, -ERANGE },
		{ LFR_A_LATENCY_MIN_NS, LFR_MAX_LATENCY_MIN_NS + 1, true, -ERANGE },
		{ LFR_A_LATENCY_MIN_NS, LFR_MIN_LATENCY_MIN_NS, true, 0 },
		{ LFR_A_SESSION_ID, 0, false, -ERANGE },
		{ LFR_A_STATE, 1, false, -EINVAL },	/* reply-only */
		{ LFR_A_COUNTERS, 1, false, -EINVAL },	/* reply-only */
		{ LFR_A_SESSIONS, 1, false, -EINVAL },	/* reply-only */
		{ LFR_A_MAX + 1, 1, false, -EINVAL },	/* unknown */
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cfg_ctx *c = cfg_new(test);
		int err;

		if (cases[i].is64)
			nla_put_u64_64bit(c->skb, cases[i].type, cases[i].val,
					  LFR_A_PAD);
		else
			nla_put_u32(c->skb, cases[i].type, cases[i].val);
		put_targets(c->skb, true, NULL, 0);
		err = cfg_parse(c);
		KUNIT_EXPECT_EQ_MSG(test, err, cases[i].err, "case %d (attr %d = %llu)",
				    i, cases[i].type, cases[i].val);
		if (err)
			KUNIT_EXPECT_NOT_NULL_MSG(test, c->ext._msg, "case %d", i);
		cfg_done(c);
	}
}

/* Off-CPU intervals: any target kind; the minimum is kept as given. */
static void lfr_cfg_offcpu(struct kunit *test)
{
	static const u32 pid[] = { 42 };
	struct cfg_ctx *c = cfg_new(test);

	nla_put_u64_64bit(c->skb, LFR_A_OFFCPU_MIN_NS, 2500000, LFR_A_PAD);
	put_targets(c->skb, false, pid, 1);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_EQ(test, c->cfg.offcpu_min_ns, 2500000ULL);
	cfg_done(c);

	c = cfg_new(test);
	put_targets(c->skb, false, pid, 1);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_EQ(test, c->cfg.offcpu_min_ns, 0ULL);
	cfg_done(c);

	/* system-wide: the timer-mode sampler records them too */
	c = cfg_new(test);
	nla_put_u64_64bit(c->skb, LFR_A_OFFCPU_MIN_NS, 2500000, LFR_A_PAD);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_TRUE(test, c->cfg.system);
	KUNIT_EXPECT_EQ(test, c->cfg.offcpu_min_ns, 2500000ULL);
	cfg_done(c);

	/* a u32 where a u64 belongs */
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_OFFCPU_MIN_NS, 2500000);
	put_targets(c->skb, false, pid, 1);
	KUNIT_EXPECT_LT(test, cfg_parse(c), 0);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);
}

/* Sampling latencies: any target, system-wide too; the minimum is kept as given. */
static void lfr_cfg_latency(struct kunit *test)
{
	struct cfg_ctx *c = cfg_new(test);

	nla_put_u64_64bit(c->skb, LFR_A_LATENCY_MIN_NS, 2500000, LFR_A_PAD);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_EQ(test, c->cfg.latency_min_ns, 2500000ULL);
	cfg_done(c);

	c = cfg_new(test);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_EQ(test, c->cfg.latency_min_ns, 0ULL);
	cfg_done(c);

	/* a u32 where a u64 belongs */
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_LATENCY_MIN_NS, 2500000);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_LT(test, cfg_parse(c), 0);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);
}

static void lfr_cfg_shapes(struct kunit *test)
{
	struct cfg_ctx *c = cfg_new(test);
	u16 two = 7;

	/* Period and frequency together. */
	nla_put_u64_64bit(c->skb, LFR_A_PERIOD_NS, 1000000, LFR_A_PAD);
	nla_put_u32(c->skb, LFR_A_FREQ_HZ, 100);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);

	/* STOP's abandon flag in a START. */
	c = cfg_new(test);
	nla_put_flag(c->skb, LFR_A_ABANDON);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	KUNIT_EXPECT_STREQ(test, c->ext._msg, "abandon is an attribute of STOP");
	cfg_done(c);

	/* A u32 attribute two bytes long. */
	c = cfg_new(test);
	nla_put(c->skb, LFR_A_USER_STACK_DEPTH, sizeof(two), &two);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_LT(test, cfg_parse(c), 0);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);

	/* A flag with a payload. */
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_KERNEL_STACK, 1);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_LT(test, cfg_parse(c), 0);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);

	/* Frequency becomes the period; flags are read. */
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_FREQ_HZ, 1000);
	nla_put_flag(c->skb, LFR_A_KERNEL_STACK);
	nla_put_flag(c->skb, LFR_A_DETACHED);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_EQ(test, c->cfg.period_ns, 1000000ULL);
	KUNIT_EXPECT_TRUE(test, c->cfg.kernel_stack);
	KUNIT_EXPECT_TRUE(test, c->cfg.detached);
	cfg_done(c);
}

/* A ring must hold one maximal sample, or every such sample is lost. */
static void lfr_cfg_ring_fits(struct kunit *test)
{
	struct cfg_ctx *c;

	/* A USTACK record: 56 + 8 * (2048 + 16) = 16568 bytes, more than 4 pages. */
	KUNIT_EXPECT_EQ(test, lfr_config_max_record(2048, true), 16568ULL);
	KUNIT_EXPECT_EQ(test, lfr_config_max_record(127, false), 1200ULL);
	/* a whole kernel stack is the larger record at a tiny depth: 48 + 8 * 64 */
	KUNIT_EXPECT_EQ(test, lfr_config_max_record(1, true), 560ULL);

	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_RING_PAGES, 2);
	nla_put_u32(c->skb, LFR_A_USER_STACK_DEPTH, LFR_MAX_USER_STACK_DEPTH);
	nla_put_flag(c->skb, LFR_A_KERNEL_STACK);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	KUNIT_EXPECT_PTR_EQ(test, c->ext.bad_attr, c->tb[LFR_A_RING_PAGES]);
	cfg_done(c);

	/* Without -k the user stack alone is 16960 bytes: 4 pages are short. */
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_RING_PAGES, 4);
	nla_put_u32(c->skb, LFR_A_USER_STACK_DEPTH, LFR_MAX_USER_STACK_DEPTH);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	cfg_done(c);

	/*
	 * 8 pages are 32768 bytes, more than the 16568 of the record, but
	 * not twice as many: at some offsets an empty ring cannot take it
	 * (the padding to the end and the record together exceed the ring).
	 */
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_RING_PAGES, 8);
	nla_put_u32(c->skb, LFR_A_USER_STACK_DEPTH, LFR_MAX_USER_STACK_DEPTH);
	nla_put_flag(c->skb, LFR_A_KERNEL_STACK);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	cfg_done(c);

	/* 16 pages hold it, and 2 pages hold the default depth with -k. */
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_RING_PAGES, 16);
	nla_put_u32(c->skb, LFR_A_USER_STACK_DEPTH, LFR_MAX_USER_STACK_DEPTH);
	nla_put_flag(c->skb, LFR_A_KERNEL_STACK);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), 0);
	cfg_done(c);

	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_RING_PAGES, 2);
	nla_put_flag(c->skb, LFR_A_KERNEL_STACK);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), 0);
	cfg_done(c);
}

/*
 * The bound is half the ring: a record of at most size / 2 bytes fits an
 * empty ring wherever its head is (padding < len <= size / 2), one byte more
 * does not.  Depth 489 makes a USTACK record of exactly 4096 bytes, half
 * of 2 pages of 4 KiB.
 */
static void lfr_cfg_ring_half(struct kunit *test)
{
	static const struct {
		u32 depth;
		int err;
	} cases[] = { { 489, 0 }, { 490, -EINVAL } };
	struct cfg_ctx *c;
	int i;

	KUNIT_EXPECT_EQ(test, lfr_config_max_record(489, false), 4096ULL);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = cfg_new(test);
		nla_put_u32(c->skb, LFR_A_RING_PAGES, 2);
		nla_put_u32(c->skb, LFR_A_USER_STACK_DEPTH, cases[i].depth);
		put_targets(c->skb, true, NULL, 0);
		KUNIT_EXPECT_EQ(test, cfg_parse(c), cases[i].err);
		cfg_done(c);
	}
}

/*
 * LFR_A_THREAD_CTX: the flag, and room at the end of a USTACK record for a whole context (the
 * ring must hold two such records); a context location is CTX_ADD's, not START's.
 */
static void lfr_cfg_thread_ctx(struct kunit *test)
{
	struct cfg_ctx *c = cfg_new(test);
	struct nlattr *nest;

	nla_put_flag(c->skb, LFR_A_THREAD_CTX);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_TRUE(test, c->cfg.thread_ctx);
	KUNIT_EXPECT_EQ(test, lfr_config_ustack_max(&c->cfg),
			(u64)(sizeof(struct lfr_rec_ustack) +
			      8 * (LFR_DEFAULT_USER_STACK_DEPTH + LFR_USTACK_WORDS) +
			      sizeof(struct lfr_ustack_ctx) + 616));
	cfg_done(c);

	/* depth 489 fills half of a 2-page ring without a context, not with one */
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_RING_PAGES, 2);
	nla_put_u32(c->skb, LFR_A_USER_STACK_DEPTH, 489);
	nla_put_flag(c->skb, LFR_A_THREAD_CTX);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	cfg_done(c);

	c = cfg_new(test);
	nest = nla_nest_start(c->skb, LFR_A_CTX);
	nla_put_u32(c->skb, LFR_CTX_A_PID, 1);
	nla_nest_end(c->skb, nest);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, c->ext._msg);
	cfg_done(c);
}

/*
 * A cgroup by its cgroup.procs descriptor (permission.c resolves it): kept apart from the ids,
 * room made for its id after them; the descriptor of perf's consent to kernel stacks.
 */
static void lfr_cfg_procs_fds(struct kunit *test)
{
	struct cfg_ctx *c = cfg_new(test);
	struct nlattr *nest;

	nla_put_u32(c->skb, LFR_A_KERNEL_PROOF_FD, 7);
	nest = nla_nest_start(c->skb, LFR_A_TARGETS);
	nla_put_u64_64bit(c->skb, LFR_TARGET_A_CGROUP_ID, 1234, LFR_TARGET_A_PAD);
	nla_put_u32(c->skb, LFR_TARGET_A_CGROUP_PROCS_FD, 5);
	nla_put_u32(c->skb, LFR_TARGET_A_CGROUP_PROCS_FD, 6);
	nla_nest_end(c->skb, nest);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_EQ(test, c->cfg.nr_cgroups, 1u);
	KUNIT_EXPECT_EQ(test, c->cfg.cgroup_ids[0], 1234ULL);
	KUNIT_EXPECT_EQ(test, c->cfg.nr_cgroup_fds, 2u);
	KUNIT_EXPECT_EQ(test, c->cfg.cgroup_fds[0], 5u);
	KUNIT_EXPECT_EQ(test, c->cfg.cgroup_fds[1], 6u);
	KUNIT_EXPECT_EQ(test, c->cfg.kernel_proof_fd, 7);
	/* room for both descriptors' ids after the one given */
	KUNIT_EXPECT_GE(test, ksize(c->cfg.cgroup_ids), 3 * sizeof(u64));
	cfg_done(c);

	/* without them: no proof (-1), no descriptor */
	c = cfg_new(test);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_ASSERT_EQ(test, cfg_parse(c), 0);
	KUNIT_EXPECT_EQ(test, c->cfg.kernel_proof_fd, -1);
	KUNIT_EXPECT_EQ(test, c->cfg.nr_cgroup_fds, 0u);
	cfg_done(c);

	/* with the whole system: refused; a descriptor out of range: refused by the policy */
	c = cfg_new(test);
	nest = nla_nest_start(c->skb, LFR_A_TARGETS);
	nla_put_flag(c->skb, LFR_TARGET_A_SYSTEM);
	nla_put_u32(c->skb, LFR_TARGET_A_CGROUP_PROCS_FD, 5);
	nla_nest_end(c->skb, nest);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -EINVAL);
	cfg_done(c);
	c = cfg_new(test);
	nla_put_u32(c->skb, LFR_A_KERNEL_PROOF_FD, 0x80000000u);
	put_targets(c->skb, true, NULL, 0);
	KUNIT_EXPECT_EQ(test, cfg_parse(c), -ERANGE);
	cfg_done(c);
}

static struct kunit_case lfr_cfg_cases[] = {
	KUNIT_CASE(lfr_cfg_procs_fds),
	KUNIT_CASE(lfr_cfg_thread_ctx),
	KUNIT_CASE(lfr_cfg_defaults),
	KUNIT_CASE(lfr_cfg_targets),
	KUNIT_CASE(lfr_cfg_limits),
	KUNIT_CASE(lfr_cfg_offcpu),
	KUNIT_CASE(lfr_cfg_latency),
	KUNIT_CASE(lfr_cfg_shapes),
	KUNIT_CASE(lfr_cfg_ring_fits),
	KUNIT_CASE(lfr_cfg_ring_half),
	{}
};

static struct kunit_suite lfr_cfg_suite = {
	.name = "lfr_config",
	.test_cases = lfr_cfg_cases,
};

kunit_test_suite(lfr_cfg_suite);

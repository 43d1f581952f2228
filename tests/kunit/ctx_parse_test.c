// SPDX-License-Identifier: GPL-2.0
/* KUnit: the CTX_ADD policy and parsing (kmod/ctx_parse.c), on hand-built attribute streams. */
#include <kunit/test.h>
#include <linux/skbuff.h>
#include <net/netlink.h>
#include "../../kmod/ctx_parse.c"

/* What a message gives, as flags of the attributes to put. */
enum {
	PID = 1 << 0, ACCESS = 1 << 1, OFFSET = 1 << 2, SLOT = 1 << 3, OBJECT = 1 << 4,
	DTV = 1 << 5,
};

struct msg {
	u32 access;
	u32 stride;
	s32 count, dtv_off;
	unsigned int put;
	int extra;		/* an attribute type to add with a u32, 0: none */
};

/* As the family's policy checks LFR_A_CTX before the command runs. */
static const struct nla_policy outer_policy[2] = {
	[1] = NLA_POLICY_NESTED(lfr_ctx_policy),
};

/* Builds the LFR_A_CTX nest of @m, validates it like genetlink (strict) and parses it. */
static int parse(struct kunit *test, const struct msg *m, struct lfr_ctx_spec *spec,
		 bool below, const char **why)
{
	static struct netlink_ext_ack ext;
	struct sk_buff *skb = alloc_skb(1024, GFP_KERNEL);
	struct nlattr *nest, *tb[2];
	int err;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	nest = nla_nest_start(skb, 1);
	if (m->put & PID)
		nla_put_u32(skb, LFR_CTX_A_PID, 42);
	if (m->put & ACCESS)
		nla_put_u32(skb, LFR_CTX_A_ACCESS, m->access);
	if (m->put & OFFSET)
		nla_put_s64(skb, LFR_CTX_A_OFFSET, -16, LFR_CTX_A_PAD);
	if (m->put & SLOT)
		nla_put_u64_64bit(skb, LFR_CTX_A_SLOT, 0x7f0000001000ULL, LFR_CTX_A_PAD);
	if (m->put & OBJECT) {
		nla_put_u64_64bit(skb, LFR_CTX_A_OBJECT_ADDR, 0x7f0000000000ULL, LFR_CTX_A_PAD);
		nla_put_u64_64bit(skb, LFR_CTX_A_OBJECT_INO, 1234, LFR_CTX_A_PAD);
		nla_put_u32(skb, LFR_CTX_A_OBJECT_DEV, 254 << 20 | 1);
	}
	if (m->put & DTV) {
		nla_put_s32(skb, LFR_CTX_A_DTV_OFFSET, m->dtv_off);
		nla_put_u32(skb, LFR_CTX_A_DTV_STRIDE, m->stride);
		nla_put_s32(skb, LFR_CTX_A_DTV_COUNT, m->count);
	}
	if (m->extra)
		nla_put_u32(skb, m->extra, 1);
	nla_nest_end(skb, nest);
	memset(&ext, 0, sizeof(ext));
	err = nla_parse(tb, 1, (struct nlattr *)skb->data, skb->len, outer_policy,
			&ext);
	if (!err)
		err = lfr_ctx_parse(tb[1], below, spec, &ext);
	*why = ext._msg;
	kfree_skb(skb);
	return err;
}

#define ALL_STATIC (PID | ACCESS | OFFSET | OBJECT)
#define ALL_SLOT (PID | ACCESS | SLOT | OBJECT | DTV)

static void lfr_ctx_parse_ok(struct kunit *test)
{
	struct lfr_ctx_spec spec;
	const char *why;
	struct msg m = { .access = LFR_CTX_ACCESS_STATIC, .put = ALL_STATIC };

	KUNIT_ASSERT_EQ(test, parse(test, &m, &spec, true, &why), 0);
	KUNIT_EXPECT_EQ(test, spec.pid, 42u);
	KUNIT_EXPECT_EQ(test, spec.where.access, LFR_CTX_ACCESS_STATIC);
	KUNIT_EXPECT_EQ(test, spec.where.offset, -16LL);
	KUNIT_EXPECT_TRUE(test, spec.where.tls_below_tp);
	KUNIT_EXPECT_EQ(test, spec.object_ino, 1234ULL);
	KUNIT_EXPECT_EQ(test, spec.object_dev, 254u << 20 | 1);
	KUNIT_EXPECT_EQ(test, spec.where.dtv_count, LFR_CTX_DTV_NO_COUNT);

	m = (struct msg){ .access = LFR_CTX_ACCESS_TLSDESC, .put = ALL_SLOT, .stride = 16,
			  .count = -1, .dtv_off = 8 };
	KUNIT_ASSERT_EQ(test, parse(test, &m, &spec, false, &why), 0);
	KUNIT_EXPECT_EQ(test, spec.where.slot, 0x7f0000001000ULL);
	KUNIT_EXPECT_EQ(test, spec.where.dtv_stride, 16);
	KUNIT_EXPECT_EQ(test, spec.where.dtv_count, -1);
	KUNIT_EXPECT_EQ(test, spec.where.dtv_off, 8);
	KUNIT_EXPECT_FALSE(test, spec.where.tls_below_tp);

	m = (struct msg){ .access = LFR_CTX_ACCESS_DTV_SLOT, .put = ALL_SLOT, .stride = 8,
			  .count = 0, .dtv_off = -8 };
	KUNIT_EXPECT_EQ(test, parse(test, &m, &spec, true, &why), 0);
	m = (struct msg){ .access = LFR_CTX_ACCESS_TPOFF_SLOT, .put = ALL_SLOT & ~DTV };
	KUNIT_EXPECT_EQ(test, parse(test, &m, &spec, true, &why), 0);
}

/* Every rejection is EINVAL or ERANGE with a message. */
static void lfr_ctx_parse_bad(struct kunit *test)
{
	static const struct {
		struct msg m;
		int err;
	} cases[] = {
		{ { LFR_CTX_ACCESS_STATIC, 0, 0, 0, ALL_STATIC & ~PID }, -EINVAL },
		{ { LFR_CTX_ACCESS_STATIC, 0, 0, 0, ALL_STATIC & ~ACCESS }, -EINVAL },
		{ { LFR_CTX_ACCESS_STATIC, 0, 0, 0, ALL_STATIC & ~OBJECT }, -EINVAL },
		/* static TLS has no slot and no DTV */
		{ { LFR_CTX_ACCESS_STATIC, 0, 0, 0, ALL_STATIC | SLOT }, -EINVAL },
		{ { LFR_CTX_ACCESS_STATIC, 16, -1, 8, ALL_STATIC | DTV }, -EINVAL },
		/* a slot kind without its slot, a DTV kind without its DTV */
		{ { LFR_CTX_ACCESS_TLSDESC, 16, -1, 8, ALL_SLOT & ~SLOT }, -EINVAL },
		{ { LFR_CTX_ACCESS_DTV_SLOT, 0, 0, 0, ALL_SLOT & ~DTV }, -EINVAL },
		{ { LFR_CTX_ACCESS_TPOFF_SLOT, 16, -1, 8, ALL_SLOT }, -EINVAL },
		/* the DTV's shape */
		{ { LFR_CTX_ACCESS_TLSDESC, 12, -1, 8, ALL_SLOT }, -EINVAL },
		{ { LFR_CTX_ACCESS_TLSDESC, 16, 5, 8, ALL_SLOT }, -EINVAL },
		{ { LFR_CTX_ACCESS_TLSDESC, 16, -1, 12, ALL_SLOT }, -EINVAL },
		/* out of the policy's ranges */
		{ { LFR_CTX_ACCESS_TLSDESC, 32, -1, 8, ALL_SLOT }, -ERANGE },
		{ { LFR_CTX_ACCESS_TLSDESC, 16, -1, 8192, ALL_SLOT }, -ERANGE },
		{ { 0, 0, 0, 0, ALL_STATIC }, -ERANGE },
		{ { __LFR_CTX_ACCESS_MAX, 0, 0, 0, ALL_STATIC }, -ERANGE },
		/* the padding attribute, an unknown one */
		{ { LFR_CTX_ACCESS_STATIC, 0, 0, 0, ALL_STATIC, LFR_CTX_A_PAD }, -EINVAL },
		{ { LFR_CTX_ACCESS_STATIC, 0, 0, 0, ALL_STATIC, LFR_CTX_A_MAX + 1 }, -EINVAL },
	};
	struct lfr_ctx_spec spec;
	const char *why;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		why = NULL;
		KUNIT_EXPECT_EQ_MSG(test, parse(test, &cases[i].m, &spec, true, &why),
				    cases[i].err, "case %d", i);
		KUNIT_EXPECT_NOT_NULL_MSG(test, why, "case %d has no message", i);
	}
}

/* No nest at all. */
static void lfr_ctx_parse_none(struct kunit *test)
{
	struct netlink_ext_ack ext = {};
	struct lfr_ctx_spec spec;

	KUNIT_EXPECT_EQ(test, lfr_ctx_parse(NULL, true, &spec, &ext), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, ext._msg);
}

static struct kunit_case lfr_ctx_parse_cases[] = {
	KUNIT_CASE(lfr_ctx_parse_ok),
	KUNIT_CASE(lfr_ctx_parse_bad),
	KUNIT_CASE(lfr_ctx_parse_none),
	{}
};

static struct kunit_suite lfr_ctx_parse_suite = {
	.name = "lfr_ctx_parse",
	.test_cases = lfr_ctx_parse_cases,
};

kunit_test_suite(lfr_ctx_parse_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: LFR_CMD_KSYM's attribute check (as the family's policy runs it) and its reply
 * (kmod/ksym.c): a function of this module named with its offset, size and module, an address no
 * symbol holds named "".
 */
#include <kunit/test.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/netlink.h>
#include "config.h"
#include "../../kmod/ksym.c"

/* genetlink's strict validation of one LFR_A_KSYM_ADDRS of @len bytes against lfr_policy. */
static int validate(struct kunit *test, int len)
{
	struct netlink_ext_ack ext = {};
	struct sk_buff *skb = alloc_skb(2048, GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_NOT_NULL(test, nla_reserve(skb, LFR_A_KSYM_ADDRS, len));
	err = __nla_validate((struct nlattr *)skb->data, skb->len, LFR_A_MAX, lfr_policy,
			     NL_VALIDATE_STRICT, &ext);
	if (err)
		KUNIT_EXPECT_NOT_NULL(test, ext._msg);
	kfree_skb(skb);
	return err;
}

static void lfr_ksym_lengths(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, validate(test, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, validate(test, 7), -EINVAL);
	KUNIT_EXPECT_EQ(test, validate(test, 8), 0);
	KUNIT_EXPECT_EQ(test, validate(test, 12), -EINVAL);
	KUNIT_EXPECT_EQ(test, validate(test, 8 * LFR_KSYM_MAX_ADDRS), 0);
	KUNIT_EXPECT_EQ(test, validate(test, 8 * (LFR_KSYM_MAX_ADDRS + 1)), -EINVAL);
}

static void lfr_ksym_names(struct kunit *test)
{
	u64 addrs[3] = { (unsigned long)lfr_ksym_validate,
			 (unsigned long)lfr_ksym_validate + 1, 1 };
	struct sk_buff *in = alloc_skb(256, GFP_KERNEL);
	struct sk_buff *out = alloc_skb(lfr_ksym_reply_size_of(3), GFP_KERNEL);
	const char *name[3] = {};
	struct nlattr *a, *nest;
	int rem, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_EQ(test, nla_put(in, LFR_A_KSYM_ADDRS, sizeof(addrs), addrs), 0);
	KUNIT_ASSERT_EQ(test, lfr_ksym_put(out, (struct nlattr *)in->data), 0);
	nest = (struct nlattr *)out->data;
	KUNIT_ASSERT_EQ(test, nla_type(nest), LFR_A_KSYMS);
	nla_for_each_nested(a, nest, rem) {
		KUNIT_ASSERT_EQ(test, nla_type(a), n + 1);
		KUNIT_ASSERT_LT(test, n, 3);
		name[n++] = nla_data(a);
	}
	KUNIT_ASSERT_EQ(test, n, 3);
	KUNIT_EXPECT_TRUE_MSG(test, !strncmp(name[0], "lfr_ksym_validate+0x0/0x", 24) &&
			      strstr(name[0], " [lfr_kunit]"), "%s", name[0]);
	KUNIT_EXPECT_TRUE_MSG(test, !strncmp(name[1], "lfr_ksym_validate+0x1/0x", 24),
			      "%s", name[1]);
	KUNIT_EXPECT_STREQ(test, name[2], "");
	kfree_skb(in);
	kfree_skb(out);
}

static struct kunit_case lfr_ksym_cases[] = {
	KUNIT_CASE(lfr_ksym_lengths),
	KUNIT_CASE(lfr_ksym_names),
	{}
};

static struct kunit_suite lfr_ksym_suite = {
	.name = "lfr_ksym",
	.test_cases = lfr_ksym_cases,
};

kunit_test_suite(lfr_ksym_suite);

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: kernel addresses named for a recorder (LFR_CMD_KSYM, ksym.c), one
 * function as its stacks meet it.
 */
#ifndef LFR_KSYM_H
#define LFR_KSYM_H

#include <net/netlink.h>

struct genl_info;
struct sk_buff;

/* LFR_A_KSYM_ADDRS's validation: whole u64s, at least one. */
int lfr_ksym_validate(const struct nlattr *attr, struct netlink_ext_ack *extack);
/*
 * Whether the sender may read kernel addresses, as /proc/kallsyms would let
 * it: 0, or EPERM with an extack message.  Process context (a doit).
 */
int lfr_ksym_allowed(struct sk_buff *skb, struct genl_info *info);
/* Bytes of the reply's LFR_A_KSYMS for @n addresses. */
size_t lfr_ksym_reply_size_of(size_t n);
/* Puts LFR_A_KSYMS naming @addrs (validated) into @msg. */
int lfr_ksym_put(struct sk_buff *msg, const struct nlattr *addrs);

#endif /* LFR_KSYM_H */

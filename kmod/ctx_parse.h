/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the CTX_ADD attributes, their policy and parsing (ctx_parse.c). */
#ifndef LFR_CTX_PARSE_H
#define LFR_CTX_PARSE_H

#include <linux/types.h>
#include <net/netlink.h>
#include <linux/lfr.h>
#include "thread_ctx_read.h"

/* One process's otel_thread_ctx_v1, as LFR_A_CTX gives it. */
struct lfr_ctx_spec {
	u32 pid;			/* in the sender's pid namespace */
	struct lfr_ctx_where where;
	u64 object_addr;		/* a mapping of the defining object */
	u64 object_ino;
	u32 object_dev;			/* major << 20 | minor */
};

extern const struct nla_policy lfr_ctx_policy[LFR_CTX_A_MAX + 1];

/*
 * Fills @spec from an LFR_A_CTX nest already validated against
 * lfr_ctx_policy: checks what the policy cannot (what each access kind
 * needs, the DTV's shape), with an extack message for every rejection.
 * @tls_below_tp: the architecture's TLS variant (thread_ctx_read.h).
 */
int lfr_ctx_parse(const struct nlattr *nest, bool tls_below_tp,
		  struct lfr_ctx_spec *spec, struct netlink_ext_ack *extack);

#endif /* LFR_CTX_PARSE_H */

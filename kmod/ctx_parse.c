// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the CTX_ADD policy and its parsing: where a process keeps its
 * OpenTelemetry thread context.  No session state here, so KUnit runs it
 * on hand-built messages.
 */
#include <linux/lfr.h>
#include "ctx_parse.h"

/* A DTV pointer lies in the thread control block, near the thread pointer. */
#define LFR_CTX_DTV_OFF_MAX	4096

const struct nla_policy lfr_ctx_policy[LFR_CTX_A_MAX + 1] = {
	[LFR_CTX_A_UNSPEC] = { .strict_start_type = 1 },
	[LFR_CTX_A_PAD] = { .type = NLA_REJECT },
	[LFR_CTX_A_PID] = NLA_POLICY_MIN(NLA_U32, 1),
	[LFR_CTX_A_ACCESS] = NLA_POLICY_RANGE(NLA_U32, LFR_CTX_ACCESS_STATIC,
					      __LFR_CTX_ACCESS_MAX - 1),
	[LFR_CTX_A_OFFSET] = { .type = NLA_S64 },
	[LFR_CTX_A_SLOT] = { .type = NLA_U64 },
	[LFR_CTX_A_OBJECT_ADDR] = { .type = NLA_U64 },
	[LFR_CTX_A_OBJECT_INO] = { .type = NLA_U64 },
	[LFR_CTX_A_OBJECT_DEV] = { .type = NLA_U32 },
	[LFR_CTX_A_DTV_OFFSET] = NLA_POLICY_RANGE(NLA_S32, -LFR_CTX_DTV_OFF_MAX,
						  LFR_CTX_DTV_OFF_MAX),
	[LFR_CTX_A_DTV_STRIDE] = NLA_POLICY_RANGE(NLA_U32, 8, 16),
	[LFR_CTX_A_DTV_COUNT] = { .type = NLA_S32 },
};

static int lfr_ctx_parse_dtv(struct nlattr **tb, const struct nlattr *nest,
			     struct lfr_ctx_spec *spec,
			     struct netlink_ext_ack *extack)
{
	struct lfr_ctx_where *w = &spec->where;

	if (!tb[LFR_CTX_A_DTV_OFFSET] || !tb[LFR_CTX_A_DTV_STRIDE] ||
	    !tb[LFR_CTX_A_DTV_COUNT]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "this access kind reads the thread's DTV: give its offset, stride and count index");
		return -EINVAL;
	}
	w->dtv_off = nla_get_s32(tb[LFR_CTX_A_DTV_OFFSET]);
	w->dtv_stride = nla_get_u32(tb[LFR_CTX_A_DTV_STRIDE]);
	w->dtv_count = nla_get_s32(tb[LFR_CTX_A_DTV_COUNT]);
	if (w->dtv_off % 8) {
		NL_SET_ERR_MSG_ATTR(extack, tb[LFR_CTX_A_DTV_OFFSET],
				    "the DTV pointer's offset must be a multiple of 8");
		return -EINVAL;
	}
	if (w->dtv_stride != 8 && w->dtv_stride != 16) {
		NL_SET_ERR_MSG_ATTR(extack, tb[LFR_CTX_A_DTV_STRIDE],
				    "a DTV entry is 8 (musl) or 16 (glibc) bytes");
		return -EINVAL;
	}
	if (w->dtv_count != -1 && w->dtv_count != 0 &&
	    w->dtv_count != LFR_CTX_DTV_NO_COUNT) {
		NL_SET_ERR_MSG_ATTR(extack, tb[LFR_CTX_A_DTV_COUNT],
				    "the DTV's count is entry -1 (glibc), 0 (musl) or none");
		return -EINVAL;
	}
	return 0;
}

int lfr_ctx_parse(const struct nlattr *nest, bool tls_below_tp,
		  struct lfr_ctx_spec *spec, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[LFR_CTX_A_MAX + 1];
	struct lfr_ctx_where *w = &spec->where;
	int err;

	memset(spec, 0, sizeof(*spec));
	if (!nest) {
		NL_SET_ERR_MSG(extack, "CTX_ADD needs LFR_A_CTX: where the process keeps otel_thread_ctx_v1");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, LFR_CTX_A_MAX, nest, lfr_ctx_policy, extack);
	if (err)
		return err;
	if (!tb[LFR_CTX_A_PID] || !tb[LFR_CTX_A_ACCESS]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "a thread context needs the process and its access kind");
		return -EINVAL;
	}
	if (!tb[LFR_CTX_A_OBJECT_ADDR] || !tb[LFR_CTX_A_OBJECT_INO] ||
	    !tb[LFR_CTX_A_OBJECT_DEV]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "a thread context needs its object's address, inode and device");
		return -EINVAL;
	}
	spec->pid = nla_get_u32(tb[LFR_CTX_A_PID]);
	spec->object_addr = nla_get_u64(tb[LFR_CTX_A_OBJECT_ADDR]);
	spec->object_ino = nla_get_u64(tb[LFR_CTX_A_OBJECT_INO]);
	spec->object_dev = nla_get_u32(tb[LFR_CTX_A_OBJECT_DEV]);
	w->access = nla_get_u32(tb[LFR_CTX_A_ACCESS]);
	w->tls_below_tp = tls_below_tp;
	w->dtv_count = LFR_CTX_DTV_NO_COUNT;
	if (tb[LFR_CTX_A_OFFSET])
		w->offset = nla_get_s64(tb[LFR_CTX_A_OFFSET]);
	if (w->access == LFR_CTX_ACCESS_STATIC) {
		if (tb[LFR_CTX_A_SLOT] || tb[LFR_CTX_A_DTV_OFFSET] ||
		    tb[LFR_CTX_A_DTV_STRIDE] || tb[LFR_CTX_A_DTV_COUNT]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[LFR_CTX_A_SLOT] ?:
					    tb[LFR_CTX_A_DTV_OFFSET] ?:
					    tb[LFR_CTX_A_DTV_STRIDE] ?:
					    tb[LFR_CTX_A_DTV_COUNT],
					    "static TLS has an offset only: no slot, no DTV");
			return -EINVAL;
		}
		return 0;
	}
	if (!tb[LFR_CTX_A_SLOT]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "this access kind reads a GOT slot or TLS descriptor: give its address");
		return -EINVAL;
	}
	w->slot = nla_get_u64(tb[LFR_CTX_A_SLOT]);
	if (w->access == LFR_CTX_ACCESS_TPOFF_SLOT) {
		if (tb[LFR_CTX_A_DTV_OFFSET] || tb[LFR_CTX_A_DTV_STRIDE] ||
		    tb[LFR_CTX_A_DTV_COUNT]) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "initial-exec TLS reads no DTV");
			return -EINVAL;
		}
		return 0;
	}
	return lfr_ctx_parse_dtv(tb, nest, spec, extack);
}

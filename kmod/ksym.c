// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: kernel addresses named for a recorder (LFR_CMD_KSYM).  A recorder
 * that read /proc/kallsyms for its first kernel stack formatted a hundred
 * thousand lines (0.4 s of CPU in a guest) to name a dozen functions; here
 * each function costs one lookup when a stack first meets it.  The names
 * are sprint_symbol()'s, so the reply shows what /proc/kallsyms shows, and
 * only to a sender to whom it would show addresses.
 */
#include <linux/capability.h>
#include <linux/kallsyms.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/lfr.h>
#include <net/genetlink.h>
#include "ksym.h"

int lfr_ksym_validate(const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	int len = nla_len(attr);

	if (len < 8 || len % 8 || len > 8 * LFR_KSYM_MAX_ADDRS) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "KSYM_ADDRS holds 1 to LFR_KSYM_MAX_ADDRS addresses of 8 bytes each");
		return -EINVAL;
	}
	return 0;
}

/*
 * kptr_restrict is not exported: %pK prints zeros where it hides addresses
 * from the current task (2: from everyone; 1: from a task without
 * CAP_SYSLOG or with set-id credentials), as kallsyms does for its reader.
 */
static bool lfr_ksym_kptr_hidden(void)
{
	char probe[24];

	snprintf(probe, sizeof(probe), "%pK", &lfr_ksym_kptr_hidden);
	return probe[strspn(probe, "0")] == '\0';
}

int lfr_ksym_allowed(struct sk_buff *skb, struct genl_info *info)
{
	if (!netlink_capable(skb, CAP_SYSLOG)) {
		NL_SET_ERR_MSG(info->extack, "naming kernel addresses needs CAP_SYSLOG, as their values in /proc/kallsyms do: read /proc/kallsyms instead, or run as root");
		return -EPERM;
	}
	if (lfr_ksym_kptr_hidden()) {
		NL_SET_ERR_MSG(info->extack, "kernel.kptr_restrict hides kernel addresses from this sender: kernel frames stay unnamed (set kernel.kptr_restrict to 1 or 0 to name them)");
		return -EPERM;
	}
	return 0;
}

size_t lfr_ksym_reply_size_of(size_t n)
{
	return nla_total_size(0) + n * nla_total_size(KSYM_SYMBOL_LEN);
}

int lfr_ksym_put(struct sk_buff *msg, const struct nlattr *addrs)
{
	const u8 *p = nla_data(addrs);
	int i, n = nla_len(addrs) / 8, err = 0;
	struct nlattr *nest;
	char *buf;

	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	nest = nla_nest_start(msg, LFR_A_KSYMS);
	if (!nest) {
		kfree(buf);
		return -EMSGSIZE;
	}
	for (i = 0; i < n && !err; i++) {
		u64 addr;

		memcpy(&addr, p + 8 * i, sizeof(addr)); /* 4-byte aligned */

		/* no symbol: sprint_symbol() gives the address back, without "+" */
		sprint_symbol(buf, (unsigned long)addr);
		if (!strchr(buf, '+'))
			buf[0] = '\0';
		err = nla_put_string(msg, i + 1, buf);
	}
	kfree(buf);
	if (err)
		return err;
	nla_nest_end(msg, nest);
	return 0;
}

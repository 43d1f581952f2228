// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the generic netlink family "lfr" (protocol in include/uapi/linux/lfr.h).
 * Every network namespace; CAP_PERFMON or CAP_SYS_ADMIN in the initial user
 * namespace for every command on every session, checked with
 * netlink_capable() (socket opener and sender), or, with the module
 * parameter unprivileged, a user's own cgroups and sessions (permission.c).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/notifier.h>
#include <linux/netlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include "config.h"
#include "core.h"
#include "ctx_parse.h"
#include "counters.h"
#include "genl.h"
#include "ksym.h"
#include "permission.h"
#include "registry.h"
#include "session.h"
#include "thread_ctx.h"
#include "unwind_tables.h"

static struct genl_family lfr_family;
static bool lfr_genl_up;	/* under lfr_lock: START allowed, notify sent */

/*
 * Session events name sessions and their states: listening needs
 * CAP_SYS_ADMIN (checked by genetlink when the socket joins the group;
 * there is no CAP_PERFMON flag).  Kernels without the flag let anyone
 * listen, which kernel.md documents.
 */
static const struct genl_multicast_group lfr_mcgrps[] = {
#ifdef LFR_HAVE_GENL_MCAST_CAP
	{ .name = LFR_GENL_MCGRP, .flags = GENL_MCAST_CAP_SYS_ADMIN },
#else
	{ .name = LFR_GENL_MCGRP },
#endif
};

/*
 * Whether a sender sees a session: a privileged one every session, any
 * other the sessions it started (by effective uid, as it may map them).
 */
static bool lfr_sees(bool privileged, struct lfr_session *s)
{
	return privileged || uid_eq(current_euid(), s->owner_euid);
}

#ifdef LFR_HAVE_GENL_SPLIT_OPS
#define LFR_GENL_OPS genl_split_ops
#else
#define LFR_GENL_OPS genl_ops
#endif

/*
 * Every command but NOTIFY (sent by the kernel only) checks its sender
 * first: EPERM with an extack message, or whether it is privileged, kept
 * for the command in user_ptr[0] (lfr_genl_privileged()).  Dumps do it in
 * their first call (lfr_dump_status).
 */
static int lfr_pre_doit(const struct LFR_GENL_OPS *ops, struct sk_buff *skb,
			struct genl_info *info)
{
	bool privileged;
	int err;

	info->user_ptr[0] = NULL;
	if (ops->cmd == LFR_CMD_NOTIFY)
		return 0;
	err = lfr_perm_caller(skb, info, &privileged);
	if (err)
		return err;
	info->user_ptr[0] = privileged ? info : NULL;
	return 0;
}

static bool lfr_genl_privileged(const struct genl_info *info)
{
	return info->user_ptr[0];
}

/*
 * Ending a session or changing what it records is for the user who started
 * it, or CAP_SYS_ADMIN (of the socket's opener and the sender, as
 * netlink_capable() checks every capability here): CAP_PERFMON alone lets
 * one read any session's STATUS, not stop root's recorder.
 */
static bool lfr_may_control(struct sk_buff *skb, struct lfr_session *s)
{
	return uid_eq(current_euid(), s->owner_euid) ||
	       netlink_capable(skb, CAP_SYS_ADMIN);
}

static int lfr_put_counters(struct sk_buff *skb, int type, struct lfr_session *s,
			    int cpu)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	int c;

	if (!nest)
		return -EMSGSIZE;
	for (c = LFR_CTR_TICKS; c <= LFR_CTR_MAX; c++) {
		u64 v;

		if (!lfr_counter_valid(c) || (cpu >= 0 && lfr_counter_gauge(c)))
			continue;	/* gauges only exist in total */
		v = cpu < 0 ? lfr_counter_sum(s, c) : per_cpu_ptr(s->ctr, cpu)->c[c];
		if (nla_put_u64_64bit(skb, c, v, LFR_CTR_PAD))
			return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * @state: the state to report (START builds its reply before it starts).
 * @full: with the totals of the counters (STATUS); the per-CPU ones are the
 * dump's (lfr_dump_status), so that the reply's size does not grow with the
 * number of CPUs.
 */
static int lfr_put_session(struct sk_buff *skb, struct lfr_session *s,
			   u32 state, bool full)
{
	if (nla_put_u32(skb, LFR_A_SESSION_ID, s->id) ||
	    nla_put_u32(skb, LFR_A_STATE, state) ||
	    nla_put_u64_64bit(skb, LFR_A_PERIOD_NS, s->cfg.period_ns, LFR_A_PAD) ||
	    nla_put_u32(skb, LFR_A_USER_STACK_DEPTH, s->cfg.user_depth) ||
	    nla_put_u32(skb, LFR_A_RING_PAGES, s->cfg.ring_pages) ||
	    nla_put_u32(skb, LFR_A_WAKEUP_BYTES, s->cfg.wakeup_bytes) ||
	    nla_put_u32(skb, LFR_A_NR_CPU_IDS, nr_cpu_ids) ||
	    nla_put_u32(skb, LFR_A_UNWIND_MAX_KB, s->cfg.unwind_max_kb) ||
	    (s->cfg.offcpu_min_ns &&
	     nla_put_u64_64bit(skb, LFR_A_OFFCPU_MIN_NS, s->cfg.offcpu_min_ns,
			       LFR_A_PAD)) ||
	    (s->cfg.latency_min_ns &&
	     nla_put_u64_64bit(skb, LFR_A_LATENCY_MIN_NS, s->cfg.latency_min_ns,
			       LFR_A_PAD)) ||
	    (s->cfg.kernel_stack && nla_put_flag(skb, LFR_A_KERNEL_STACK)) ||
	    (s->cfg.detached && nla_put_flag(skb, LFR_A_DETACHED)) ||
	    (s->cfg.thread_ctx && nla_put_flag(skb, LFR_A_THREAD_CTX)))
		return -EMSGSIZE;
	if (!full)
		return 0;
	if (lfr_put_counters(skb, LFR_A_COUNTERS, s, -1))
		return -EMSGSIZE;
	return 0;
}

static size_t lfr_counters_size(void)
{
	return nla_total_size(0) +
	       (LFR_CTR_MAX + 1) * nla_total_size_64bit(sizeof(u64));
}

/* The session's attributes and the list of ids in 1024 bytes, then totals. */
static size_t lfr_reply_size(bool full)
{
	if (!full)
		return NLMSG_GOODSIZE;
	return 1024 + lfr_counters_size();
}

/* STATUS: the ids of the sessions kept, newest first (the newest 64). */
#define LFR_MAX_LISTED	64

struct lfr_id_list {
	u32 ids[LFR_MAX_LISTED];
	int n;
};

static int lfr_put_ids(struct sk_buff *skb, const struct lfr_id_list *l)
{
	struct nlattr *nest = nla_nest_start(skb, LFR_A_SESSIONS);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < l->n; i++)
		if (nla_put_u32(skb, LFR_A_SESSION_ID, l->ids[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The reply, not yet sent; ERR_PTR with an extack message on failure.
 * @ids: STATUS lists the sessions (NULL for the other commands).
 */
static struct sk_buff *lfr_reply_build(struct genl_info *info, u8 cmd,
				       struct lfr_session *s, u32 state,
				       bool full, const struct lfr_id_list *ids)
{
	struct sk_buff *msg = genlmsg_new(lfr_reply_size(full), GFP_KERNEL);
	void *hdr;

	if (!msg) {
		NL_SET_ERR_MSG(info->extack, "out of memory for the reply");
		return ERR_PTR(-ENOMEM);
	}
	hdr = genlmsg_put_reply(msg, info, &lfr_family, 0, cmd);
	if (!hdr)
		goto toobig;
	if (s) {
		if (lfr_put_session(msg, s, state, full))
			goto toobig;
	} else if (nla_put_u32(msg, LFR_A_STATE, LFR_STATE_IDLE)) {
		goto toobig;
	}
	if (ids && lfr_put_ids(msg, ids))
		goto toobig;
	genlmsg_end(msg, hdr);
	return msg;
toobig:
	nlmsg_free(msg);
	NL_SET_ERR_MSG(info->extack, "reply does not fit in a message");
	return ERR_PTR(-EMSGSIZE);
}

static int lfr_reply(struct genl_info *info, u8 cmd, struct lfr_session *s,
		     bool full, const struct lfr_id_list *ids)
{
	struct sk_buff *msg;

	msg = lfr_reply_build(info, cmd, s,
			      s ? atomic_read(&s->state) : LFR_STATE_IDLE, full,
			      ids);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	return genlmsg_reply(msg, info);
}

static int lfr_cmd_start(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *reply;
	struct lfr_session *s;
	struct lfr_config cfg;
	bool privileged = lfr_genl_privileged(info);
	int err;

	err = lfr_config_parse(info->attrs, &cfg, info->extack);
	if (err)
		return err;
	if (info->attrs[LFR_A_SESSION_ID]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[LFR_A_SESSION_ID],
				    "the kernel chooses the session id");
		lfr_config_free(&cfg);
		return -EINVAL;
	}
	err = lfr_perm_start(&cfg, privileged, info->extack);
	if (err) {
		lfr_config_free(&cfg);
		return err;
	}
	mutex_lock(&lfr_lock);
	if (!lfr_genl_up) {
		NL_SET_ERR_MSG(info->extack, "the lfr module is being unloaded");
		err = -ENODEV;
		goto out;
	}
	lfr_session_drop_finished();
	err = lfr_perm_admit(&cfg, privileged, info->extack);
	if (err)
		goto out;
	s = lfr_session_create(&cfg, info->snd_portid, info->extack);
	if (IS_ERR(s)) {
		err = PTR_ERR(s);
		goto out;
	}
	s->owner_net = genl_info_net(info);
	lfr_perm_user(&s->user, privileged);
	/*
	 * The reply is built before the session starts, so START never
	 * reports a failure for a session that runs; if it cannot be
	 * delivered (the sender's receive buffer is full, its socket is
	 * gone), nobody knows the session: it is stopped again.
	 */
	reply = lfr_reply_build(info, LFR_CMD_START, s, LFR_STATE_RUNNING,
				false, NULL);
	if (IS_ERR(reply)) {
		err = PTR_ERR(reply);
		lfr_session_put(s);
		goto out;
	}
	err = lfr_session_start(s, info->extack);
	if (err) {
		nlmsg_free(reply);
		lfr_session_put(s);
		goto out;
	}
	err = genlmsg_reply(reply, info);
	if (err) {
		lfr_session_stop(s);
		NL_SET_ERR_MSG(info->extack, "the START reply could not be delivered (receive buffer full?): the session was stopped");
	}
out:
	mutex_unlock(&lfr_lock);
	lfr_config_free(&cfg);
	return err;
}

/*
 * The session a STOP or STATUS names among those the sender sees: by id,
 * else the only running one (STOP) or the newest (STATUS: NULL when there
 * is none).  ERR_PTR on error.
 */
static struct lfr_session *lfr_pick(struct genl_info *info, bool running,
				    bool privileged)
{
	struct nlattr *a = info->attrs[LFR_A_SESSION_ID];
	struct lfr_session *s = NULL, *it = NULL;
	int n = 0;

	if (a) {
		s = lfr_session_find(nla_get_u32(a));
		if (!s || !lfr_sees(privileged, s)) {
			NL_SET_ERR_MSG_ATTR(info->extack, a, "no such session");
			return ERR_PTR(-ENOENT);
		}
		return s;
	}
	while ((it = lfr_session_next(it))) {
		if (!lfr_sees(privileged, it))
			continue;
		if (!running)
			return it;
		if (atomic_read(&it->state) == LFR_STATE_RUNNING && !n++)
			s = it;
	}
	if (!running)
		return NULL;
	if (!n) {
		NL_SET_ERR_MSG(info->extack, "no session is running");
		return ERR_PTR(-ENOENT);
	}
	if (n > 1) {
		NL_SET_ERR_MSG(info->extack, "several sessions are running: name one by its id ('lfr status' lists them)");
		return ERR_PTR(-EINVAL);
	}
	return s;
}

static int lfr_cmd_stop(struct sk_buff *skb, struct genl_info *info)
{
	struct lfr_session *s;
	bool privileged = lfr_genl_privileged(info);
	int err;

	mutex_lock(&lfr_lock);
	s = lfr_pick(info, true, privileged);
	if (IS_ERR(s)) {
		err = PTR_ERR(s);
	} else if (!lfr_may_control(skb, s)) {
		NL_SET_ERR_MSG(info->extack, "only the user who started the session (or CAP_SYS_ADMIN) may stop it");
		err = -EPERM;
	} else {
		lfr_session_stop(s);
		if (info->attrs[LFR_A_ABANDON])
			lfr_session_abandon(s);
		err = lfr_reply(info, LFR_CMD_STOP, s, false, NULL);
	}
	mutex_unlock(&lfr_lock);
	return err;
}

static int lfr_cmd_status(struct sk_buff *skb, struct genl_info *info)
{
	struct lfr_session *s, *it = NULL;
	struct lfr_id_list ids;
	bool privileged = lfr_genl_privileged(info);
	int err;

	if (info->attrs[LFR_A_ABANDON]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[LFR_A_ABANDON],
				    "abandon is an attribute of STOP");
		return -EINVAL;
	}
	/*
	 * The reply sums per-CPU counters and scans the thread table: done
	 * outside lfr_lock, on a reference (the session's memory stays).
	 */
	mutex_lock(&lfr_lock);
	s = lfr_pick(info, false, privileged);
	if (IS_ERR(s)) {
		mutex_unlock(&lfr_lock);
		return PTR_ERR(s);
	}
	if (s)
		lfr_session_get(s);
	ids.n = 0;
	while ((it = lfr_session_next(it)) && ids.n < LFR_MAX_LISTED)
		if (lfr_sees(privileged, it))
			ids.ids[ids.n++] = it->id;
	mutex_unlock(&lfr_lock);
	err = lfr_reply(info, LFR_CMD_STATUS, s, true, &ids);
	if (s)
		lfr_session_put(s);
	return err;
}

/*
 * STATUS with NLM_F_DUMP: the per-CPU counters of a session (LFR_A_SESSION_ID,
 * else the newest), one message per possible CPU, as many in each buffer as
 * fit.  cb->args[0]: the session's id once chosen, cb->args[1]: the next CPU.
 * Each call finds the session again under lfr_lock: a session dropped
 * meanwhile ends the dump.
 */
static int lfr_dump_status(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct genl_info info = { .extack = cb->extack };
	const struct nlattr *a;
	struct lfr_session *s = NULL;
	unsigned int cpu;
	bool privileged;
	int err;

	mutex_lock(&lfr_lock);
	if (!cb->args[0]) {
		/* the first call runs in the sender's context */
		err = lfr_perm_caller(cb->skb, &info, &privileged);
		if (err) {
			mutex_unlock(&lfr_lock);
			return err;
		}
		/* validated by genetlink against lfr_policy */
		a = nlmsg_find_attr(cb->nlh, GENL_HDRLEN, LFR_A_SESSION_ID);
		if (a)
			s = lfr_session_find(nla_get_u32(a));
		else
			while ((s = lfr_session_next(s)) &&
			       !lfr_sees(privileged, s))
				;
		if (s && !lfr_sees(privileged, s))
			s = NULL;
		if (!s) {
			mutex_unlock(&lfr_lock);
			NL_SET_ERR_MSG(cb->extack, "no such session");
			return -ENOENT;
		}
		cb->args[0] = s->id;
		cb->args[1] = cpumask_first(cpu_possible_mask);
	} else {
		s = lfr_session_find(cb->args[0]);
	}
	if (s)
		lfr_session_get(s);
	mutex_unlock(&lfr_lock);
	if (!s)
		return 0;
	for (cpu = cb->args[1]; cpu < nr_cpu_ids;
	     cpu = cpumask_next(cpu, cpu_possible_mask)) {
		void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, &lfr_family,
					NLM_F_MULTI, LFR_CMD_STATUS);
		struct nlattr *nest;

		if (!hdr)
			break;
		if (nla_put_u32(skb, LFR_A_SESSION_ID, s->id) ||
		    nla_put_u32(skb, LFR_A_STATE, atomic_read(&s->state))) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		nest = nla_nest_start(skb, LFR_A_CPU);
		if (!nest || nla_put_u32(skb, LFR_CPU_A_ID, cpu) ||
		    lfr_put_counters(skb, LFR_CPU_A_COUNTERS, s, cpu)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		nla_nest_end(skb, nest);
		genlmsg_end(skb, hdr);
	}
	cb->args[1] = cpu;
	lfr_session_put(s);
	return skb->len;
}

/* What a command gives a running session: UNWIND_ADD's, CTX_ADD's. */
enum lfr_give {
	LFR_GIVE_UNWIND,	/* an unwind table */
	LFR_GIVE_CTX,		/* where a process's thread contexts are */
};

/*
 * The session a command that gives a running session @what names, on a
 * reference, or an error with its message: the caller may not control it
 * (-EPERM), it is not running (-ESRCH), or it was started without room
 * for @what.
 */
static struct lfr_session *lfr_pick_to_give(struct sk_buff *skb,
					    struct genl_info *info,
					    bool privileged, enum lfr_give what)
{
	struct nlattr *id = info->attrs[LFR_A_SESSION_ID];
	struct lfr_session *s;
	int err = 0;

	mutex_lock(&lfr_lock);
	s = lfr_pick(info, false, privileged);
	if (!IS_ERR(s))
		lfr_session_get(s);
	mutex_unlock(&lfr_lock);
	if (IS_ERR(s))
		return s;
	if (!lfr_may_control(skb, s)) {
		if (what == LFR_GIVE_UNWIND)
			NL_SET_ERR_MSG(info->extack, "only the user who started the session may give it unwind tables");
		else
			NL_SET_ERR_MSG(info->extack, "only the user who started the session may tell it where thread contexts are");
		err = -EPERM;
	} else if (atomic_read(&s->state) != LFR_STATE_RUNNING) {
		NL_SET_ERR_MSG_ATTR(info->extack, id, "the session is not running");
		err = -ESRCH;
	} else if (what == LFR_GIVE_UNWIND && !s->unwind.max_bytes) {
		NL_SET_ERR_MSG_ATTR(info->extack, id,
				    "the session was started without unwind memory (LFR_A_UNWIND_MAX_KB 0)");
		err = -EFBIG;
	} else if (what == LFR_GIVE_CTX && !s->cfg.thread_ctx) {
		NL_SET_ERR_MSG_ATTR(info->extack, id,
				    "the session was started without thread contexts (LFR_A_THREAD_CTX)");
		err = -EOPNOTSUPP;
	}
	if (err) {
		lfr_session_put(s);
		return ERR_PTR(err);
	}
	return s;
}

/*
 * UNWIND_ADD reads the table outside lfr_lock, on a reference: a STOP that
 * comes meanwhile only means the table is never used.
 */
static int lfr_cmd_unwind_add(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct lfr_session *s;
	bool privileged = lfr_genl_privileged(info);
	int err;

	if (!a[LFR_A_SESSION_ID] || !a[LFR_A_UNWIND_OBJECT_FD] ||
	    !a[LFR_A_UNWIND_TABLE_FD]) {
		NL_SET_ERR_MSG(info->extack, "UNWIND_ADD needs a session id, an object descriptor and a table descriptor");
		return -EINVAL;
	}
	s = lfr_pick_to_give(skb, info, privileged, LFR_GIVE_UNWIND);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = lfr_unwind_add(s, nla_get_u32(a[LFR_A_UNWIND_OBJECT_FD]),
			     nla_get_u32(a[LFR_A_UNWIND_TABLE_FD]), info->extack);
	lfr_session_put(s);
	return err;
}

/* CTX_ADD looks at the process's mappings outside lfr_lock, on a reference. */
static int lfr_cmd_ctx_add(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct lfr_ctx_spec spec;
	struct lfr_session *s;
	bool privileged = lfr_genl_privileged(info);
	int err;

	if (!a[LFR_A_SESSION_ID]) {
		NL_SET_ERR_MSG(info->extack, "CTX_ADD needs a session id");
		return -EINVAL;
	}
	err = lfr_ctx_parse(a[LFR_A_CTX], lfr_ctx_tls_below_tp, &spec,
			    info->extack);
	if (err)
		return err;
	s = lfr_pick_to_give(skb, info, privileged, LFR_GIVE_CTX);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = lfr_ctx_add(s, &spec, info->extack);
	lfr_session_put(s);
	return err;
}

/*
 * KSYM: the names of kernel addresses, for a sender that /proc/kallsyms
 * would show them to (ksym.c).  No session: naming is not recording.
 */
static int lfr_cmd_ksym(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *addrs = info->attrs[LFR_A_KSYM_ADDRS];
	struct sk_buff *msg;
	void *hdr;
	int err;

	if (!addrs) {
		NL_SET_ERR_MSG(info->extack, "KSYM needs LFR_A_KSYM_ADDRS");
		return -EINVAL;
	}
	err = lfr_ksym_allowed(skb, info);
	if (err)
		return err;
	msg = genlmsg_new(lfr_ksym_reply_size_of(nla_len(addrs) / 8), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &lfr_family, 0, LFR_CMD_KSYM);
	err = hdr ? lfr_ksym_put(msg, addrs) : -EMSGSIZE;
	if (err) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG(info->extack, "the names do not fit in a reply");
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int lfr_cmd_notify(struct sk_buff *skb, struct genl_info *info)
{
	NL_SET_ERR_MSG(info->extack, "LFR_CMD_NOTIFY is only sent by the kernel");
	return -EOPNOTSUPP;
}

static const struct genl_small_ops lfr_ops[] = {
	{ .cmd = LFR_CMD_START, .doit = lfr_cmd_start },
	{ .cmd = LFR_CMD_STOP, .doit = lfr_cmd_stop },
	{ .cmd = LFR_CMD_STATUS, .doit = lfr_cmd_status,
	  .dumpit = lfr_dump_status },
	{ .cmd = LFR_CMD_NOTIFY, .doit = lfr_cmd_notify },
	{ .cmd = LFR_CMD_UNWIND_ADD, .doit = lfr_cmd_unwind_add },
	{ .cmd = LFR_CMD_CTX_ADD, .doit = lfr_cmd_ctx_add },
	{ .cmd = LFR_CMD_KSYM, .doit = lfr_cmd_ksym },
};

static struct genl_family lfr_family __ro_after_init = {
	.name = LFR_GENL_NAME,
	.version = LFR_GENL_VERSION,
	.maxattr = LFR_A_MAX,
	.policy = lfr_policy,
	.netnsok = true,	/* containers: permission.c decides */
	.parallel_ops = true,	/* each command takes lfr_lock as it needs */
	.pre_doit = lfr_pre_doit,
	.module = THIS_MODULE,
	.small_ops = lfr_ops,
	.n_small_ops = ARRAY_SIZE(lfr_ops),
	.mcgrps = lfr_mcgrps,
	.n_mcgrps = ARRAY_SIZE(lfr_mcgrps),
};

static void lfr_genl_notify(struct lfr_session *s, enum lfr_event ev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &lfr_family, 0, LFR_CMD_NOTIFY);
	if (!hdr || nla_put_u32(msg, LFR_A_SESSION_ID, s->id) ||
	    nla_put_u32(msg, LFR_A_STATE, atomic_read(&s->state)) ||
	    nla_put_u32(msg, LFR_A_EVENT, ev) ||
	    (ev == LFR_EVENT_OVERFLOW &&
	     nla_put_u32(msg, LFR_A_CPU_ID, READ_ONCE(s->overflow_cpu)))) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&lfr_family, msg, 0, 0, GFP_KERNEL);
}

/* The socket that started a session went away. */
static int lfr_netlink_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct netlink_notify *n = ptr;

	/*
	 * Every generic netlink socket closed on the machine comes here: only
	 * the owner of a running session takes lfr_lock.
	 */
	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    n->portid && lfr_portid_owns_session(n->net, n->portid))
		lfr_sessions_release_portid(n->net, n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block lfr_netlink_nb = {
	.notifier_call = lfr_netlink_event,
};

int lfr_genl_init(void)
{
	int err = genl_register_family(&lfr_family);

	if (err)
		return err;
	err = netlink_register_notifier(&lfr_netlink_nb);
	if (err) {
		genl_unregister_family(&lfr_family);
		return err;
	}
	lfr_sessions_event_sink(lfr_genl_notify);
	mutex_lock(&lfr_lock);
	lfr_genl_up = true;
	mutex_unlock(&lfr_lock);
	return 0;
}

/* No START succeeds after this; notifications still go out. */
void lfr_genl_quiesce(void)
{
	netlink_unregister_notifier(&lfr_netlink_nb);
	mutex_lock(&lfr_lock);
	lfr_genl_up = false;
	mutex_unlock(&lfr_lock);
}

/* After lfr_wq was drained: nothing sends on the family any more. */
void lfr_genl_exit(void)
{
	lfr_sessions_event_sink(NULL);
	genl_unregister_family(&lfr_family);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: who may record what (permission.c).  A sender with CAP_PERFMON or
 * CAP_SYS_ADMIN may do anything; with the module parameter unprivileged,
 * anyone else may record the cgroups delegated to it, its own threads there
 * only, within per-user limits.
 */
#ifndef LFR_PERMISSION_H
#define LFR_PERMISSION_H

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct genl_info;
struct lfr_config;
struct netlink_ext_ack;
struct sk_buff;

/*
 * A session's starter: when it had no privileges, only its threads are
 * sampled; process and thread ids in records are those of its pid namespace.
 */
struct lfr_user {
	bool on;		/* started without CAP_PERFMON/CAP_SYS_ADMIN */
	kuid_t uid;		/* the starter's real ids */
	kgid_t gid;
	const struct cred *cred;	/* the starter's, held: its capabilities */
	/* the starter's pid namespace, held, when not the initial one */
	struct pid_namespace *pid_ns;
};

/*
 * The ids of @t as records give them: in the starter's pid namespace (0
 * for a thread outside it), as perf gives them to an event's opener.  Any
 * context.
 */
static inline u32 lfr_rec_tgid(const struct lfr_user *u, struct task_struct *t)
{
	return likely(!u->pid_ns) ? t->tgid : task_tgid_nr_ns(t, u->pid_ns);
}

static inline u32 lfr_rec_tid(const struct lfr_user *u, struct task_struct *t)
{
	return likely(!u->pid_ns) ? t->pid : task_pid_nr_ns(t, u->pid_ns);
}

/*
 * Whether thread @t may be sampled by a session of @u, as ptrace's access
 * check asks of a target: all its user and group ids are the starter's;
 * it holds no capability the starter does not (none at all, or a subset of
 * the starter's in the starter's user namespace); and, when it is the
 * current thread, its memory may be dumped (a set-id program that dropped
 * its ids keeps what it read as root).  Any context, hard irq included:
 * RCU only.
 */
static inline bool lfr_user_may_sample(const struct lfr_user *u,
				       struct task_struct *t)
{
	const struct cred *c;
	bool ok;

	rcu_read_lock();
	c = __task_cred(t);
	ok = uid_eq(c->uid, u->uid) && uid_eq(c->euid, u->uid) &&
	     uid_eq(c->suid, u->uid) && uid_eq(c->fsuid, u->uid) &&
	     gid_eq(c->gid, u->gid) && gid_eq(c->egid, u->gid) &&
	     gid_eq(c->sgid, u->gid) && gid_eq(c->fsgid, u->gid) &&
	     (cap_isclear(c->cap_permitted) ||
	      (c->user_ns == u->cred->user_ns &&
	       cap_issubset(c->cap_permitted, u->cred->cap_permitted)));
	rcu_read_unlock();
	if (ok && t == current && t->mm)
		ok = get_dumpable(t->mm) == SUID_DUMP_USER;
	return ok;
}

/*
 * The sender of a command: privileged (*@privileged), or allowed without
 * privileges by the module parameter; EPERM with an extack message.
 */
int lfr_perm_caller(struct sk_buff *skb, struct genl_info *info,
		    bool *privileged);
/*
 * START: the cgroups of @cfg's cgroup.procs descriptors added to its ids
 * (any sender), then, for a sender without privileges, what it asks within
 * what it may: cgroups only, kernel stacks with perf's consent, the rate.
 */
int lfr_perm_start(struct lfr_config *cfg, bool privileged,
		   struct netlink_ext_ack *extack);
/*
 * Under lfr_lock, before the session is created: the per-user and overall
 * limits of sessions without privileges (sessions, memory).
 */
int lfr_perm_admit(const struct lfr_config *cfg, bool privileged,
		   struct netlink_ext_ack *extack);
/* The starter of a session created by the current sender. */
void lfr_perm_user(struct lfr_user *u, bool privileged);
/*
 * When the session is freed (any context).  Inline: the session's code calls
 * nothing of permission.c, whose admission walks the sessions.
 */
static inline void lfr_perm_user_put(struct lfr_user *u)
{
	if (u->cred)
		put_cred(u->cred);
	u->cred = NULL;
	if (u->pid_ns)
		put_pid_ns(u->pid_ns);
	u->pid_ns = NULL;
}
/* Whether users without privileges may record (the module parameter). */
bool lfr_perm_unprivileged_on(void);

#endif /* LFR_PERMISSION_H */

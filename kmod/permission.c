// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: who may record what.
 *
 * CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace (netlink_capable:
 * the socket's opener and the sender) may record anything.  With the module
 * parameter unprivileged (default 0: off), anyone else may record a cgroup
 * v2 delegated to it and nothing else:
 *   - the cgroup is given as a descriptor of its cgroup.procs opened for
 *     writing: the right to move processes into it, which delegation (systemd
 *     user slices, rootless containers) grants; the open was checked by the
 *     VFS with the sender's credentials, and cgroup_get_from_id() finds the
 *     cgroup only inside the sender's cgroup namespace;
 *   - only its own threads there are sampled, those ptrace would let it
 *     read (lfr_user_may_sample());
 *   - no kernel stacks, off-CPU intervals (which carry kernel stacks) or
 *     sampling latencies unless the sender shows a perf event it opened
 *     without exclude_kernel: perf_event_paranoid (and the LSMs' perf hooks)
 *     decide, as for perf itself;
 *   - at most user_max_freq_hz, user_max_sessions sessions and user_max_mb of
 *     session memory per user (a quarter of it at most for each session's
 *     unwind tables), and unprivileged_max_sessions sessions of such users in
 *     all, so that privileged recorders always find room.
 */
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/sched/signal.h>
#include <net/genetlink.h>
#include "budget.h"
#include "config.h"
#include "core.h"
#include "params.h"
#include "permission.h"
#include "registry.h"
#include "session.h"

LFR_PARAM_UINT(unprivileged, 0, "1: users without CAP_PERFMON may record the cgroups delegated to them, their own threads only (default 0: off)");

LFR_PARAM_UINT(user_max_sessions, 2, "sessions (running, draining or kept) a user without privileges may have (default 2)");

LFR_PARAM_UINT(unprivileged_max_sessions, 4, "sessions of users without privileges at once, all users together (default 4 of the 8)");

LFR_PARAM_UINT(user_max_freq_hz, 1000, "the highest sampling rate of a session without privileges, Hz (default 1000)");

LFR_PARAM_UINT(user_max_mb, 64, "memory the sessions of a user without privileges may hold together, unwind tables included, MiB (default 64)");

bool lfr_perm_unprivileged_on(void)
{
	return READ_ONCE(unprivileged);
}

int lfr_perm_caller(struct sk_buff *skb, struct genl_info *info,
		    bool *privileged)
{
	*privileged = netlink_capable(skb, CAP_PERFMON) ||
		      netlink_capable(skb, CAP_SYS_ADMIN);
	if (*privileged || READ_ONCE(unprivileged))
		return 0;
	NL_SET_ERR_MSG(info->extack, "lfr needs CAP_PERFMON or CAP_SYS_ADMIN: run as root or grant the capability (or an administrator sets the module parameter unprivileged to let users record their own cgroups)");
	return -EPERM;
}

/*
 * The cgroup a descriptor of its cgroup.procs names, once it is one: a file
 * of the cgroup2 file system named cgroup.procs, open for writing.  The
 * cgroup's id is its directory's inode number.  0 on failure.
 */
static u64 lfr_procs_fd_cgroup(u32 fd, struct netlink_ext_ack *extack)
{
	struct file *f = fget(fd);
	struct dentry *d, *parent;
	u64 id = 0;

	if (!f) {
		NL_SET_ERR_MSG(extack, "a cgroup.procs descriptor is not an open file");
		return 0;
	}
	d = f->f_path.dentry;
	if (d->d_sb->s_magic != CGROUP2_SUPER_MAGIC ||
	    strcmp(d->d_name.name, "cgroup.procs")) {
		NL_SET_ERR_MSG(extack, "a cgroup.procs descriptor is not a cgroup v2's cgroup.procs");
	} else if (!(f->f_mode & FMODE_WRITE)) {
		NL_SET_ERR_MSG(extack, "a cgroup.procs descriptor is not open for writing: open it O_WRONLY, which needs the right to move processes into the cgroup");
	} else {
		parent = dget_parent(d);
		id = d_inode(parent)->i_ino;
		dput(parent);
	}
	fput(f);
	return id;
}

/*
 * Whether descriptor @fd is a perf event its sender's process opened
 * without exclude_kernel: perf_event_open() let it profile the kernel
 * (perf_event_paranoid <= 1, CAP_PERFMON, the LSMs' perf hooks).  perf's
 * files are anonymous inodes named [perf_event] whose private data is the
 * event.
 */
static bool lfr_kernel_proof(s32 fd)
{
#ifdef CONFIG_PERF_EVENTS
	struct file *f = fd >= 0 ? fget(fd) : NULL;
	struct perf_event *ev;
	struct task_struct *owner;
	bool ok = false;

	if (!f)
		return false;
	if (f->f_path.dentry->d_sb->s_magic == ANON_INODE_FS_MAGIC &&
	    !strcmp(f->f_path.dentry->d_name.name, "[perf_event]")) {
		ev = f->private_data;
		owner = READ_ONCE(ev->owner);
		/* an event whose owner went away has (void *)-1 there */
		ok = !ev->attr.exclude_kernel && owner == current;
	}
	fput(f);
	return ok;
#else
	return false;
#endif
}

/*
 * A sender without privileges: what it asks within what it may.  @by_id:
 * it named cgroups by id, which proves no right to them.
 */
static int lfr_perm_unprivileged(struct lfr_config *cfg, bool by_id,
				 struct netlink_ext_ack *extack)
{
	bool kernel = cfg->kernel_stack || cfg->offcpu_min_ns ||
		      cfg->latency_min_ns;
	u32 hz = READ_ONCE(user_max_freq_hz);

	if (cfg->system || cfg->nr_tgids || cfg->nr_tids ||
	    cfg->follow_children || by_id) {
		NL_SET_ERR_MSG(extack, "without CAP_PERFMON only cgroups delegated to you may be recorded, each by a descriptor of its cgroup.procs opened for writing: not processes, threads, the whole system or cgroups by id");
		return -EPERM;
	}
	if (kernel && !lfr_kernel_proof(cfg->kernel_proof_fd)) {
		NL_SET_ERR_MSG(extack, "kernel stacks (and off-CPU intervals and sampling latencies, which carry them) need CAP_PERFMON or kernel.perf_event_paranoid <= 1, shown by a perf event opened without exclude_kernel (LFR_A_KERNEL_PROOF_FD)");
		return -EPERM;
	}
	if (hz && cfg->period_ns < div_u64(NSEC_PER_SEC, hz)) {
		NL_SET_ERR_MSG(extack, "without CAP_PERFMON the sampling rate is at most the module parameter user_max_freq_hz (default 1000 Hz)");
		return -EPERM;
	}
	/* the unwind tables' cap counts in the user's memory: a quarter of it */
	cfg->unwind_max_kb = min_t(u32, cfg->unwind_max_kb,
				   READ_ONCE(user_max_mb) * 256U);
	return 0;
}

int lfr_perm_start(struct lfr_config *cfg, bool privileged,
		   struct netlink_ext_ack *extack)
{
	bool by_id = cfg->nr_cgroups;
	u32 i;

	for (i = 0; i < cfg->nr_cgroup_fds; i++) {
		u64 id = lfr_procs_fd_cgroup(cfg->cgroup_fds[i], extack);

		if (!id)
			return -EBADF;
		cfg->cgroup_ids[cfg->nr_cgroups++] = id;
	}
	return privileged ? 0 : lfr_perm_unprivileged(cfg, by_id, extack);
}

void lfr_perm_user(struct lfr_user *u, bool privileged)
{
	u->on = !privileged;
	u->uid = current_uid();
	u->gid = current_gid();
	u->cred = privileged ? NULL : get_current_cred();
	u->pid_ns = task_active_pid_ns(current);
	u->pid_ns = u->pid_ns == &init_pid_ns ? NULL : get_pid_ns(u->pid_ns);
}

/* What a session counts in its user's memory: all it may hold, unwind tables included. */
static u64 lfr_user_bytes(const struct lfr_config *cfg)
{
	return lfr_session_bytes(cfg);
}

int lfr_perm_admit(const struct lfr_config *cfg, bool privileged,
		   struct netlink_ext_ack *extack)
{
	struct lfr_session *s = NULL;
	kuid_t uid = current_uid();
	u64 bytes = lfr_user_bytes(cfg);
	u32 mine = 0, all = 0;

	lockdep_assert_held(&lfr_lock);
	if (privileged)
		return 0;
	while ((s = lfr_session_next(s))) {
		if (!s->user.on)
			continue;
		all++;
		if (uid_eq(s->user.uid, uid)) {
			mine++;
			bytes += lfr_user_bytes(&s->cfg);
		}
	}
	if (mine >= READ_ONCE(user_max_sessions)) {
		NL_SET_ERR_MSG(extack, "you have as many sessions as the module parameter user_max_sessions allows (running, draining, or stopped and kept): stop one ('lfr status' lists yours)");
		return -EBUSY;
	}
	if (all >= READ_ONCE(unprivileged_max_sessions)) {
		NL_SET_ERR_MSG(extack, "users without CAP_PERFMON have as many sessions as the module parameter unprivileged_max_sessions allows: try again later");
		return -EBUSY;
	}
	if (bytes > (u64)READ_ONCE(user_max_mb) << 20) {
		NL_SET_ERR_MSG(extack, "your sessions would hold more memory than the module parameter user_max_mb allows: use fewer ring pages, threads or unwind memory");
		return -ENOMEM;
	}
	return 0;
}

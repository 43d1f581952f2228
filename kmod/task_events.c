// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the life of target threads.  Probes on the scheduler's fork, exit
 * and exec tracepoints and on task_rename write LFR_REC_TASK records to
 * the ring of the CPU where the event happens, and make the children of
 * target threads targets when the session follows children: the child's
 * thread-table entry is marked before wake_up_new_task(), so it is a
 * target from its first instruction.
 */
#include <linux/mm_types.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/tracepoint.h>
#include "compat.h"
#include "core.h"
#include "probes.h"
#include "ring.h"
#include "session.h"
#include "target.h"
#include "task_events.h"
#include "threads.h"

static struct tracepoint *lfr_tp_fork, *lfr_tp_exit, *lfr_tp_exec,
			 *lfr_tp_rename, *lfr_tp_free;

/*
 * As sampler.c's sched_switch probe, these probes are attached by the first
 * session and stay until the module is unloaded, so that START and STOP never
 * rewrite the fork, exit and exec paths while other CPUs run them; the
 * running sessions are found through this table, by run index
 * (lfr_for_each_published).
 */
static struct lfr_session __rcu *lfr_task_sessions[LFR_MAX_RUNNING];
static bool lfr_task_attached;

static void lfr_find_task_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		lfr_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		lfr_tp_exit = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		lfr_tp_exec = tp;
	else if (!strcmp(tp->name, "task_rename"))
		lfr_tp_rename = tp;
	else if (!strcmp(tp->name, "sched_process_free"))
		lfr_tp_free = tp;
}

int lfr_task_events_init(void)
{
	for_each_kernel_tracepoint(lfr_find_task_tp, NULL);
	if (!lfr_tp_fork || !lfr_tp_exit || !lfr_tp_exec || !lfr_tp_rename ||
	    !lfr_tp_free) {
		pr_err("tracepoints sched_process_fork/exit/exec/free or task_rename not found\n");
		return -ENOENT;
	}
	return 0;
}

static bool lfr_running(struct lfr_session *s)
{
	return atomic_read(&s->state) == LFR_STATE_RUNNING;
}

#define LFR_TASK_BUF_U64 \
	((sizeof(struct lfr_rec_task) + LFR_TASK_ARGS_MAX + 7) / 8)

/*
 * The command line of current's new image: its argument pages were just
 * written by execve, so a copy that cannot fault finds them.
 */
static u32 lfr_exec_args(struct lfr_rec_task *rec)
{
	struct mm_struct *mm = current->mm;
	unsigned long len;

	if (!mm || mm->arg_end <= mm->arg_start)
		return 0;
	len = min_t(unsigned long, mm->arg_end - mm->arg_start,
		    LFR_TASK_ARGS_MAX);
	if (copy_from_user_nofault(rec->args,
				   (const void __user *)mm->arg_start, len))
		return 0;
	return len;
}

/* Preemption is off (tracepoint); the ring writer wants irqs off too. */
static void lfr_task_record(struct lfr_session *s, struct task_struct *t,
			    u32 kind, struct task_struct *parent,
			    const char *comm, pid_t old_pid)
{
	u64 buf[LFR_TASK_BUF_U64];
	struct lfr_rec_task *rec = (struct lfr_rec_task *)buf;
	struct lfr_ring *r;
	unsigned long flags;
	u32 len;

	memset(rec, 0, sizeof(*rec));
	if (kind == LFR_TASK_EXEC && t == current)
		rec->args_len = lfr_exec_args(rec);
	len = ALIGN(sizeof(*rec) + rec->args_len, 8);
	memset(rec->args + rec->args_len, 0, len - sizeof(*rec) - rec->args_len);
	rec->hdr.type = LFR_REC_TASK;
	rec->hdr.size = len;
	rec->time_ns = ktime_get_ns();
	rec->kind = kind;
	rec->tgid = lfr_rec_tgid(&s->user, t);
	rec->tid = lfr_rec_tid(&s->user, t);
	if (parent) {
		rec->ptgid = lfr_rec_tgid(&s->user, parent);
		rec->ptid = lfr_rec_tid(&s->user, parent);
	}
	/*
	 * A thread other than the main one that execs takes the main one's
	 * id, and its own id ends without an exit: name it, so that its end
	 * is known.  Its id is gone from every namespace but the initial one
	 * by now (the old leader holding it was released).
	 */
	if (kind == LFR_TASK_EXEC && old_pid != t->pid && !s->user.pid_ns)
		rec->ptid = old_pid;
	/* comm is always NUL-terminated within its 16 bytes. */
	memcpy(rec->comm, comm ? comm : t->comm, LFR_COMM_LEN);
	rec->comm[LFR_COMM_LEN - 1] = '\0';

	local_irq_save(flags);
	r = s->rings[smp_processor_id()];
	if (lfr_ring_write(r, rec, len)) {
		lfr_ring_lost(r, LFR_LOST_AUX_RING_FULL, 0);
		lfr_count_lost(s, LFR_LOST_AUX_RING_FULL, 1);
	} else {
		lfr_count(s, LFR_CTR_RECORDS_TASK, 1);
	}
	local_irq_restore(flags);
}

static bool lfr_reported(struct lfr_session *s, struct task_struct *t)
{
	return !(t->flags & LFR_PF_NOT_USER) && lfr_is_target(s, t);
}

static void lfr_fork_one(struct lfr_session *s, struct task_struct *parent,
			 struct task_struct *child)
{
	struct lfr_thread *e;

	if (!lfr_running(s) || (child->flags & LFR_PF_NOT_USER) ||
	    !lfr_is_target(s, parent))
		return;
	if (s->cfg.follow_children && !lfr_is_target(s, child)) {
		/*
		 * The child has not run yet: nothing else touches its entry,
		 * which is marked before its key is published, so a timer-mode
		 * reclaimer never takes it.
		 */
		e = lfr_thread_follow(s, child);
		if (!e) {
			lfr_count(s, LFR_CTR_FOLLOW_NO_SLOT, 1);
			return;
		}
	}
	if (lfr_is_target(s, child))
		lfr_task_record(s, child, LFR_TASK_FORK, parent, NULL, 0);
}

static void lfr_probe_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	struct lfr_session *s;
	int i;

	lfr_for_each_published(lfr_task_sessions, s, i)
		lfr_fork_one(s, parent, child);
}

static void lfr_probe_exit(void *data, struct task_struct *t)
{
	struct lfr_session *s;
	int i;

	lfr_for_each_published(lfr_task_sessions, s, i)
		if (lfr_running(s) && lfr_reported(s, t))
			lfr_task_record(s, t, LFR_TASK_EXIT, NULL, NULL, 0);
}

static void lfr_probe_exec(void *data, struct task_struct *t, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	struct lfr_session *s;
	int i;

	lfr_for_each_published(lfr_task_sessions, s, i)
		if (lfr_running(s) && lfr_reported(s, t))
			lfr_task_record(s, t, LFR_TASK_EXEC, NULL, NULL,
					old_pid);
}

/* Called with the task's alloc_lock held, before the name is copied. */
static void lfr_probe_rename(void *data, struct task_struct *t,
			     const char *comm)
{
	struct lfr_session *s;
	char name[LFR_COMM_LEN];
	int i;

	strscpy_pad(name, comm, sizeof(name));
	lfr_for_each_published(lfr_task_sessions, s, i)
		if (lfr_running(s) && lfr_reported(s, t))
			lfr_task_record(s, t, LFR_TASK_RENAME, NULL, name, 0);
}

/*
 * A freed task gives its thread-table entry back.  Registered before the
 * fork probe creates entries, so no child can be freed with its entry kept
 * (a later task at the same address would inherit it, follow mark and all).
 */
static void lfr_probe_free(void *data, struct task_struct *t)
{
	struct lfr_session *s;
	int i;

	lfr_for_each_published(lfr_task_sessions, s, i)
		lfr_thread_release(s, t);
}

/* Attaches every probe once (the first session); lfr_task_events_exit() detaches. */
static int lfr_task_events_attach(void)
{
	int err;

	if (lfr_task_attached)
		return 0;
	err = tracepoint_probe_register(lfr_tp_free, lfr_probe_free, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(lfr_tp_fork, lfr_probe_fork, NULL);
	if (err)
		goto out_free;
	err = tracepoint_probe_register(lfr_tp_exit, lfr_probe_exit, NULL);
	if (err)
		goto out_fork;
	err = tracepoint_probe_register(lfr_tp_exec, lfr_probe_exec, NULL);
	if (err)
		goto out_exit;
	err = tracepoint_probe_register(lfr_tp_rename, lfr_probe_rename, NULL);
	if (err)
		goto out_exec;
	lfr_task_attached = true;
	return 0;
out_exec:
	tracepoint_probe_unregister(lfr_tp_exec, lfr_probe_exec, NULL);
out_exit:
	tracepoint_probe_unregister(lfr_tp_exit, lfr_probe_exit, NULL);
out_fork:
	tracepoint_probe_unregister(lfr_tp_fork, lfr_probe_fork, NULL);
out_free:
	tracepoint_probe_unregister(lfr_tp_free, lfr_probe_free, NULL);
	tracepoint_synchronize_unregister();
	return err;
}

/*
 * Publishes @s to the probes.  The free probe sees it no later than the fork
 * probe, so no child of a target can be freed with its entry kept (a later
 * task at the same address would inherit it, follow mark and all).
 */
int lfr_task_events_start(struct lfr_session *s)
{
	int err;

	lockdep_assert_held(&lfr_lock);
	err = lfr_task_events_attach();
	if (err)
		return err;
	rcu_assign_pointer(lfr_task_sessions[s->run_idx], s);
	s->task_probes_on = true;
	return 0;
}

/* The probes stop working for @s once the caller's synchronize_rcu() returns. */
void lfr_task_events_unpublish(struct lfr_session *s)
{
	lockdep_assert_held(&lfr_lock);
	if (!s->task_probes_on)
		return;
	RCU_INIT_POINTER(lfr_task_sessions[s->run_idx], NULL);
	s->task_probes_on = false;
}

/* Module exit, every session stopped. */
void lfr_task_events_exit(void)
{
	if (!lfr_task_attached)
		return;
	tracepoint_probe_unregister(lfr_tp_rename, lfr_probe_rename, NULL);
	tracepoint_probe_unregister(lfr_tp_exec, lfr_probe_exec, NULL);
	tracepoint_probe_unregister(lfr_tp_exit, lfr_probe_exit, NULL);
	tracepoint_probe_unregister(lfr_tp_fork, lfr_probe_fork, NULL);
	tracepoint_probe_unregister(lfr_tp_free, lfr_probe_free, NULL);
	tracepoint_synchronize_unregister();
	lfr_task_attached = false;
}

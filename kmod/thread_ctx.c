// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the OpenTelemetry thread context (OTEP 4947) of sampled threads.
 *
 * User space finds otel_thread_ctx_v1 in a process's objects and tells the
 * session how a thread reaches it (LFR_CMD_CTX_ADD): an offset from the
 * thread pointer, a GOT slot, a TLS descriptor, through the DTV.  The walk
 * runs in the sampled thread on its way back to user space, before any user
 * instruction: it reads its own thread pointer and its own memory, so the
 * record it copies is the one the thread had at the tick, whatever TLS
 * model the process uses.  A process nobody registered costs a walk one
 * load (no registration in the session) or one probe of the table.
 */
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "ctx_parse.h"
#include "session.h"
#include "thread_ctx.h"
#include "thread_ctx_read.h"

#if defined(CONFIG_X86_64)
#include <asm/fsgsbase.h>

/* Variant II: the static TLS blocks lie below the fs base. */
const bool lfr_ctx_tls_below_tp = true;

/* current's own fs base is loaded while it runs in the kernel */
static u64 lfr_thread_pointer(void)
{
	return x86_fsbase_read_cpu();
}
#elif defined(CONFIG_ARM64)
#include <asm/sysreg.h>

/* Variant I: the static TLS blocks lie above TPIDR_EL0. */
const bool lfr_ctx_tls_below_tp;

static u64 lfr_thread_pointer(void)
{
	return read_sysreg(tpidr_el0);
}
#else
#error "lfr: the thread pointer of this architecture is not known"
#endif

#define LFR_CTX_SLOTS_BITS	11	/* twice LFR_CTX_MAX_PROCS */
#define LFR_CTX_SLOTS		(1u << LFR_CTX_SLOTS_BITS)
#define LFR_CTX_PROBE		32
/* A slot whose process was replaced: lookups go on past it. */
#define LFR_CTX_GONE		((struct lfr_ctx_proc *)1)

struct lfr_ctx_proc {
	const void *mm;		/* the image's mm, as a key: no reference */
	struct pid *pid;	/* its tgid, held: a reused number differs */
	u64 exec_id;		/* its threads' self_exec_id */
	struct lfr_ctx_where where;
};

int lfr_ctx_procs_init(struct lfr_ctx_procs *t, bool on)
{
	mutex_init(&t->lock);
	t->nr = 0;
	t->slots = NULL;
	if (!on)
		return 0;
	t->slots = kvcalloc(LFR_CTX_SLOTS, sizeof(*t->slots),
			    GFP_KERNEL_ACCOUNT);
	return t->slots ? 0 : -ENOMEM;
}

static void lfr_ctx_proc_free(struct lfr_ctx_proc *p)
{
	put_pid(p->pid);
	kfree(p);
}

/* When no walk can run any more (the session is being freed). */
void lfr_ctx_procs_free(struct lfr_ctx_procs *t)
{
	struct lfr_ctx_proc *p;
	u32 i;

	if (!t->slots)
		return;
	for (i = 0; i < LFR_CTX_SLOTS; i++) {
		p = rcu_dereference_protected(t->slots[i], true);
		if (p && p != LFR_CTX_GONE)
			lfr_ctx_proc_free(p);
	}
	kvfree(t->slots);
	t->slots = NULL;
}

static u32 lfr_ctx_home(const void *mm)
{
	return hash_ptr((void *)mm, LFR_CTX_SLOTS_BITS);
}

/* Under t->lock: the entry of @pid's process, at *@at, or NULL. */
static struct lfr_ctx_proc *lfr_ctx_find_pid(struct lfr_ctx_procs *t,
					     struct pid *pid, u32 *at)
{
	struct lfr_ctx_proc *p;
	u32 i;

	for (i = 0; i < LFR_CTX_SLOTS; i++) {
		p = rcu_dereference_protected(t->slots[i],
					      lockdep_is_held(&t->lock));
		if (p && p != LFR_CTX_GONE && p->pid == pid) {
			*at = i;
			return p;
		}
	}
	return NULL;
}

/*
 * Under t->lock: a free slot in @mm's probe, or -1.  Entries of processes
 * that are gone make room: the walks of their threads are over.
 */
static int lfr_ctx_free_slot(struct lfr_ctx_procs *t, const void *mm,
			     struct lfr_ctx_proc **evicted)
{
	u32 home = lfr_ctx_home(mm), i, at;
	struct lfr_ctx_proc *p;
	bool gone;

	for (i = 0; i < LFR_CTX_PROBE; i++) {
		at = (home + i) & (LFR_CTX_SLOTS - 1);
		p = rcu_dereference_protected(t->slots[at],
					      lockdep_is_held(&t->lock));
		if (!p || p == LFR_CTX_GONE)
			return at;
	}
	for (i = 0; i < LFR_CTX_PROBE; i++) {
		at = (home + i) & (LFR_CTX_SLOTS - 1);
		p = rcu_dereference_protected(t->slots[at],
					      lockdep_is_held(&t->lock));
		rcu_read_lock();
		gone = !pid_task(p->pid, PIDTYPE_TGID);
		rcu_read_unlock();
		if (gone) {
			*evicted = p;
			return at;
		}
	}
	return -1;
}

/*
 * The image of @task as its walks will see it: its mm (as a key) and exec
 * id, once the object's mappings were found where user space said.  For a
 * session without privileges (@user_only), one whose memory may be dumped.
 */
static int lfr_ctx_image(struct task_struct *task,
			 const struct lfr_ctx_spec *spec, bool user_only,
			 struct lfr_ctx_proc *p, struct netlink_ext_ack *extack)
{
	u64 exec_id = READ_ONCE(task->self_exec_id);
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	struct inode *ino;
	bool ok = true;
	int i;

	mm = get_task_mm(task);
	if (!mm) {
		NL_SET_ERR_MSG(extack, "the process has no memory (exiting, or a kernel thread)");
		return -ESRCH;
	}
	if (user_only && get_dumpable(mm) != SUID_DUMP_USER) {
		mmput(mm);
		NL_SET_ERR_MSG(extack, "not a process of the user who started the session");
		return -ESRCH;
	}
	if (mmap_read_lock_killable(mm)) {
		mmput(mm);
		return -EINTR;
	}
	for (i = 0; i < 2 && ok; i++) {
		u64 addr = i ? spec->where.slot : spec->object_addr;

		if (i && spec->where.access == LFR_CTX_ACCESS_STATIC)
			break;
		vma = vma_lookup(mm, addr);
		ino = vma && vma->vm_file ? file_inode(vma->vm_file) : NULL;
		ok = ino && ino->i_ino == spec->object_ino &&
		     ino->i_sb->s_dev == spec->object_dev;
	}
	mmap_read_unlock(mm);
	p->mm = mm;
	mmput(mm);
	if (!ok || READ_ONCE(task->self_exec_id) != exec_id) {
		NL_SET_ERR_MSG(extack, "the object is not mapped there (any more): the process exec'd or unmapped it; look at its mappings again");
		return -ESTALE;
	}
	p->exec_id = exec_id;
	return 0;
}

int lfr_ctx_add(struct lfr_session *s, const struct lfr_ctx_spec *spec,
		struct netlink_ext_ack *extack)
{
	struct lfr_ctx_procs *t = &s->ctx;
	struct lfr_ctx_proc *p, *old = NULL, *evicted = NULL;
	struct task_struct *task;
	u32 at = 0;
	int err, slot;

	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	p->where = spec->where;
	rcu_read_lock();
	task = pid_task(find_vpid(spec->pid), PIDTYPE_TGID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task) {
		NL_SET_ERR_MSG(extack, "no such process");
		kfree(p);
		return -ESRCH;
	}
	p->pid = get_pid(task_tgid(task));
	/* a session without privileges reads its starter's processes only */
	err = s->user.on && !lfr_user_may_sample(&s->user, task) ? -ESRCH : 0;
	if (err)
		NL_SET_ERR_MSG(extack, "not a process of the user who started the session");
	else
		err = lfr_ctx_image(task, spec, s->user.on, p, extack);
	put_task_struct(task);
	if (err) {
		lfr_ctx_proc_free(p);
		return err;
	}

	mutex_lock(&t->lock);
	/* a second registration of the process replaces the first */
	old = lfr_ctx_find_pid(t, p->pid, &at);
	if (old && old->mm == p->mm) {
		/*
		 * The same image (a library loaded since): in its slot, one
		 * store, so that no walk of its threads finds neither entry.
		 */
		rcu_assign_pointer(t->slots[at], p);
		p = NULL;
		mutex_unlock(&t->lock);
		err = 0;
		goto out;
	}
	if (old) {
		rcu_assign_pointer(t->slots[at], LFR_CTX_GONE);
		WRITE_ONCE(t->nr, t->nr - 1);
	}
	slot = t->nr < LFR_CTX_MAX_PROCS ?
	       lfr_ctx_free_slot(t, p->mm, &evicted) : -1;
	if (slot < 0) {
		mutex_unlock(&t->lock);
		NL_SET_ERR_MSG(extack, "the session has a thread context for LFR_CTX_MAX_PROCS processes that still run");
		err = -ENOSPC;
		goto out;
	}
	if (evicted)
		WRITE_ONCE(t->nr, t->nr - 1);
	rcu_assign_pointer(t->slots[slot], p);
	WRITE_ONCE(t->nr, t->nr + 1);
	p = NULL;
	mutex_unlock(&t->lock);
	err = 0;
out:
	if (old || evicted)
		synchronize_rcu();	/* no walk reads them any more */
	if (old)
		lfr_ctx_proc_free(old);
	if (evicted)
		lfr_ctx_proc_free(evicted);
	if (p)
		lfr_ctx_proc_free(p);
	return err;
}

/* Where current's process keeps its variable, if it was registered. */
static bool lfr_ctx_find(struct lfr_ctx_procs *t, struct lfr_ctx_where *w)
{
	const void *mm = current->mm;
	struct lfr_ctx_proc *p;
	u32 home = lfr_ctx_home(mm), i;
	bool found = false;

	rcu_read_lock();
	for (i = 0; i < LFR_CTX_PROBE; i++) {
		p = rcu_dereference(t->slots[(home + i) & (LFR_CTX_SLOTS - 1)]);
		if (!p)
			break;
		if (p != LFR_CTX_GONE && p->mm == mm &&
		    p->pid == task_tgid(current) &&
		    p->exec_id == current->self_exec_id) {
			*w = p->where;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * A read of the thread's own memory.  Without page faults first, as the
 * stack walk reads: the record of a thread that just ran is resident.  A
 * page that is not (never touched, copy-on-write, reclaimed) is faulted in
 * as the thread's own access would, except that the walk waits for no I/O
 * and no userfaultfd (FOLL_NOWAIT): it reports a fault instead.
 */
static int lfr_ctx_read_user(void *rc, u64 addr, void *buf, u32 len)
{
	const void __user *p = (const void __user *)(unsigned long)addr;
	unsigned long left;

	if (!access_ok(p, len))
		return -EFAULT;
	pagefault_disable();
	left = __copy_from_user_inatomic(buf, p, len);
	pagefault_enable();
	if (!left)
		return 0;
	if (access_process_vm(current, addr, buf, len, FOLL_NOWAIT) != len)
		return -EFAULT;
	(*(u32 *)rc)++;
	return 0;
}

static const int lfr_ctx_counter[__LFR_CTX_STATE_MAX] = {
	[LFR_CTX_VALID] = LFR_CTR_CTX,
	[LFR_CTX_NULL] = LFR_CTR_CTX_NULL,
	[LFR_CTX_INVALID] = LFR_CTR_CTX_INVALID,
	[LFR_CTX_FAULT] = LFR_CTR_CTX_FAULT,
	[LFR_CTX_CHANGED] = LFR_CTR_CTX_CHANGED,
	[LFR_CTX_NO_BLOCK] = LFR_CTR_CTX_NO_BLOCK,
};

bool lfr_ctx_get(struct lfr_session *s, union lfr_ctx_copy *out)
{
	struct lfr_ctx_where w;
	u32 faulted = 0;
	int st;

	if (!READ_ONCE(s->ctx.nr) || !lfr_ctx_find(&s->ctx, &w))
		return false;
	st = lfr_ctx_read(&w, lfr_thread_pointer(), lfr_ctx_read_user,
			  &faulted, &out->c);
	if (faulted)
		lfr_count(s, LFR_CTR_CTX_FAULTED_IN, faulted);
	if (st > LFR_CTX_NONE && st < __LFR_CTX_STATE_MAX)
		lfr_count(s, lfr_ctx_counter[st], 1);
	return true;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: /dev/lfr.  mmap() maps one CPU ring of a session (the offset encodes
 * session and CPU, see LFR_MMAP_OFFSET); the first mapping binds the file
 * to that session and the file keeps the session, hence its rings, alive.
 * Only the session's starter (or CAP_SYS_ADMIN) may bind, and a file opened
 * without CAP_PERFMON only to a session started without it (permission.c);
 * data pages are mapped read-only.  poll() waits for any ring of the bound
 * session.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "core.h"
#include "dev.h"
#include "permission.h"
#include "registry.h"
#include "ring.h"
#include "session.h"

/* Page within a ring: the mmap offset's low 32 bits (LFR_MMAP_OFFSET). */
#define LFR_MMAP_RING_PAGES_MASK	((1UL << (32 - PAGE_SHIFT)) - 1)

struct lfr_file {
	struct mutex lock;
	struct lfr_session *s;
	bool privileged;	/* opened with CAP_PERFMON */
};

static int lfr_dev_open(struct inode *inode, struct file *file)
{
	bool privileged = perfmon_capable();
	struct lfr_file *f;

	if (!privileged && !lfr_perm_unprivileged_on())
		return -EPERM;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->privileged = privileged;
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

static int lfr_dev_release(struct inode *inode, struct file *file)
{
	struct lfr_file *f = file->private_data;

	if (f->s) {
		atomic_dec(&f->s->readers);
		lfr_session_put(f->s);
	}
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

/*
 * Data pages are mapped read-only (user space only reads them), the control
 * page writable (the reader writes ctrl->tail).  A write to a read-only page
 * of a shared writable mapping would be upgraded by the fault handler unless
 * pfn_mkwrite refuses it: it lets only the control page become writable
 * again (after mprotect), and writes to the data end in SIGBUS.
 */
static vm_fault_t lfr_vm_pfn_mkwrite(struct vm_fault *vmf)
{
	/* The low bits of the offset are the page within the ring. */
	if (!(vmf->pgoff & LFR_MMAP_RING_PAGES_MASK))
		return 0;
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct lfr_vm_ops = {
	.pfn_mkwrite = lfr_vm_pfn_mkwrite,
};

static int lfr_map_ring(struct vm_area_struct *vma, struct lfr_ring *r)
{
	pgprot_t ro = vm_get_page_prot(VM_READ | VM_SHARED);
	unsigned long addr = vma->vm_start;
	size_t off;
	int err;

	vma->vm_ops = &lfr_vm_ops;
	for (off = 0; off < r->map_size; off += PAGE_SIZE, addr += PAGE_SIZE) {
		err = remap_pfn_range(vma, addr, vmalloc_to_pfn(r->base + off),
				      PAGE_SIZE, off ? ro : vma->vm_page_prot);
		if (err)
			return err;
		cond_resched();	/* rings of up to 1 GiB, a page at a time */
	}
	return 0;
}

/*
 * Only the user who started a session (same effective uid as the START
 * sender) or CAP_SYS_ADMIN may attach to it: a reader moves the tail, so
 * it decides what the producer may overwrite.  A file opened without
 * CAP_PERFMON attaches only to a session started without it: the same uid
 * may have started a privileged one (a CAP_PERFMON program of that user),
 * whose rings hold other users' samples.
 */
static bool lfr_may_attach(struct file *file, struct lfr_session *s)
{
	struct lfr_file *f = file->private_data;

	if (file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return true;
	return uid_eq(file->f_cred->euid, s->owner_euid) &&
	       (f->privileged || s->user.on);
}

static int lfr_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct lfr_file *f = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u32 sid = off >> 48, cpu = (off >> 32) & 0xffff;
	struct lfr_session *s;
	struct lfr_ring *r;
	int err = 0;

	if (off & 0xffffffffULL || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -ENXIO;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;		/* the reader's tail must reach the kernel */
	mutex_lock(&f->lock);
	if (!f->s) {
		mutex_lock(&lfr_lock);
		s = lfr_session_find(sid);
		if (!s)
			err = -ENOENT;
		else if (!lfr_may_attach(file, s))
			err = -EACCES;
		else
			lfr_session_get(s);
		if (!err)
			atomic_inc(&s->readers);
		mutex_unlock(&lfr_lock);
		if (!err)
			f->s = s;
	} else if (f->s->id != sid) {
		err = -EINVAL;
	}
	if (!err) {
		r = f->s->rings[cpu];
		if (vma->vm_end - vma->vm_start != r->map_size)
			err = -EINVAL;
		else
			err = lfr_map_ring(vma, r);
	}
	mutex_unlock(&f->lock);
	return err;
}

static __poll_t lfr_dev_poll(struct file *file, poll_table *wait)
{
	struct lfr_file *f = file->private_data;
	struct lfr_session *s;
	__poll_t mask = 0;
	int cpu;

	mutex_lock(&f->lock);
	s = f->s;
	mutex_unlock(&f->lock);
	if (!s)
		return EPOLLERR;
	poll_wait(file, &s->wq, wait);
	for_each_possible_cpu(cpu) {
		if (lfr_ring_readable(s->rings[cpu])) {
			mask |= EPOLLIN | EPOLLRDNORM;
			break;
		}
	}
	if (atomic_read(&s->state) == LFR_STATE_STOPPED)
		mask |= EPOLLHUP;
	return mask;
}

static const struct file_operations lfr_fops = {
	.owner = THIS_MODULE,
	.open = lfr_dev_open,
	.release = lfr_dev_release,
	.mmap = lfr_dev_mmap,
	.poll = lfr_dev_poll,
	.llseek = noop_llseek,
};

static struct miscdevice lfr_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "lfr",
	.fops = &lfr_fops,
	/* open() checks: CAP_PERFMON, or users' own sessions (permission.c) */
	.mode = 0666,
};

int lfr_dev_init(void)
{
	return misc_register(&lfr_misc);
}

void lfr_dev_exit(void)
{
	misc_deregister(&lfr_misc);
}

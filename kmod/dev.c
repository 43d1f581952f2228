// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: /dev/lfr.  mmap() maps one CPU ring of a session (the offset encodes
 * session and CPU, see LFR_MMAP_OFFSET); the first mapping binds the file
 * to that session and the file keeps the session, hence its rings, alive.
 * poll() waits for any ring of the bound session.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "lfr_internal.h"

struct lfr_file {
	struct mutex lock;
	struct lfr_session *s;
};

static int lfr_dev_open(struct inode *inode, struct file *file)
{
	struct lfr_file *f;

	if (!perfmon_capable())
		return -EPERM;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

static int lfr_dev_release(struct inode *inode, struct file *file)
{
	struct lfr_file *f = file->private_data;

	if (f->s)
		lfr_session_put(f->s);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static int lfr_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct lfr_file *f = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u32 sid = off >> 48, cpu = (off >> 32) & 0xffff;
	struct lfr_ring *r;
	int err = 0;

	if (off & 0xffffffffULL || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -ENXIO;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;		/* the reader's tail must reach the kernel */
	mutex_lock(&f->lock);
	if (!f->s) {
		mutex_lock(&lfr_lock);
		f->s = lfr_session_find(sid);
		if (f->s)
			lfr_session_get(f->s);
		mutex_unlock(&lfr_lock);
		if (!f->s)
			err = -ENOENT;
	} else if (f->s->id != sid) {
		err = -EINVAL;
	}
	if (!err) {
		r = f->s->rings[cpu];
		if (vma->vm_end - vma->vm_start != r->map_size)
			err = -EINVAL;
		else
			err = remap_vmalloc_range(vma, r->base, 0);
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
	.mode = 0600,
};

int lfr_dev_init(void)
{
	return misc_register(&lfr_misc);
}

void lfr_dev_exit(void)
{
	misc_deregister(&lfr_misc);
}

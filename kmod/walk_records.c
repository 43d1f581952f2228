// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the records a walk writes besides its stack (see walk_records.h).
 * MMAP records are made under the mapping lock of the thread's mm, once per
 * mapping and process image (the seen table); a mapping that cannot be
 * described now is left for a later walk.
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "mm_watch.h"
#include "permission.h"
#include "seen.h"
#include "session.h"
#include "threads.h"
#include "walk_obj.h"
#include "walk_records.h"

/*
 * An MMAP record of @vma for this image, unless one was written: true when
 * the mapping is described (before, or by the record now pending in @b).
 */
static bool lfr_add_map(struct lfr_session *s, struct lfr_walk_buf *b,
			struct vm_area_struct *vma, u64 image, u64 time_ns)
{
	struct inode *ino = vma->vm_file ? file_inode(vma->vm_file) : NULL;
	struct lfr_rec_mmap *m;
	const char *name;
	u64 h;
	u32 len, plen;

	/*
	 * What the record describes: the range and the file, by device as
	 * well as inode number (two file systems, two tmpfs mounts say, give
	 * the same numbers) and generation (a number freed and given again).
	 */
	h = lfr_mix(image, vma->vm_start);
	h = lfr_mix(h, vma->vm_end);
	h = lfr_mix(h, (u64)vma->vm_pgoff << PAGE_SHIFT);
	h = lfr_mix(h, ino ? ino->i_ino : 0);
	h = lfr_mix(h, ino ? (u64)ino->i_sb->s_dev << 32 | ino->i_generation : 0);
	h = lfr_mix(h, 0xc4ceb9fe1a85ec53ULL);
	if (lfr_seen(s->seen, s->seen_mask, h))
		return true;
	/* No room or no memory now: not marked, so a later sample writes it. */
	if (b->maps_len + LFR_MMAP_REC_MAX > LFR_MAX_NEW_MAPS * LFR_MMAP_REC_MAX)
		return false;
	if (!b->maps) {
		b->maps = kmalloc(LFR_MAX_NEW_MAPS * LFR_MMAP_REC_MAX, GFP_KERNEL);
		b->path = kmalloc(PATH_MAX, GFP_KERNEL);
		if (!b->maps || !b->path) {
			kfree(b->maps);
			kfree(b->path);
			b->maps = NULL;
			b->path = NULL;
			return false;
		}
	}
	if (!lfr_seen_first(s->seen, s->seen_mask, h))
		return true;	/* another walk's record, pending now */
	b->map_keys[b->nr_maps++] = h;
	m = (struct lfr_rec_mmap *)(b->maps + b->maps_len);
	memset(m, 0, sizeof(*m));
	if (vma->vm_file) {
		name = d_path(&vma->vm_file->f_path, b->path, PATH_MAX);
		if (IS_ERR(name))
			name = "//unreachable";
	} else {
		m->flags |= LFR_MMAP_F_ANON;
		if (vma->vm_start <= vma->vm_mm->start_stack &&
		    vma->vm_end >= vma->vm_mm->start_stack)
			name = "[stack]";
		else if (vma->vm_ops && vma->vm_ops->name)
			name = vma->vm_ops->name(vma);
		else
			name = "[anon]";
	}
	plen = strnlen(name, 255);
	len = ALIGN(sizeof(*m) + plen + 1, 8);
	m->hdr.type = LFR_REC_MMAP;
	m->hdr.size = len;
	m->time_ns = time_ns;
	m->tgid = lfr_rec_tgid(&s->user, current);
	if (vma->vm_flags & VM_EXEC)
		m->flags |= LFR_MMAP_F_EXEC;
	m->start = vma->vm_start;
	m->end = vma->vm_end;
	if (ino) {
		m->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
		m->ino = ino->i_ino;
		m->dev_major = MAJOR(ino->i_sb->s_dev);
		m->dev_minor = MINOR(ino->i_sb->s_dev);
		m->ino_generation = ino->i_generation;
	}
	memcpy(m->path, name, plen);
	memset(m->path + plen, 0, len - sizeof(*m) - plen);
	b->maps_len += len;
	return true;
}

/*
 * The table of an executable mapping, for its range in the mm's slot: the
 * walk's (@m), or looked up now; the walk read the session's count of
 * table changes before, so a table dropped since is never used.
 */
static const struct lfr_unwind_table *
lfr_range_table(struct lfr_session *s, struct lfr_vma_memo *m,
		struct vm_area_struct *vma)
{
	const struct lfr_unwind_table *t;

	if (!vma->vm_file)
		return NULL;
	rcu_read_lock();
	t = lfr_table_of(s, m, vma);
	rcu_read_unlock();
	return t;
}

/*
 * Mapping records for the user pcs not yet described for this image; under
 * the mapping lock of the thread's mm.  A return address must lie in
 * executable memory: a frame-pointer walk through code without frame
 * pointers can take a stack word for one (a string, a stack address) before
 * the next frame fails its checks, and such a frame is cut there, with
 * USER_BAD_FRAME, never reported.  The interrupted pc is kept as it is.
 * Returns the number of pcs kept.
 */
u32 lfr_collect_maps(struct lfr_session *s, struct lfr_walk_buf *b,
		     struct lfr_vma_memo *memo, const u64 *ips, u32 nr,
		     u64 image, u64 time_ns, u32 *flags,
		     struct lfr_xr_found *found, bool tables)
{
	struct mm_struct *mm = current->mm;
	u64 lo = 0, span = 0;	/* the executable mapping last found */
	struct vm_area_struct *vma;
	bool described;
	u32 i;

	if (!nr)
		return 0;
	/* The interrupted pc may lie in any mapping; it is kept as it is. */
	vma = lfr_vma_of(mm, memo, ips[0]);
	if (vma && vma->vm_start <= ips[0]) {
		described = lfr_add_map(s, b, vma, image, time_ns);
		if (vma->vm_flags & VM_EXEC) {
			lfr_xr_add(found, vma, described, tables ?
				   lfr_range_table(s, memo, vma) : NULL);
			lo = vma->vm_start;
			span = vma->vm_end - vma->vm_start;
		}
	}
	for (i = 1; i < nr; i++) {
		/* Most return addresses lie in the mapping of the frame before. */
		if (likely(ips[i] - lo < span))
			continue;
		vma = lfr_vma_of(mm, memo, ips[i]);
		if (!vma || vma->vm_start > ips[i] ||
		    !(vma->vm_flags & VM_EXEC)) {
			*flags |= LFR_SAMPLE_F_USER_BAD_FRAME;
			return i;
		}
		lfr_xr_add(found, vma, lfr_add_map(s, b, vma, image, time_ns),
			   tables ? lfr_range_table(s, memo, vma) : NULL);
		lo = vma->vm_start;
		span = vma->vm_end - vma->vm_start;
	}
	return nr;
}

/*
 * A name and its exec, mixed as the image's keys are (lfr_mix()): every
 * walk checks it, and jhash2() of the name was a hundred instructions.
 */
static u32 lfr_comm_hash(const u32 *comm, u64 exec_id)
{
	u64 h = lfr_mix(0x4c46522d636f6d6dULL, exec_id);

	BUILD_BUG_ON(TASK_COMM_LEN != 4 * sizeof(u32));
	h = lfr_mix(h, (u64)comm[1] << 32 | comm[0]);
	h = lfr_mix(h, (u64)comm[3] << 32 | comm[2]);
	return (u32)h;
}

/*
 * The thread's name, read without the task's lock: it changes only at exec
 * and by a rename (which also writes a TASK record), and a torn read only
 * makes it differ.  Its hash, with the exec it belongs to.
 */
u32 lfr_comm_now(void)
{
	struct task_struct *t = current;
	u32 raw[TASK_COMM_LEN / sizeof(u32)];

	BUILD_BUG_ON(sizeof(t->comm) != sizeof(raw));
	/* racy with a rename by another thread: checked under the lock after */
	data_race(memcpy(raw, t->comm, sizeof(raw)));
	return lfr_comm_hash(raw, t->self_exec_id);
}

void lfr_fill_comm(struct lfr_thread *e, const struct lfr_walk *w,
		   struct lfr_rec_comm *c)
{
	struct task_struct *t = current;
	u32 raw[TASK_COMM_LEN / sizeof(u32)], h;

	/* A name that differs from the one last reported is copied under the lock. */
	BUILD_BUG_ON(sizeof(c->comm) != sizeof(raw));
	h = lfr_comm_now();
	if (e->seen && e->comm_hash == h)
		return;
	memset(c, 0, sizeof(*c));
	get_task_comm(c->comm, t);
	memcpy(raw, c->comm, sizeof(raw));
	h = lfr_comm_hash(raw, t->self_exec_id);
	if (e->seen && e->comm_hash == h)
		return;
	c->hdr.type = LFR_REC_COMM;
	c->hdr.size = sizeof(*c);
	c->time_ns = w->snap.time_ns;
	c->tgid = lfr_rec_tgid(&w->s->user, t);
	c->tid = lfr_rec_tid(&w->s->user, t);
	if (e->seen && e->last_exec_id != t->self_exec_id)
		c->flags |= LFR_COMM_F_EXEC;
	e->seen = true;
	e->comm_hash = h;
	e->last_exec_id = t->self_exec_id;
}

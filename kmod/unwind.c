// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the deferred walk.  Runs as a task_work of the sampled thread, on its
 * way back to user space: process context, page faults allowed, the user
 * stack exactly as it was at the tick.  Walks the frame pointers, names the
 * mappings the pcs fall in (once per mapping and process image), then
 * commits everything to the ring of the CPU it runs on.
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include "arch_regs.h"
#include "core.h"
#include "cpu_share.h"
#include "frame_walk.h"
#include "mm_watch.h"
#include "ring.h"
#include "seen.h"
#include "session.h"
#include "thread_ctx.h"
#include "thread_ctx_read.h"
#include "threads.h"
#include "unwind.h"
#include "unwind_tables.h"
#include "walk_check.h"
#include "walk_lock.h"
#include "walk_obj.h"
#include "walk_pool.h"

#define LFR_MAX_NEW_MAPS	8
#define LFR_MMAP_REC_MAX	(sizeof(struct lfr_rec_mmap) + 256)

/*
 * The walk's buffers.  Only rec is needed for every sample: it comes from the
 * session's pool of reused buffers.  maps and path are needed only when a
 * mapping is seen for the first time, so they are allocated then (kmalloc
 * zeroes what it returns on kernels with init_on_alloc, as Debian's: 8 KiB
 * per sample was a third of the walk's cost).
 */
struct lfr_walk_buf {
	struct lfr_rec_ustack *rec;	/* header + user ips + stack words */
	u8 *maps;			/* pending MMAP records */
	u32 maps_len;
	u32 nr_maps;
	u64 map_keys[LFR_MAX_NEW_MAPS];	/* their keys in the seen table */
	char *path;			/* PATH_MAX scratch */
};

/*
 * User memory is read without taking page faults: the stack of a thread
 * that was running a moment ago is resident, and a page that is not (swapped
 * out, or registered with userfaultfd and never touched) would make the walk
 * sleep for as long as it pleases, pinning its session and STOP.  Such a
 * read ends the chain with LFR_SAMPLE_F_USER_FAULT, counted as USER_FAULT.
 * The caller disables page faults once for the whole walk.
 *
 * A frame needs two words: they are loaded straight from user memory, each
 * load with its exception-table fixup, inside one user-access section (no
 * copy into a buffer: a bulk copy of the stack moved every byte between the
 * frame records too, and checked the destination object on every call).
 */
static __always_inline int lfr_read_user(void *ctx, u64 addr, void *buf,
					 size_t len)
{
	void __user *p = (void __user *)(unsigned long)addr;

	if (len != 4 && len != 8 && len != 16)
		return __copy_from_user_inatomic(buf, p, len) ? -EFAULT : 0;
	if (!user_access_begin(p, len))
		return -EFAULT;
	if (len == 4) {
		unsafe_get_user(*(u32 *)buf, (u32 __user *)p, fault);
	} else {
		unsafe_get_user(*(u64 *)buf, (u64 __user *)p, fault);
		if (len == 16)
			unsafe_get_user(((u64 *)buf)[1], (u64 __user *)p + 1,
					fault);
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/*
 * A read inside a user-access section of an address the walk has checked:
 * its @len bytes lie below the walk's limit, which is at most TASK_SIZE_MAX
 * (lfr_step_row(), lfr_walk_fp_frames()).
 */
static __always_inline int lfr_read_user_in(void *ctx, u64 addr, void *buf,
					    size_t len)
{
	const void __user *p = (const void __user *)(unsigned long)addr;

	if (len == 4) {
		unsafe_get_user(*(u32 *)buf, (const u32 __user *)p, fault);
	} else if (len == 8 || len == 16) {
		unsafe_get_user(*(u64 *)buf, (const u64 __user *)p, fault);
		if (len == 16)
			unsafe_get_user(((u64 *)buf)[1],
					(const u64 __user *)p + 1, fault);
	} else {
		return -EFAULT;
	}
	return 0;
fault:
	return -EFAULT;
}

/*
 * The frame-pointer walk reads inside one user-access section opened for
 * all of user space (lfr_user_stack()): each load keeps its exception-table
 * fixup and its own bounds test, but the section is not opened and closed,
 * nor speculation fenced, at every frame.  No call may happen inside it.
 * (A read that the walk checked needs no bounds test: lfr_read_user_in().)
 */
static __always_inline int lfr_read_user_open(void *ctx, u64 addr, void *buf,
					      size_t len)
{
	if (addr > TASK_SIZE_MAX - len)
		return -EFAULT;
	return lfr_read_user_in(ctx, addr, buf, len);
}

/*
 * Keys of the seen table: a multiply-xorshift mix of a few words, a handful
 * of instructions per word (two jhash2 per key were a tenth of the walk).
 */
static __always_inline u64 lfr_mix(u64 h, u64 v)
{
	h = (h ^ v) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

static u64 lfr_image_hash(struct task_struct *t)
{
	u64 h = lfr_mix(0x4c46522d696d6167ULL, t->tgid);

	h = lfr_mix(h, t->group_leader->start_time);
	return lfr_mix(h, t->self_exec_id);
}

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
 * The mappings a walk looked up, for the mapping records made under the
 * same hold of the mapping lock: each is looked up once, and so is the
 * unwind table of each (bit i of has_table: table[i] is vma[i]'s, under
 * the walk's RCU read section).
 */
#define LFR_VMA_MEMO	4

struct lfr_vma_memo {
	u32 n;
	u32 has_table;
	struct vm_area_struct *vma[LFR_VMA_MEMO];
	const struct lfr_unwind_table *table[LFR_VMA_MEMO];
};

/* The unwind table of @vma's file, looked up once per walk. */
static const struct lfr_unwind_table *
lfr_table_of(struct lfr_session *s, struct lfr_vma_memo *m,
	     struct vm_area_struct *vma)
{
	const struct lfr_unwind_table *t;
	u32 i;

	for (i = 0; i < m->n && m->vma[i] != vma; i++)
		;
	if (i < m->n && (m->has_table & BIT(i)))
		return m->table[i];
	t = lfr_unwind_find(s, file_inode(vma->vm_file));
	if (i < m->n) {
		m->table[i] = t;
		m->has_table |= BIT(i);
	}
	return t;
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

/* find_vma(), first among the mappings @m holds (may be NULL). */
static struct vm_area_struct *lfr_vma_of(struct mm_struct *mm,
					 struct lfr_vma_memo *m, u64 pc)
{
	struct vm_area_struct *vma;
	u32 i;

	for (i = 0; m && i < m->n; i++)
		if (pc >= m->vma[i]->vm_start && pc < m->vma[i]->vm_end)
			return m->vma[i];
	vma = find_vma(mm, pc);
	if (m && vma && vma->vm_start <= pc && m->n < LFR_VMA_MEMO)
		m->vma[m->n++] = vma;
	return vma;
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
static u32 lfr_collect_maps(struct lfr_session *s, struct lfr_walk_buf *b,
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
 * The unwind rule of a pc: its mapping (the last one looked up is kept, as
 * consecutive frames are mostly in one object), the table of the
 * mapping's file, the row of the pc's file offset.  The last pc's row is
 * kept too: the frames of a recursion return to one call site.  Under the
 * mapping lock and RCU.
 */
struct lfr_row_cache {
	struct lfr_session *s;
	struct mm_struct *mm;
	unsigned long lo, hi;		/* the mapping last looked up */
	const struct lfr_unwind_table *t; /* its table, or NULL */
	u64 off;			/* file offset - pc in it */
	struct lfr_vma_memo memo;	/* the mappings looked up */
};

static void lfr_row_cache_init(struct lfr_row_cache *c, struct lfr_session *s,
			       struct mm_struct *mm)
{
	c->s = s;
	c->mm = mm;
	c->lo = 0;
	c->hi = 0;
	c->t = NULL;
	c->memo.n = 0;
	c->memo.has_table = 0;
}

static enum lfr_row_found lfr_row_of(void *ctx, u64 pc,
				     const struct lfr_unwind_row **row)
{
	struct lfr_row_cache *c = ctx;

	if (pc < c->lo || pc >= c->hi) {
		struct vm_area_struct *vma = lfr_vma_of(c->mm, &c->memo, pc);

		c->t = NULL;
		if (!vma || vma->vm_start > pc) {
			c->lo = 0;
			c->hi = 0;
			return LFR_ROW_NO_TABLE;
		}
		c->lo = vma->vm_start;
		c->hi = vma->vm_end;
		c->off = ((u64)vma->vm_pgoff << PAGE_SHIFT) - vma->vm_start;
		if (vma->vm_file && (vma->vm_flags & VM_EXEC))
			c->t = lfr_table_of(c->s, &c->memo, vma);
	}
	if (!c->t)
		return LFR_ROW_NO_TABLE;
	return lfr_unwind_row(c->t, pc + c->off, row);
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
static u32 lfr_comm_now(void)
{
	struct task_struct *t = current;
	u32 raw[TASK_COMM_LEN / sizeof(u32)];

	BUILD_BUG_ON(sizeof(t->comm) != sizeof(raw));
	/* racy with a rename by another thread: checked under the lock after */
	data_race(memcpy(raw, t->comm, sizeof(raw)));
	return lfr_comm_hash(raw, t->self_exec_id);
}

static void lfr_fill_comm(struct lfr_thread *e, const struct lfr_walk *w,
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

/*
 * Words of the user stack from sp on: as many as can be read, up to n.
 * Page faults are disabled by the caller, as for lfr_read_user().
 */
static u32 lfr_copy_stack_words(u64 sp, u64 *words, u32 n)
{
	u64 __user *p = (u64 __user *)(unsigned long)sp;
	u32 i = 0;

	if (!n || (sp & 7) || !user_access_begin(p, n * sizeof(u64)))
		return 0;
	for (; i < n; i++)
		unsafe_get_user(words[i], p + i, out);
out:
	user_access_end();
	return i;
}

/*
 * The user-access section of a walk with unwind tables: the whole walk's
 * when its row lookups make no call (lfr_walk_known()), else each frame's,
 * with the lookup (which may look the mapping up) outside it.
 */
static __always_inline bool lfr_uaccess_open(void *ctx)
{
	return user_access_begin((void __user *)0, TASK_SIZE_MAX);
}

static __always_inline void lfr_uaccess_close(void *ctx)
{
	user_access_end();
}

/*
 * The session's slot of the thread's mm (mm_watch.h), or NULL: looked for
 * again after an exec or a slot given up, and at one walk in 64 while none
 * can be had.  May sleep.
 */
static struct lfr_mm_slot *lfr_xr_slot(struct lfr_session *s,
				       struct lfr_thread *e,
				       struct mm_struct *mm, u64 walk_id)
{
	u32 epoch = READ_ONCE(s->watches.evictions);
	int i;

	if (e->xr_epoch == epoch) {
		if (e->xr_slot < LFR_MM_WATCH_MAX &&
		    lfr_mm_slot_watch(&s->watches.slots[e->xr_slot], mm))
			return &s->watches.slots[e->xr_slot];
		if (e->xr_slot == LFR_XR_FULL && walk_id % 64)
			return NULL;
	}
	i = lfr_mm_watch_get(&s->watches, mm);
	e->xr_epoch = epoch;
	e->xr_slot = i < 0 ? LFR_XR_FULL : i;
	return i < 0 ? NULL : &s->watches.slots[i];
}

/*
 * Under @m's seq: its watch when @m is the current mm's and its ranges
 * were found for this image, with no mapping of the mm changed and no
 * MMAP record lost since; else NULL.  @m's watch is followed only once its
 * mm is known to be current's (lfr_mm_slot_watch()): a live mm's slot is
 * never given up while its threads walk.
 */
static const struct lfr_mm_watch *lfr_xr_valid(const struct lfr_mm_slot *m,
					       u64 image, u32 lost)
{
	const struct lfr_mm_watch *w = lfr_mm_slot_watch(m, current->mm);

	if (!w || m->image != image || m->lost != lost ||
	    m->gen != lfr_mm_watch_gen(w))
		return NULL;
	return w;
}

/* Whether every pc of @ips lies in one of the @n ranges [lo, hi). */
static bool lfr_in_ranges(const unsigned long *lo, const unsigned long *hi,
			  u32 n, const u64 *ips, u32 nr)
{
	u64 start = 0, span = 0;
	u32 i, j;

	for (i = 0; i < nr; i++) {
		/* most return addresses lie in the range of the frame before */
		if (ips[i] - start < span)
			continue;
		for (j = 0; j < n; j++)
			if (ips[i] - lo[j] < hi[j] - lo[j])
				break;
		if (j == n)
			return false;
		start = lo[j];
		span = hi[j] - start;
	}
	return true;
}

/* @e's slot, while the index it holds is valid; NULL when it has none. */
static const struct lfr_mm_slot *lfr_xr_of(struct lfr_session *s,
					   const struct lfr_thread *e)
{
	if (e->xr_slot >= LFR_MM_WATCH_MAX ||
	    e->xr_epoch != READ_ONCE(s->watches.evictions))
		return NULL;
	return &s->watches.slots[e->xr_slot];
}

/*
 * A walk with unwind tables in ranges described before: the slot's ranges
 * with their file offsets and tables, copied under its seq, stand in for
 * the mapping lookups (lfr_row_cache).  Every pc the walk keeps is looked
 * up here (the interrupted one as it is, a return address less one): one
 * outside them ends the walk with @miss set, and it is walked again with
 * the lookups.  The lookup makes no call: the walk runs it inside its one
 * user-access section.
 */
struct lfr_known_rows {
	const struct lfr_mm_watch *w;
	u64 gen;			/* w's, when the ranges were copied */
	u32 n;				/* ranges */
	bool miss;
	u32 probes;			/* steps of row searches left */
	struct lfr_xr_ranges r;
	/*
	 * The range last found, for the pcs that follow (most lie in it): its
	 * start, the span of pcs it takes the short way (0: none, the range
	 * has no table or file offsets past 32 bits), their table and offset.
	 */
	unsigned long cur_lo, cur_span;
	u64 cur_off;
	const struct lfr_unwind_table *cur_t;
};

/* Under @m's seq: copies its ranges if they hold for this walk. */
static bool lfr_known_copy(const struct lfr_mm_slot *m, u64 image, u32 lost,
			   unsigned long tables, struct lfr_known_rows *k)
{
	u32 i;

	k->n = READ_ONCE(m->n);
	if (!k->n || k->n > LFR_XR_MAX || m->tables != tables)
		return false;
	k->w = lfr_xr_valid(m, image, lost);
	if (!k->w)
		return false;
	k->gen = m->gen;
	for (i = 0; i < k->n; i++)
		lfr_xr_copy(&k->r, i, &m->r, i);
	return true;
}

static __always_inline enum lfr_row_found
lfr_row_known(void *ctx, u64 pc, const struct lfr_unwind_row **row)
{
	struct lfr_known_rows *k = ctx;
	const struct lfr_unwind_table *t;
	u32 j;

	if (likely(pc - k->cur_lo < k->cur_span)) {
		t = k->cur_t;
		return lfr_unwind_rows_find_bounded(t->rows, t->nr, t->hints,
						    t->hint_shift,
						    (u32)(pc + k->cur_off), row,
						    &k->probes);
	}
	/*
	 * @pc and @pc + 1 in one range: the return address a walk keeps is
	 * the pc looked up plus one, and it must lie in a described mapping
	 * as lfr_collect_maps() would have it.
	 */
	for (j = 0; j < k->n; j++)
		if (pc - k->r.lo[j] < k->r.hi[j] - k->r.lo[j] - 1)
			break;
	if (j == k->n) {
		k->miss = true;
		return LFR_ROW_NONE;
	}
	t = k->r.t[j];
	k->cur_lo = k->r.lo[j];
	k->cur_span = 0;
	if (!t)
		return LFR_ROW_NO_TABLE;
	/* the file offset of its last pc (hi - 2) fits a hint's 32 bits */
	if (k->r.hi[j] - 2 + k->r.off[j] <= U32_MAX) {
		k->cur_span = k->r.hi[j] - k->r.lo[j] - 1;
		k->cur_off = k->r.off[j];
		k->cur_t = t;
	}
	if (pc + k->r.off[j] > U32_MAX)
		return LFR_ROW_NONE;
	return lfr_unwind_rows_find_bounded(t->rows, t->nr, t->hints,
					    t->hint_shift,
					    (u32)(pc + k->r.off[j]), row,
					    &k->probes);
}

/*
 * A walk that runs with interrupts off, in place in the ring's room
 * (lfr_commit_direct()): its interrupts' flags, its depth cap, and the
 * sample buffer it goes on in once it meets its bound (lfr_irqoff_leave()).
 */
struct lfr_irqoff {
	unsigned long flags;
	unsigned int max;
	struct lfr_rec_ustack *buf;
};

/*
 * A walk with interrupts off that met its bound (frame_walk.h:
 * LFR_IRQOFF_FRAMES, LFR_IRQOFF_PROBES): its chain so far moves out of the
 * ring's room, which any writer on this CPU may take once interrupts are
 * on, into a sample buffer of the session's pool (no allocation: its lock
 * is raw), and interrupts come back on; the walk goes on there, and is
 * committed from it.  False, interrupts still off, when every buffer is
 * lent: the walk gives up (nothing was published) and is made again with
 * the lookups.
 */
static bool lfr_irqoff_leave(struct lfr_session *s, struct lfr_irqoff *io,
			     struct lfr_uwalk *w)
{
	struct lfr_rec_ustack *buf = lfr_walk_pool_get(&s->walk_bufs);

	if (!buf)
		return false;
	memcpy(buf->ips, w->ips, w->nr * sizeof(u64));
	w->ips = buf->ips;
	io->buf = buf;
	lfr_count(s, LFR_CTR_WALK_RESUMED, 1);
	local_irq_restore(io->flags);
	return true;
}

/*
 * What this CPU's memo holds after a walk that kept its frames there: when
 * @ok (the walk found every pc in @k's ranges and no mapping changed), the
 * ranges, tables and image they were walked in; else nothing.
 */
static __always_inline void lfr_memos_keep(struct lfr_walk_memos *memos,
					   bool ok,
					   const struct lfr_known_rows *k,
					   unsigned long tables, u64 image,
					   u32 lost)
{
	if (!ok) {
		memos->m.n = 0;
		return;
	}
	/* the frames it kept are this walk's */
	memos->w = k->w;
	memos->gen = k->gen;
	memos->tables = tables;
	memos->image = image;
	memos->lost = lost;
}

/*
 * @w walked with unwind tables in the ranges of @e's slot, with page faults
 * disabled by the caller: true when every pc was found in them and no
 * mapping of the mm changed before the walk ended.  Their tables are used
 * only while the session's count of table changes is the one they were
 * found at, read in the same RCU read section: a table dropped since was
 * dropped after this section began, and is freed after it ends.  With
 * @memos (a constant: lfr_walk_known_memo(); this CPU's, interrupts off),
 * the walk follows the last walk's frames where it meets them at the same
 * depth, when that walk had the same ranges, tables and mappings
 * (frame_walk.h: lfr_memo_follow()), and keeps its own.  With @io
 * (interrupts off, the walk in the ring's room) the walk is bounded, and
 * goes on with interrupts on once it meets the bound (lfr_irqoff_leave()).
 */
static __always_inline bool lfr_walk_known_in(struct lfr_session *s,
					      const struct lfr_thread *e,
					      u64 image, struct lfr_uwalk *w,
					      struct lfr_walk_memos *memos,
					      struct lfr_irqoff *io)
{
	const struct lfr_mm_slot *m = lfr_xr_of(s, e);
	/* set before it is read (lfr_known_copy()): not zeroed at every walk */
	struct lfr_known_rows k __uninitialized;
	unsigned long tables;
	unsigned int seq;
	u32 lost, i;
	bool ok;

	if (!m)
		return false;
	lost = atomic_read(&s->mmap_lost);
	rcu_read_lock();
	tables = READ_ONCE(s->unwind.changes);
	do {
		seq = read_seqcount_begin(&m->seq);
		ok = lfr_known_copy(m, image, lost, tables, &k);
	} while (read_seqcount_retry(&m->seq, seq));
	/*
	 * A table kept with its range is used while its file is the one it
	 * describes: a file written in place keeps its mapping, and the mm's
	 * generation.  Its inode is read in this RCU read section, in which
	 * the generation said it was mapped, so it is not freed before the
	 * section ends.  A changed file sends the walk to the lookups, which
	 * keep its range without the table.
	 */
	for (i = 0; ok && i < k.n; i++) {
		if (!k.r.t[i])
			continue;
		if (unlikely(!lfr_unwind_current(k.r.t[i], k.r.ino[i]))) {
			lfr_unwind_stale(s, k.r.t[i]);
			ok = false;
		}
		lfr_unwind_used(k.r.t[i]);
	}
	if (ok) {
		k.cur_lo = 0;
		k.cur_span = 0;
		k.miss = false;
		k.probes = io ? LFR_IRQOFF_PROBES : U32_MAX;
		w->row_ctx = &k;
		/*
		 * Two calls rather than one with a memo flag: measured, the
		 * one call cost 30-40 more instructions a walk (one vCPU).
		 */
		if (memos) {
			if (memos->w != k.w || memos->gen != k.gen ||
			    memos->tables != tables ||
			    memos->image != image || memos->lost != lost)
				memos->m.n = 0;
			w->memo = &memos->m;
			lfr_walk_user_in(w, lfr_read_user_open,
					 lfr_read_user_in, lfr_row_known,
					 lfr_uaccess_open, lfr_uaccess_close,
					 true, NULL, true);
			w->memo = NULL;
		} else {
			lfr_walk_user_sections(w, lfr_read_user_open,
					       lfr_read_user_in, lfr_row_known,
					       lfr_uaccess_open,
					       lfr_uaccess_close, true);
		}
		w->row_ctx = NULL;
		ok = !k.miss;
		if (io && ok && lfr_walk_paused(w, io->max)) {
			/*
			 * Its bound met with interrupts off: the memo, this
			 * CPU's, keeps the frames walked so far, while they
			 * are off; the walk goes on with them on, without it.
			 */
			if (memos) {
				/* its stack read under the ranges' generation */
				smp_rmb();
				lfr_memos_keep(memos, lfr_mm_watch_gen(k.w) ==
					       k.gen, &k, tables, image, lost);
				memos = NULL;
			}
			ok = lfr_irqoff_leave(s, io, w);
			if (ok) {
				k.probes = U32_MAX;
				w->row_ctx = &k;
				lfr_walk_user_resume(w, lfr_read_user_open,
						     lfr_read_user_in,
						     lfr_row_known,
						     lfr_uaccess_open,
						     lfr_uaccess_close, true,
						     NULL);
				w->row_ctx = NULL;
				ok = !k.miss;
			}
		}
	}
	rcu_read_unlock();
	/* the stack was read under the generation the ranges hold at */
	smp_rmb();
	ok = ok && lfr_mm_watch_gen(k.w) == k.gen;
	if (memos)
		lfr_memos_keep(memos, ok, &k, tables, image, lost);
	return ok;
}

static noinline bool lfr_walk_known(struct lfr_session *s,
				    const struct lfr_thread *e, u64 image,
				    struct lfr_uwalk *w, struct lfr_irqoff *io)
{
	return lfr_walk_known_in(s, e, image, w, NULL, io);
}

static noinline bool lfr_walk_known_memo(struct lfr_session *s,
					 const struct lfr_thread *e, u64 image,
					 struct lfr_uwalk *w,
					 struct lfr_walk_memos *memos,
					 struct lfr_irqoff *io)
{
	return lfr_walk_known_in(s, e, image, w, memos, io);
}

/*
 * This CPU's memo for a walk of current's (interrupts off: the walk's
 * alone), or NULL: a memo is taken over by a thread walked twice in a row
 * on the CPU, not thrown back and forth by threads that take turns.
 */
static struct lfr_walk_memos *lfr_memos_for(struct lfr_session *s)
{
	struct lfr_walk_memos *memos;

	if (!irqs_disabled())
		return NULL;
	memos = s->memos[smp_processor_id()];
	if (memos->task == current)
		return memos;
	if (memos->last != current) {
		memos->last = current;
		return NULL;
	}
	memos->task = current;
	memos->m.n = 0;
	return memos;
}

/* The walk of @wk's snapshot, to write its pcs at @ips. */
static void lfr_uwalk_init(struct lfr_uwalk *w, const struct lfr_session *s,
			   const struct lfr_snapshot *sn, u64 *ips)
{
	bool compat = sn->flags & LFR_SAMPLE_F_COMPAT;

	w->ip = sn->ip;
	w->sp = sn->sp;
	w->fp = sn->bp;
	w->lr = sn->lr;
	w->pac_mask = lfr_user_pac_mask();
	w->compat = compat;
	w->limit = compat ? 1ULL << 32 : TASK_SIZE_MAX;
	w->max = s->cfg.user_depth;
	w->ctx = NULL;
	w->row_ctx = NULL;
	w->ips = ips;
	w->memo = NULL;
	w->memo_frames = 0;
}

/*
 * @w by frame pointers only, in one user-access section when it opens;
 * with @in (NULL, a constant, for a walk that looks mappings up after), its
 * return addresses checked against those ranges (lfr_walk_fp_frames()).
 */
static __always_inline void lfr_walk_fp_in(struct lfr_uwalk *w,
					   struct lfr_pc_ranges *in)
{
	if (user_access_begin((void __user *)0, TASK_SIZE_MAX)) {
		lfr_walk_user_in(w, lfr_read_user_open, lfr_read_user_in, NULL,
				 NULL, NULL, false, in, false);
		user_access_end();
	} else {
		lfr_walk_user_in(w, lfr_read_user, lfr_read_user, NULL, NULL,
				 NULL, false, in, false);
	}
}

static void lfr_walk_fp_only(struct lfr_uwalk *w)
{
	lfr_walk_fp_in(w, NULL);
}

/* lfr_walk_fp_in()'s walk, gone on with from where it paused. */
static void lfr_walk_fp_resume(struct lfr_uwalk *w, struct lfr_pc_ranges *in)
{
	if (user_access_begin((void __user *)0, TASK_SIZE_MAX)) {
		lfr_walk_user_resume(w, lfr_read_user_open, lfr_read_user_in,
				     NULL, NULL, NULL, false, in);
		user_access_end();
	} else {
		lfr_walk_user_resume(w, lfr_read_user, lfr_read_user, NULL,
				     NULL, NULL, false, in);
	}
}

/*
 * A frame-pointer walk of a thread whose slot holds ranges for this image:
 * each return address checked against them in the walk's loop, read where
 * they are under the slot's seq (numbers only: a write meanwhile fails the
 * retry and the walk is not used).  True when every pc lies in them, with
 * no mapping of the mm changed before the walk ended; false sends the walk
 * to the lookups (lfr_user_stack()).  With @io (interrupts off, the walk in
 * the ring's room) the walk is bounded, and goes on with interrupts on once
 * it meets the bound (lfr_irqoff_leave()).
 */
static bool lfr_walk_fp_known(struct lfr_session *s,
			      const struct lfr_thread *e, u64 image,
			      struct lfr_uwalk *w, struct lfr_irqoff *io)
{
	const struct lfr_mm_slot *m = lfr_xr_of(s, e);
	/* every field set before it is read: not zeroed at every walk */
	struct lfr_pc_ranges in __uninitialized;
	unsigned int seq;
	u32 lost;

	if (!m)
		return false;
	lost = atomic_read(&s->mmap_lost);
	seq = read_seqcount_begin(&m->seq);
	in.n = READ_ONCE(m->n);
	if (!in.n || in.n > LFR_XR_MAX || !lfr_xr_valid(m, image, lost))
		return false;
	in.lo = m->r.lo;
	in.hi = m->r.hi;
	in.miss = false;
	lfr_walk_fp_in(w, &in);
	if (in.miss)
		return false;
	if (io && lfr_walk_paused(w, io->max)) {
		if (!lfr_irqoff_leave(s, io, w))
			return false;
		lfr_walk_fp_resume(w, &in);
		if (in.miss)
			return false;
	}
	/* the pc and the leaf's return address, before the loop */
	if (!lfr_in_ranges(m->r.lo, m->r.hi, in.n, w->ips, min_t(u32, w->nr, 2)))
		return false;
	/* the stack was read under the generation the ranges hold at */
	smp_rmb();
	return lfr_xr_valid(m, image, lost) &&
	       !read_seqcount_retry(&m->seq, seq);
}

/*
 * The stack words copied after @w's pcs in @r: none when a table unwound the
 * leaf (its caller needs none of them).  On arm64 the record's register
 * words take the room of the last ones (lfr_ustack_header()).  Page faults
 * disabled by the caller.
 */
static void lfr_ustack_words(struct lfr_rec_ustack *r,
			     const struct lfr_uwalk *w, u64 sp)
{
	r->nr_words = w->compat || (w->flags & LFR_SAMPLE_F_USER_CFI) ? 0 :
		lfr_copy_stack_words(sp, r->ips + w->nr,
				     LFR_USTACK_WORDS - LFR_ARCH_USTACK_REGS);
}

/*
 * The USTACK record's walk of a thread whose process described, before,
 * every mapping its pcs lie in (mm_watch.h): no mapping lock, no lookup,
 * nothing to record but the stack, so it may run with interrupts off, in
 * place in the ring (lfr_commit_direct(), with @io: bounded, and gone on
 * with interrupts on in io->buf once it met its bound).  Fills @r's pcs,
 * stack words, flags and sp (io->buf's when it went on there), and returns
 * true; false when a pc lies elsewhere (@r holds nothing then:
 * lfr_user_stack() walks again with the lookups).
 */
static bool lfr_walk_fast(struct lfr_session *s, const struct lfr_walk *wk,
			  struct lfr_rec_ustack *r, struct lfr_irqoff *io)
{
	const struct lfr_snapshot *sn = &wk->snap;
	/* set by lfr_uwalk_init() and the walk: not zeroed at every walk */
	struct lfr_uwalk w __uninitialized;
	bool known;

	lfr_uwalk_init(&w, s, sn, r->ips);
	if (io) {
		io->max = w.max;
		io->buf = NULL;
		lfr_walk_bound(&w, LFR_IRQOFF_FRAMES);
	}
	pagefault_disable();
	if (!w.compat && READ_ONCE(s->unwind.nr)) {
		/* in ranges described before: no lookup, no mapping lock */
		struct lfr_walk_memos *memos = lfr_memos_for(s);

		known = memos ? lfr_walk_known_memo(s, wk->e,
						    lfr_image_hash(current),
						    &w, memos, io) :
				lfr_walk_known(s, wk->e, lfr_image_hash(current),
					       &w, io);
	} else {
		/* pcs in ranges described before: nothing to look up */
		known = lfr_walk_fp_known(s, wk->e, lfr_image_hash(current),
					  &w, io);
	}
	if (io && io->buf)
		r = io->buf;
	if (known)
		lfr_ustack_words(r, &w, sn->sp);
	pagefault_enable();
	if (!known)
		return false;
	r->flags = sn->flags | w.flags;
	r->sp = sn->sp;
	r->nr_user = w.nr;
	if (w.frames)
		lfr_count(s, LFR_CTR_UNWIND_FRAMES, w.frames);
	if (w.memo_frames)
		lfr_count(s, LFR_CTR_UNWIND_MEMO_FRAMES, w.memo_frames);
	lfr_count(s, LFR_CTR_WALK_KNOWN_MAPS, 1);
	return true;
}

/*
 * The user stack of @wk's snapshot into @b: its pcs (frame_walk.h), the
 * stack words and the records of mappings not yet described; by
 * lfr_walk_fast() first unless @fast_failed says it found a pc elsewhere.
 * Returns 0, or the reason the sample is lost: LFR_LOST_MMAP_LOCK when a
 * fatal signal came while it waited for the mapping lock (a writer may
 * hold it for as long as its I/O takes, and a killed or OOM-victim thread
 * must not wait for it).
 */
static int lfr_user_stack(struct lfr_session *s, const struct lfr_walk *wk,
			  struct lfr_walk_buf *b, bool fast_failed)
{
	const struct lfr_snapshot *sn = &wk->snap;
	struct lfr_rec_ustack *r = b->rec;
	struct lfr_uwalk w;
	/*
	 * Only the fields set below before they are read: not zeroed at every
	 * walk (with the kernel's zeroing of the stack, that was a few
	 * hundred bytes per sample).
	 */
	struct lfr_row_cache rc __uninitialized;
	struct lfr_xr_found found __uninitialized;
	struct mm_struct *mm = current->mm;
	struct lfr_thread *e = wk->e;
	const struct lfr_mm_watch *watch;
	struct lfr_mm_slot *slot;
	bool tables = !(sn->flags & LFR_SAMPLE_F_COMPAT) &&
		      READ_ONCE(s->unwind.nr);
	u64 image = lfr_image_hash(current), gen = 0;
	unsigned long changes = 0;
	u32 lost = 0;

	if (!fast_failed && lfr_walk_fast(s, wk, r, NULL))
		return 0;
	lfr_uwalk_init(&w, s, sn, r->ips);
	lfr_row_cache_init(&rc, s, mm);
	found.ok = true;
	found.n = 0;
	/* read before the lookups: a change after them moves it */
	slot = lfr_xr_slot(s, e, mm, sn->walk_id);
	watch = slot ? lfr_mm_slot_watch(slot, mm) : NULL;
	if (watch) {
		gen = lfr_mm_watch_gen(watch);
		lost = atomic_read(&s->mmap_lost);
	} else {
		slot = NULL;
	}
	if (lfr_walk_lock_mm(mm))
		return LFR_LOST_MMAP_LOCK;
	pagefault_disable();
	/*
	 * With unwind tables the walk looks up the mapping of every frame: it
	 * runs under the mapping lock, which the mapping records need anyway.
	 * The reads do not fault, so holding it costs no waiting.
	 */
	if (tables) {
		rcu_read_lock();
		changes = READ_ONCE(s->unwind.changes);
		w.row_ctx = &rc;
		lfr_walk_user_sections(&w, lfr_read_user_open,
				       lfr_read_user_in, lfr_row_of,
				       lfr_uaccess_open, lfr_uaccess_close,
				       false);
		rcu_read_unlock();
	} else {
		lfr_walk_fp_only(&w);
	}
	lfr_ustack_words(r, &w, sn->sp);
	pagefault_enable();
	r->flags = sn->flags | w.flags;
	r->sp = sn->sp;
	if (w.frames)
		lfr_count(s, LFR_CTR_UNWIND_FRAMES, w.frames);
	/*
	 * The memo of the mappings looked up: the walk's with unwind tables,
	 * empty for a frame-pointer walk, whose chain mostly leaves the
	 * program for libc and comes back to it (_start) at its outermost
	 * frames: one lookup less.
	 */
	r->nr_user = lfr_collect_maps(s, b, &rc.memo, w.ips, w.nr, image,
				      sn->time_ns, &r->flags, &found, tables);
	/* the words follow the pcs kept */
	if (r->nr_words && r->nr_user < w.nr)
		memmove(r->ips + r->nr_user, r->ips + w.nr,
			r->nr_words * sizeof(u64));
	mmap_read_unlock(mm);
	if (slot)
		lfr_xr_keep(slot, gen, image, lost, changes, &found);
	return 0;
}

/*
 * The header of @w's USTACK record; with @lost_reason it has no stack, and
 * its ticks are lost.
 */
static void lfr_ustack_header(const struct lfr_walk *w,
			      struct lfr_rec_ustack *r, int lost_reason)
{
	const struct lfr_snapshot *sn = &w->snap;

	u32 words = 0;

	if (lost_reason) {
		r->flags = sn->flags;
		r->nr_user = 0;
		r->nr_words = 0;
		r->sp = sn->sp;
	} else if (LFR_ARCH_USTACK_REGS) {
		/* the leaf rule's registers: its caller may be in x30 */
		u64 *regs = r->ips + r->nr_user + r->nr_words;
		u64 mask = lfr_user_pac_mask();

		regs[0] = lfr_ret_addr(LFR_ISA_NATIVE, mask, sn->lr);
		regs[1] = mask;
		r->flags |= LFR_USTACK_F_REGS;
		words = LFR_ARCH_USTACK_REGS;
	}
	if (sn->own_tick)
		r->flags |= LFR_USTACK_F_TICK;
	r->hdr.type = LFR_REC_USTACK;
	r->hdr.size = sizeof(*r) +
		      (r->nr_user + r->nr_words + words) * sizeof(u64);
	r->walk_id = sn->walk_id;
	r->time_ns = sn->time_ns;
	r->tgid = sn->tgid;
	r->tid = sn->tid;
	r->lost_reason = lost_reason;
}

/*
 * The thread context @c (thread_ctx.c) at the end of @r, whose header is
 * written: the record's flags and size say it is there.
 */
static void lfr_ustack_ctx(struct lfr_rec_ustack *r,
			   const struct lfr_ustack_ctx *c)
{
	u8 *at = (u8 *)r + r->hdr.size;
	u32 n = sizeof(*c) + c->attrs_len, size = lfr_ctx_rec_size(c);

	memcpy(at, c, n);
	memset(at + n, 0, size - n);
	r->flags |= LFR_USTACK_F_CTX;
	r->hdr.size += size;
}

/*
 * The sampling latency of @w's walk, when its tick interrupted the kernel
 * and the walk runs at least the session's minimum after it: filled in @l
 * (whose size stays 0 otherwise).  CLOCK_MONOTONIC, as the tick's time.
 */
static void lfr_fill_latency(const struct lfr_session *s,
			     const struct lfr_walk *w,
			     struct lfr_rec_latency *l)
{
	const struct lfr_snapshot *sn = &w->snap;
	u64 now;

	if (!s->cfg.latency_min_ns || !sn->in_kernel)
		return;
	now = ktime_get_ns();
	if (now < sn->time_ns || now - sn->time_ns < s->cfg.latency_min_ns)
		return;
	memset(l, 0, sizeof(*l));
	l->hdr.type = LFR_REC_LATENCY;
	l->hdr.size = sizeof(*l);
	l->time_ns = now;
	l->tick_ns = sn->time_ns;
	l->walk_id = sn->walk_id;
	l->tgid = sn->tgid;
	l->tid = sn->tid;
}

/* A USTACK record @r committed for @ticks ticks and @offcpu intervals. */
static void lfr_count_committed(struct lfr_session *s,
				const struct lfr_rec_ustack *r, u32 ticks,
				u32 offcpu)
{
	lfr_count(s, LFR_CTR_OFFCPU_COMMITTED, offcpu);
	lfr_count(s, LFR_CTR_RECORDS_USTACK, 1);
	lfr_count(s, LFR_CTR_SAMPLES_COMMITTED, 1);
	lfr_count(s, LFR_CTR_TICKS_COMMITTED, ticks);
	if (r->flags & LFR_SAMPLE_F_USER_FAULT)
		lfr_count(s, LFR_CTR_USER_FAULT, 1);
	if (r->flags & LFR_SAMPLE_F_USER_BAD_FRAME)
		lfr_count(s, LFR_CTR_USER_BAD_FRAME, 1);
	if (r->flags & LFR_SAMPLE_F_USER_TRUNCATED)
		lfr_count(s, LFR_CTR_USER_TRUNCATED, 1);
	if (r->flags & LFR_SAMPLE_F_USER_NO_CFI)
		lfr_count(s, LFR_CTR_USER_NO_CFI, 1);
	if (r->flags & LFR_SAMPLE_F_COMPAT)
		lfr_count(s, LFR_CTR_COMPAT, 1);
}

static void lfr_commit(struct lfr_session *s, struct lfr_walk *w,
		       struct lfr_walk_buf *b, int lost_reason,
		       const struct lfr_ustack_ctx *ctx)
{
	struct lfr_thread *e = w->e;
	struct lfr_rec_ustack lost_rec __uninitialized, *r = b->rec;
	/*
	 * Written whole (lfr_fill_comm(), lfr_fill_latency()) when they are
	 * records; their size says whether they are: not zeroed at every walk.
	 */
	struct lfr_rec_comm comm __uninitialized;
	struct lfr_rec_latency lat __uninitialized;
	struct lfr_ring *ring;
	unsigned long flags;
	u32 off, ticks, offcpu, i;

	if (!r) {
		/* no buffer: the record of the loss only, from a clean one */
		memset(&lost_rec, 0, sizeof(lost_rec));
		r = &lost_rec;
	}
	comm.hdr.size = 0;
	lat.hdr.size = 0;
	if (!lost_reason) {
		lfr_fill_comm(e, w, &comm);
		lfr_fill_latency(s, w, &lat);
	}
	lfr_ustack_header(w, r, lost_reason);
	if (ctx && !lost_reason)
		lfr_ustack_ctx(r, ctx);

	/*
	 * Ticks of this thread come only on the CPU it runs on, this one:
	 * with interrupts off none can join the walk between the count
	 * read here and the claim's release.
	 */
	local_irq_save(flags);
	ticks = atomic_xchg(&w->ticks, 0);
	offcpu = atomic_xchg(&w->offcpu, 0);
	ring = s->rings[smp_processor_id()];
	r->ticks = ticks + offcpu;
	if (lost_reason) {
		lfr_count_lost(s, lost_reason, ticks);
		lfr_count(s, LFR_CTR_OFFCPU_LOST, offcpu);
		/* Tells readers to drop its TICK records; best effort. */
		if (r->ticks && !lfr_ring_write(ring, r, r->hdr.size))
			lfr_count(s, LFR_CTR_RECORDS_USTACK, 1);
		goto out;
	}
	for (off = 0, i = 0; off < b->maps_len; i++) {
		struct lfr_rec_header *h = (void *)(b->maps + off);

		if (lfr_ring_write(ring, h, h->size)) {
			lfr_ring_lost(ring, LFR_LOST_AUX_RING_FULL, 0);
			lfr_count_lost(s, LFR_LOST_AUX_RING_FULL, 1);
			lfr_seen_forget(s->seen, s->seen_mask, b->map_keys[i]);
			/* no thread may take its mapping as described */
			atomic_inc(&s->mmap_lost);
		} else {
			lfr_count(s, LFR_CTR_RECORDS_MMAP, 1);
		}
		off += h->size;
	}
	if (comm.hdr.size) {
		if (lfr_ring_write(ring, &comm, sizeof(comm))) {
			lfr_ring_lost(ring, LFR_LOST_AUX_RING_FULL, 0);
			lfr_count_lost(s, LFR_LOST_AUX_RING_FULL, 1);
			e->seen = false;	/* try again next sample */
		} else {
			lfr_count(s, LFR_CTR_RECORDS_COMM, 1);
		}
	}
	/* before the USTACK record, on its ring: a reader has it by then */
	if (lat.hdr.size) {
		lat.cpu = smp_processor_id();
		if (lfr_ring_write(ring, &lat, sizeof(lat))) {
			lfr_ring_lost(ring, LFR_LOST_AUX_RING_FULL, 0);
			lfr_count_lost(s, LFR_LOST_AUX_RING_FULL, 1);
			lfr_count(s, LFR_CTR_LATENCY_LOST, 1);
		} else {
			lfr_count(s, LFR_CTR_LATENCY, 1);
		}
	}
	if (lfr_ring_write(ring, r, r->hdr.size)) {
		lfr_ring_lost(ring, LFR_LOST_STACK_RING_FULL, ticks);
		lfr_count_lost(s, LFR_LOST_STACK_RING_FULL, ticks);
		lfr_count(s, LFR_CTR_OFFCPU_LOST, offcpu);
		goto out;
	}
	lfr_count_committed(s, r, ticks, offcpu);
out:
	/*
	 * The thread's next tick queues a new walk.  The walk's last access
	 * to the entry: once it reads NULL (acquire), a timer-mode reclaimer
	 * may give the entry to another thread (threads.c).
	 */
	smp_store_release(&e->walk, NULL);
	local_irq_restore(flags);
}

enum lfr_direct {
	LFR_DIRECT_DONE,	/* committed */
	LFR_DIRECT_NOT_KNOWN,	/* a pc outside the described ranges */
	LFR_DIRECT_NOT_TRIED,	/* another record first, or no room */
	LFR_DIRECT_WALKED,	/* walked, gone on with interrupts on: commit */
};

/*
 * The commit of a walk that needs no record but its USTACK one (the
 * thread's name unchanged, no latency to report) and no lookup
 * (lfr_walk_fast()): walked with interrupts off straight into the room it
 * takes in this CPU's ring, then published, with no copy.  Interrupts stay
 * off for at most LFR_IRQOFF_FRAMES frames and LFR_IRQOFF_PROBES steps of
 * row searches (perf takes its whole sample in an interrupt); a deeper
 * walk goes on with them on in a sample buffer, *@buf (LFR_DIRECT_WALKED),
 * which lfr_commit() commits: still one walk, one record.  Anything else
 * takes lfr_commit()'s way.
 */
static enum lfr_direct lfr_commit_direct(struct lfr_session *s,
					 struct lfr_walk *w,
					 const struct lfr_ustack_ctx *ctx,
					 struct lfr_rec_ustack **buf)
{
	const struct lfr_snapshot *sn = &w->snap;
	struct lfr_thread *e = w->e;
	u32 max = sizeof(struct lfr_rec_ustack) +
		  (s->cfg.user_depth + LFR_USTACK_WORDS) * sizeof(u64) +
		  (ctx ? lfr_ctx_rec_size(ctx) : 0);
	struct lfr_rec_ustack *r;
	/* set before it is read (lfr_walk_fast()): not zeroed at every walk */
	struct lfr_irqoff io __uninitialized;
	struct lfr_ring *ring;
	u32 ticks, offcpu;

	if (!e->seen || e->comm_hash != lfr_comm_now() ||
	    (s->cfg.latency_min_ns && sn->in_kernel))
		return LFR_DIRECT_NOT_TRIED;
	local_irq_save(io.flags);
	ring = s->rings[smp_processor_id()];
	r = lfr_ring_reserve(ring, max);
	if (!r) {
		local_irq_restore(io.flags);
		return LFR_DIRECT_NOT_TRIED;
	}
	if (!lfr_walk_fast(s, w, r, &io)) {
		/* nothing published: the room is taken again by the next record */
		if (io.buf)
			lfr_walk_pool_put(&s->walk_bufs, io.buf);
		else
			local_irq_restore(io.flags);
		return LFR_DIRECT_NOT_KNOWN;
	}
	if (io.buf) {
		/* interrupts are on: the room is another record's by now */
		*buf = io.buf;
		return LFR_DIRECT_WALKED;
	}
	lfr_ustack_header(w, r, 0);
	if (ctx)
		lfr_ustack_ctx(r, ctx);
	/* as in lfr_commit(): no tick can join the walk from here on */
	ticks = atomic_xchg(&w->ticks, 0);
	offcpu = atomic_xchg(&w->offcpu, 0);
	r->ticks = ticks + offcpu;
	lfr_ring_publish(ring, r->hdr.size);
	lfr_count_committed(s, r, ticks, offcpu);
	/* the walk's last access to the entry, as in lfr_commit() */
	smp_store_release(&e->walk, NULL);
	local_irq_restore(io.flags);
	return LFR_DIRECT_DONE;
}

void lfr_work_fn(struct callback_head *work)
{
	struct lfr_walk *w = container_of(work, struct lfr_walk, work);
	struct lfr_session *s;
	struct task_struct *t = current;
	/* its fields are set below, before any is read: not zeroed */
	struct lfr_walk_buf b __uninitialized;
	/* read before the walk when the process has one; not zeroed */
	union lfr_ctx_copy ctx __uninitialized;
	const struct lfr_ustack_ctx *c = NULL;
	u64 t0 = local_clock();	/* not ktime_get_ns(): see lfr_timer_fn() */
	unsigned long switches = t->nvcsw + t->nivcsw;
	unsigned long old = atomic_long_read(&w->state);
	enum lfr_direct direct;
	s64 ns;
	int lost = 0;
	bool last;

	/*
	 * Given up by STOP, which counted its ticks, dropped its session
	 * references and took a module reference for it: the session may be
	 * gone, only the object is left.  The hand-off of that reference is
	 * the last statement (lfr_module_put_deferred()).
	 */
	if (!lfr_walk_claim(w, old, LFR_WALK_RUNNING)) {
		lfr_walk_obj_done(w);
		lfr_module_put_deferred();
		return;
	}
	s = w->s;
	b.rec = NULL;
	b.maps = NULL;
	b.maps_len = 0;
	b.nr_maps = 0;
	b.path = NULL;
	lost = lfr_walk_check(&w->snap, t, task_pt_regs(t));
	/* before the walk, which may run with interrupts off: it may fault */
	if (!lost && !(w->snap.flags & LFR_SAMPLE_F_COMPAT) &&
	    lfr_ctx_get(s, &ctx))
		c = &ctx.c;
	direct = lost ? LFR_DIRECT_NOT_TRIED :
			lfr_commit_direct(s, w, c, &b.rec);
	if (direct != LFR_DIRECT_DONE) {
		/* LFR_DIRECT_WALKED: the stack is in b.rec, with no lookup */
		if (!lost && direct != LFR_DIRECT_WALKED) {
			b.rec = lfr_walk_pool_get(&s->walk_bufs);
			if (!b.rec)
				lost = LFR_LOST_NOMEM;
			else
				lost = lfr_user_stack(s, w, &b,
						      direct == LFR_DIRECT_NOT_KNOWN);
		}
		lfr_commit(s, w, &b, lost, c);
		lfr_walk_pool_put(&s->walk_bufs, b.rec);
		kfree(b.maps);
		kfree(b.path);
	}

	/*
	 * The walk's cost is its CPU time: a walk that was switched out (it may
	 * sleep on the mapping lock, or be preempted) measured other threads'
	 * time too, and is only counted as such.
	 */
	ns = local_clock() - t0;
	if (t->nvcsw + t->nivcsw == switches && ns > 0) {
		lfr_count(s, LFR_CTR_WORK_NS, ns);
		lfr_count(s, LFR_CTR_WORK_COUNT, 1);
		lfr_cpu_share_charge(ns);
	} else {
		lfr_count(s, LFR_CTR_WORK_SWITCHED, 1);
	}
	/*
	 * This walk's pending count holds the module (through the reference
	 * START took) until it is dropped, so everything that may sleep comes
	 * first: giving the object back may allocate.  The session reference
	 * is not the last one (the registry keeps a session until it is
	 * STOPPED, which needs this walk's pending count).  Once the count is
	 * dropped nothing may sleep: another walk or STOP may hand the module
	 * reference over meanwhile.  When it was the last, this walk holds that
	 * reference and hands it over as its very last statement: nothing of
	 * the module runs after it but this function's return
	 * (lfr_module_put_deferred()).
	 */
	lfr_walk_obj_done(w);
	lfr_session_put(s);
	last = lfr_pending_put(s);
	if (last)
		lfr_module_put_deferred();
}

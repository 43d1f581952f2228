/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the records a walk writes besides its stack (walk_records.c): an
 * MMAP record for each mapping its pcs lie in that this process image has
 * not described yet, found by the mapping lookups a walk keeps in its memo,
 * and a COMM record when the thread's name changed.
 */
#ifndef LFR_WALK_RECORDS_H
#define LFR_WALK_RECORDS_H

#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/lfr.h>
#include "unwind_tables.h"

struct lfr_session;
struct lfr_thread;
struct lfr_walk;
struct lfr_xr_found;

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
 * Keys of the seen table: a multiply-xorshift mix of a few words, a handful
 * of instructions per word (two jhash2 per key were a tenth of the walk).
 */
static __always_inline u64 lfr_mix(u64 h, u64 v)
{
	h = (h ^ v) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/* The key of @t's process image: tgid, start time, exec. */
static inline u64 lfr_image_hash(struct task_struct *t)
{
	u64 h = lfr_mix(0x4c46522d696d6167ULL, t->tgid);

	h = lfr_mix(h, t->group_leader->start_time);
	return lfr_mix(h, t->self_exec_id);
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
static inline const struct lfr_unwind_table *
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

/* find_vma(), first among the mappings @m holds (may be NULL). */
static inline struct vm_area_struct *
lfr_vma_of(struct mm_struct *mm, struct lfr_vma_memo *m, u64 pc)
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

u32 lfr_collect_maps(struct lfr_session *s, struct lfr_walk_buf *b,
		     struct lfr_vma_memo *memo, const u64 *ips, u32 nr,
		     u64 image, u64 time_ns, u32 *flags,
		     struct lfr_xr_found *found, bool tables);
u32 lfr_comm_now(void);
void lfr_fill_comm(struct lfr_thread *e, const struct lfr_walk *w,
		   struct lfr_rec_comm *c);

#endif /* LFR_WALK_RECORDS_H */

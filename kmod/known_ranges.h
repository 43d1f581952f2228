/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: a walk's reads of its mm's slot (mm_watch.h): whether the ranges
 * described before hold for it, and the unwind rows of its pcs in them,
 * with no mapping lookup and no call (walk_known.c).
 */
#ifndef LFR_KNOWN_RANGES_H
#define LFR_KNOWN_RANGES_H

#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/sched.h>
#include <linux/types.h>
#include "frame_check.h"
#include "mm_watch.h"
#include "unwind_rows.h"
#include "unwind_tables.h"

/*
 * Under @m's seq: its watch when @m is the current mm's and its ranges
 * were found for this image, with no mapping of the mm changed and no
 * MMAP record lost since; else NULL.  @m's watch is followed only once its
 * mm is known to be current's (lfr_mm_slot_watch()): a live mm's slot is
 * never given up while its threads walk.
 */
static inline const struct lfr_mm_watch *
lfr_xr_valid(const struct lfr_mm_slot *m, u64 image, u32 lost)
{
	const struct lfr_mm_watch *w = lfr_mm_slot_watch(m, current->mm);

	if (!w || m->image != image || m->lost != lost ||
	    m->gen != lfr_mm_watch_gen(w))
		return NULL;
	return w;
}

/* Whether every pc of @ips lies in one of the @n ranges [lo, hi). */
static inline bool lfr_in_ranges(const unsigned long *lo,
				 const unsigned long *hi, u32 n,
				 const u64 *ips, u32 nr)
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
static inline bool lfr_known_copy(const struct lfr_mm_slot *m, u64 image,
				  u32 lost, unsigned long tables,
				  struct lfr_known_rows *k)
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

#endif /* LFR_KNOWN_RANGES_H */

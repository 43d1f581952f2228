/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: checking an unwind table and finding the row of a file offset. */
#ifndef LFR_UNWIND_ROWS_H
#define LFR_UNWIND_ROWS_H

#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <linux/lfr.h>
#include "frame_check.h"

/*
 * Checks a table as user space gave it: header fields, then every row.
 * Returns 0, or -EINVAL with *bad_row set to the first bad row (-1 for the
 * header) and *why to a message (-ENOMEM with *bad_row -1: no memory for
 * the check).  Process context: it allocates.
 */
int lfr_unwind_rows_check(const struct lfr_unwind_hdr *h,
			  const struct lfr_unwind_row *rows, u32 nr,
			  s64 *bad_row, const char **why);

/*
 * The index of the last row starting at or before @off, or U32_MAX.
 * Inline: a walk runs it inside its user-access section, where no call may
 * be made.
 */
static __always_inline u32
lfr_unwind_rows_index(const struct lfr_unwind_row *rows, u32 nr, u64 off)
{
	u32 lo = 0, hi = nr;

	if (!nr || off < rows[0].start)
		return U32_MAX;
	/* rows[lo].start <= off < rows[hi].start, rows[nr] being past all */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (rows[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Row @i (U32_MAX: none) as a lookup's result, *@out pointing to it. */
static __always_inline enum lfr_row_found
lfr_unwind_row_at(const struct lfr_unwind_row *rows, u32 i,
		  const struct lfr_unwind_row **out)
{
	if (i == U32_MAX)
		return LFR_ROW_NONE;
	*out = &rows[i];
	return rows[i].cfa == LFR_UNWIND_CFA_NONE ? LFR_ROW_NONE :
						    LFR_ROW_FOUND;
}

/* The rule for file offset @off: the last row starting at or before it. */
static inline enum lfr_row_found
lfr_unwind_rows_find(const struct lfr_unwind_row *rows, u32 nr, u64 off,
		     const struct lfr_unwind_row **out)
{
	return lfr_unwind_row_at(rows, lfr_unwind_rows_index(rows, nr, off),
				 out);
}

/* A hint that names no offset's row (its index is past every table). */
#define LFR_UNWIND_NO_HINT	U64_MAX

/*
 * The same search, first trying the hint (1 << (32 - @hint_shift) of them)
 * that the last lookup of an offset of the same hash left: that offset and
 * the index of its row, in one word.  A walk meets the same return
 * addresses sample after sample: one load and one compare instead of a
 * binary search.  The hints are shared by walks on every CPU without a
 * lock: each is written whole, and only with what a search of these rows
 * found, so a hint that holds @off holds its row (a racing write costs the
 * search, never a wrong row); they start as LFR_UNWIND_NO_HINT.  @off is a
 * 32-bit file offset.  Inline: a walk with unwind tables runs it for each
 * new pc, inside its user-access section.
 */
static __always_inline enum lfr_row_found
lfr_unwind_rows_find_hinted(const struct lfr_unwind_row *rows, u32 nr,
			    u64 *hints, u32 hint_shift, u32 off,
			    const struct lfr_unwind_row **out)
{
	u64 *hint = &hints[(off * 0x9e3779b1U) >> hint_shift];
	u64 v = READ_ONCE(*hint);
	u32 i = v >> 32;

	if (likely((u32)v == off && i < nr))
		return lfr_unwind_row_at(rows, i, out);
	i = lfr_unwind_rows_index(rows, nr, off);
	if (i != U32_MAX)
		WRITE_ONCE(*hint, (u64)i << 32 | off);
	return lfr_unwind_row_at(rows, i, out);
}

/*
 * As lfr_unwind_rows_find_hinted(), but a search takes its steps (at most
 * fls(@nr): the halvings of @nr rows) from *@probes, and one that would
 * take more than are left is not made: LFR_ROW_PAUSE.  A hint that holds
 * @off costs none.
 */
static __always_inline enum lfr_row_found
lfr_unwind_rows_find_bounded(const struct lfr_unwind_row *rows, u32 nr,
			     u64 *hints, u32 hint_shift, u32 off,
			     const struct lfr_unwind_row **out, u32 *probes)
{
	u64 *hint = &hints[(off * 0x9e3779b1U) >> hint_shift];
	u64 v = READ_ONCE(*hint);
	u32 i = v >> 32, steps;

	if (likely((u32)v == off && i < nr))
		return lfr_unwind_row_at(rows, i, out);
	steps = fls(nr);
	if (steps > *probes)
		return LFR_ROW_PAUSE;
	*probes -= steps;
	i = lfr_unwind_rows_index(rows, nr, off);
	if (i != U32_MAX)
		WRITE_ONCE(*hint, (u64)i << 32 | off);
	return lfr_unwind_row_at(rows, i, out);
}

#endif /* LFR_UNWIND_ROWS_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: checking an unwind table and finding the row of a file offset. */
#ifndef LFR_UNWIND_ROWS_H
#define LFR_UNWIND_ROWS_H

#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <linux/lfr.h>
#include "frame_check.h"

/*
 * Checks a table as user space gave it: header fields, then every row.
 * Returns 0, or -EINVAL with *bad_row set to the first bad row (-1 for the
 * header) and *why to a message.
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

/*
 * The same search, first trying the row that @hints (1 << @hint_bits of
 * them, 1 .. 31, any values) remembers for offsets of the same hash (a
 * walk meets the same return addresses sample after sample): one probe
 * instead of a binary search.  A hint is only a candidate, checked against
 * the rows themselves, so the hints are shared by walks on every CPU
 * without a lock: a stale or racing one costs the search, never a wrong
 * row.  Inline: a walk with unwind tables runs it for each new pc, inside
 * its user-access section.
 */
static __always_inline enum lfr_row_found
lfr_unwind_rows_find_hinted(const struct lfr_unwind_row *rows, u32 nr,
			    u32 *hints, u32 hint_bits, u64 off,
			    const struct lfr_unwind_row **out)
{
	u32 *hint = &hints[((u32)off * 0x9e3779b1U) >> (32 - hint_bits)];
	u32 i = READ_ONCE(*hint);

	if (likely(i < nr && rows[i].start <= off &&
		   (i + 1 == nr || off < rows[i + 1].start)))
		return lfr_unwind_row_at(rows, i, out);
	i = lfr_unwind_rows_index(rows, nr, off);
	if (i != U32_MAX)
		WRITE_ONCE(*hint, i);
	return lfr_unwind_row_at(rows, i, out);
}

#endif /* LFR_UNWIND_ROWS_H */

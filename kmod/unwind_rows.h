/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: checking an unwind table and finding the row of a file offset. */
#ifndef LFR_UNWIND_ROWS_H
#define LFR_UNWIND_ROWS_H

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

/* The rule for file offset @off: the last row starting at or before it. */
enum lfr_row_found lfr_unwind_rows_find(const struct lfr_unwind_row *rows,
					u32 nr, u64 off,
					struct lfr_unwind_row *out);

/*
 * The same with hints: 1 << @hint_bits (1 .. 31) row indexes, any values,
 * updated by the search; see unwind_rows.c.
 */
enum lfr_row_found lfr_unwind_rows_find_hinted(const struct lfr_unwind_row *rows,
					       u32 nr, u32 *hints,
					       u32 hint_bits, u64 off,
					       struct lfr_unwind_row *out);

#endif /* LFR_UNWIND_ROWS_H */

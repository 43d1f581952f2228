// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: checking the unwind-table rows user space hands over, once, when
 * they arrive (the search every walk runs is inline: unwind_rows.h).
 */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/time64.h>
#include "unwind_rows.h"

/*
 * arm64's return-address rules (the row's high four bits); none on
 * x86-64, where the return address is the word at CFA - 8.
 */
static const char *lfr_unwind_ra_bad(const struct lfr_unwind_row *r, u8 bp,
				     u8 ra)
{
	if (ra && LFR_ISA_NATIVE != LFR_ISA_ARM64)
		return "return address rule of another architecture";
	if (ra >= __LFR_UNWIND_RA_MAX)
		return "unknown return address rule";
	if (r->cfa == LFR_UNWIND_CFA_SP &&
	    r->cfa_off < (ra == LFR_UNWIND_RA_LR ? 0 : 8))
		return "CFA below the return address";
	if (ra == LFR_UNWIND_RA_AT_CFA &&
	    (bp == LFR_UNWIND_BP_AT_CFA || (r->bp_off & 7) || r->bp_off >= 0))
		return "return address not saved below the CFA in a word";
	if (ra == LFR_UNWIND_RA_PAIR &&
	    (bp != LFR_UNWIND_BP_AT_CFA || r->bp_off > -16))
		return "return address not saved after the frame pointer";
	return NULL;
}

static const char *lfr_unwind_row_bad(const struct lfr_unwind_row *r)
{
	u8 bp = LFR_UNWIND_BP_RULE(r->bp), ra = LFR_UNWIND_RA_RULE(r->bp);

	if (r->cfa >= __LFR_UNWIND_CFA_MAX)
		return "unknown CFA rule";
	if (bp >= __LFR_UNWIND_BP_MAX)
		return "unknown rbp rule";
	if (r->cfa != LFR_UNWIND_CFA_SP && r->cfa != LFR_UNWIND_CFA_BP)
		return ra ? "return address rule without a CFA" : NULL;
	if (r->cfa_off & 7)
		return "CFA offset not a multiple of 8";
	if (bp == LFR_UNWIND_BP_AT_CFA && ((r->bp_off & 7) || r->bp_off >= 0))
		return "rbp not saved below the CFA in a word";
	return lfr_unwind_ra_bad(r, bp, ra);
}

/*
 * A table repeats a few rules thousands of times (the same prologue and
 * epilogue in every function), and whether a row is good depends on its
 * rule alone (offsets, CFA and rbp/return-address rules), never on its
 * start: a row whose rule is one already found good costs a compare.  The
 * memo holds only rules found good; its empty slots hold 0, the rule
 * "no CFA" with no offsets, which is good.  Of 256 slots (2 KiB, too much
 * for the stack), 2 % of the rows of libc, busybox or lfr miss, against
 * 20 % of 32 slots: a few hundred rules in a library.
 */
#define LFR_RULE_MEMO_BITS	8

static inline u64 lfr_unwind_rule(const struct lfr_unwind_row *r)
{
	return (u64)(u32)r->cfa_off | (u64)(u16)r->bp_off << 32 |
	       (u64)r->cfa << 48 | (u64)r->bp << 56;
}

static inline u64 *lfr_unwind_memo_slot(u64 *memo, u64 rule)
{
	return &memo[(rule * 0x9e3779b97f4a7c15ull) >>
		     (64 - LFR_RULE_MEMO_BITS)];
}

/*
 * The first row from @i on whose rule the memo lacks or that does not
 * start past its predecessor: the loop most rows take, nothing else in it.
 */
static u32 lfr_unwind_rows_known(const struct lfr_unwind_row *rows, u32 i,
				 u32 nr, u64 *memo)
{
	s64 prev = i ? rows[i - 1].start : -1;

	for (; i < nr; i++) {
		u64 rule = lfr_unwind_rule(&rows[i]);

		if (*lfr_unwind_memo_slot(memo, rule) != rule ||
		    rows[i].start <= prev)
			break;
		prev = rows[i].start;
	}
	return i;
}

int lfr_unwind_rows_check(const struct lfr_unwind_hdr *h,
			  const struct lfr_unwind_row *rows, u32 nr,
			  s64 *bad_row, const char **why)
{
	u64 *memo;
	u32 i;

	*bad_row = -1;
	if (h->magic != LFR_UNWIND_MAGIC || h->version != LFR_UNWIND_VERSION) {
		*why = "not an lfr unwind table of this version";
		return -EINVAL;
	}
	if (h->reserved || h->reserved2 || h->ctime_nsec >= NSEC_PER_SEC) {
		*why = "reserved header fields must be 0";
		return -EINVAL;
	}
	if (!h->nr_rows || h->nr_rows > LFR_UNWIND_MAX_ROWS ||
	    h->nr_rows != nr) {
		*why = "row count out of range or not the table's size";
		return -EINVAL;
	}
	memo = kcalloc(1 << LFR_RULE_MEMO_BITS, sizeof(*memo), GFP_KERNEL);
	if (!memo) {
		*why = "out of memory for checking the table";
		return -ENOMEM;
	}
	*why = NULL;
	for (i = 0; (i = lfr_unwind_rows_known(rows, i, nr, memo)) < nr; i++) {
		u64 rule = lfr_unwind_rule(&rows[i]);
		u64 *m = lfr_unwind_memo_slot(memo, rule);

		if (*m != rule) {
			*why = lfr_unwind_row_bad(&rows[i]);
			if (*why)
				break;
			*m = rule;
		}
		if (i && rows[i].start <= rows[i - 1].start) {
			*why = "rows not sorted by start, strictly increasing";
			break;
		}
	}
	kfree(memo);
	if (!*why)
		return 0;
	*bad_row = i;
	return -EINVAL;
}

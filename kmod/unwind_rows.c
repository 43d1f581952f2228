// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: checking the unwind-table rows user space hands over, once, when
 * they arrive (the search every walk runs is inline: unwind_rows.h).
 */
#include <linux/errno.h>
#include <linux/limits.h>
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

int lfr_unwind_rows_check(const struct lfr_unwind_hdr *h,
			  const struct lfr_unwind_row *rows, u32 nr,
			  s64 *bad_row, const char **why)
{
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
	for (i = 0; i < nr; i++) {
		*why = lfr_unwind_row_bad(&rows[i]);
		if (!*why && i && rows[i].start <= rows[i - 1].start)
			*why = "rows not sorted by start, strictly increasing";
		if (*why) {
			*bad_row = i;
			return -EINVAL;
		}
	}
	return 0;
}

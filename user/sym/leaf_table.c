// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf rule (cfi.h) read from the object's unwind table (unwind_table.h), where the recorder's
 * cache keeps one (unwind_cache.h: the table built for the module, by build-id).
 *
 * A table row holds what the rule asks of the CFI at a pc: the CFA as sp + k or fp + k, where the
 * caller's frame pointer and return address are.  Only for objects without .eh_frame_hdr (no
 * PT_GNU_EH_FRAME: Debian's static busybox), where libdw finds a pc's FDE by reading and
 * interning every FDE before it: 3.2 million instructions for a pc near the end of busybox's
 * text, against 0.18 million for the table (its file mapped, its CRC and order checked, a binary
 * search).  With the search table libdw's first pc of libc costs 76 000 and each next one about
 * 4 700, the table's 294 000 (its CRC) and 640: more until some fifty distinct leaves, so libdw
 * keeps those objects.  A row without a rule (NONE: an expression, a register kept in another
 * one, a signal frame, no FDE) is left to libdw, which may still find one (a frame pointer saved
 * at a positive offset, a separate debug file's .debug_frame): the rule is the one libdw gives,
 * pc for pc (tests/unit/sym_leaf_table_test.c).
 */
#include <stdlib.h>
#include <string.h>

#include "sym/cfi.h"
#include "sym/internal.h"
#include "sym/unwind_cache.h"

/* The object's table from the cache, read once; NULL when there is none. */
static const struct lfr_unwind_table *table_of(struct elfobj *o)
{
	struct lfr_unwind_table *t;
	char why[256];
	int ret;

	if (o->leaf_table_tried)
		return o->leaf_table;
	o->leaf_table_tried = true;
	if (!o->cache || !o->file_path || o->debug_only || o->image || !o->build_id_len ||
	    o->eh_frame_hdr)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	ret = lfr_unwind_cache_find(o->cache, o->build_id, o->build_id_len, o->file_size, t, why,
	                            sizeof(why));
	if (ret) {
		/* a file the loader cannot use either: it says so, and builds it again */
		free(t);
		return NULL;
	}
	if (o->cache_st)
		o->cache_st->leaf_tables++;
	o->leaf_table = t;
	return t;
}

/* The file offset of vaddr (in the PT_LOAD that holds it): the table's rows start at offsets. */
static bool file_offset(const struct elfobj *o, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < o->nsegs; i++) {
		const struct elf_seg *s = &o->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = vaddr - s->vaddr + s->offset;
			return true;
		}
	}
	return false;
}

/*
 * The rule of one row, as cfi.c's apply() gives it for the CFI row the table row was made from
 * (the table keeps the CFA, the frame pointer's rule and, on arm64, the return address's).
 */
static int rule_of_row(const struct lfr_unwind_row *row, uint64_t *slot)
{
	unsigned int bp = LFR_UNWIND_BP_RULE(row->bp), ra = LFR_UNWIND_RA_RULE(row->bp);
	int64_t ra_off;

	switch (row->cfa) {
	case LFR_UNWIND_CFA_BP:
		/*
		 * The frame is set up when the caller's frame pointer is saved at the frame base
		 * and the return address right above it (x86-64: CFA = rbp + 16, rbp at CFA - 16;
		 * arm64: the frame record x29, x30 at x29).
		 */
		if (bp == LFR_UNWIND_BP_AT_CFA && row->bp_off == -(int64_t)row->cfa_off &&
		    (ra == LFR_UNWIND_RA_PAIR ||
		     (ra == LFR_UNWIND_RA_CFA_M8 && row->bp_off == -16)))
			return LFR_LEAF_FP_OK;
		return LFR_LEAF_UNKNOWN;
	case LFR_UNWIND_CFA_SP:
		/* no frame of its own: every frame-pointer rule a table keeps leaves the caller's
		 */
		switch (ra) {
		case LFR_UNWIND_RA_LR:
			return CFI_LEAF_CALLER_LR;
		case LFR_UNWIND_RA_CFA_M8:
			ra_off = -8;
			break;
		case LFR_UNWIND_RA_AT_CFA:
			ra_off = row->bp_off;
			break;
		case LFR_UNWIND_RA_PAIR:
			ra_off = row->bp_off + 8;
			break;
		default:
			return CFI_LEAF_ASK_LIBDW;
		}
		if (row->cfa_off + ra_off < 0)
			return LFR_LEAF_UNKNOWN;
		*slot = (uint64_t)(row->cfa_off + ra_off) / 8;
		return LFR_LEAF_CALLER;
	case LFR_UNWIND_OUTERMOST:
		return LFR_LEAF_UNKNOWN; /* the return address is undefined: no caller */
	default:
		return CFI_LEAF_ASK_LIBDW;
	}
}

int leaf_table_rule(struct elfobj *o, uint64_t vaddr, uint64_t *slot)
{
	const struct lfr_unwind_table *t = table_of(o);
	const struct lfr_unwind_row *row;
	uint64_t off;

	if (!t || !file_offset(o, vaddr, &off))
		return CFI_LEAF_ASK_LIBDW;
	row = lfr_unwind_table_find(t, off);
	return row ? rule_of_row(row, slot) : CFI_LEAF_ASK_LIBDW;
}

void leaf_table_free(struct elfobj *o)
{
	if (o->leaf_table) {
		lfr_unwind_table_free(o->leaf_table);
		free(o->leaf_table);
	}
	o->leaf_table = NULL;
	o->leaf_table_tried = false;
}

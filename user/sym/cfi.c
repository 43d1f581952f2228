// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf rule (cfi.h): the CFI row of an interrupted pc decides whether the frame-pointer chain
 * above it is right, or lacks the caller whose return address the CFI locates in the stack words
 * the kernel copied.
 *
 * CFI comes from the object's unwind table where the recorder's cache keeps one (leaf_table.c),
 * else from libdw: the object's .eh_frame (what the C library's own unwinder uses), else its
 * .debug_frame, else the .debug_frame of its separate debug file.  The file is opened again on the
 * first pc that needs it (the symbol reader closed it), the sections libdw keeps read into memory
 * by libelf (with pread, not mapped: a file cut later cannot raise SIGBUS) and kept with the
 * object, without a file descriptor, for the symbolizer's lifetime.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "lib/regular_file.h"
#include "sym/cfi.h"
#include "sym/cfi_rule.h"
#include "sym/internal.h"

struct cfi {
	const struct cfi_regs *regs; /* its machine's registers */
	Elf *elf;                    /* the object's file */
	Dwarf_CFI *eh;               /* its .eh_frame (ends with dwarf_cfi_end), or NULL */
	Dwarf *dw;                   /* its DWARF, for .debug_frame, or NULL */
	Elf *dbg_elf;                /* the separate debug file */
	Dwarf *dbg_dw;               /* its DWARF, for .debug_frame, or NULL */
};

/*
 * The leaf rule of the pcs met last, per object: a profile interrupts the same few instructions
 * again and again, and libdw interprets the CFI program of the pc's FDE (and allocates its row)
 * on every lookup.  Direct-mapped by vaddr; the rule depends on the object's CFI alone.
 */
#define CFI_MEMO_SLOTS 256

struct cfi_memo {
	struct {
		uint64_t vaddr; /* + 1: 0 is an empty slot */
		uint32_t slot;
		uint8_t rule;
	} e[CFI_MEMO_SLOTS];
};

void cfi_memo_free(struct cfi_memo *m)
{
	free(m);
}

void cfi_free(struct cfi *c)
{
	if (!c)
		return;
	if (c->eh)
		dwarf_cfi_end(c->eh);
	if (c->dw)
		dwarf_end(c->dw);
	if (c->dbg_dw)
		dwarf_end(c->dbg_dw);
	if (c->elf)
		elf_end(c->elf);
	if (c->dbg_elf)
		elf_end(c->dbg_elf);
	free(c);
}

/*
 * Opens an ELF file for its CFI; when dev/ino are given the file must still be that one (a file
 * replaced since it was read describes other code).  The file is read, not mapped: one cut
 * meanwhile would raise SIGBUS through a mapping (sym/elfobj.c).  *fd stays open until
 * let_go() once what is kept has been read.
 */
static Elf *open_elf(const char *path, dev_t dev, ino_t ino, bool check, int *fd)
{
	struct stat st;
	Elf *e = NULL;

	*fd = lfr_open_regular(path, O_RDONLY, &st);
	if (*fd < 0) {
		*fd = -1;
		return NULL;
	}
	if (!check || (st.st_dev == dev && st.st_ino == ino)) {
		e = elf_begin(*fd, ELF_C_READ, NULL);
		if (e && elf_kind(e) != ELF_K_ELF) {
			elf_end(e);
			e = NULL;
		}
	}
	if (!e) {
		close(*fd);
		*fd = -1;
	}
	return e;
}

/*
 * Closes the file of e once libdw has read what it keeps (the CFI sections, and with DWARF the
 * .debug_* sections): no descriptor stays open per object, and libelf reads nothing more.
 */
static void let_go(Elf *e, int *fd)
{
	if (e)
		elf_cntl(e, ELF_C_FDDONE);
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* A debug file still describes the object when their build-ids match (checked when it was read). */
static bool same_build_id(Elf *e, const struct elfobj *o)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(e, &id);

	if (!o->build_id_len)
		return true;
	return n == (ssize_t)o->build_id_len && !memcmp(id, o->build_id, o->build_id_len);
}

/* Whether the file has a .debug_frame section (libdw reads DWARF only when asked). */
static bool has_debug_frame(Elf *e)
{
	return cfi_elf_section(e, ".debug_frame") != NULL;
}

static struct cfi *cfi_load(struct elfobj *o)
{
	struct cfi *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	int fd = -1;

	if (o->image)
		c->elf = elf_memory(o->image, o->image_len);
	else if (o->file_path && !o->debug_only)
		c->elf = open_elf(o->file_path, o->file_dev, o->file_ino, true, &fd);
	c->regs = c->elf ? cfi_regs_of(c->elf) : NULL;
	if (c->elf && !c->regs) {
		let_go(c->elf, &fd);
		cfi_free(c);
		return NULL;
	}
	if (c->elf) {
		c->eh = dwarf_getcfi_elf(c->elf);
		if (has_debug_frame(c->elf))
			c->dw = dwarf_begin_elf(c->elf, DWARF_C_READ, NULL);
	}
	let_go(c->elf, &fd);
	/* The debug file's .eh_frame is empty (NOBITS); only its .debug_frame counts. */
	if (o->debug_path) {
		c->dbg_elf = open_elf(o->debug_path, 0, 0, false, &fd);
		if (c->dbg_elf && cfi_regs_of(c->dbg_elf) && same_build_id(c->dbg_elf, o) &&
		    has_debug_frame(c->dbg_elf)) {
			c->dbg_dw = dwarf_begin_elf(c->dbg_elf, DWARF_C_READ, NULL);
			if (!c->regs)
				c->regs = cfi_regs_of(c->dbg_elf);
		}
		let_go(c->dbg_elf, &fd);
	}
	return c;
}

/* The CFI row of vaddr (malloc'd), from the first CFI of the object that covers it. */
static Dwarf_Frame *row_of(struct cfi *c, uint64_t vaddr)
{
	Dwarf_CFI *all[3] = {c->eh, c->dw ? dwarf_getcfi(c->dw) : NULL,
	                     c->dbg_dw ? dwarf_getcfi(c->dbg_dw) : NULL};
	Dwarf_Frame *fr;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] && !dwarf_cfi_addrframe(all[i], vaddr, &fr))
			return fr;
	return NULL;
}

/*
 * The rule itself, on one CFI row of a machine with registers R.  *slot is the index of the
 * return address in the stack words for LFR_LEAF_CALLER.
 *
 * x86-64: with CFA = rbp + 16 and rbp saved at CFA - 16 the function's frame is set up; with CFA
 * = rsp + k it has none (yet, or any more), and its return address is the word at CFA - 8.
 * arm64: the frame is set up when CFA = x29 + k with x29 saved at CFA - k and x30 right after
 * it, the frame record the walk reads at x29; with CFA = sp + k the walk's first record is the
 * caller's, and the return address is still in x30 (CFI_LEAF_CALLER_LR) or saved at CFA + n.
 */
static int apply(Dwarf_Frame *fr, const struct cfi_regs *r, uint64_t *slot)
{
	Dwarf_Addr start, end;
	bool signal_frame;
	struct cfi_row row;
	int64_t cfa_off, ra_off, fp_off;
	int cfa_reg;
	enum cfi_rule fp, ra;

	/* A signal frame's "caller" is the interrupted context, not a call. */
	if (dwarf_frame_info(fr, &start, &end, &signal_frame) != r->ra || signal_frame)
		return LFR_LEAF_UNKNOWN;
	cfi_row_of_frame(fr, r, &row);
	if (!row.cfa_ok)
		return LFR_LEAF_UNKNOWN;
	cfa_reg = row.cfa_reg;
	cfa_off = row.cfa_off;
	ra = row.ra;
	ra_off = row.ra_off;
	fp = row.fp;
	fp_off = row.fp_off;
	if (!(ra == CFI_RULE_AT_CFA && (ra_off == -8 || r->lr)) && !(ra == CFI_RULE_SAME && r->lr))
		return LFR_LEAF_UNKNOWN;
	if (cfa_reg == r->fp) {
		/*
		 * The frame is set up: the return address and the caller's frame pointer lie where
		 * the frame-pointer walk reads them (x86-64: push %rbp; mov %rsp,%rbp done, at rbp
		 * + 8 and rbp).
		 */
		if (r->lr ? fp == CFI_RULE_AT_CFA && fp_off == -cfa_off && ra == CFI_RULE_AT_CFA &&
		                ra_off == fp_off + 8
		          : cfa_off == 16 && fp == CFI_RULE_AT_CFA && fp_off == -16)
			return LFR_LEAF_FP_OK;
		return LFR_LEAF_UNKNOWN;
	}
	if (cfa_reg != r->sp)
		return LFR_LEAF_UNKNOWN;
	/*
	 * No frame of its own: the frame pointer is the caller's (never touched, or saved and not
	 * yet made the frame base, or restored), so the walk's first step skips the caller.  A
	 * register saved in another register or by an expression is not a case the walk can be
	 * fixed for.
	 */
	if (fp != CFI_RULE_SAME && fp != CFI_RULE_UNDEFINED && fp != CFI_RULE_AT_CFA)
		return LFR_LEAF_UNKNOWN;
	if (ra == CFI_RULE_SAME)
		return CFI_LEAF_CALLER_LR;
	if (cfa_off + ra_off < 0 || (cfa_off + ra_off) % 8)
		return LFR_LEAF_UNKNOWN;
	*slot = (uint64_t)(cfa_off + ra_off) / 8;
	return LFR_LEAF_CALLER;
}

int cfi_leaf_rule(struct elfobj *o, uint64_t vaddr, uint64_t *slot)
{
	size_t i = (size_t)((vaddr ^ vaddr >> 8) % CFI_MEMO_SLOTS);
	int r;
	Dwarf_Frame *fr;

	if (o->cfi_memo && o->cfi_memo->e[i].vaddr == vaddr + 1) {
		*slot = o->cfi_memo->e[i].slot;
		return o->cfi_memo->e[i].rule;
	}
	r = leaf_table_rule(o, vaddr, slot);
	if (r == CFI_LEAF_ASK_LIBDW) {
		if (!o->cfi_tried) {
			o->cfi_tried = true;
			o->cfi = cfi_load(o);
		}
		fr = o->cfi ? row_of(o->cfi, vaddr) : NULL;
		r = LFR_LEAF_UNKNOWN;
		if (fr) {
			r = apply(fr, o->cfi->regs, slot);
			free(fr);
		}
	}
	if (r != LFR_LEAF_CALLER || *slot <= UINT32_MAX) {
		if (!o->cfi_memo)
			o->cfi_memo = calloc(1, sizeof(*o->cfi_memo));
		if (o->cfi_memo) {
			o->cfi_memo->e[i].vaddr = vaddr + 1;
			o->cfi_memo->e[i].slot = r == LFR_LEAF_CALLER ? (uint32_t)*slot : 0;
			o->cfi_memo->e[i].rule = (uint8_t)r;
		}
	}
	return r;
}

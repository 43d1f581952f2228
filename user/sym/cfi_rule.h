/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading one CFI row of x86-64 or arm64 code as libdw gives it: the CFA as "register + offset"
 * and the rule of one of the caller's registers.  Shared by the leaf rule (cfi.c) and the unwind
 * tables (unwind_table.c), so that both read the same CFI the same way.  The code path is one for
 * both machines; their DWARF register numbers differ (struct cfi_regs).
 */
#ifndef LFR_SYM_CFI_RULE_H
#define LFR_SYM_CFI_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>

/*
 * The DWARF register numbers a walk uses: the stack pointer, the frame pointer and the return
 * address column.  x86-64 (System V psABI): rsp 7, rbp 6, the return address 16 (no register: it
 * is always at CFA - 8).  arm64 (AAPCS64): sp 31, x29 and x30, the link register, which holds the
 * return address until a prologue saves it.
 */
struct cfi_regs {
	int sp, fp, ra;
	bool lr; /* the return address is a register (x30) until saved: arm64 */
};

/* The registers of E's machine: a 64-bit x86-64 or arm64 ELF file; NULL for any other. */
const struct cfi_regs *cfi_regs_of(Elf *e);

/* Those of the machine lfr runs on (whose processes the kernel's walk unwinds), or NULL. */
const struct cfi_regs *cfi_regs_native(void);

/* "CFA = reg + off" (DW_OP_bregN or DW_OP_bregx); false for anything else (an expression). */
bool cfi_cfa_reg_off(Dwarf_Frame *fr, int *reg, int64_t *off);

enum cfi_rule { CFI_RULE_SAME, CFI_RULE_UNDEFINED, CFI_RULE_AT_CFA, CFI_RULE_OTHER };

/* The rule of a register of the caller; *off is the offset from the CFA for CFI_RULE_AT_CFA. */
enum cfi_rule cfi_reg_rule(Dwarf_Frame *fr, int reg, int64_t *off);

/* The rules of one CFI row a walk uses: the CFA, the caller's frame pointer and return address. */
struct cfi_row {
	bool cfa_ok; /* CFA = cfa_reg + cfa_off; false: an expression, or not defined */
	int cfa_reg;
	int64_t cfa_off;
	enum cfi_rule fp, ra;   /* the caller's frame pointer and return address */
	int64_t fp_off, ra_off; /* for CFI_RULE_AT_CFA */
};

/* Those of libdw's row fr (cfi_program.h reads the same from an FDE's instructions itself). */
void cfi_row_of_frame(Dwarf_Frame *fr, const struct cfi_regs *regs, struct cfi_row *row);

/* The section named name (not SHT_NOBITS: a debug file's empty copy does not count), or NULL. */
Elf_Scn *cfi_elf_section(Elf *e, const char *name);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading one CFI row of x86-64 code as libdw gives it: the CFA as "register + offset" and the
 * rule of one of the caller's registers.  Shared by the leaf rule (cfi.c) and the unwind tables
 * (unwind_table.c), so that both read the same CFI the same way.
 */
#ifndef LFR_SYM_CFI_RULE_H
#define LFR_SYM_CFI_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>

/* DWARF register numbers of x86-64 (System V psABI). */
#define X86_64_RBP 6
#define X86_64_RSP 7
#define X86_64_RA 16

/* "CFA = reg + off" (DW_OP_bregN or DW_OP_bregx); false for anything else (an expression). */
bool cfi_cfa_reg_off(Dwarf_Frame *fr, int *reg, int64_t *off);

enum cfi_rule { CFI_RULE_SAME, CFI_RULE_UNDEFINED, CFI_RULE_AT_CFA, CFI_RULE_OTHER };

/* The rule of a register of the caller; *off is the offset from the CFA for CFI_RULE_AT_CFA. */
enum cfi_rule cfi_reg_rule(Dwarf_Frame *fr, int reg, int64_t *off);

/* A 64-bit x86-64 ELF file. */
bool cfi_elf_is_x86_64(Elf *e);

/* The section named name (not SHT_NOBITS: a debug file's empty copy does not count), or NULL. */
Elf_Scn *cfi_elf_section(Elf *e, const char *name);

#endif

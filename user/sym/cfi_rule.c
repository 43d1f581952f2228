// SPDX-License-Identifier: GPL-2.0
/* One CFI row read as x86-64 or arm64 rules (cfi_rule.h). */
#include <dwarf.h>
#include <string.h>

#include "sym/cfi_rule.h"

bool cfi_cfa_reg_off(Dwarf_Frame *fr, int *reg, int64_t *off)
{
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_frame_cfa(fr, &ops, &n) || n != 1)
		return false;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = (int64_t)ops[0].number;
		return true;
	}
	if (ops[0].atom == DW_OP_bregx) {
		*reg = (int)ops[0].number;
		*off = (int64_t)ops[0].number2;
		return true;
	}
	return false;
}

enum cfi_rule cfi_reg_rule(Dwarf_Frame *fr, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(fr, reg, mem, &ops, &n))
		return CFI_RULE_OTHER;
	/* libdw: no operations and no pointer for "same value", none with one for "undefined" */
	if (!n)
		return ops ? CFI_RULE_UNDEFINED : CFI_RULE_SAME;
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return CFI_RULE_AT_CFA;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return CFI_RULE_AT_CFA;
	}
	return CFI_RULE_OTHER;
}

void cfi_row_of_frame(Dwarf_Frame *fr, const struct cfi_regs *regs, struct cfi_row *row)
{
	memset(row, 0, sizeof(*row));
	row->cfa_ok = cfi_cfa_reg_off(fr, &row->cfa_reg, &row->cfa_off);
	row->fp = cfi_reg_rule(fr, regs->fp, &row->fp_off);
	row->ra = cfi_reg_rule(fr, regs->ra, &row->ra_off);
}

static const struct cfi_regs x86_64 = {.sp = 7, .fp = 6, .ra = 16};
static const struct cfi_regs arm64 = {.sp = 31, .fp = 29, .ra = 30, .lr = true};

const struct cfi_regs *cfi_regs_of(Elf *e)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	if (eh.e_machine == EM_X86_64)
		return &x86_64;
	if (eh.e_machine == EM_AARCH64)
		return &arm64;
	return NULL;
}

Elf_Scn *cfi_elf_section(Elf *e, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(e, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

const struct cfi_regs *cfi_regs_native(void)
{
#if defined(__x86_64__)
	return &x86_64;
#elif defined(__aarch64__)
	return &arm64;
#else
	return NULL;
#endif
}

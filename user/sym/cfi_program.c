// SPDX-License-Identifier: GPL-2.0
/* An FDE's rows in one pass (cfi_program.h). */
#include <dwarf.h>
#include <string.h>

#include "sym/cfi_program.h"

#define STATE_DEPTH 16 /* DW_CFA_remember_state nesting kept; deeper is libdw's */
#define MAX_REG 0xffff /* register numbers beyond: libdw's (it may refuse them) */

/* A LEB128 number's bits, their count and its last byte; false if cut off or wider than 70 bits. */
static bool leb(const uint8_t **p, const uint8_t *end, uint64_t *v, unsigned int *bits,
                uint8_t *last)
{
	uint64_t r = 0;
	unsigned int sh = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (sh < 64)
			r |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
		if (!(b & 0x80)) {
			*v = r;
			*bits = sh;
			*last = b;
			return sh <= 70;
		}
	}
	return false;
}

static bool uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int bits;
	uint8_t last;

	return leb(p, end, v, &bits, &last);
}

static bool sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	unsigned int bits;
	uint8_t last;
	uint64_t r;

	if (!leb(p, end, &r, &bits, &last))
		return false;
	if (bits < 64 && (last & 0x40))
		r |= ~(uint64_t)0 << bits;
	*v = (int64_t)r;
	return true;
}

static bool fixed(const uint8_t **p, const uint8_t *end, size_t n, uint64_t *v)
{
	uint64_t r = 0;

	if ((size_t)(end - *p) < n)
		return false;
	for (size_t i = 0; i < n; i++) /* little-endian objects only (cfi_program_cie) */
		r |= (uint64_t)(*p)[i] << (8 * i);
	*p += n;
	*v = r;
	return true;
}

static bool skip_block(const uint8_t **p, const uint8_t *end)
{
	uint64_t n;

	if (!uleb(p, end, &n) || n > (uint64_t)(end - *p))
		return false;
	*p += n;
	return true;
}

static void set_reg(struct cfi_row *r, const struct cfi_regs *regs, uint64_t reg,
                    enum cfi_rule rule, int64_t off)
{
	if (reg == (uint64_t)regs->fp) {
		r->fp = rule;
		r->fp_off = off;
	} else if (reg == (uint64_t)regs->ra) {
		r->ra = rule;
		r->ra_off = off;
	}
}

static void restore_reg(struct cfi_row *r, const struct cfi_row *init, const struct cfi_regs *regs,
                        uint64_t reg)
{
	if (reg == (uint64_t)regs->fp)
		set_reg(r, regs, reg, init->fp, init->fp_off);
	else if (reg == (uint64_t)regs->ra)
		set_reg(r, regs, reg, init->ra, init->ra_off);
}

/*
 * "CFA = one DW_OP_bregN or DW_OP_bregx": libdw reads such an expression as register + offset,
 * which the rules after it (DW_CFA_def_cfa_offset) treat differently; those are libdw's.
 */
static bool block_is_one_breg(const uint8_t *p, const uint8_t *end)
{
	uint64_t n, reg;
	int64_t off;

	if (!uleb(&p, end, &n) || n > (uint64_t)(end - p) || !n)
		return false;
	end = p + n;
	if (*p >= DW_OP_breg0 && *p <= DW_OP_breg31) {
		p++;
		return sleb(&p, end, &off) && p == end;
	}
	if (*p == DW_OP_bregx) {
		p++;
		return uleb(&p, end, &reg) && sleb(&p, end, &off) && p == end;
	}
	return false;
}

/* The machine state while a program runs. */
struct run {
	const struct cfi_program_cie *cie;
	const struct cfi_regs *regs;
	const struct cfi_row *init; /* DW_CFA_restore's, NULL in a CIE's own program */
	struct cfi_row row;
	unsigned int depth;
	struct cfi_row *saved; /* STATE_DEPTH of them, left unwritten until used */
};

/* A rule for one register (DW_CFA_offset_extended .. DW_CFA_val_expression); false: libdw's. */
static inline __attribute__((always_inline)) bool reg_rule(struct run *s, uint8_t op,
                                                           const uint8_t **p, const uint8_t *end)
{
	int64_t daf = s->cie->daf, so;
	uint64_t reg, u;

	if (!uleb(p, end, &reg) || reg > MAX_REG)
		return false;
	switch (op) {
	case DW_CFA_offset_extended:
		if (!uleb(p, end, &u))
			return false;
		set_reg(&s->row, s->regs, reg, CFI_RULE_AT_CFA, (int64_t)u * daf);
		return true;
	case DW_CFA_offset_extended_sf:
		if (!sleb(p, end, &so))
			return false;
		set_reg(&s->row, s->regs, reg, CFI_RULE_AT_CFA, so * daf);
		return true;
	case DW_CFA_restore_extended:
		if (!s->init)
			return false;
		restore_reg(&s->row, s->init, s->regs, reg);
		return true;
	case DW_CFA_undefined:
	case DW_CFA_same_value:
		set_reg(&s->row, s->regs, reg,
		        op == DW_CFA_undefined ? CFI_RULE_UNDEFINED : CFI_RULE_SAME, 0);
		return true;
	case DW_CFA_register:
	case DW_CFA_val_offset:
		if (!uleb(p, end, &u))
			return false;
		set_reg(&s->row, s->regs, reg, CFI_RULE_OTHER, 0);
		return true;
	case DW_CFA_val_offset_sf:
		if (!sleb(p, end, &so))
			return false;
		set_reg(&s->row, s->regs, reg, CFI_RULE_OTHER, 0);
		return true;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		/* libdw reads an address expression of CFA + n as "at CFA + n": its own */
		if (op == DW_CFA_expression &&
		    (reg == (uint64_t)s->regs->fp || reg == (uint64_t)s->regs->ra))
			return false;
		if (!skip_block(p, end))
			return false;
		set_reg(&s->row, s->regs, reg, CFI_RULE_OTHER, 0);
		return true;
	default:
		return false;
	}
}

/* A rule for the CFA (DW_CFA_def_cfa .. DW_CFA_def_cfa_expression); false: libdw's. */
static inline __attribute__((always_inline)) bool cfa_rule(struct run *s, uint8_t op,
                                                           const uint8_t **p, const uint8_t *end)
{
	int64_t daf = s->cie->daf, so;
	uint64_t reg, u;

	switch (op) {
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
		if (!uleb(p, end, &reg) || reg > MAX_REG)
			return false;
		if (op == DW_CFA_def_cfa ? !uleb(p, end, &u) : !sleb(p, end, &so))
			return false;
		s->row.cfa_ok = true;
		s->row.cfa_reg = (int)reg;
		s->row.cfa_off = op == DW_CFA_def_cfa ? (int64_t)u : so * daf;
		return true;
	case DW_CFA_def_cfa_register:
		if (!uleb(p, end, &reg) || reg > MAX_REG || !s->row.cfa_ok)
			return false;
		s->row.cfa_reg = (int)reg;
		return true;
	case DW_CFA_def_cfa_offset:
		if (!uleb(p, end, &u) || !s->row.cfa_ok)
			return false;
		s->row.cfa_off = (int64_t)u;
		return true;
	case DW_CFA_def_cfa_offset_sf:
		if (!sleb(p, end, &so) || !s->row.cfa_ok)
			return false;
		s->row.cfa_off = so * daf;
		return true;
	case DW_CFA_def_cfa_expression:
		if (block_is_one_breg(*p, end) || !skip_block(p, end))
			return false;
		s->row.cfa_ok = false;
		return true;
	default:
		return false;
	}
}

/*
 * One instruction other than an advance (*adv stays 0) or an advance by *adv code units.
 * False: the program is libdw's.
 */
static inline __attribute__((always_inline)) bool step(struct run *s, const uint8_t **p,
                                                       const uint8_t *end, uint64_t *adv)
{
	const uint8_t op = *(*p)++;
	uint64_t u;

	switch (op >> 6) {
	case DW_CFA_advance_loc >> 6:
		*adv = op & 0x3f;
		return true;
	case DW_CFA_offset >> 6:
		if (!uleb(p, end, &u))
			return false;
		set_reg(&s->row, s->regs, op & 0x3f, CFI_RULE_AT_CFA, (int64_t)u * s->cie->daf);
		return true;
	case DW_CFA_restore >> 6:
		if (!s->init)
			return false;
		restore_reg(&s->row, s->init, s->regs, op & 0x3f);
		return true;
	}
	switch (op) {
	case DW_CFA_nop:
		return true;
	case DW_CFA_advance_loc1:
		return fixed(p, end, 1, adv);
	case DW_CFA_advance_loc2:
		return fixed(p, end, 2, adv);
	case DW_CFA_advance_loc4:
		return fixed(p, end, 4, adv);
	case DW_CFA_remember_state:
		if (s->depth == STATE_DEPTH)
			return false;
		s->saved[s->depth++] = s->row;
		return true;
	case DW_CFA_restore_state:
		if (!s->depth)
			return false;
		s->row = s->saved[--s->depth];
		return true;
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_def_cfa_register:
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_def_cfa_expression:
		return cfa_rule(s, op, p, end);
	case DW_CFA_GNU_args_size:
		return uleb(p, end, &u);
	default:
		/* a register's rule; DW_CFA_set_loc, vendor opcodes (arm64's negate_ra_state),
		 * anything newer are libdw's */
		return reg_rule(s, op, p, end);
	}
}

void cfi_program_cie(const Dwarf_CIE *c, const struct cfi_regs *regs, struct cfi_program_cie *out)
{
	const char *a = c->augmentation ? c->augmentation : "";
	struct cfi_row saved[STATE_DEPTH];
	struct run s = {.cie = out, .regs = regs, .saved = saved};
	const uint8_t *p = c->initial_instructions;

	memset(out, 0, sizeof(*out));
	out->z = a[0] == 'z';
	out->signal = strchr(a, 'S') != NULL;
	out->ra_reg = (int)c->return_address_register;
	out->caf = c->code_alignment_factor;
	out->daf = c->data_alignment_factor;
	/* an augmentation not sized by 'z' may hide bytes before the instructions */
	if (a[0] && !out->z)
		return;
	/* the ABI's state before any CIE (elfutils' backends): callee-saved registers unchanged */
	s.row = (struct cfi_row){.fp = CFI_RULE_SAME, .ra = CFI_RULE_SAME};
	if (regs->lr) /* arm64's backend starts with "CFA = x30 + 0" */
		s.row = (struct cfi_row){
		    .cfa_ok = true, .cfa_reg = regs->ra, .fp = CFI_RULE_SAME, .ra = CFI_RULE_SAME};
	while (p && p < c->initial_instructions_end) {
		uint64_t adv = 0;

		if (!step(&s, &p, c->initial_instructions_end, &adv) || adv)
			return; /* a CIE that moves the location, or anything libdw's */
	}
	out->initial = s.row;
	out->usable = true;
}

int cfi_program_rows(const struct cfi_program_cie *cie, const struct cfi_regs *regs,
                     const uint8_t *p, const uint8_t *end, uint64_t lo, uint64_t hi, cfi_row_fn fn,
                     void *arg)
{
	struct cfi_row saved[STATE_DEPTH];
	struct run s = {
	    .cie = cie, .regs = regs, .init = &cie->initial, .row = cie->initial, .saved = saved};
	uint64_t loc = lo;
	int ret;

	if (!cie->usable)
		return CFI_PROGRAM_LIBDW;
	if (cie->z && !skip_block(&p, end))
		return CFI_PROGRAM_LIBDW;
	while (p < end) {
		uint64_t adv = 0, next;

		if (!step(&s, &p, end, &adv))
			return CFI_PROGRAM_LIBDW;
		if (!adv)
			continue;
		next = loc + adv * cie->caf;
		if (next <= loc)
			return CFI_PROGRAM_LIBDW; /* wrapped */
		if ((ret = fn(arg, loc, next < hi ? next : hi, &s.row)))
			return ret;
		loc = next;
		if (loc >= hi)
			return 0; /* what follows describes nothing in the FDE's range */
	}
	return loc < hi ? fn(arg, loc, hi, &s.row) : 0;
}

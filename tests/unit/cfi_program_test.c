// SPDX-License-Identifier: GPL-2.0
/*
 * user/sym/cfi_program.h on bytes nobody vetted: the CFA instructions of an FDE come from any file
 * a process maps.  Random programs (a fixed seed: the same ones on every host), each in a buffer
 * of exactly its size (ASan sees any read past it): every run ends, its rows lie in [lo, hi) in
 * increasing order, no more of them than the program has advances plus one, and a program the one
 * pass refuses emits what the caller then drops.  Then a few programs whose rows are known.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dwarf.h>

#include "sym/cfi_program.h"

static const struct cfi_regs x86 = {.sp = 7, .fp = 6, .ra = 16};

struct rows {
	uint64_t lo, hi, last_end;
	size_t n;
	struct cfi_row row[8];
	uint64_t start[8], end[8];
};

static int on_row(void *arg, uint64_t start, uint64_t end, const struct cfi_row *r)
{
	struct rows *w = arg;

	assert_true(start >= w->lo && start < end && end <= w->hi);
	assert_true(start >= w->last_end);
	w->last_end = end;
	if (w->n < 8) {
		w->row[w->n] = *r;
		w->start[w->n] = start;
		w->end[w->n] = end;
	}
	w->n++;
	return 0;
}

/*
 * The x86-64 CIE of gcc's .eh_frame: CFA = rsp + 8, the return address at CFA - 8; with
 * augmentation "zR" each FDE's instructions follow a ULEB128-sized block, with "" they do not.
 */
static void x86_cie(struct cfi_program_cie *c, const char *aug)
{
	static const uint8_t init[] = {DW_CFA_def_cfa, 7, 8, DW_CFA_offset + 16, 1};
	Dwarf_CIE d = {
	    .initial_instructions = init,
	    .initial_instructions_end = init + sizeof(init),
	    .code_alignment_factor = 1,
	    .data_alignment_factor = -8,
	    .return_address_register = 16,
	    .augmentation = aug,
	};

	cfi_program_cie(&d, &x86, c);
	assert_true(c->usable);
	assert_true(c->initial.cfa_ok);
	assert_int_equal(c->initial.cfa_reg, 7);
	assert_int_equal(c->initial.cfa_off, 8);
	assert_int_equal(c->initial.ra, CFI_RULE_AT_CFA);
	assert_int_equal(c->initial.ra_off, -8);
	assert_int_equal(c->initial.fp, CFI_RULE_SAME);
}

static void test_random(void **state)
{
	struct cfi_program_cie cie;
	size_t refused = 0, rows = 0;

	(void)state;
	x86_cie(&cie, "zR");
	srandom(20261130);
	for (int i = 0; i < 200000; i++) {
		size_t len = (size_t)(random() % 64);
		uint8_t *prog = malloc(len ? len : 1);
		struct rows w = {.lo = 0x1000, .hi = 0x1000 + (uint64_t)(random() % 4096) + 1};
		size_t advances = 0;
		int ret;

		assert_non_null(prog);
		for (size_t k = 0; k < len; k++) {
			/* opcodes the one pass knows, more often than the rest */
			prog[k] = random() % 3 ? (uint8_t)(random() % 0x18) : (uint8_t)random();
			advances += (prog[k] >> 6) == 1 || prog[k] == DW_CFA_advance_loc1 ||
			            prog[k] == DW_CFA_advance_loc2 ||
			            prog[k] == DW_CFA_advance_loc4;
		}
		w.last_end = w.lo;
		ret = cfi_program_rows(&cie, &x86, prog, prog + len, w.lo, w.hi, on_row, &w);
		assert_true(ret == 0 || ret == CFI_PROGRAM_LIBDW);
		/* an operand byte may look like an advance: the count of bytes bounds it too */
		assert_true(w.n <= advances + 1 || w.n <= len + 1);
		refused += ret == CFI_PROGRAM_LIBDW;
		rows += w.n;
		free(prog);
	}
	print_message("200000 random programs: %zu left to libdw, %zu rows\n", refused, rows);
	assert_true(refused > 1000 && refused < 200000);
}

/* push %rbp; mov %rsp,%rbp; ... as gcc describes it with frame pointers. */
static void test_known(void **state)
{
	static const uint8_t prog[] = {
	    0, /* the FDE's augmentation: none */
	    DW_CFA_advance_loc + 1,
	    DW_CFA_def_cfa_offset,
	    16,
	    DW_CFA_offset + 6,
	    2,
	    DW_CFA_advance_loc + 3,
	    DW_CFA_def_cfa_register,
	    6,
	    DW_CFA_remember_state,
	    DW_CFA_advance_loc + 10,
	    DW_CFA_def_cfa,
	    7,
	    8,
	    DW_CFA_restore + 6,
	    DW_CFA_advance_loc + 1,
	    DW_CFA_restore_state,
	};
	struct cfi_program_cie cie;
	struct rows w = {.lo = 0x400, .hi = 0x420, .last_end = 0x400};

	(void)state;
	x86_cie(&cie, "zR");
	assert_int_equal(
	    cfi_program_rows(&cie, &x86, prog, prog + sizeof(prog), w.lo, w.hi, on_row, &w), 0);
	assert_int_equal(w.n, 5);
	/* [0x400, 0x401): the entry */
	assert_int_equal(w.start[0], 0x400);
	assert_int_equal(w.end[0], 0x401);
	assert_int_equal(w.row[0].cfa_off, 8);
	/* [0x401, 0x404): rbp pushed, saved at CFA - 16 */
	assert_int_equal(w.row[1].cfa_off, 16);
	assert_int_equal(w.row[1].fp, CFI_RULE_AT_CFA);
	assert_int_equal(w.row[1].fp_off, -16);
	/* [0x404, 0x40e): the body, CFA = rbp + 16 */
	assert_int_equal(w.row[2].cfa_reg, 6);
	assert_int_equal(w.row[2].cfa_off, 16);
	/* [0x40e, 0x40f): after leave, rbp restored to the CIE's rule */
	assert_int_equal(w.row[3].cfa_reg, 7);
	assert_int_equal(w.row[3].fp, CFI_RULE_SAME);
	/* [0x40f, 0x420): the remembered body again, to the FDE's end */
	assert_int_equal(w.start[4], 0x40f);
	assert_int_equal(w.end[4], 0x420);
	assert_int_equal(w.row[4].cfa_reg, 6);
	assert_int_equal(w.row[4].fp_off, -16);
}

/* What the one pass leaves to libdw. */
static void test_refused(void **state)
{
	static const uint8_t set_loc[] = {DW_CFA_set_loc, 0, 0, 0, 0};
	static const uint8_t restore_empty[] = {DW_CFA_restore_state};
	static const uint8_t cut[] = {DW_CFA_def_cfa, 7};
	static const uint8_t fp_expr[] = {DW_CFA_expression, 6, 1, DW_OP_nop};
	static const uint8_t one_breg[] = {DW_CFA_def_cfa_expression, 2, DW_OP_breg7, 8};
	static const uint8_t offset_of_expr[] = {DW_CFA_def_cfa_expression, 1, DW_OP_nop,
	                                         DW_CFA_def_cfa_offset, 16};
	static const uint8_t negate_ra[] = {0x2d};
	const struct {
		const uint8_t *p;
		size_t n;
	} progs[] = {
	    {set_loc, sizeof(set_loc)},
	    {restore_empty, sizeof(restore_empty)},
	    {cut, sizeof(cut)},
	    {fp_expr, sizeof(fp_expr)},
	    {one_breg, sizeof(one_breg)},
	    {offset_of_expr, sizeof(offset_of_expr)},
	    {negate_ra, sizeof(negate_ra)},
	};
	struct cfi_program_cie cie;

	(void)state;
	x86_cie(&cie, "");
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct rows w = {.lo = 0, .hi = 16};

		assert_int_equal(cfi_program_rows(&cie, &x86, progs[i].p, progs[i].p + progs[i].n,
		                                  w.lo, w.hi, on_row, &w),
		                 CFI_PROGRAM_LIBDW);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random),
	    cmocka_unit_test(test_known),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

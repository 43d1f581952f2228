// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 code through the same CFI code path as x86-64's (user/sym/cfi_rule.h): the unwind table
 * of an arm64 library (symdata/liba64.c, cross-built with pointer authentication) and the leaf
 * rule on its pcs, whose caller may still be in the link register x30.
 *
 * Every row of the table is checked against libdw's own row at the same pc, read here
 * independently: the CFA (sp or x29 + k), x29's rule and x30's (still in the register, at CFA - 8,
 * right after the saved x29, or saved alone).  Then what the code of each function does by
 * construction: the leaf keeps its return address in x30 throughout, the framed function saves
 * x29 and x30 as a pair, the one without a frame pointer saves x30 alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dwarf.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <elfutils/libdw.h>
#include <gelf.h>

#include "sym/cfi.h"
#include "sym/unwind_table.h"
#include "sym_test_util.h"

#define FAKE_PID 92064u
#define BASE 0x7f1200000000ull
#define SP 0x7ffd00002000ull
#define PAC_MASK 0x007f000000000000ull /* bits 54..48: a 48-bit address space's */
#define SIGNED(a) ((a) | 0x0035000000000000ull)
#define RA(bp) LFR_UNWIND_RA_RULE(bp)
#define FP(bp) LFR_UNWIND_BP_RULE(bp)

struct a64 {
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi;
	struct lfr_unwind_table t;
	uint64_t text_vaddr, text_off; /* the executable segment, for file offsets */
};

static void a64_open(struct a64 *o)
{
	const char *path = fixture("liba64.so");
	char err[256];
	size_t n;

	memset(o, 0, sizeof(*o));
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0)
		fail_msg("%s: missing: the arm64 fixture needs aarch64-linux-gnu-gcc "
		         "(tests/vm/deps-arm64)",
		         path);
	elf_version(EV_CURRENT);
	o->elf = elf_begin(o->fd, ELF_C_READ, NULL);
	assert_non_null(o->elf);
	o->cfi = dwarf_getcfi_elf(o->elf);
	assert_non_null(o->cfi);
	assert_int_equal(elf_getphdrnum(o->elf, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(o->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X)) {
			o->text_vaddr = ph.p_vaddr;
			o->text_off = ph.p_offset;
		}
	}
	if (lfr_unwind_table_build(o->fd, &o->t, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
}

static void a64_close(struct a64 *o)
{
	lfr_unwind_table_free(&o->t);
	dwarf_cfi_end(o->cfi);
	elf_end(o->elf);
	close(o->fd);
}

/* The address and size of a function of the symbol table. */
static void func(Elf *e, const char *name, uint64_t *vaddr, uint64_t *size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name)) {
				*vaddr = s.st_value;
				*size = s.st_size;
				return;
			}
		}
	}
	fail_msg("no function %s in liba64.so", name);
}

static const struct lfr_unwind_row *row_at(const struct a64 *o, uint64_t vaddr)
{
	return lfr_unwind_table_find(&o->t, vaddr - o->text_vaddr + o->text_off);
}

/* "At CFA + off" as libdw gives it. */
static bool at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* libdw's row at vaddr, as the table must have it (x29 is 29, x30 30, sp 31). */
static void check_row(const struct a64 *o, uint64_t vaddr)
{
	const struct lfr_unwind_row *r = row_at(o, vaddr);
	Dwarf_Op mem[3], *ops;
	Dwarf_Frame *fr;
	int64_t fp_off = 0, ra_off = 0, cfa_off;
	size_t n;
	bool fp_saved, ra_same;

	assert_non_null(r);
	assert_int_equal(dwarf_cfi_addrframe(o->cfi, vaddr, &fr), 0);
	assert_int_equal(dwarf_frame_cfa(fr, &ops, &n), 0);
	assert_true(n == 1 && (ops[0].atom == DW_OP_breg31 || ops[0].atom == DW_OP_breg29 ||
	                       ops[0].atom == DW_OP_bregx));
	cfa_off = (int64_t)(ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number);
	assert_int_equal(r->cfa,
	                 ops[0].atom == DW_OP_breg29 ? LFR_UNWIND_CFA_BP : LFR_UNWIND_CFA_SP);
	assert_int_equal(r->cfa_off, cfa_off);
	assert_int_equal(dwarf_frame_register(fr, 29, mem, &ops, &n), 0);
	fp_saved = at_cfa(ops, n, &fp_off);
	assert_true(fp_saved || (!n && !ops));
	assert_int_equal(dwarf_frame_register(fr, 30, mem, &ops, &n), 0);
	ra_same = !n && !ops;
	assert_true(ra_same || at_cfa(ops, n, &ra_off));
	free(fr);
	assert_int_equal(FP(r->bp), fp_saved ? LFR_UNWIND_BP_AT_CFA : LFR_UNWIND_BP_SAME);
	if (fp_saved)
		assert_int_equal(r->bp_off, fp_off);
	if (ra_same) {
		assert_int_equal(RA(r->bp), LFR_UNWIND_RA_LR);
	} else if (ra_off == -8) {
		assert_int_equal(RA(r->bp), LFR_UNWIND_RA_CFA_M8);
	} else if (fp_saved) {
		assert_int_equal(ra_off, fp_off + 8);
		assert_int_equal(RA(r->bp), LFR_UNWIND_RA_PAIR);
	} else {
		assert_int_equal(RA(r->bp), LFR_UNWIND_RA_AT_CFA);
		assert_int_equal(r->bp_off, ra_off);
	}
}

/* Counts of the rows of [vaddr, vaddr + size) by their return address's rule. */
static void rules_of(const struct a64 *o, const char *name, unsigned int count[4])
{
	uint64_t vaddr, size;

	func(o->elf, name, &vaddr, &size);
	memset(count, 0, 4 * sizeof(*count));
	/* its entry: nothing pushed, the return address in x30 */
	assert_int_equal(row_at(o, vaddr)->cfa, LFR_UNWIND_CFA_SP);
	assert_int_equal(row_at(o, vaddr)->cfa_off, 0);
	assert_int_equal(RA(row_at(o, vaddr)->bp), LFR_UNWIND_RA_LR);
	for (uint64_t pc = vaddr; pc < vaddr + size; pc += 4) {
		check_row(o, pc);
		count[RA(row_at(o, pc)->bp)]++;
	}
}

static void test_a64_table(void **state)
{
	unsigned int leaf[4], framed[4], omitfp[4];
	struct a64 o;

	(void)state;
	a64_open(&o);
	rules_of(&o, "a64_leaf", leaf);
	rules_of(&o, "a64_framed", framed);
	rules_of(&o, "a64_omitfp", omitfp);
	/* x30 throughout the leaf; a pair in the framed body; x30 alone without a frame pointer */
	assert_true(leaf[LFR_UNWIND_RA_LR] > 4 && !leaf[LFR_UNWIND_RA_PAIR] &&
	            !leaf[LFR_UNWIND_RA_AT_CFA] && !leaf[LFR_UNWIND_RA_CFA_M8]);
	assert_true(framed[LFR_UNWIND_RA_PAIR] > 4 && framed[LFR_UNWIND_RA_LR] >= 3);
	assert_true(omitfp[LFR_UNWIND_RA_AT_CFA] + omitfp[LFR_UNWIND_RA_CFA_M8] > 2 &&
	            !omitfp[LFR_UNWIND_RA_PAIR]);
	a64_close(&o);
}

/* The first pc of function name whose row's return-address rule is ra. */
static uint64_t pc_with(const struct a64 *o, const char *name, unsigned int ra, int skip)
{
	uint64_t vaddr, size;

	func(o->elf, name, &vaddr, &size);
	for (uint64_t pc = vaddr + 4 * (uint64_t)skip; pc < vaddr + size; pc += 4)
		if (RA(row_at(o, pc)->bp) == ra)
			return pc;
	fail_msg("%s: no row with return address rule %u", name, ra);
	return 0;
}

/*
 * The leaf rule on arm64 code mapped for a process: a pc whose return address is in x30 takes the
 * caller from the record's link register (and names it as the word after the stack words); one
 * whose return address is saved takes it from the stack words, without its PAC.
 */
static void test_a64_leaf_rule(void **state)
{
	struct lfr_sym_opts opts = {0};
	struct lfr_sym *sym = NULL;
	struct a64 o;
	struct stat st;
	uint64_t words[14], regs[2] = {0x7f0000001234ull, PAC_MASK}, out[8], ips[3], pc;
	uint32_t n;
	int word;

	(void)state;
	a64_open(&o);
	assert_int_equal(fstat(o.fd, &st), 0);
	assert_int_equal(lfr_sym_new(&sym, &opts), 0);
	assert_int_equal(lfr_sym_add_mapping(sym,
	                                     &(struct lfr_sym_mapping){
	                                         .pid = FAKE_PID,
	                                         .start = BASE + o.text_off,
	                                         .end = BASE + o.text_off + 0x10000,
	                                         .pgoff = o.text_off,
	                                         .dev = st.st_dev,
	                                         .ino = st.st_ino,
	                                         .path = fixture("liba64.so"),
	                                     }),
	                 0);
	for (unsigned int i = 0; i < 14; i++)
		words[i] = SIGNED(0x7f0000005000ull + i);

	/* the leaf, past its entry: x29 is the caller's; the caller is in x30 */
	pc = BASE + pc_with(&o, "a64_leaf", LFR_UNWIND_RA_LR, 3) - o.text_vaddr + o.text_off;
	ips[0] = pc, ips[1] = 0x7f0000009990ull, ips[2] = 0x7f0000009999ull;
	assert_int_equal(
	    lfr_sym_fix_leaf_regs(sym, FAKE_PID, ips, 3, SP, words, 14, regs, out, 8, &n, &word),
	    LFR_LEAF_INSERTED);
	assert_int_equal(n, 4);
	assert_int_equal(out[1], regs[0]);
	assert_int_equal(out[2], ips[1]);
	assert_int_equal(word, 14); /* the register after the stack words */
	/* without the registers (an x86-64 record's shape) the caller is not guessed */
	assert_int_equal(
	    lfr_sym_fix_leaf_regs(sym, FAKE_PID, ips, 3, SP, words, 14, NULL, out, 8, &n, &word),
	    LFR_LEAF_UNCERTAIN);
	assert_int_equal(n, 3);

	/* the framed function between its pair's store and x29's move: the saved x30, stripped */
	pc = BASE + pc_with(&o, "a64_framed", LFR_UNWIND_RA_PAIR, 0) - o.text_vaddr + o.text_off;
	ips[0] = pc;
	assert_int_equal(
	    lfr_sym_fix_leaf_regs(sym, FAKE_PID, ips, 3, SP, words, 14, regs, out, 8, &n, &word),
	    LFR_LEAF_INSERTED);
	assert_true(word >= 0 && word < 14);
	assert_int_equal(out[1], 0x7f0000005000ull + (uint64_t)word);
	/* a walk that found it already (x29 set up) keeps the chain */
	ips[1] = out[1];
	assert_int_equal(
	    lfr_sym_fix_leaf_regs(sym, FAKE_PID, ips, 3, SP, words, 14, regs, out, 8, &n, &word),
	    LFR_LEAF_PRESENT);
	assert_int_equal(n, 3);

	/* no frame pointer, x30 saved alone */
	pc = BASE + pc_with(&o, "a64_omitfp", LFR_UNWIND_RA_AT_CFA, 0) - o.text_vaddr + o.text_off;
	ips[0] = pc, ips[1] = 0x7f0000009990ull;
	assert_int_equal(
	    lfr_sym_fix_leaf_regs(sym, FAKE_PID, ips, 3, SP, words, 14, regs, out, 8, &n, &word),
	    LFR_LEAF_INSERTED);
	assert_int_equal(out[1], 0x7f0000005000ull + (uint64_t)word);

	lfr_sym_free(sym);
	a64_close(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a64_table),
	    cmocka_unit_test(test_a64_leaf_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

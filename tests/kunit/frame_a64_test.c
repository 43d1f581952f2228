// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: arm64's user-stack walk (frame_walk.h with LFR_ISA_ARM64) on
 * synthetic stacks and code, in whatever kernel runs the suite: the leaf's
 * caller in the link register x30, frame records, table rows whose return
 * address is in x30 or saved anywhere below the CFA, and return addresses
 * signed with pointer authentication.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/module.h>
#include "../../kmod/frame_walk.h"

#define A64_STK		0x7ffe0000ULL
#define A64_CODE	0x400000ULL	/* no table: frame records */
#define A64_TABLED	0x600000ULL	/* the fake table's object */
#define A64_WORDS	64

/* The PAC bits of a 48-bit user address space: the kernel's mask. */
#define A64_PAC		GENMASK_ULL(54, 48)
#define SIGNED(a)	((a) | 0x002a000000000000ULL)

#define A64_NOP		0xd503201fu
#define A64_STP_16	0xa9bf7bfdu	/* stp x29, x30, [sp, #-16]! */
#define A64_STP_48	0xa9bd7bfdu	/* stp x29, x30, [sp, #-48]! */
#define A64_STR_X19	0xf81f0ff3u	/* str x19, [sp, #-16]! */

struct a64_mem {
	u64 stk[A64_WORDS];
	u32 code[64];		/* at A64_CODE */
};

static int a64_read(void *ctx, u64 addr, void *buf, size_t len)
{
	struct a64_mem *m = ctx;

	if (addr >= A64_STK && addr + len <= A64_STK + sizeof(m->stk)) {
		memcpy(buf, (u8 *)m->stk + (addr - A64_STK), len);
		return 0;
	}
	if (addr >= A64_CODE && addr + len <= A64_CODE + sizeof(m->code)) {
		memcpy(buf, (u8 *)m->code + (addr - A64_CODE), len);
		return 0;
	}
	return -EFAULT;
}

struct a64_rule {
	u64 lo, hi;
	struct lfr_unwind_row row;
};

struct a64_rules {
	const struct a64_rule *r;
	int n;
};

static enum lfr_row_found a64_row(void *ctx, u64 pc,
				  const struct lfr_unwind_row **row)
{
	const struct a64_rules *f = ctx;
	int i;

	if (pc < A64_TABLED || pc >= A64_TABLED + 0x100000)
		return LFR_ROW_NO_TABLE;
	for (i = 0; i < f->n; i++) {
		if (pc >= f->r[i].lo && pc < f->r[i].hi) {
			*row = &f->r[i].row;
			return f->r[i].row.cfa == LFR_UNWIND_CFA_NONE ?
			       LFR_ROW_NONE : LFR_ROW_FOUND;
		}
	}
	return LFR_ROW_NONE;
}

static const struct lfr_walk_fns a64_fp_fns = {
	.read = a64_read, .read_in = a64_read,
};

static u64 a64_at(int word)
{
	return A64_STK + word * 8ULL;
}

/* A frame record at @word: the saved x29, then x30. */
static void a64_record(struct a64_mem *m, int word, u64 next, u64 ret)
{
	m->stk[word] = next;
	m->stk[word + 1] = ret;
}

static void a64_init(struct lfr_uwalk *w, struct a64_mem *m, u64 *ips,
		     u64 ip, u64 fp, u64 lr)
{
	memset(w, 0, sizeof(*w));
	w->ip = ip;
	w->sp = a64_at(0);
	w->fp = fp;
	w->lr = lr;
	w->pac_mask = A64_PAC;
	w->limit = 1ULL << 48;
	w->max = 16;
	w->ctx = m;
	w->ips = ips;
}

/* The walk as the module runs it on arm64, with @f's rows or none. */
static void a64_walk(struct lfr_uwalk *w, struct a64_rules *f)
{
	static const struct lfr_walk_fns rows = {
		.read = a64_read, .read_in = a64_read, .row = a64_row,
	};

	w->row_ctx = f;
	lfr_walk_user_isa(w, f ? &rows : &a64_fp_fns, NULL, false,
			  LFR_ISA_ARM64);
}

/* Two callers by frame records, their return addresses signed: stripped. */
static void lfr_a64_records_pac(struct kunit *test)
{
	struct a64_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];

	m->code[4] = A64_NOP;
	a64_record(m, 4, a64_at(10), SIGNED(0x400100));
	a64_record(m, 10, 0, SIGNED(0x400200));
	a64_init(&w, m, ips, A64_CODE + 16, a64_at(4), SIGNED(0x400abc));
	a64_walk(&w, NULL);
	KUNIT_EXPECT_EQ(test, w.flags, 0U);
	KUNIT_EXPECT_EQ(test, w.nr, 3U);
	KUNIT_EXPECT_EQ(test, ips[1], 0x400100ULL);
	KUNIT_EXPECT_EQ(test, ips[2], 0x400200ULL);

	/* x86-64's walk of the same words keeps them as they are */
	a64_init(&w, m, ips, A64_CODE + 16, a64_at(4), 0);
	lfr_walk_user_isa(&w, &a64_fp_fns, NULL, false, LFR_ISA_X86_64);
	KUNIT_EXPECT_EQ(test, ips[1], SIGNED(0x400100));
}

/*
 * Where x29 is still the caller's, the caller comes from x30 (stripped),
 * then the records from x29 on: at a landing pad or PAC instruction, the
 * frame record's store, "mov x29, sp" right after it, and a return.
 * Elsewhere x29 is the function's own and x30 is not read.
 */
static void lfr_a64_leaf_lr(struct kunit *test)
{
	static const struct {
		u32 prev, insn;
		bool lr;
	} cases[] = {
		{ A64_NOP, LFR_A64_PACIASP, true },
		{ A64_NOP, LFR_A64_BTI_C, true },
		{ A64_NOP, A64_STP_48, true },
		{ A64_STP_48, LFR_A64_MOV_FP_SP, true },
		{ A64_STP_16, LFR_A64_MOV_FP_SP, true },
		{ A64_NOP, LFR_A64_AUTIASP, true },
		{ A64_NOP, LFR_A64_RET, true },
		{ A64_NOP, LFR_A64_RETAA, true },
		{ A64_STR_X19, LFR_A64_MOV_FP_SP, false },
		{ A64_NOP, A64_STR_X19, false },
		{ A64_NOP, A64_NOP, false },
	};
	struct a64_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];
	int i;

	a64_record(m, 4, 0, SIGNED(0x400200));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int want = 2 + cases[i].lr;	/* with x30: 3 */

		m->code[7] = cases[i].prev;
		m->code[8] = cases[i].insn;
		a64_init(&w, m, ips, A64_CODE + 32, a64_at(4),
			 SIGNED(0x400150));
		a64_walk(&w, NULL);
		KUNIT_EXPECT_EQ_MSG(test, w.flags, 0U, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, w.nr, want, "case %d", i);
		if (cases[i].lr)
			KUNIT_EXPECT_EQ_MSG(test, ips[1], 0x400150ULL,
					    "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, ips[w.nr - 1], 0x400200ULL,
				    "case %d", i);
	}

	/* an empty x30 where the caller must be: a bad frame */
	m->code[8] = LFR_A64_PACIASP;
	a64_init(&w, m, ips, A64_CODE + 32, a64_at(4), 0);
	a64_walk(&w, NULL);
	KUNIT_EXPECT_EQ(test, w.nr, 1U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_BAD_FRAME);
}

#define A64_BP(bp, ra)	((bp) | (ra) << LFR_UNWIND_RA_SHIFT)

/*
 * Rows: the leaf has pushed nothing (CFA = sp, the return address in
 * x30), its caller saved x29 and x30 as a pair at the bottom of a 48-byte
 * frame (gcc), the next one x30 alone (-fomit-frame-pointer), the last
 * is _start.
 */
static void lfr_a64_rows(struct kunit *test)
{
	static const struct a64_rule rules[] = {
		{ 0x600000, 0x600100, { .cfa = LFR_UNWIND_CFA_SP,
			.bp = A64_BP(LFR_UNWIND_BP_SAME, LFR_UNWIND_RA_LR) } },
		{ 0x600100, 0x600200, { .cfa = LFR_UNWIND_CFA_BP, .cfa_off = 48,
			.bp_off = -48,
			.bp = A64_BP(LFR_UNWIND_BP_AT_CFA, LFR_UNWIND_RA_PAIR) } },
		{ 0x600200, 0x600300, { .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 32,
			.bp_off = -16,
			.bp = A64_BP(LFR_UNWIND_BP_SAME,
				     LFR_UNWIND_RA_AT_CFA) } },
		{ 0x600300, 0x600400, { .cfa = LFR_UNWIND_OUTERMOST } },
	};
	struct a64_rules f = { rules, ARRAY_SIZE(rules) };
	struct a64_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];

	/* the caller's frame: sp = word 0 (the leaf pushed nothing), x29 too */
	a64_record(m, 0, 0x1234, SIGNED(0x600250));
	/* CFA = x29 + 48 = word 6; the next CFA word 10, its x30 at CFA - 16 */
	m->stk[8] = SIGNED(0x600350);
	a64_init(&w, m, ips, 0x600010, a64_at(0), SIGNED(0x600150));
	a64_walk(&w, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_CFI);
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.frames, 3U);
	KUNIT_EXPECT_EQ(test, ips[1], 0x600150ULL);
	KUNIT_EXPECT_EQ(test, ips[2], 0x600250ULL);
	KUNIT_EXPECT_EQ(test, ips[3], 0x600350ULL);
}

/*
 * x30 is the return address of the interrupted frame only: a caller whose
 * row says so (its x30 was overwritten by its call) ends the chain.
 */
static void lfr_a64_lr_not_caller(struct kunit *test)
{
	static const struct a64_rule rules[] = {
		{ 0x600000, 0x600100, { .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 16,
			.bp = A64_BP(LFR_UNWIND_BP_SAME, LFR_UNWIND_RA_CFA_M8) } },
		{ 0x600100, 0x600200, { .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 16,
			.bp = A64_BP(LFR_UNWIND_BP_SAME, LFR_UNWIND_RA_LR) } },
	};
	struct a64_rules f = { rules, ARRAY_SIZE(rules) };
	struct a64_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];

	m->stk[1] = 0x600150;
	a64_init(&w, m, ips, 0x600010, 0, 0x600999);
	a64_walk(&w, &f);
	KUNIT_EXPECT_EQ(test, w.nr, 2U);
	KUNIT_EXPECT_EQ(test, ips[1], 0x600150ULL);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_BAD_FRAME));
}

/*
 * A frame record's step leaves sp unknown (the record may lie anywhere in
 * its frame): a caller whose rule is sp-based and keeps no frame record is
 * not guessed at; one whose sp-based rule saves x29 (its frame record, at
 * x29) and one whose rule is x29-based are followed.
 */
static void lfr_a64_fp_then_table(struct kunit *test)
{
	static const struct a64_rule sp_based[] = {
		{ 0x600000, 0x600100, { .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 16,
			.bp = A64_BP(LFR_UNWIND_BP_SAME, LFR_UNWIND_RA_CFA_M8) } },
	};
	static const struct a64_rule fp_based[] = {
		{ 0x600000, 0x600100, { .cfa = LFR_UNWIND_CFA_BP, .cfa_off = 16,
			.bp_off = -16,
			.bp = A64_BP(LFR_UNWIND_BP_AT_CFA,
				     LFR_UNWIND_RA_CFA_M8) } },
	};
	static const struct a64_rule sp_record[] = {
		{ 0x600000, 0x600100, { .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 48,
			.bp_off = -48,
			.bp = A64_BP(LFR_UNWIND_BP_AT_CFA, LFR_UNWIND_RA_PAIR) } },
	};
	struct a64_rules f = { sp_based, ARRAY_SIZE(sp_based) };
	struct a64_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];

	m->code[4] = A64_NOP;
	/* the leaf's record, its caller in the table's object */
	a64_record(m, 2, a64_at(10), SIGNED(0x600050));
	a64_record(m, 10, 0, 0x400300);
	a64_init(&w, m, ips, A64_CODE + 16, a64_at(2), 0);
	a64_walk(&w, &f);
	KUNIT_EXPECT_EQ(test, w.nr, 2U);
	KUNIT_EXPECT_EQ(test, ips[1], 0x600050ULL);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_BAD_FRAME);

	f.r = fp_based;
	a64_init(&w, m, ips, A64_CODE + 16, a64_at(2), 0);
	a64_walk(&w, &f);
	KUNIT_EXPECT_EQ(test, w.flags, 0U);
	KUNIT_EXPECT_EQ(test, w.nr, 3U);
	KUNIT_EXPECT_EQ(test, ips[2], 0x400300ULL);

	/* its record at x29 = word 10, a 48-byte frame: CFA = word 16 */
	f.r = sp_record;
	a64_init(&w, m, ips, A64_CODE + 16, a64_at(2), 0);
	a64_walk(&w, &f);
	KUNIT_EXPECT_EQ(test, w.flags, 0U);
	KUNIT_EXPECT_EQ(test, w.nr, 3U);
	KUNIT_EXPECT_EQ(test, ips[2], 0x400300ULL);
}

/*
 * A recursion through one call site, by frame records whose return
 * addresses are signed, each with its own code (the modifier is sp): the
 * stripped ones are one site, taken by the recursion's own loop.
 */
static void lfr_a64_recursion_pac(struct kunit *test)
{
	static const struct a64_rule rules[] = {
		{ 0x600000, 0x600200, { .cfa = LFR_UNWIND_CFA_BP, .cfa_off = 16,
			.bp_off = -16, .bp = LFR_UNWIND_BP_AT_CFA } },
		{ 0x600200, 0x600300, { .cfa = LFR_UNWIND_OUTERMOST } },
	};
	struct a64_rules f = { rules, ARRAY_SIZE(rules) };
	struct a64_mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];
	int i;

	for (i = 0; i < 5; i++)
		a64_record(m, 2 + 4 * i, a64_at(6 + 4 * i),
			   0x600150 | (u64)(i + 1) << 48);
	a64_record(m, 22, 0, 0x600250);
	a64_init(&w, m, ips, 0x600010, a64_at(2), 0);
	a64_walk(&w, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_CFI);
	KUNIT_EXPECT_EQ(test, w.nr, 7U);
	for (i = 1; i < 6; i++)
		KUNIT_EXPECT_EQ(test, ips[i], 0x600150ULL);
	KUNIT_EXPECT_EQ(test, ips[6], 0x600250ULL);
}

static struct kunit_case lfr_a64_cases[] = {
	KUNIT_CASE(lfr_a64_records_pac),
	KUNIT_CASE(lfr_a64_leaf_lr),
	KUNIT_CASE(lfr_a64_rows),
	KUNIT_CASE(lfr_a64_lr_not_caller),
	KUNIT_CASE(lfr_a64_fp_then_table),
	KUNIT_CASE(lfr_a64_recursion_pac),
	{}
};

static struct kunit_suite lfr_a64_suite = {
	.name = "lfr_frame_walk_arm64",
	.test_cases = lfr_a64_cases,
};

kunit_test_suite(lfr_a64_suite);

// SPDX-License-Identifier: GPL-2.0
/* KUnit: frame-pointer walk on synthetic user stacks. */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "../../kmod/frame_walk.h"

#define STK_BASE	0x7ffd0000ULL
#define STK_WORDS	128

struct fake_stack {
	u64 mem[STK_WORDS];
	int reads;	/* successful reads */
	bool sections;	/* the walk's reads run inside sections */
	bool one;	/* one for the whole walk: lookups may run inside it */
	bool open;	/* one is open */
	bool bad;	/* one was closed twice or opened inside another */
};

static int fake_read(void *ctx, u64 addr, void *buf, size_t len)
{
	struct fake_stack *st = ctx;

	if (addr < STK_BASE || addr + len > STK_BASE + sizeof(st->mem))
		return -EFAULT;
	/* a read outside its section faults, as it would without access */
	if (st->bad || (st->sections && !st->open))
		return -EFAULT;
	st->reads++;
	memcpy(buf, (u8 *)st->mem + (addr - STK_BASE), len);
	return 0;
}

static enum lfr_row_found fake_row(void *ctx, u64 pc,
				   const struct lfr_unwind_row **row);

static bool fake_open(void *ctx)
{
	struct fake_stack *st = ctx;

	if (st->open)
		st->bad = true;
	st->open = true;
	return !st->bad;
}

static void fake_close(void *ctx)
{
	struct fake_stack *st = ctx;

	if (!st->open)
		st->bad = true;
	st->open = false;
}

/* The module's walks, with the fake stack's reads and rows. */
static const struct lfr_walk_fns fake_one_fns = {
	.read = fake_read, .read_in = fake_read, .row = fake_row,
	.open = fake_open, .close = fake_close, .one_section = true,
};

static const struct lfr_walk_fns fake_frame_fns = {
	.read = fake_read, .read_in = fake_read, .row = fake_row,
	.open = fake_open, .close = fake_close,
};

static const struct lfr_walk_fns fake_fp_fns = {
	.read = fake_read, .read_in = fake_read,
};

/* No flags of the walk's: a section left open or misused; modes differ. */
#define FAKE_SECTION_LEFT_OPEN	0x80000000u
#define FAKE_MODES_DIFFER	0x40000000u
#define FAKE_MEMO_DIFFERS	0x20000000u

/* The walk of @w in one section, following @memo and kept in it. */
static void memo_walk_of(struct lfr_uwalk *w, u64 *ips,
			 struct lfr_walk_memo *memo)
{
	struct fake_stack *st = w->ctx;

	w->ips = ips;
	w->memo = memo;
	st->sections = true;
	st->one = true;
	lfr_walk_user_in(w, &fake_one_fns, NULL, memo);
	if (st->open || st->bad)
		w->flags |= FAKE_SECTION_LEFT_OPEN;
	st->one = false;
	st->open = false;
	st->bad = false;
	st->sections = false;
}

static bool same_walk(const struct lfr_uwalk *a, const struct lfr_uwalk *b)
{
	return a->nr == b->nr && a->frames == b->frames &&
	       a->flags == b->flags &&
	       !memcmp(a->ips, b->ips, a->nr * sizeof(u64));
}

/*
 * Kept in a memo, then walked again following it, twice: each walk finds
 * what @one (the walk in one section, without a memo) found, and the walks
 * after the first take their frames past the leaf's caller from the memo.
 */
static noinline void memo_rounds(struct lfr_uwalk *w,
				 const struct lfr_uwalk *one)
{
	struct lfr_walk_memo *m = kzalloc(sizeof(*m), GFP_KERNEL);
	u64 *buf = kcalloc(2 * STK_WORDS, sizeof(u64), GFP_KERNEL);
	struct lfr_uwalk a = *one, b;
	int i;

	if (!m || !buf) {
		kfree(m);
		kfree(buf);
		w->flags |= FAKE_MEMO_DIFFERS;
		return;
	}
	memo_walk_of(&a, buf, m);
	if (a.memo_frames)
		w->flags |= FAKE_MEMO_DIFFERS;
	for (i = 0; i < 2; i++) {
		u32 n = m->n;

		b = *one;
		memo_walk_of(&b, buf + STK_WORDS, m);
		/* (a memo that ended at a recursion grows by a frame) */
		if (!same_walk(&a, &b) || m->n < n ||
		    b.memo_frames != (n > 2 ? n - 2 : 0))
			w->flags |= FAKE_MEMO_DIFFERS;
	}
	if (!same_walk(&a, one))
		w->flags |= FAKE_MEMO_DIFFERS;
	kfree(buf);
	kfree(m);
}

/*
 * The walk over a fake stack, with fake rows when the test gave rules.  A
 * walk with rows runs twice, as the live walks do: with a section for each
 * frame's reads and the lookups between them (a lookup inside one fails),
 * then with one section for the whole walk; a read outside a section
 * fails.  The second must find what the first found.
 */
static void walk_user(struct lfr_uwalk *w)
{
	struct fake_stack *st = w->ctx;
	struct lfr_uwalk one = *w;
	u64 ips[STK_WORDS];

	if (!w->row_ctx) {
		lfr_walk_user(w, fake_read, NULL);
		return;
	}
	st->sections = true;
	lfr_walk_user_in(w, &fake_frame_fns, NULL, false);
	if (st->open || st->bad)
		w->flags |= FAKE_SECTION_LEFT_OPEN;
	st->open = false;
	st->bad = false;

	if (one.max > ARRAY_SIZE(ips))
		one.max = ARRAY_SIZE(ips);
	one.ips = ips;
	st->one = true;
	lfr_walk_user_in(&one, &fake_one_fns, NULL, false);
	if (st->open || st->bad)
		w->flags |= FAKE_SECTION_LEFT_OPEN;
	if (one.nr != w->nr || one.frames != w->frames ||
	    one.flags != (w->flags & ~FAKE_SECTION_LEFT_OPEN) ||
	    memcmp(ips, w->ips, w->nr * sizeof(u64)))
		w->flags |= FAKE_MODES_DIFFER;
	st->one = false;
	st->open = false;
	st->bad = false;
	st->sections = false;

	memo_rounds(w, &one);
}

static u64 at(int word)
{
	return STK_BASE + word * 8ULL;
}

/* A 64-bit frame at @word: saved fp, then the return address. */
static void frame(struct fake_stack *st, int word, u64 next, u64 ret)
{
	st->mem[word] = next;
	st->mem[word + 1] = ret;
}

static void walk_init(struct lfr_uwalk *w, struct fake_stack *st, u64 *ips,
		      unsigned int max, u64 fp)
{
	memset(w, 0, sizeof(*w));
	w->ip = 0x401000;
	w->sp = at(0);
	w->fp = fp;
	w->limit = 1ULL << 47;
	w->max = max;
	w->ctx = st;
	w->ips = ips;
}

static void lfr_walk_complete(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];

	frame(st, 4, at(10), 0x401100);
	frame(st, 10, at(20), 0x401200);
	frame(st, 20, 0, 0x401300);
	walk_init(&w, st, ips, 16, at(4));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.flags, 0U);
	KUNIT_EXPECT_EQ(test, ips[0], 0x401000ULL);
	KUNIT_EXPECT_EQ(test, ips[1], 0x401100ULL);
	KUNIT_EXPECT_EQ(test, ips[3], 0x401300ULL);
}

/*
 * Ranges checked in the frame-pointer loop: the walk keeps the return
 * addresses that lie in them, switching ranges as it goes, and stops at the
 * first that lies in none, with miss set; without one outside it walks on.
 */
static void lfr_walk_fp_in_ranges(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	static const unsigned long lo[] = { 0x401000, 0x7f0000 };
	static const unsigned long hi[] = { 0x402000, 0x7f1000 };
	struct lfr_pc_ranges in = { .lo = lo, .hi = hi, .n = 2 };
	struct lfr_uwalk w;
	u64 ips[16];

	frame(st, 4, at(10), 0x401100);
	frame(st, 10, at(20), 0x7f0100);
	frame(st, 20, at(30), 0x401300);
	frame(st, 30, 0, 0x402000);	/* one past the first range */
	walk_init(&w, st, ips, 16, at(4));
	lfr_walk_user_in(&w, &fake_fp_fns, &in, false);
	KUNIT_EXPECT_TRUE(test, in.miss);
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.flags, 0U);
	KUNIT_EXPECT_EQ(test, ips[2], 0x7f0100ULL);
	KUNIT_EXPECT_EQ(test, ips[3], 0x401300ULL);

	frame(st, 30, 0, 0x401fff);
	in.miss = false;
	walk_init(&w, st, ips, 16, at(4));
	lfr_walk_user_in(&w, &fake_fp_fns, &in, false);
	KUNIT_EXPECT_FALSE(test, in.miss);
	KUNIT_EXPECT_EQ(test, w.nr, 5U);
	KUNIT_EXPECT_EQ(test, ips[4], 0x401fffULL);
}

static void lfr_walk_cycle(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[64];

	/* Two frames pointing at each other. */
	frame(st, 4, at(10), 0x401100);
	frame(st, 10, at(4), 0x401200);
	walk_init(&w, st, ips, 64, at(4));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 3U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_BAD_FRAME);

	/* A frame pointing at itself. */
	frame(st, 4, at(4), 0x401100);
	walk_init(&w, st, ips, 64, at(4));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 2U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_BAD_FRAME);
	KUNIT_EXPECT_LE(test, st->reads, 4);
}

static void lfr_walk_misaligned(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];

	frame(st, 4, at(10) + 3, 0x401100);
	walk_init(&w, st, ips, 16, at(4));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 2U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_BAD_FRAME);

	/* Misaligned from the start: only the pc. */
	walk_init(&w, st, ips, 16, at(4) + 4);
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 1U);
	KUNIT_EXPECT_EQ(test, st->reads, 1);
}

static void lfr_walk_decreasing(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];

	frame(st, 20, at(10), 0x401100);
	frame(st, 10, 0, 0x401200);
	walk_init(&w, st, ips, 16, at(20));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 2U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_BAD_FRAME);

	/* fp below the interrupted stack pointer. */
	walk_init(&w, st, ips, 16, at(20));
	w.sp = at(21);
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 1U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_BAD_FRAME);
}

static void lfr_walk_depth_cap(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[8];
	int i;

	for (i = 2; i < 100; i += 4)
		frame(st, i, at(i + 4), 0x500000 + i);
	frame(st, 102, 0, 0x500102);
	walk_init(&w, st, ips, 5, at(2));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 5U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_TRUNCATED);
	KUNIT_EXPECT_EQ(test, ips[4], 0x500000ULL + 14);

	walk_init(&w, st, ips, 1, at(2));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 1U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_TRUNCATED);

	walk_init(&w, st, ips, 0, at(2));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 0U);
}

static void lfr_walk_zero_return(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];

	frame(st, 4, at(10), 0x401100);
	frame(st, 10, at(20), 0);
	walk_init(&w, st, ips, 16, at(4));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 2U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_BAD_FRAME);
}

static void lfr_walk_fault(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];

	/* The second frame lies past the mapped stack. */
	frame(st, 4, at(STK_WORDS + 8), 0x401100);
	walk_init(&w, st, ips, 16, at(4));
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 2U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_FAULT);

	/* A frame at the end of the address space is rejected unread. */
	st->reads = 0;
	walk_init(&w, st, ips, 16, (1ULL << 47) - 8);
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_BAD_FRAME);
	KUNIT_EXPECT_EQ(test, st->reads, 0);
}

static void lfr_walk_compat(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	u32 *m = (u32 *)st->mem;
	struct lfr_uwalk w;
	u64 ips[16];

	/* 32-bit frames: {u32 next, u32 ret} at 4-byte alignment. */
	m[3] = (u32)(STK_BASE + 4 * 9);
	m[4] = 0x8048100;
	m[9] = 0;
	m[10] = 0x8048200;
	walk_init(&w, st, ips, 16, STK_BASE + 4 * 3);
	w.compat = true;
	w.limit = 1ULL << 32;
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 3U);
	KUNIT_EXPECT_EQ(test, w.flags, 0U);
	KUNIT_EXPECT_EQ(test, ips[2], 0x8048200ULL);

	KUNIT_EXPECT_EQ(test, lfr_frame_check(STK_BASE + 2, 0, STK_BASE, true,
					      1ULL << 32),
			LFR_FRAME_MISALIGNED);
	KUNIT_EXPECT_EQ(test, lfr_frame_check(0xfffffffcULL, 0, 0, true,
					      1ULL << 32),
			LFR_FRAME_OUT_OF_RANGE);
	KUNIT_EXPECT_EQ(test, lfr_frame_check(0, 0, 0, true, 1ULL << 32),
			LFR_FRAME_END);
}

/* The pc where the frame pointer is still the caller's. */
static void lfr_walk_prologue(struct kunit *test)
{
	static const struct {
		u64 insn;
		int ret_word;	/* where the return address is, from sp */
	} cases[] = {
		{ 0x55, 0 },			/* push %rbp */
		{ 0x55fa1e0ff3ULL, 0 },		/* endbr64; push %rbp */
		{ 0xe58948, 1 },		/* mov %rsp,%rbp */
		{ 0xc3, 0 },			/* ret */
		{ 0x90, -1 },			/* nop: fp is the function's */
	};
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct lfr_uwalk w;
	u64 ips[16];
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(st, 0, sizeof(*st));
		st->mem[0] = 0x401500;		/* [sp] */
		st->mem[1] = 0x401510;		/* [sp + 8] */
		frame(st, 4, 0, 0x401600);
		st->mem[100] = cases[i].insn;
		walk_init(&w, st, ips, 16, at(4));
		w.ip = at(100);
		walk_user(&w);
		KUNIT_EXPECT_EQ_MSG(test, w.flags, 0U, "case %d", i);
		if (cases[i].ret_word < 0) {
			KUNIT_EXPECT_EQ_MSG(test, w.nr, 2U, "case %d", i);
			KUNIT_EXPECT_EQ(test, ips[1], 0x401600ULL);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, w.nr, 3U, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, ips[1], 0x401500ULL + 16 * cases[i].ret_word,
				    "case %d", i);
		KUNIT_EXPECT_EQ(test, ips[2], 0x401600ULL);
	}

	/* Depth cap of one: only the pc. */
	walk_init(&w, st, ips, 1, at(4));
	w.ip = at(100);
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 1U);
}

/*
 * Mixed walks: a fake table of rules by pc range.  pcs 0x5xxxxx have a
 * table (rows by range), 0x4xxxxx none (frame pointers).
 */
struct fake_rule {
	u64 lo, hi;
	struct lfr_unwind_row row;
};

struct fake_rules {
	const struct fake_rule *r;
	int n;
	u64 asked[16];
	int nr_asked;
	int looked;	/* lookups, in either mode */
	struct fake_stack *st;	/* the walk's: no lookup inside a section */
	/*
	 * @bounded: the lookups a walk may still make (each a probe), at 0 a
	 * lookup pauses it (LFR_ROW_PAUSE)
	 */
	bool bounded;
	int probes;
};

static enum lfr_row_found fake_row(void *ctx, u64 pc,
				   const struct lfr_unwind_row **row)
{
	struct fake_rules *f = ctx;
	int i;

	if (f->st && f->st->open && !f->st->one) {
		f->st->bad = true;
		return LFR_ROW_NONE;
	}
	if (f->bounded && !f->probes)
		return LFR_ROW_PAUSE;
	if (f->bounded)
		f->probes--;
	f->looked++;
	if (f->nr_asked < ARRAY_SIZE(f->asked) && !(f->st && f->st->one))
		f->asked[f->nr_asked++] = pc;
	if (pc < 0x500000 || pc >= 0x600000)
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

#define SP_ROW(off)	{ .cfa = LFR_UNWIND_CFA_SP, .cfa_off = (off), \
			  .bp = LFR_UNWIND_BP_SAME }

/* A walk from @ip with the rules of @f, then run. */
static void mixed_walk(struct lfr_uwalk *w, struct fake_stack *st, u64 *ips,
		       unsigned int max, u64 fp, u64 ip, struct fake_rules *f)
{
	walk_init(w, st, ips, max, fp);
	w->ip = ip;
	w->row_ctx = f;
	f->st = st;
	walk_user(w);
}

/* No frame pointer anywhere: every caller comes from its row. */
static void lfr_walk_table_only(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	static const struct fake_rule rules[] = {
		{ 0x500000, 0x500100, SP_ROW(24) },	/* leaf: sub $16 */
		{ 0x500100, 0x500200, SP_ROW(8) },	/* at its call */
		{ 0x500200, 0x500300, SP_ROW(40) },
		{ 0x500300, 0x500400,
		  { .cfa = LFR_UNWIND_OUTERMOST } },	/* _start */
	};
	struct fake_rules f = { rules, ARRAY_SIZE(rules) };
	struct lfr_uwalk w;
	u64 ips[16];

	st->mem[2] = 0x500150;		/* sp + 24 - 8 */
	st->mem[3] = 0x500250;		/* CFA 3 words up, + 8 - 8 */
	st->mem[8] = 0x500350;		/* CFA 4 + 40 / 8 = 9, - 1 */
	/* rbp is a plain register here */
	mixed_walk(&w, st, ips, 16, 0xdead, 0x500010, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_CFI);
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.frames, 3U);
	KUNIT_EXPECT_EQ(test, ips[1], 0x500150ULL);
	KUNIT_EXPECT_EQ(test, ips[2], 0x500250ULL);
	KUNIT_EXPECT_EQ(test, ips[3], 0x500350ULL);
	/* The leaf is looked up at its pc, callers at their call. */
	KUNIT_EXPECT_EQ(test, f.asked[0], 0x500010ULL);
	KUNIT_EXPECT_EQ(test, f.asked[1], 0x50014fULL);
}

/*
 * A recursion: the frames return to one call site, whose row is looked up
 * once and kept for the frames after it (as in both section modes).
 */
static void lfr_walk_table_recursion(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	static const struct fake_rule rules[] = {
		{ 0x500000, 0x500200, { .cfa = LFR_UNWIND_CFA_BP, .cfa_off = 16,
					.bp = LFR_UNWIND_BP_AT_CFA,
					.bp_off = -16 } },
		{ 0x500200, 0x500300,
		  { .cfa = LFR_UNWIND_OUTERMOST } },	/* _start */
	};
	struct fake_rules f = { rules, ARRAY_SIZE(rules) };
	struct lfr_uwalk w;
	u64 ips[16];

	frame(st, 2, at(6), 0x500150);
	frame(st, 6, at(10), 0x500150);
	frame(st, 10, at(14), 0x500150);
	frame(st, 14, at(18), 0x500250);
	mixed_walk(&w, st, ips, 16, at(2), 0x500010, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_CFI);
	KUNIT_EXPECT_EQ(test, w.nr, 5U);
	KUNIT_EXPECT_EQ(test, w.frames, 4U);
	KUNIT_EXPECT_EQ(test, ips[1], 0x500150ULL);
	KUNIT_EXPECT_EQ(test, ips[2], 0x500150ULL);
	KUNIT_EXPECT_EQ(test, ips[3], 0x500150ULL);
	KUNIT_EXPECT_EQ(test, ips[4], 0x500250ULL);
	KUNIT_EXPECT_EQ(test, f.nr_asked, 3);
	KUNIT_EXPECT_EQ(test, f.asked[1], 0x50014fULL);
	KUNIT_EXPECT_EQ(test, f.asked[2], 0x50024fULL);

	/* cut at the depth cap inside the recursion */
	f.nr_asked = 0;
	mixed_walk(&w, st, ips, 3, at(2), 0x500010, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_TRUNCATED));
	KUNIT_EXPECT_EQ(test, w.nr, 3U);
	KUNIT_EXPECT_EQ(test, w.frames, 2U);

	/* cut at the depth cap at the recursion's last frame */
	mixed_walk(&w, st, ips, 4, at(2), 0x500010, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_TRUNCATED));
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.frames, 3U);

	/* a zero return address inside the recursion: a bad frame */
	frame(st, 14, at(18), 0);
	mixed_walk(&w, st, ips, 16, at(2), 0x500010, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_BAD_FRAME));
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.frames, 3U);

	/* a frame record past the readable stack inside the recursion */
	frame(st, 10, at(STK_WORDS - 1), 0x500150);
	mixed_walk(&w, st, ips, 16, at(2), 0x500010, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_FAULT));
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.frames, 3U);

	/* a saved rbp that points down: the chain ends there, as a bad frame */
	frame(st, 10, at(4), 0x500150);
	mixed_walk(&w, st, ips, 16, at(2), 0x500010, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_BAD_FRAME));
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.frames, 3U);
}

/*
 * A table frame that saved rbp, then code without a table: the frame-
 * pointer walk goes on from the rbp the row restored.
 */
static void lfr_walk_table_then_fp(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	static const struct fake_rule rules[] = {
		{ 0x500000, 0x500100, { .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 32,
					.bp = LFR_UNWIND_BP_AT_CFA,
					.bp_off = -16 } },
	};
	struct fake_rules f = { rules, ARRAY_SIZE(rules) };
	struct lfr_uwalk w;
	u64 ips[16];

	st->mem[2] = at(10);		/* saved rbp at CFA - 16 */
	st->mem[3] = 0x401100;		/* return address at CFA - 8 */
	frame(st, 10, at(20), 0x401200);
	frame(st, 20, 0, 0x401300);
	mixed_walk(&w, st, ips, 16, 0x1234, 0x500020, &f);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_CFI);
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.frames, 1U);
	KUNIT_EXPECT_EQ(test, ips[1], 0x401100ULL);
	KUNIT_EXPECT_EQ(test, ips[2], 0x401200ULL);
	KUNIT_EXPECT_EQ(test, ips[3], 0x401300ULL);
}

/*
 * A frame-pointer leaf whose caller has a table: the caller's sp is the
 * leaf's frame record + 16, and its rbp what the record saved.
 */
static void lfr_walk_fp_then_table(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	static const struct fake_rule rules[] = {
		{ 0x500000, 0x500100, SP_ROW(24) },
		{ 0x500100, 0x500200, { .cfa = LFR_UNWIND_CFA_BP, .cfa_off = 16,
					.bp = LFR_UNWIND_BP_AT_CFA,
					.bp_off = -16 } },
	};
	struct fake_rules f = { rules, ARRAY_SIZE(rules) };
	struct lfr_uwalk w;
	u64 ips[16];

	frame(st, 4, at(12), 0x500050);	/* the leaf's record */
	st->mem[8] = 0x500150;		/* CFA = at(6) + 24 = at(9) */
	st->mem[12] = 0;		/* CFA = at(12) + 16: saved rbp, */
	st->mem[13] = 0x401900;		/* return address */
	mixed_walk(&w, st, ips, 16, at(4), 0x401000, &f);
	KUNIT_EXPECT_EQ(test, w.flags, 0U);
	KUNIT_EXPECT_EQ(test, w.nr, 4U);
	KUNIT_EXPECT_EQ(test, w.frames, 2U);
	KUNIT_EXPECT_EQ(test, ips[1], 0x500050ULL);
	KUNIT_EXPECT_EQ(test, ips[2], 0x500150ULL);
	KUNIT_EXPECT_EQ(test, ips[3], 0x401900ULL);
}

/* No rule for a pc in an object that has a table: flagged, never guessed. */
static void lfr_walk_table_no_rule(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	static const struct fake_rule rules[] = {
		{ 0x500000, 0x500100, SP_ROW(8) },
		{ 0x500100, 0x500200, { .cfa = LFR_UNWIND_CFA_NONE } },
	};
	struct fake_rules f = { rules, ARRAY_SIZE(rules) };
	struct lfr_uwalk w;
	u64 ips[16];

	st->mem[0] = 0x500150;
	frame(st, 4, 0, 0x401100);	/* a frame record a guess would use */
	mixed_walk(&w, st, ips, 16, at(4), 0x500000, &f);
	KUNIT_EXPECT_EQ(test, w.nr, 2U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_NO_CFI));

	/* The leaf itself without a rule: only the pc. */
	mixed_walk(&w, st, ips, 16, at(4), 0x500150, &f);
	KUNIT_EXPECT_EQ(test, w.nr, 1U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)LFR_SAMPLE_F_USER_NO_CFI);
}

/* Rows that would not move up the stack, a fault, the depth cap. */
static void lfr_walk_table_bad(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	static const struct fake_rule rules[] = {
		{ 0x500000, 0x500100, { .cfa = LFR_UNWIND_CFA_BP, .cfa_off = 16,
					.bp = LFR_UNWIND_BP_SAME } },
		{ 0x500100, 0x500200, SP_ROW(8) },
	};
	struct fake_rules f = { rules, ARRAY_SIZE(rules) };
	struct lfr_uwalk w;
	u64 ips[16];

	/* CFA = rbp + 16 below sp. */
	mixed_walk(&w, st, ips, 16, at(4) - 64, 0x500000, &f);
	KUNIT_EXPECT_EQ(test, w.nr, 1U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_BAD_FRAME));

	/* A return address outside the stack's readable memory. */
	walk_init(&w, st, ips, 16, 0);
	w.sp = at(STK_WORDS);
	w.ip = 0x500150;
	w.row_ctx = &f;
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 1U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_FAULT));

	/*
	 * A caller's CFA at the limit: past the leaf, a CFA_SP row's CFA is
	 * checked against the limit only (sp is a CFA checked before).
	 */
	memset(st->mem, 0, sizeof(st->mem));
	st->mem[0] = 0x500151;
	st->mem[1] = 0x500152;		/* read only past the limit */
	walk_init(&w, st, ips, 16, 0);
	w.ip = 0x500150;
	w.limit = at(2);
	w.row_ctx = &f;
	f.st = st;
	walk_user(&w);
	KUNIT_EXPECT_EQ(test, w.nr, 2U);
	KUNIT_EXPECT_EQ(test, ips[1], 0x500151ULL);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_BAD_FRAME));

	/* Each frame returns into the next row's code: the cap ends it. */
	memset(st->mem, 0, sizeof(st->mem));
	st->mem[0] = 0x500151;
	st->mem[1] = 0x500152;
	st->mem[2] = 0x500153;
	mixed_walk(&w, st, ips, 3, 0, 0x500150, &f);
	KUNIT_EXPECT_EQ(test, w.nr, 3U);
	KUNIT_EXPECT_EQ(test, w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
					     LFR_SAMPLE_F_USER_TRUNCATED));
}

/*
 * A chain of table frames (four words each, their callers' return
 * addresses at 0x500150), from the leaf at word @leaf up to _start's code.
 */
static const struct fake_rule memo_rules[] = {
	{ 0x500000, 0x500100, SP_ROW(16) },	/* leaf: ret at sp + 8 */
	{ 0x500100, 0x500200, SP_ROW(32) },
	{ 0x500200, 0x500300, { .cfa = LFR_UNWIND_OUTERMOST } },
	{ 0x500300, 0x500400, { .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 32,
				.bp = LFR_UNWIND_BP_AT_CFA, .bp_off = -16 } },
};

static void memo_chain(struct fake_stack *st, int leaf, int frames)
{
	int i, w = leaf + 1;

	for (i = 0; i < frames; i++, w += 4)
		st->mem[w] = 0x500150;
	st->mem[w] = 0x500250;
}

/* A memo test: its stack, memo, rules, and the walks' outputs. */
struct memo_case {
	struct fake_stack st;
	struct lfr_walk_memo m;
	struct fake_rules f;
	u64 ips[64], fresh_ips[64];
	struct lfr_uwalk w;
};

static struct memo_case *memo_case(struct kunit *test)
{
	struct memo_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	c->f = (struct fake_rules){ memo_rules, ARRAY_SIZE(memo_rules),
				    .st = &c->st };
	return c;
}

/*
 * c->w walked from word @leaf, pc @ip, through c->m; and again without a
 * memo, which must find the same chain.
 */
static void memo_walk(struct kunit *test, struct memo_case *c, int leaf,
		      u64 ip)
{
	struct lfr_uwalk fresh;

	walk_init(&c->w, &c->st, c->ips, 64, 0x1234);
	c->w.sp = at(leaf);
	c->w.ip = ip;
	c->w.row_ctx = &c->f;
	fresh = c->w;
	memo_walk_of(&c->w, c->ips, &c->m);
	memo_walk_of(&fresh, c->fresh_ips, NULL);
	KUNIT_EXPECT_TRUE(test, same_walk(&c->w, &fresh));
}

/*
 * The same chain under another leaf pc: the frames past the leaf's caller
 * come from the memo, with two lookups (the leaf's, the outermost's).
 */
static void lfr_walk_memo_follows(struct kunit *test)
{
	struct memo_case *c = memo_case(test);

	memo_chain(&c->st, 0, 20);
	memo_walk(test, c, 0, 0x500010);
	KUNIT_EXPECT_EQ(test, c->w.nr, 22U);
	KUNIT_EXPECT_EQ(test, c->w.frames, 21U);
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 0U);
	KUNIT_EXPECT_EQ(test, c->m.n, 22U);

	c->f.looked = 0;
	walk_init(&c->w, &c->st, c->ips, 64, 0x1234);
	c->w.ip = 0x500020;
	c->w.row_ctx = &c->f;
	memo_walk_of(&c->w, c->ips, &c->m);
	KUNIT_EXPECT_EQ(test, c->f.looked, 2);
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 20U);
	memo_walk(test, c, 0, 0x500020);
	KUNIT_EXPECT_EQ(test, c->w.nr, 22U);
	KUNIT_EXPECT_EQ(test, c->w.frames, 21U);
	KUNIT_EXPECT_EQ(test, c->w.flags, (u32)LFR_SAMPLE_F_USER_CFI);
	KUNIT_EXPECT_EQ(test, c->ips[0], 0x500020ULL);
	KUNIT_EXPECT_EQ(test, c->ips[21], 0x500250ULL);

	/* cut by a lower depth cap while following */
	walk_init(&c->w, &c->st, c->ips, 10, 0x1234);
	c->w.ip = 0x500020;
	c->w.row_ctx = &c->f;
	memo_walk_of(&c->w, c->ips, &c->m);
	KUNIT_EXPECT_EQ(test, c->w.nr, 10U);
	KUNIT_EXPECT_EQ(test, c->w.frames, 9U);
	KUNIT_EXPECT_EQ(test, c->w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
						LFR_SAMPLE_F_USER_TRUNCATED));
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 8U);
}

/*
 * A return address changed since the memo was kept: the memo is followed up
 * to it, and the walk goes on by the rows from there, as one without it.
 */
static void lfr_walk_memo_changed(struct kunit *test)
{
	struct memo_case *c = memo_case(test);

	memo_chain(&c->st, 0, 20);
	memo_walk(test, c, 0, 0x500010);
	/* frame 9's caller is now _start: the chain ends 12 frames sooner */
	c->st.mem[1 + 4 * 8] = 0x500250;
	memo_walk(test, c, 0, 0x500010);
	KUNIT_EXPECT_EQ(test, c->w.nr, 10U);
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 7U);
	KUNIT_EXPECT_EQ(test, c->ips[9], 0x500250ULL);
	/* and the memo it kept is the new chain's */
	KUNIT_EXPECT_EQ(test, c->m.n, 10U);

	/* a zero return address where the memo had one: a bad frame */
	memo_chain(&c->st, 0, 20);
	memo_walk(test, c, 0, 0x500010);
	c->st.mem[1 + 4 * 12] = 0;
	memo_walk(test, c, 0, 0x500010);
	KUNIT_EXPECT_EQ(test, c->w.flags, (u32)(LFR_SAMPLE_F_USER_CFI |
						LFR_SAMPLE_F_USER_BAD_FRAME));
	KUNIT_EXPECT_EQ(test, c->w.nr, 13U);
}

/*
 * A saved rbp changed since the memo was kept: a row restored it from the
 * stack and the frame-pointer frames above start from it, so the memo's
 * frames past it are not taken.
 */
static void lfr_walk_memo_saved_bp(struct kunit *test)
{
	struct memo_case *c = memo_case(test);
	struct fake_stack *st = &c->st;

	/* leaf (ret at word 1), a frame at 0x500350 saving rbp, FP frames */
	st->mem[1] = 0x500350;		/* CFA at(2): frame 1 */
	st->mem[4] = at(20);		/* CFA at(6) - 16: saved rbp */
	st->mem[5] = 0x401100;		/* CFA at(6) - 8 */
	frame(st, 20, at(30), 0x401200);
	frame(st, 30, 0, 0x401300);
	frame(st, 40, at(50), 0x401400);
	frame(st, 50, 0, 0x401500);
	memo_walk(test, c, 0, 0x500010);
	KUNIT_EXPECT_EQ(test, c->w.nr, 5U);
	KUNIT_EXPECT_EQ(test, c->ips[3], 0x401200ULL);

	st->mem[4] = at(40);
	memo_walk(test, c, 0, 0x500010);
	KUNIT_EXPECT_EQ(test, c->w.nr, 5U);
	KUNIT_EXPECT_EQ(test, c->ips[3], 0x401400ULL);
	KUNIT_EXPECT_EQ(test, c->ips[4], 0x401500ULL);
	/* frame 2's rbp is not the memo's: nothing followed */
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 0U);

	/* a frame record's saved rbp changed above a followed part */
	memo_walk(test, c, 0, 0x500010);
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 3U);
	frame(st, 40, at(52), 0x401400);
	frame(st, 52, 0, 0x401600);
	memo_walk(test, c, 0, 0x500010);
	KUNIT_EXPECT_EQ(test, c->ips[4], 0x401600ULL);
	/* frame 2 followed, not frame 3, whose rbp was read from the record */
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 1U);
}

/*
 * A deeper stack under the same callers (a recursion two levels deeper):
 * its frames meet the memo's at other depths, and are walked by the rows;
 * the next walk at its depth follows it.
 */
static void lfr_walk_memo_deeper(struct kunit *test)
{
	struct memo_case *c = memo_case(test);

	memo_chain(&c->st, 0, 20);
	/* from the frame at word 8: its leaf's return address at word 9 */
	memo_walk(test, c, 8, 0x500010);
	KUNIT_EXPECT_EQ(test, c->w.nr, 20U);
	/* from word 0, two frames deeper */
	memo_walk(test, c, 0, 0x500010);
	KUNIT_EXPECT_EQ(test, c->w.nr, 22U);
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 0U);
	memo_walk(test, c, 0, 0x500020);
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 20U);
	/* and shallower again */
	memo_walk(test, c, 8, 0x500010);
	KUNIT_EXPECT_EQ(test, c->w.nr, 20U);
	KUNIT_EXPECT_EQ(test, c->w.memo_frames, 0U);
	KUNIT_EXPECT_EQ(test, c->ips[19], 0x500250ULL);
}

/*
 * A walk as the commit in place makes it: bounded to @frames frames and
 * @probes lookups (with rules), then gone on with from where it paused,
 * bounded again, until it is done.  Each part's frames and lookups are
 * within the bound; the number of parts less one in *@pauses.
 */
static void bounded_walk(struct kunit *test, struct lfr_uwalk *w,
			 unsigned int frames, int probes, int *pauses)
{
	struct fake_stack *st = w->ctx;
	struct fake_rules *f = w->row_ctx;
	unsigned int max = w->max, nr;
	int looked;

	*pauses = 0;
	st->sections = !!f;
	st->one = !!f;
	if (f) {
		f->bounded = true;
		f->probes = probes;
		looked = f->looked;
	}
	lfr_walk_bound(w, frames);
	if (f)
		lfr_walk_user_in(w, &fake_one_fns, NULL, !!w->memo);
	else
		lfr_walk_user_in(w, &fake_fp_fns, NULL, false);
	KUNIT_EXPECT_LE(test, w->nr, frames);
	while (lfr_walk_paused(w, max)) {
		(*pauses)++;
		if (f) {
			KUNIT_EXPECT_LE(test, f->looked - looked, probes);
			f->probes = probes;
			looked = f->looked;
		}
		nr = w->nr;
		lfr_walk_bound(w, nr + frames);
		if (f)
			lfr_walk_user_resume(w, &fake_one_fns, NULL);
		else
			lfr_walk_user_resume(w, &fake_fp_fns, NULL);
		KUNIT_EXPECT_LE(test, w->nr - nr, frames);
		if (*pauses > STK_WORDS)
			break;
	}
	if (f) {
		KUNIT_EXPECT_LE(test, f->looked - looked, probes);
		f->bounded = false;
		KUNIT_EXPECT_FALSE(test, st->open || st->bad);
	}
	st->sections = false;
	st->one = false;
	st->open = false;
	st->bad = false;
}

/* The chain of a bounded walk is the unbounded walk's, whatever its bound. */
static void expect_bounded_same(struct kunit *test, const struct lfr_uwalk *init,
				unsigned int frames, int probes,
				int min_pauses)
{
	u64 *full = kunit_kcalloc(test, STK_WORDS, sizeof(u64), GFP_KERNEL);
	u64 *part = kunit_kcalloc(test, STK_WORDS, sizeof(u64), GFP_KERNEL);
	struct lfr_uwalk a = *init, b = *init;
	int pauses;

	KUNIT_ASSERT_NOT_NULL(test, full);
	KUNIT_ASSERT_NOT_NULL(test, part);
	a.ips = full;
	b.ips = part;
	if (a.row_ctx) {
		struct fake_stack *st = a.ctx;

		st->sections = true;
		st->one = true;
		lfr_walk_user_in(&a, &fake_one_fns, NULL, false);
		st->sections = false;
		st->one = false;
	} else {
		lfr_walk_user(&a, fake_read, NULL);
	}
	bounded_walk(test, &b, frames, probes, &pauses);
	KUNIT_EXPECT_GE(test, pauses, min_pauses);
	KUNIT_EXPECT_EQ(test, b.nr, a.nr);
	KUNIT_EXPECT_EQ(test, b.frames, a.frames);
	KUNIT_EXPECT_EQ(test, b.flags, a.flags);
	KUNIT_EXPECT_EQ(test, memcmp(full, part, a.nr * sizeof(u64)), 0);
}

/* Frame pointers, 60 frames: 8 a part, then 2, and the depth cap inside. */
static void lfr_walk_bounded_fp(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct lfr_uwalk w;
	int i;

	for (i = 0; i < 60; i++)
		frame(st, 2 * i, i < 59 ? at(2 * i + 2) : 0, 0x401000 + 16 * i);
	walk_init(&w, st, NULL, STK_WORDS, at(0));
	expect_bounded_same(test, &w, 8, 0, 7);
	expect_bounded_same(test, &w, 2, 0, 30);
	w.max = 25;
	expect_bounded_same(test, &w, 8, 0, 3);
}

/* Table rows, one distinct call site a frame: cut by frames, and by probes. */
static void lfr_walk_bounded_rows(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	static const struct fake_rule rules[] = {
		{ 0x500000, 0x5ff000, SP_ROW(8) },
		{ 0x5ff000, 0x600000, { .cfa = LFR_UNWIND_OUTERMOST } },
	};
	struct fake_rules f = { rules, ARRAY_SIZE(rules), .st = st };
	struct lfr_uwalk w;
	int i;

	/* leaf at 0x500010 with its return address at sp: 100 frames */
	for (i = 0; i < 100; i++)
		st->mem[i] = 0x500100 + 16 * i;
	st->mem[100] = 0x5ff010;
	walk_init(&w, st, NULL, STK_WORDS, 0x1234);
	w.ip = 0x500010;
	w.row_ctx = &f;
	expect_bounded_same(test, &w, 10, 1000, 9);
	/* a lookup a frame: 3 probes a part, so 34 parts at least */
	expect_bounded_same(test, &w, 1000, 3, 33);
	expect_bounded_same(test, &w, 7, 5, 19);
	/* the leaf's lookup is always made: a bound of 1 probe still walks */
	expect_bounded_same(test, &w, 1000, 1, 99);
}

/*
 * A recursion by frame records (lfr_step_records()'s loop) cut inside, and
 * a walk that follows a memo, cut inside the frames it takes from it.
 */
static void lfr_walk_bounded_loops(struct kunit *test)
{
	struct fake_stack *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	static const struct fake_rule rules[] = {
		{ 0x500000, 0x500200, { .cfa = LFR_UNWIND_CFA_BP, .cfa_off = 16,
					.bp = LFR_UNWIND_BP_AT_CFA,
					.bp_off = -16 } },
		{ 0x500200, 0x500300,
		  { .cfa = LFR_UNWIND_OUTERMOST } },	/* _start */
	};
	struct fake_rules f = { rules, ARRAY_SIZE(rules), .st = st };
	struct memo_case *c = memo_case(test);
	struct lfr_uwalk w;
	int i;

	for (i = 0; i < 50; i++)
		frame(st, 2 * i, at(2 * i + 2), i < 49 ? 0x500150 : 0x500250);
	walk_init(&w, st, NULL, STK_WORDS, at(0));
	w.ip = 0x500010;
	w.row_ctx = &f;
	expect_bounded_same(test, &w, 7, 1000, 6);
	expect_bounded_same(test, &w, 2, 1000, 24);

	/* the memo's chain: kept by a first walk, then followed by parts */
	memo_chain(&c->st, 0, 30);
	memo_walk(test, c, 0, 0x500010);
	walk_init(&w, &c->st, NULL, 64, 0x1234);
	w.ip = 0x500020;
	w.row_ctx = &c->f;
	w.memo = &c->m;
	expect_bounded_same(test, &w, 16, 1000, 1);
	/* the memo keeps the frames walked with it: the first part's */
	KUNIT_EXPECT_EQ(test, c->m.n, 16U);
}

static struct kunit_case lfr_frame_cases[] = {
	KUNIT_CASE(lfr_walk_prologue),
	KUNIT_CASE(lfr_walk_complete),
	KUNIT_CASE(lfr_walk_fp_in_ranges),
	KUNIT_CASE(lfr_walk_cycle),
	KUNIT_CASE(lfr_walk_misaligned),
	KUNIT_CASE(lfr_walk_decreasing),
	KUNIT_CASE(lfr_walk_depth_cap),
	KUNIT_CASE(lfr_walk_zero_return),
	KUNIT_CASE(lfr_walk_fault),
	KUNIT_CASE(lfr_walk_compat),
	KUNIT_CASE(lfr_walk_table_only),
	KUNIT_CASE(lfr_walk_table_recursion),
	KUNIT_CASE(lfr_walk_table_then_fp),
	KUNIT_CASE(lfr_walk_fp_then_table),
	KUNIT_CASE(lfr_walk_table_no_rule),
	KUNIT_CASE(lfr_walk_table_bad),
	KUNIT_CASE(lfr_walk_memo_follows),
	KUNIT_CASE(lfr_walk_memo_changed),
	KUNIT_CASE(lfr_walk_memo_saved_bp),
	KUNIT_CASE(lfr_walk_memo_deeper),
	KUNIT_CASE(lfr_walk_bounded_fp),
	KUNIT_CASE(lfr_walk_bounded_rows),
	KUNIT_CASE(lfr_walk_bounded_loops),
	{}
};

static struct kunit_suite lfr_frame_suite = {
	.name = "lfr_frame_check",
	.test_cases = lfr_frame_cases,
};

kunit_test_suite(lfr_frame_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suites for lfr.ko");

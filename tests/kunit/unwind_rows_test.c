// SPDX-License-Identifier: GPL-2.0
/* KUnit: checking unwind tables from user space and finding their rows. */
#include <kunit/test.h>
#include "../../kmod/unwind_rows.c"

static const struct lfr_unwind_row good_rows[] = {
	{ .start = 0x1000, .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 8 },
	{ .start = 0x1001, .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 16,
	  .bp = LFR_UNWIND_BP_AT_CFA, .bp_off = -16 },
	{ .start = 0x1004, .cfa = LFR_UNWIND_CFA_BP, .cfa_off = 16,
	  .bp = LFR_UNWIND_BP_AT_CFA, .bp_off = -16 },
	{ .start = 0x1020, .cfa = LFR_UNWIND_CFA_NONE },
	{ .start = 0x1100, .cfa = LFR_UNWIND_OUTERMOST,
	  .bp = LFR_UNWIND_BP_UNDEFINED },
	{ .start = 0x1110, .cfa = LFR_UNWIND_CFA_NONE },
};

static struct lfr_unwind_hdr hdr_of(u32 nr)
{
	struct lfr_unwind_hdr h = {
		.magic = LFR_UNWIND_MAGIC,
		.version = LFR_UNWIND_VERSION,
		.nr_rows = nr,
		.ctime_sec = 1700000000,
		.ctime_nsec = 5,
	};

	return h;
}

static void lfr_unwind_rows_good(struct kunit *test)
{
	struct lfr_unwind_hdr h = hdr_of(ARRAY_SIZE(good_rows));
	const char *why = NULL;
	s64 bad;

	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, good_rows,
						    ARRAY_SIZE(good_rows),
						    &bad, &why), 0);
}

/* Each defect is refused, and the first bad row is the one named. */
static void lfr_unwind_rows_bad(struct kunit *test)
{
	static const struct {
		int row;
		struct lfr_unwind_row r;
	} cases[] = {
		{ 1, { .start = 0x1001, .cfa = __LFR_UNWIND_CFA_MAX } },
		{ 1, { .start = 0x1001, .cfa = LFR_UNWIND_CFA_SP,
		       .cfa_off = 8, .bp = __LFR_UNWIND_BP_MAX } },
		{ 1, { .start = 0x1001, .cfa = LFR_UNWIND_CFA_SP,
		       .cfa_off = 12 } },
		{ 1, { .start = 0x1001, .cfa = LFR_UNWIND_CFA_SP,
		       .cfa_off = 0 } },
		{ 1, { .start = 0x1001, .cfa = LFR_UNWIND_CFA_BP,
		       .cfa_off = 16, .bp = LFR_UNWIND_BP_AT_CFA,
		       .bp_off = 8 } },
		{ 1, { .start = 0x1001, .cfa = LFR_UNWIND_CFA_BP,
		       .cfa_off = 16, .bp = LFR_UNWIND_BP_AT_CFA,
		       .bp_off = -12 } },
		{ 1, { .start = 0x1000, .cfa = LFR_UNWIND_CFA_SP,
		       .cfa_off = 8 } },		/* not increasing */
		{ 1, { .start = 0x0fff, .cfa = LFR_UNWIND_CFA_SP,
		       .cfa_off = 8 } },
	};
	struct lfr_unwind_row rows[ARRAY_SIZE(good_rows)];
	struct lfr_unwind_hdr h;
	const char *why;
	s64 bad;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memcpy(rows, good_rows, sizeof(rows));
		rows[cases[i].row] = cases[i].r;
		h = hdr_of(ARRAY_SIZE(rows));
		why = NULL;
		KUNIT_EXPECT_EQ_MSG(test, lfr_unwind_rows_check(&h, rows,
				    ARRAY_SIZE(rows), &bad, &why), -EINVAL,
				    "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, bad, (s64)cases[i].row, "case %d", i);
		KUNIT_EXPECT_NOT_NULL(test, why);
	}

	/* The header: magic, version, reserved fields, the row count. */
	h = hdr_of(ARRAY_SIZE(good_rows));
	h.magic ^= 1;
	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, good_rows,
		ARRAY_SIZE(good_rows), &bad, &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, bad, -1LL);
	h = hdr_of(ARRAY_SIZE(good_rows));
	h.version = 2;
	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, good_rows,
		ARRAY_SIZE(good_rows), &bad, &why), -EINVAL);
	h = hdr_of(ARRAY_SIZE(good_rows));
	h.reserved2 = 1;
	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, good_rows,
		ARRAY_SIZE(good_rows), &bad, &why), -EINVAL);
	h = hdr_of(ARRAY_SIZE(good_rows));
	h.ctime_nsec = NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, good_rows,
		ARRAY_SIZE(good_rows), &bad, &why), -EINVAL);
	h = hdr_of(ARRAY_SIZE(good_rows) - 1);
	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, good_rows,
		ARRAY_SIZE(good_rows), &bad, &why), -EINVAL);
	h = hdr_of(0);
	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, good_rows, 0, &bad,
						    &why), -EINVAL);
}

static void lfr_unwind_rows_search(struct kunit *test)
{
	static const struct {
		u64 off;
		enum lfr_row_found found;
		u32 start;
	} cases[] = {
		{ 0x0fff, LFR_ROW_NONE, 0 },		/* before the first */
		{ 0x1000, LFR_ROW_FOUND, 0x1000 },
		{ 0x1001, LFR_ROW_FOUND, 0x1001 },
		{ 0x1003, LFR_ROW_FOUND, 0x1001 },
		{ 0x101f, LFR_ROW_FOUND, 0x1004 },
		{ 0x1020, LFR_ROW_NONE, 0x1020 },	/* a gap */
		{ 0x10ff, LFR_ROW_NONE, 0x1020 },
		{ 0x1100, LFR_ROW_FOUND, 0x1100 },
		{ 0x110f, LFR_ROW_FOUND, 0x1100 },
		{ 0x1110, LFR_ROW_NONE, 0x1110 },	/* past the end */
		{ 0xffffffffULL, LFR_ROW_NONE, 0x1110 },
	};
	const struct lfr_unwind_row *r;
	int i, n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r = NULL;
		KUNIT_EXPECT_EQ_MSG(test, lfr_unwind_rows_find(good_rows,
				    ARRAY_SIZE(good_rows), cases[i].off, &r),
				    cases[i].found, "case %d", i);
		if (cases[i].start) {
			KUNIT_ASSERT_NOT_NULL(test, r);
			KUNIT_EXPECT_EQ_MSG(test, r->start, cases[i].start,
					    "case %d", i);
		}
	}
	/* Every table length, every offset: the last row at or before it. */
	for (n = 1; n <= ARRAY_SIZE(good_rows); n++) {
		u64 off;

		for (off = 0xff0; off < 0x1120; off++) {
			int want = -1, k;

			for (k = 0; k < n; k++)
				if (good_rows[k].start <= off)
					want = k;
			r = NULL;
			if (want < 0) {
				KUNIT_EXPECT_EQ(test, lfr_unwind_rows_find(
					good_rows, n, off, &r), LFR_ROW_NONE);
				continue;
			}
			lfr_unwind_rows_find(good_rows, n, off, &r);
			KUNIT_EXPECT_PTR_EQ(test, r, &good_rows[want]);
		}
	}
	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_find(good_rows, 0, 0x1000, &r),
			LFR_ROW_NONE);
}

/*
 * The hinted search finds what the plain one finds, from hints that name no
 * row, from hints that other offsets of the same hash left, and from a hint
 * that the offset itself left; and leaves a hint that names the offset and
 * its row, which the next lookup of the offset takes without searching.
 */
static void lfr_unwind_rows_hinted(struct kunit *test)
{
	/* hints that name no row, zeroed ones, and off's own from a lookup */
	enum { NO_HINTS, ZEROED, LOOKED_UP, MODES };
	u64 hints[4];
	int n, mode;

	for (n = 1; n <= ARRAY_SIZE(good_rows); n++) {
		for (mode = 0; mode < MODES; mode++) {
			u32 off;
			int j;

			for (j = 0; j < ARRAY_SIZE(hints); j++)
				hints[j] = mode == NO_HINTS ?
					   LFR_UNWIND_NO_HINT : 0;
			for (off = 0xff0; off < 0x1120; off++) {
				const struct lfr_unwind_row *a = NULL, *b = NULL;
				enum lfr_row_found fa, fb;
				u64 *hint = &hints[(off * 0x9e3779b1U) >> 30];

				fa = lfr_unwind_rows_find(good_rows, n, off, &a);
				if (mode == LOOKED_UP)
					lfr_unwind_rows_find_hinted(good_rows,
								    n, hints,
								    30, off,
								    &b);
				fb = lfr_unwind_rows_find_hinted(good_rows, n,
								 hints, 30,
								 off, &b);
				KUNIT_EXPECT_EQ_MSG(test, fa, fb,
						    "n %d mode %d off %x",
						    n, mode, off);
				KUNIT_EXPECT_PTR_EQ_MSG(test, a, b,
							"n %d mode %d off %x",
							n, mode, off);
				if (off < good_rows[0].start)
					continue;
				/* the hint now names off and its row */
				KUNIT_EXPECT_EQ(test, (u32)*hint, off);
				KUNIT_EXPECT_LT(test, (u32)(*hint >> 32),
						(u32)n);
				KUNIT_EXPECT_PTR_EQ(test,
						    &good_rows[*hint >> 32], a);
			}
		}
	}
}

/*
 * A long table of a few rules: rows whose rule was found good before are
 * let through by a compare (the memo), so a bad row among many good ones,
 * a rule that shares the memo's slot with another, a row out of order
 * just after a known rule, and a first row at offset 0 are each checked.
 */
static void lfr_unwind_rows_many(struct kunit *test)
{
	enum { N = 5000 };
	static const struct lfr_unwind_row bad_rules[] = {
		{ .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 12 },
		{ .cfa = LFR_UNWIND_CFA_SP, .cfa_off = 0 },
		{ .cfa = LFR_UNWIND_CFA_BP, .cfa_off = 16,
		  .bp = LFR_UNWIND_BP_AT_CFA, .bp_off = -12 },
		{ .cfa = __LFR_UNWIND_CFA_MAX },
	};
	static const u32 at[] = { 1, 2, 777, N / 2, N - 1 };
	struct lfr_unwind_hdr h = hdr_of(N);
	struct lfr_unwind_row *rows;
	const char *why;
	s64 bad;
	u32 i, a, b;

	rows = kunit_kmalloc_array(test, N, sizeof(*rows), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rows);
	for (i = 0; i < N; i++) {
		/* 3 of the good rows' rules, and 400 more: the memo's slots shared */
		rows[i] = good_rows[i % 3];
		if (i % 5 == 4)
			rows[i].cfa_off = 8 * (1 + i % 400);
		rows[i].start = 4 * i;
	}
	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, rows, N, &bad, &why), 0);

	for (a = 0; a < ARRAY_SIZE(at); a++) {
		for (b = 0; b < ARRAY_SIZE(bad_rules); b++) {
			struct lfr_unwind_row keep = rows[at[a]];

			rows[at[a]] = bad_rules[b];
			rows[at[a]].start = keep.start;
			why = NULL;
			KUNIT_EXPECT_EQ_MSG(test, lfr_unwind_rows_check(&h, rows, N,
					    &bad, &why), -EINVAL, "row %u rule %u", at[a], b);
			KUNIT_EXPECT_EQ(test, bad, (s64)at[a]);
			KUNIT_EXPECT_NOT_NULL(test, why);
			rows[at[a]] = keep;
		}
		/* out of order, with a rule the rows before made known */
		rows[at[a]].start = rows[at[a] - 1].start;
		KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, rows, N, &bad, &why),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, bad, (s64)at[a]);
		KUNIT_EXPECT_STREQ(test, why,
				   "rows not sorted by start, strictly increasing");
		rows[at[a]].start = 4 * at[a];
	}
	KUNIT_EXPECT_EQ(test, lfr_unwind_rows_check(&h, rows, N, &bad, &why), 0);
}

static struct kunit_case lfr_unwind_rows_cases[] = {
	KUNIT_CASE(lfr_unwind_rows_hinted),
	KUNIT_CASE(lfr_unwind_rows_good),
	KUNIT_CASE(lfr_unwind_rows_bad),
	KUNIT_CASE(lfr_unwind_rows_many),
	KUNIT_CASE(lfr_unwind_rows_search),
	{}
};

static struct kunit_suite lfr_unwind_rows_suite = {
	.name = "lfr_unwind_rows",
	.test_cases = lfr_unwind_rows_cases,
};

kunit_test_suite(lfr_unwind_rows_suite);

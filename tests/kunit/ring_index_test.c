// SPDX-License-Identifier: GPL-2.0
/* KUnit: ring position arithmetic, wrap-around and a simulated reader. */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/lfr.h>
#include "../../kmod/ring_index.c"

#define RSZ 4096ULL

static void lfr_ring_empty_and_full(struct kunit *test)
{
	u32 pad = 99;

	KUNIT_EXPECT_EQ(test, lfr_ring_plan(0, 0, RSZ, 64, &pad), 0);
	KUNIT_EXPECT_EQ(test, pad, 0U);
	/* Exactly full: nothing fits, nothing is overwritten. */
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(RSZ, 0, RSZ, 8, &pad), -ENOSPC);
	/* The last 64 bytes are free and contiguous. */
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(RSZ - 64, 0, RSZ, 64, &pad), 0);
	KUNIT_EXPECT_EQ(test, pad, 0U);
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(RSZ - 64, 0, RSZ, 72, &pad), -ENOSPC);
	KUNIT_EXPECT_EQ(test, lfr_ring_used(RSZ - 64, 0), RSZ - 64);
}

static void lfr_ring_wrap(struct kunit *test)
{
	u64 head = 3 * RSZ + RSZ - 16;	/* 16 bytes before the end */
	u32 pad = 0;

	/* Record does not fit before the end: pad 16, then from offset 0. */
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(head, head - 100, RSZ, 64, &pad), 0);
	KUNIT_EXPECT_EQ(test, pad, 16U);
	/* Padding counts against free space. */
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(head, head - (RSZ - 72), RSZ, 64, &pad),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(head, head - (RSZ - 80), RSZ, 64, &pad),
			0);
	KUNIT_EXPECT_EQ(test, pad, 16U);
	/* Fits exactly up to the end: no padding. */
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(head, head, RSZ, 16, &pad), 0);
	KUNIT_EXPECT_EQ(test, pad, 0U);
}

static void lfr_ring_counter_wrap(struct kunit *test)
{
	u32 pad;

	/* Free-running u64 positions wrapping past zero. */
	KUNIT_EXPECT_EQ(test, lfr_ring_used(16, (u64)-48), 64ULL);
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(16, (u64)-48, RSZ, 64, &pad), 0);
	KUNIT_EXPECT_EQ(test, pad, 0U);
	KUNIT_EXPECT_EQ(test, lfr_ring_plan((u64)-16, (u64)-32, RSZ, 64, &pad), 0);
	KUNIT_EXPECT_EQ(test, pad, 16U);
}

static void lfr_ring_bad_input(struct kunit *test)
{
	u32 pad;

	/* Consumer tail ahead of head, or more than a ring behind: corrupt. */
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(100, 108, RSZ, 8, &pad), -EINVAL);
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(RSZ + 8, 0, RSZ, 8, &pad), -EINVAL);
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(0, 0, RSZ, RSZ + 8, &pad), -E2BIG);
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(0, 0, RSZ, 0, &pad), -E2BIG);
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(0, 0, RSZ, RSZ, &pad), 0);
}

/*
 * A producer and a consumer sharing a small ring: every record the
 * producer could place is read back intact and in order; every other one
 * was refused, never overwritten.
 */
/*
 * An empty ring takes a record of up to half its size at every head offset
 * (the padding to the end is shorter than the record), but not one of more:
 * START's size check rests on this.
 */
static void lfr_ring_empty_takes_half(struct kunit *test)
{
	u64 off;
	u32 pad;

	for (off = 0; off < RSZ; off += 8)
		KUNIT_EXPECT_EQ(test, lfr_ring_plan(RSZ + off, RSZ + off, RSZ,
						    RSZ / 2, &pad), 0);
	/* at offset RSZ / 2 it needs RSZ / 2 of padding first */
	KUNIT_EXPECT_EQ(test, lfr_ring_plan(RSZ + RSZ / 2, RSZ + RSZ / 2, RSZ,
					    RSZ / 2 + 8, &pad), -ENOSPC);
}

static void lfr_ring_simulation(struct kunit *test)
{
	u8 *data = kunit_kzalloc(test, RSZ, GFP_KERNEL);
	u64 head = (u64)-RSZ * 3, tail = head, seq_w = 0, seq_r = 0;
	u64 dropped = 0, pads = 0;
	struct rnd_state rnd;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, data);
	prandom_seed_state(&rnd, 42);
	for (i = 0; i < 20000; i++) {
		u32 len = 16 + 8 * (prandom_u32_state(&rnd) % 40), pad;
		int err = lfr_ring_plan(head, tail, RSZ, len, &pad);

		if (err) {
			KUNIT_ASSERT_EQ(test, err, -ENOSPC);
			dropped++;
		} else {
			struct lfr_rec_header *h;

			if (pad) {
				h = (void *)(data + (head & (RSZ - 1)));
				h->type = LFR_REC_PAD;
				h->size = pad;
				head += pad;
			}
			KUNIT_ASSERT_LE(test, (head & (RSZ - 1)) + len, RSZ);
			h = (void *)(data + (head & (RSZ - 1)));
			h->type = LFR_REC_SAMPLE;
			h->size = len;
			*(u64 *)(h + 1) = seq_w++;
			head += len;
		}
		KUNIT_ASSERT_LE(test, head - tail, RSZ);
		/* The reader is slower than the writer: it runs one time in
		 * four and then reads three records on average.
		 */
		if (prandom_u32_state(&rnd) % 4)
			continue;
		while (tail != head && prandom_u32_state(&rnd) % 4) {
			struct lfr_rec_header *h = (void *)(data + (tail & (RSZ - 1)));

			KUNIT_ASSERT_GE(test, h->size, 8U);
			if (h->type == LFR_REC_PAD) {
				pads++;
			} else {
				KUNIT_ASSERT_EQ(test, h->type, (u32)LFR_REC_SAMPLE);
				KUNIT_ASSERT_EQ(test, *(u64 *)(h + 1), seq_r);
				seq_r++;
			}
			tail += h->size;
		}
	}
	KUNIT_EXPECT_GT(test, dropped, 0ULL);
	KUNIT_EXPECT_GT(test, pads, 0ULL);
	KUNIT_EXPECT_GT(test, seq_r, 1000ULL);
}

static struct kunit_case lfr_ring_cases[] = {
	KUNIT_CASE(lfr_ring_empty_and_full),
	KUNIT_CASE(lfr_ring_wrap),
	KUNIT_CASE(lfr_ring_counter_wrap),
	KUNIT_CASE(lfr_ring_bad_input),
	KUNIT_CASE(lfr_ring_empty_takes_half),
	KUNIT_CASE(lfr_ring_simulation),
	{}
};

static struct kunit_suite lfr_ring_suite = {
	.name = "lfr_ring_index",
	.test_cases = lfr_ring_cases,
};

kunit_test_suite(lfr_ring_suite);

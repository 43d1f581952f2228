// SPDX-License-Identifier: GPL-2.0
/* KUnit: records written to a ring, copied or in place (reserve, publish). */
#include <kunit/test.h>
#include <linux/wait.h>
#include <linux/lfr.h>
#include "../../kmod/ring.c"

struct ring_fixture {
	struct lfr_ring *r;
	struct lfr_counters __percpu *ctr;
	wait_queue_head_t wq;
	int full;		/* calls of the ring's full callback */
};

static struct ring_fixture *ring_fixture;

static void fake_full(struct lfr_session *owner, u32 cpu)
{
	ring_fixture->full++;
}

/* A one-page ring that wakes nobody (wakeup_bytes past its size). */
static int ring_init(struct kunit *test)
{
	struct ring_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct lfr_ring_owner o = {
		.full = fake_full,
		.pages = 1,
		.wakeup_bytes = 2 * PAGE_SIZE,
	};

	if (!f)
		return -ENOMEM;
	init_waitqueue_head(&f->wq);
	f->ctr = alloc_percpu(struct lfr_counters);
	if (!f->ctr)
		return -ENOMEM;
	o.wq = &f->wq;
	o.ctr = f->ctr;
	f->r = lfr_ring_alloc(&o, 0);
	if (!f->r) {
		free_percpu(f->ctr);
		return -ENOMEM;
	}
	ring_fixture = f;
	test->priv = f;
	return 0;
}

static void ring_exit(struct kunit *test)
{
	struct ring_fixture *f = test->priv;

	lfr_ring_free(f->r);
	free_percpu(f->ctr);
	ring_fixture = NULL;
}

/* A record of @len bytes, every word after the header @fill. */
static void fill_rec(void *p, u32 type, u32 len, u64 fill)
{
	struct lfr_rec_header *h = p;
	u64 *w = p;
	u32 i;

	h->type = type;
	h->size = len;
	for (i = 1; i < len / 8; i++)
		w[i] = fill;
}

static const struct lfr_rec_header *at_off(struct lfr_ring *r, u64 pos)
{
	return (const void *)(r->data + (pos & (r->size - 1)));
}

/* In place: what a reader finds is what lfr_ring_write() would have left. */
static void lfr_ring_reserve_publish(struct kunit *test)
{
	struct ring_fixture *f = test->priv;
	struct lfr_ring *r = f->r;
	u64 rec[8];
	void *room;

	fill_rec(rec, LFR_REC_TICK, sizeof(rec), 0x1111);
	KUNIT_ASSERT_EQ(test, lfr_ring_write(r, rec, sizeof(rec)), 0);
	KUNIT_EXPECT_EQ(test, r->ctrl->head, 64ULL);

	room = lfr_ring_reserve(r, 1024);
	KUNIT_ASSERT_NOT_NULL(test, room);
	KUNIT_EXPECT_PTR_EQ(test, room, (void *)(r->data + 64));
	fill_rec(room, LFR_REC_USTACK, 96, 0x2222);
	/* nothing is seen before it is published */
	KUNIT_EXPECT_EQ(test, r->ctrl->head, 64ULL);
	lfr_ring_publish(r, 96);
	KUNIT_EXPECT_EQ(test, r->ctrl->head, 160ULL);
	KUNIT_EXPECT_EQ(test, at_off(r, 64)->type, (u32)LFR_REC_USTACK);
	KUNIT_EXPECT_EQ(test, at_off(r, 64)->size, 96U);

	/* a room left unpublished is taken by the next record */
	room = lfr_ring_reserve(r, 1024);
	KUNIT_ASSERT_NOT_NULL(test, room);
	fill_rec(room, LFR_REC_USTACK, 64, 0x3333);
	fill_rec(rec, LFR_REC_TICK, sizeof(rec), 0x4444);
	KUNIT_ASSERT_EQ(test, lfr_ring_write(r, rec, sizeof(rec)), 0);
	KUNIT_EXPECT_EQ(test, r->ctrl->head, 224ULL);
	KUNIT_EXPECT_EQ(test, at_off(r, 160)->type, (u32)LFR_REC_TICK);
	KUNIT_EXPECT_EQ(test, ((const u64 *)at_off(r, 160))[1], 0x4444ULL);
	KUNIT_EXPECT_EQ(test, f->full, 0);
}

/*
 * Room that does not fit before the end of the data: a PAD record first,
 * published with the record; room the free space cannot hold: none, and
 * nothing counted or flagged (lfr_ring_write() does that).
 */
static void lfr_ring_reserve_wrap_and_full(struct kunit *test)
{
	struct ring_fixture *f = test->priv;
	struct lfr_ring *r = f->r;
	u64 size = r->size;
	void *room;

	/* the reader has taken everything up to 256 bytes before the end */
	r->head = size - 256;
	r->ctrl->head = r->head;
	r->ctrl->tail = r->head;
	room = lfr_ring_reserve(r, 1024);
	KUNIT_ASSERT_NOT_NULL(test, room);
	KUNIT_EXPECT_PTR_EQ(test, room, (void *)r->data);
	KUNIT_EXPECT_EQ(test, at_off(r, size - 256)->type, (u32)LFR_REC_PAD);
	KUNIT_EXPECT_EQ(test, at_off(r, size - 256)->size, 256U);
	fill_rec(room, LFR_REC_USTACK, 128, 0x5555);
	lfr_ring_publish(r, 128);
	KUNIT_EXPECT_EQ(test, r->ctrl->head, size + 128);

	/* full but for 512 bytes: no room for 1024, but a record of 64 fits */
	r->ctrl->tail = r->head + 512 - size;
	KUNIT_EXPECT_NULL(test, lfr_ring_reserve(r, 1024));
	KUNIT_EXPECT_EQ(test, r->ctrl->head, size + 128);
	KUNIT_EXPECT_FALSE(test, r->overflow);
	KUNIT_EXPECT_EQ(test, f->full, 0);
	room = lfr_ring_reserve(r, 64);
	KUNIT_ASSERT_NOT_NULL(test, room);
	fill_rec(room, LFR_REC_USTACK, 64, 0x6666);
	lfr_ring_publish(r, 64);
	KUNIT_EXPECT_EQ(test, r->ctrl->head, size + 192);
}

/* Losses noted on the ring go first: a LOST record, then the room. */
static void lfr_ring_reserve_after_losses(struct kunit *test)
{
	struct ring_fixture *f = test->priv;
	struct lfr_ring *r = f->r;
	void *room;

	lfr_ring_lost(r, LFR_LOST_RING_FULL, 3);
	room = lfr_ring_reserve(r, 256);
	KUNIT_ASSERT_NOT_NULL(test, room);
	KUNIT_EXPECT_EQ(test, at_off(r, 0)->type, (u32)LFR_REC_LOST);
	KUNIT_EXPECT_PTR_EQ(test, room,
			    (void *)(r->data + sizeof(struct lfr_rec_lost)));
	KUNIT_EXPECT_EQ(test, r->lost_pending, 0U);
	KUNIT_EXPECT_EQ(test, r->ctrl->head, sizeof(struct lfr_rec_lost));
	fill_rec(room, LFR_REC_USTACK, 64, 0x7777);
	lfr_ring_publish(r, 64);
	KUNIT_EXPECT_EQ(test, r->ctrl->head, sizeof(struct lfr_rec_lost) + 64);
}

static struct kunit_case lfr_ring_write_cases[] = {
	KUNIT_CASE(lfr_ring_reserve_publish),
	KUNIT_CASE(lfr_ring_reserve_wrap_and_full),
	KUNIT_CASE(lfr_ring_reserve_after_losses),
	{}
};

static struct kunit_suite lfr_ring_write_suite = {
	.name = "lfr_ring_write",
	.init = ring_init,
	.exit = ring_exit,
	.test_cases = lfr_ring_write_cases,
};

kunit_test_suite(lfr_ring_write_suite);

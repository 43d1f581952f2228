// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: reading an OpenTelemetry thread context (kmod/thread_ctx_read.h) from a synthetic
 * address space: every access kind (static TLS, initial-exec slot, the DTV of glibc and musl,
 * TLS descriptors of both TLS variants), the states without a context, and records that change
 * while they are read.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include "../../kmod/thread_ctx_read.h"

/* The synthetic memory: [BASE, BASE + SIZE). */
#define BASE	0x10000ULL
#define SIZE	8192

struct mem {
	u8 b[SIZE];
	u32 reads;
	/* after this many reads, poke @poke_val at @poke_at (0: never) */
	u32 poke_after;
	u64 poke_at;
	u8 poke_val;
};

static int mem_read(void *rc, u64 addr, void *buf, u32 len)
{
	struct mem *m = rc;

	if (addr < BASE || addr + len > BASE + SIZE || addr + len < addr)
		return -EFAULT;
	memcpy(buf, m->b + (addr - BASE), len);
	if (++m->reads == m->poke_after)
		m->b[m->poke_at - BASE] = m->poke_val;
	return 0;
}

static void put64(struct mem *m, u64 addr, u64 v)
{
	memcpy(m->b + (addr - BASE), &v, 8);
}

#define TP	(BASE + 4096)	/* the thread pointer */
#define REC	(BASE + 6000)	/* the record */

/* A valid record at REC: trace id 0xt0.., span id 0x5.., flags 1, @attrs attribute bytes. */
static void put_record(struct mem *m, u16 attrs)
{
	u8 *r = m->b + (REC - BASE);
	int i;

	for (i = 0; i < 16; i++)
		r[i] = 0xa0 + i;
	for (i = 0; i < 8; i++)
		r[16 + i] = 0x50 + i;
	r[24] = 1;
	r[25] = 1;
	memcpy(r + 26, &attrs, 2);
	for (i = 0; i < attrs && 28 + i < SIZE - (REC - BASE); i++)
		r[28 + i] = (u8)i;
}

struct out {
	struct lfr_ustack_ctx c;
	u8 attrs[LFR_CTX_ATTRS_MAX];
};

static struct mem *mem_new(struct kunit *test)
{
	struct mem *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	return m;
}

static int read_ctx(struct mem *m, const struct lfr_ctx_where *w, struct out *o)
{
	m->reads = 0;
	return lfr_ctx_read(w, TP, mem_read, m, &o->c);
}

static void lfr_ctx_static(struct kunit *test)
{
	struct lfr_ctx_where w = { .access = LFR_CTX_ACCESS_STATIC, .offset = -16 };
	struct mem *m = mem_new(test);
	struct out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	put_record(m, 5);
	put64(m, TP - 16, REC);
	KUNIT_ASSERT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
	KUNIT_EXPECT_EQ(test, o->c.state, LFR_CTX_VALID);
	KUNIT_EXPECT_EQ(test, o->c.trace_id[0], 0xa0);
	KUNIT_EXPECT_EQ(test, o->c.trace_id[15], 0xaf);
	KUNIT_EXPECT_EQ(test, o->c.span_id[7], 0x57);
	KUNIT_EXPECT_EQ(test, o->c.trace_flags, 1);
	KUNIT_EXPECT_EQ(test, o->c.attrs_len, 5);
	KUNIT_EXPECT_EQ(test, o->c.attrs_size, 5);
	KUNIT_EXPECT_EQ(test, o->attrs[4], 4);
	KUNIT_EXPECT_EQ(test, lfr_ctx_rec_size(&o->c), (u32)(sizeof(o->c) + 8));
	/* variant I: the block above the thread pointer */
	w.offset = 16;
	put64(m, TP + 16, REC);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
}

static void lfr_ctx_tpoff_slot(struct kunit *test)
{
	struct lfr_ctx_where w = { .access = LFR_CTX_ACCESS_TPOFF_SLOT, .slot = BASE + 64,
				   .offset = 8 };
	struct mem *m = mem_new(test);
	struct out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	put_record(m, 0);
	put64(m, BASE + 64, (u64)-40);
	put64(m, TP - 32, REC);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
	KUNIT_EXPECT_EQ(test, o->c.attrs_len, 0);
	/* a slot outside memory */
	w.slot = 8;
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_FAULT);
	KUNIT_EXPECT_EQ(test, o->c.state, LFR_CTX_FAULT);
}

#define DTV	(BASE + 1024)
#define BLOCK	(BASE + 3000)

/* glibc: the GOT pair {module 3, offset 24}; tp + 8 -> DTV of 16-byte entries, its count at -1 */
static void lfr_ctx_dtv_glibc(struct kunit *test)
{
	struct lfr_ctx_where w = { .access = LFR_CTX_ACCESS_DTV_SLOT, .slot = BASE + 64,
				   .dtv_off = 8, .dtv_stride = 16, .dtv_count = -1 };
	struct mem *m = mem_new(test);
	struct out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	put_record(m, 0);
	put64(m, BASE + 64, 3);
	put64(m, BASE + 72, 24);
	put64(m, TP + 8, DTV);
	put64(m, DTV - 16, 4);		/* slots */
	put64(m, DTV + 3 * 16, BLOCK);
	put64(m, BLOCK + 24, REC);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
	/* not allocated in this thread yet */
	put64(m, DTV + 3 * 16, ~0ULL);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_NO_BLOCK);
	put64(m, DTV + 3 * 16, 0);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_NO_BLOCK);
	put64(m, DTV + 3 * 16, BLOCK);
	/* a module loaded after this thread's DTV was grown */
	put64(m, DTV - 16, 2);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_NO_BLOCK);
	put64(m, DTV - 16, 4);
	/* no DTV, a module id of 0, a huge one */
	put64(m, TP + 8, 0);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_NO_BLOCK);
	put64(m, TP + 8, DTV);
	put64(m, BASE + 64, 0);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_NO_BLOCK);
	put64(m, BASE + 64, 1ULL << 40);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_NO_BLOCK);
}

/* musl: the GOT pair {module 2, offset 16}; tp + 8 -> DTV of 8-byte entries, its count at 0 */
static void lfr_ctx_dtv_musl(struct kunit *test)
{
	struct lfr_ctx_where w = { .access = LFR_CTX_ACCESS_DTV_SLOT, .slot = BASE + 64,
				   .dtv_off = 8, .dtv_stride = 8, .dtv_count = 0 };
	struct mem *m = mem_new(test);
	struct out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	put_record(m, 0);
	put64(m, BASE + 64, 2);
	put64(m, BASE + 72, 16);
	put64(m, TP + 8, DTV);
	put64(m, DTV, 2);
	put64(m, DTV + 2 * 8, BLOCK);
	put64(m, BLOCK + 16, REC);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
	put64(m, DTV, 1);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_NO_BLOCK);
	/* without a count, the entry alone decides */
	w.dtv_count = LFR_CTX_DTV_NO_COUNT;
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
}

/* TLS descriptors: {resolver, argument}; the argument is an offset or a pointer to {id, off} */
static void lfr_ctx_tlsdesc(struct kunit *test)
{
	struct lfr_ctx_where w = { .access = LFR_CTX_ACCESS_TLSDESC, .slot = BASE + 64,
				   .dtv_off = 8, .dtv_stride = 16, .dtv_count = -1,
				   .tls_below_tp = true };
	struct mem *m = mem_new(test);
	struct out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	put_record(m, 0);
	/* variant II, static: a negative offset from tp */
	put64(m, BASE + 72, (u64)-64);
	put64(m, TP - 64, REC);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
	/* dynamic: a pointer to {module 1, offset 40} */
	put64(m, BASE + 72, BASE + 128);
	put64(m, BASE + 128, 1);
	put64(m, BASE + 136, 40);
	put64(m, TP + 8, DTV);
	put64(m, DTV - 16, 1);
	put64(m, DTV + 16, BLOCK);
	put64(m, BLOCK + 40, REC);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
	/* variant I: a small argument is an offset, a large one a pointer */
	w.tls_below_tp = false;
	put64(m, BASE + 72, 48);
	put64(m, TP + 48, REC);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
	put64(m, BASE + 72, LFR_CTX_TLSDESC_STATIC_MAX + BASE + 128);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_FAULT);
	/* an unknown access kind reads nothing */
	w.access = 77;
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_FAULT);
}

/* No record, or one that is not valid: no context, and nothing of the record copied. */
static void lfr_ctx_states(struct kunit *test)
{
	struct lfr_ctx_where w = { .access = LFR_CTX_ACCESS_STATIC, .offset = -16 };
	struct mem *m = mem_new(test);
	struct out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	put_record(m, 3);
	put64(m, TP - 16, 0);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_NULL);
	put64(m, TP - 16, REC + 1);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_INVALID);
	put64(m, TP - 16, REC);
	m->b[REC - BASE + 24] = 0;
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_INVALID);
	m->b[REC - BASE + 24] = 2;
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_INVALID);
	KUNIT_EXPECT_EQ(test, o->c.attrs_len, 0);
	KUNIT_EXPECT_EQ(test, o->c.span_id[0], 0);
	/* a record past the end of memory */
	put64(m, TP - 16, BASE + SIZE - 10);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_FAULT);
	/* the variable itself unreadable */
	w.offset = 1 << 20;
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_FAULT);
}

/* More attributes than the OTEP's 640 bytes: the first LFR_CTX_ATTRS_MAX are kept. */
static void lfr_ctx_long(struct kunit *test)
{
	struct lfr_ctx_where w = { .access = LFR_CTX_ACCESS_STATIC, .offset = -16 };
	struct mem *m = mem_new(test);
	struct out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	put_record(m, 1000);
	put64(m, TP - 16, REC);
	KUNIT_EXPECT_EQ(test, read_ctx(m, &w, o), LFR_CTX_VALID);
	KUNIT_EXPECT_EQ(test, o->c.attrs_len, LFR_CTX_ATTRS_MAX);
	KUNIT_EXPECT_EQ(test, o->c.attrs_size, 1000);
	KUNIT_EXPECT_EQ(test, o->attrs[LFR_CTX_ATTRS_MAX - 1], (u8)(LFR_CTX_ATTRS_MAX - 1));
	KUNIT_EXPECT_EQ(test, lfr_ctx_rec_size(&o->c),
			(u32)(sizeof(o->c) + round_up(LFR_CTX_ATTRS_MAX, 8)));
}

/*
 * A record changed while it is read (by another thread, which the OTEP does not allow): after the
 * first copy of the pointer, of the head, of the attributes.  Never reported, whatever changed.
 */
static void lfr_ctx_changed(struct kunit *test)
{
	static const struct {
		u32 after;	/* reads: 1 the pointer, 2 the head, 3 the attributes */
		u64 at;
		u8 val;
	} cases[] = {
		{ 2, REC + 20, 0x99 },		/* the span id */
		{ 2, REC + 3, 0x99 },		/* the trace id */
		{ 3, REC + 28 + 2, 0x99 },	/* an attribute */
		{ 3, TP - 16, 0x99 },		/* the pointer itself */
		{ 2, REC + 24, 0 },		/* valid dropped */
	};
	struct lfr_ctx_where w = { .access = LFR_CTX_ACCESS_STATIC, .offset = -16 };
	struct out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct mem *m = mem_new(test);

		put_record(m, 4);
		put64(m, TP - 16, REC);
		m->poke_after = cases[i].after;
		m->poke_at = cases[i].at;
		m->poke_val = cases[i].val;
		KUNIT_EXPECT_EQ_MSG(test, read_ctx(m, &w, o), LFR_CTX_CHANGED, "case %d", i);
		KUNIT_EXPECT_EQ(test, o->c.span_id[4], 0);
		KUNIT_EXPECT_EQ(test, o->c.attrs_len, 0);
	}
}

static struct kunit_case lfr_ctx_read_cases[] = {
	KUNIT_CASE(lfr_ctx_static),
	KUNIT_CASE(lfr_ctx_tpoff_slot),
	KUNIT_CASE(lfr_ctx_dtv_glibc),
	KUNIT_CASE(lfr_ctx_dtv_musl),
	KUNIT_CASE(lfr_ctx_tlsdesc),
	KUNIT_CASE(lfr_ctx_states),
	KUNIT_CASE(lfr_ctx_long),
	KUNIT_CASE(lfr_ctx_changed),
	{}
};

static struct kunit_suite lfr_ctx_read_suite = {
	.name = "lfr_thread_ctx_read",
	.test_cases = lfr_ctx_read_cases,
};

kunit_test_suite(lfr_ctx_read_suite);

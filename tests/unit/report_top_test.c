// SPDX-License-Identifier: GPL-2.0
/*
 * lfr top's table (report/top.c): self and total per function and thread over a sliding window,
 * recursion counted once, kernel frames left out without -k, the thread and process filters, the
 * two sort orders, and the callers and callees of a zoomed function.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report/top.h"

/* frames: 0 main, 1 work, 2 hot, 3 cold, 4 sys_read (kernel), 5 helper */
static struct report_frame frames[] = {
    {"main", RF_NATIVE, "a.out"}, {"work", RF_NATIVE, "a.out"},  {"hot", RF_NATIVE, "a.out"},
    {"cold", RF_NATIVE, "a.out"}, {"sys_read", RF_KERNEL, NULL}, {"helper", RF_NATIVE, "a.out"},
};
/* stacks, leaf first */
static uint32_t stack_frames[] = {
    2, 1, 0,    /* 0: hot <- work <- main */
    3, 1, 0,    /* 1: cold <- work <- main */
    4, 2, 1, 0, /* 2: sys_read <- hot <- work <- main */
    4,          /* 3: sys_read alone */
    1, 1, 0,    /* 4: work <- work <- main (recursion) */
    5, 2, 2, 0, /* 5: helper <- hot <- hot <- main */
};
static struct report_stack stacks[] = {
    {0, 3, false}, {3, 3, false}, {6, 4, false}, {10, 1, false}, {11, 3, false}, {14, 4, false},
};
static struct report_thread threads[] = {
    {"t1", 101, 100, "app", 0},
    {"t2", 102, 100, "app", 0},
    {"u1", 201, 200, "other", 0},
};

static struct report rep_of(struct report_timed *timed, size_t n)
{
	struct report r = {0};

	r.frames = frames;
	r.nframes = sizeof(frames) / sizeof(frames[0]);
	r.stack_frames = stack_frames;
	r.nstack_frames = sizeof(stack_frames) / sizeof(stack_frames[0]);
	r.stacks = stacks;
	r.nstacks = sizeof(stacks) / sizeof(stacks[0]);
	r.threads = threads;
	r.nthreads = sizeof(threads) / sizeof(threads[0]);
	r.timed = timed;
	r.ntimed = n;
	return r;
}

static const struct top_row *find(const struct top_table *t, uint32_t frame, uint32_t thread)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].frame == frame && t->rows[i].thread == thread)
			return &t->rows[i];
	return NULL;
}

static void test_self_total_window(void **state)
{
	(void)state;
	struct report_timed timed[] = {
	    {0, 1, 0, 5},          /* cold in t1: outside a 1 s window ending at 2.5 s */
	    {1600000000, 0, 0, 1}, /* hot in t1 */
	    {1700000000, 0, 0, 1}, /* hot in t1 */
	    {2000000000, 1, 1, 1}, /* cold in t2 */
	    {2500000000, 4, 0, 1}, /* work (recursive) in t1 */
	};
	struct report rep = rep_of(timed, 5);
	struct top_opts o;
	struct top_table t;

	top_opts_init(&o);
	o.window_ns = 1000000000;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.to_ns, 2500000000);
	assert_int_equal(t.from_ns, 1500000001);
	assert_int_equal(t.samples, 4);
	const struct top_row *r = find(&t, 2, 0);
	assert_non_null(r);
	assert_int_equal(r->self, 2);
	assert_int_equal(r->total, 2);
	/* work in t1: 2 samples under hot, 1 recursive sample counted once */
	r = find(&t, 1, 0);
	assert_non_null(r);
	assert_int_equal(r->self, 1);
	assert_int_equal(r->total, 3);
	/* cold in t1 is out of the window; cold in t2 is in */
	assert_null(find(&t, 3, 0));
	assert_non_null(r = find(&t, 3, 1));
	assert_int_equal(r->self, 1);
	/* by self: hot (2) first */
	assert_int_equal(t.rows[0].frame, 2);
	assert_int_equal(t.rows[0].thread, 0);
	top_free(&t);

	/* by total: main in t1 (3 samples) first, then work in t1 (3, self 1), then hot */
	o.sort = TOP_SORT_TOTAL;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.rows[0].frame, 1);
	assert_int_equal(t.rows[0].total, 3);
	assert_int_equal(t.rows[1].frame, 0);
	assert_int_equal(t.rows[1].total, 3);
	top_free(&t);

	/* no window: every sample, by self */
	o.window_ns = 0;
	o.sort = TOP_SORT_SELF;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.samples, 9);
	assert_int_equal(t.rows[0].frame, 3);
	assert_int_equal(t.rows[0].self, 5);
	top_free(&t);
}

/*
 * The time the window covers: its length when the samples span more, else from the recording's
 * start (0) to the newest sample, not from the first sample (one sample would be a rate of one
 * per nanosecond).
 */
static void test_window_span(void **state)
{
	(void)state;
	struct report_timed timed[] = {
	    {1600000000, 0, 0, 1},
	    {1700000000, 0, 0, 1},
	};
	struct report rep = rep_of(timed, 2);
	struct top_opts o;
	struct top_table t;

	top_opts_init(&o);
	o.window_ns = 5000000000; /* longer than the recording */
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.from_ns, 0);
	assert_int_equal(t.to_ns, 1700000000);
	top_free(&t);
	o.window_ns = 0; /* every sample */
	rep.ntimed = 1;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.from_ns, 0);
	assert_int_equal(t.to_ns, 1600000000);
	assert_int_equal(t.events, 1);
	top_free(&t);
	o.window_ns = 100000000; /* shorter: exactly its length */
	rep.ntimed = 2;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.to_ns - t.from_ns + 1, 100000000);
	assert_int_equal(t.events, 1);
	top_free(&t);
}

static void test_kernel_frames(void **state)
{
	(void)state;
	struct report_timed timed[] = {
	    {10, 2, 0, 1}, /* sys_read <- hot ... */
	    {20, 3, 0, 1}, /* sys_read only */
	    {30, 2, 0, 1},
	};
	struct report rep = rep_of(timed, 3);
	struct top_opts o;
	struct top_table t;

	top_opts_init(&o);
	assert_int_equal(top_build(&rep, &o, &t), 0);
	/* without kernel frames hot is the leaf, the kernel-only sample is left out */
	assert_int_equal(t.events, 3);
	assert_int_equal(t.kernel_only, 1);
	assert_int_equal(t.samples, 2);
	assert_null(find(&t, 4, 0));
	assert_int_equal(t.rows[0].frame, 2);
	assert_int_equal(t.rows[0].self, 2);
	top_free(&t);

	o.kernel = true;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.kernel_only, 0);
	assert_int_equal(t.samples, 3);
	assert_int_equal(t.rows[0].frame, 4);
	assert_int_equal(t.rows[0].self, 3);
	assert_int_equal(find(&t, 2, 0)->self, 0);
	assert_int_equal(find(&t, 2, 0)->total, 2);
	top_free(&t);
}

static void test_filters(void **state)
{
	(void)state;
	struct report_timed timed[] = {
	    {1, 0, 0, 1},
	    {2, 0, 1, 2},
	    {3, 1, 2, 4},
	    {4, 1, 0, 8},
	};
	struct report rep = rep_of(timed, 4);
	struct top_opts o;
	struct top_table t;

	top_opts_init(&o);
	o.tid = 102;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.samples, 2);
	for (size_t i = 0; i < t.nrows; i++)
		assert_int_equal(t.rows[i].thread, 1);
	top_free(&t);

	o.tid = -1;
	o.pid = 100;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.samples, 11);
	assert_null(find(&t, 3, 2));
	assert_int_equal(t.rows[0].frame, 3);
	assert_int_equal(t.rows[0].thread, 0);
	top_free(&t);

	o.pid = 200;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.samples, 4);
	assert_int_equal(t.nrows, 3);
	top_free(&t);
}

static void test_zoom(void **state)
{
	(void)state;
	struct report_timed timed[] = {
	    {1, 0, 0, 1}, /* hot <- work <- main */
	    {2, 0, 1, 1},
	    {3, 5, 0, 1}, /* helper <- hot <- hot <- main: callers main (once), callees helper */
	    {4, 1, 0, 1}, /* cold: no hot */
	};
	struct report rep = rep_of(timed, 4);
	struct top_opts o;
	struct top_table t;

	top_opts_init(&o);
	o.zoom = 2;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.zoom.self, 2);
	assert_int_equal(t.zoom.total, 3);
	assert_int_equal(t.ncallers, 2);
	assert_int_equal(t.callers[0].frame, 1); /* work: 2 */
	assert_int_equal(t.callers[0].total, 2);
	assert_int_equal(t.callers[1].frame, 0); /* main: 1, the recursion counted once */
	assert_int_equal(t.callers[1].total, 1);
	assert_int_equal(t.ncallees, 1);
	assert_int_equal(t.callees[0].frame, 5);
	assert_int_equal(t.callees[0].total, 1);
	top_free(&t);

	/* zoom with a thread filter: only t2's sample */
	o.tid = 102;
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.zoom.total, 1);
	assert_int_equal(t.ncallers, 1);
	assert_int_equal(t.ncallees, 0);
	top_free(&t);
}

static void test_empty(void **state)
{
	(void)state;
	struct report rep = rep_of(NULL, 0);
	struct top_opts o;
	struct top_table t;

	top_opts_init(&o);
	assert_int_equal(top_build(&rep, &o, &t), 0);
	assert_int_equal(t.nrows, 0);
	assert_int_equal(t.samples, 0);
	top_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_self_total_window),
	    cmocka_unit_test(test_window_span),
	    cmocka_unit_test(test_kernel_frames),
	    cmocka_unit_test(test_filters),
	    cmocka_unit_test(test_zoom),
	    cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The timed samples' order (report/timed_order.c): the same as a stable sort by time, thread and
 * stack, for inputs in order, reversed, of interleaved runs as rings are drained, with many
 * equal keys (told apart by their value: equal ones stay as they came), and random.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/timed_order.h"

/* The reference: qsort by the key, then by the position it came in (so stable whatever qsort). */
static int cmp_ref(const void *a, const void *b)
{
	const struct report_timed *x = a, *y = b;

	if (x->nanos != y->nanos)
		return x->nanos < y->nanos ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

static void check(struct report_timed *v, size_t n)
{
	struct report_timed *ref = malloc((n ? n : 1) * sizeof(*ref));

	assert_non_null(ref);
	for (size_t i = 0; i < n; i++)
		v[i].value = i; /* the position it came in */
	memcpy(ref, v, n * sizeof(*v));
	qsort(ref, n, sizeof(*ref), cmp_ref);
	assert_int_equal(report_sort_timed(v, n), 0);
	for (size_t i = 0; i < n; i++) { /* field by field: the padding is nobody's */
		assert_int_equal(v[i].nanos, ref[i].nanos);
		assert_int_equal(v[i].thread, ref[i].thread);
		assert_int_equal(v[i].stack, ref[i].stack);
		assert_int_equal(v[i].value, ref[i].value);
	}
	free(ref);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_shapes(void **state)
{
	enum { N = 5000 };
	struct report_timed *v = calloc(N, sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (size_t n = 0; n < 40; n++) { /* every small size, in order and reversed */
		for (size_t i = 0; i < n; i++)
			v[i] = (struct report_timed){.nanos = (int64_t)i, .thread = 1};
		check(v, n);
		for (size_t i = 0; i < n; i++)
			v[i] = (struct report_timed){.nanos = (int64_t)(n - i), .thread = 1};
		check(v, n);
	}
	/* runs of a few CPUs' batches, interleaved as a drain hands them over */
	for (size_t i = 0; i < N; i++)
		v[i] = (struct report_timed){.nanos =
		                                 (int64_t)((i % 97) * 1000 + i / 97 + (i / 97) % 3),
		                             .thread = (uint32_t)(i % 4),
		                             .stack = (uint32_t)(i % 7)};
	check(v, N);
	/* two CPUs' batches of 40 samples, 1 ms apart on each, as one drain after another hands
	 * them over: each overlaps the other CPU's last batch only */
	for (size_t i = 0; i < N; i++) {
		size_t batch = i / 40, cpu = batch % 2, at = batch / 2 * 40 + i % 40;

		v[i] = (struct report_timed){.nanos = (int64_t)(at * 1000000 + cpu * 500000),
		                             .thread = (uint32_t)cpu,
		                             .stack = (uint32_t)(i % 5)};
	}
	check(v, N);
	/* the same with coarse times, one thread and two stacks: equal keys in the batches of
	 * both CPUs, which stay as they came */
	for (size_t i = 0; i < N; i++) {
		size_t batch = i / 40, at = batch / 2 * 40 + i % 40;

		v[i] = (struct report_timed){
		    .nanos = (int64_t)(at / 8), .thread = 1, .stack = (uint32_t)(i % 2)};
	}
	check(v, N);
	/* the same, every fourth batch late by three batches: runs that reach further back */
	for (size_t i = 0; i < N; i++) {
		size_t batch = i / 40, at = batch * 40 + i % 40;

		if (batch % 4 == 3)
			at -= 120;
		v[i] = (struct report_timed){.nanos = (int64_t)at * 1000, .thread = 1};
	}
	check(v, N);
	/* few distinct keys: most are equal, and stay as they came */
	for (size_t i = 0; i < N; i++)
		v[i] = (struct report_timed){.nanos = (int64_t)(next() % 5),
		                             .thread = (uint32_t)(next() % 2),
		                             .stack = (uint32_t)(next() % 2)};
	check(v, N);
	for (int round = 0; round < 20; round++) {
		size_t n = (size_t)(next() % N);

		for (size_t i = 0; i < n; i++)
			v[i] = (struct report_timed){.nanos = (int64_t)(next() % 1000) - 500,
			                             .thread = (uint32_t)(next() % 3),
			                             .stack = (uint32_t)next()};
		check(v, n);
	}
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lib/radix.h: records come out ordered by their key and, at equal keys, in the order they went in
 * (stable), whatever bytes of the keys differ; records of an odd size, keys at an offset, one
 * record and none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/radix.h"

/* 21 bytes: the key neither first nor aligned in the array */
struct __attribute__((packed)) rec {
	uint8_t tag;
	uint64_t key;
	uint32_t seq; /* the order it went in */
	uint64_t pad;
};

enum { N = 5000 };

/* glibc's random(), seeded per test: the same records in every run */
static uint64_t next(void)
{
	return (uint64_t)random() << 31 ^ (uint64_t)random();
}

static void check_sorted(const struct rec *v, size_t n, const uint64_t *sum_in)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		sum += v[i].key ^ (uint64_t)v[i].seq << 7 ^ v[i].pad;
		assert_int_equal(v[i].tag, (uint8_t)(v[i].seq * 7));
		if (!i)
			continue;
		assert_true(v[i - 1].key <= v[i].key);
		if (v[i - 1].key == v[i].key)
			assert_true(v[i - 1].seq < v[i].seq);
	}
	assert_int_equal(sum, *sum_in);
}

/* Keys from MASK's bits around BASE, every third a repeat of an earlier one. */
static void run(uint64_t base, uint64_t mask)
{
	struct rec *v = malloc(N * sizeof(*v));
	uint64_t sum = 0;

	assert_non_null(v);
	srandom(11);
	for (uint32_t i = 0; i < N; i++) {
		uint64_t k = i % 3 == 2 ? v[next() % i].key : base + (next() & mask);

		v[i] = (struct rec){.tag = (uint8_t)(i * 7), .key = k, .seq = i, .pad = next()};
		sum += v[i].key ^ (uint64_t)v[i].seq << 7 ^ v[i].pad;
	}
	assert_true(radix_sort_u64(v, N, sizeof(*v), offsetof(struct rec, key)));
	check_sorted(v, N, &sum);
	free(v);
}

static void low_bytes(void **state)
{
	(void)state;
	run(0x7f0000000000ull, 0xffff);
}

static void every_byte(void **state)
{
	(void)state;
	run(0, UINT64_MAX);
}

static void high_bytes_only(void **state)
{
	(void)state;
	run(0x1000, 0xff00000000000000ull);
}

static void one_and_none(void **state)
{
	struct rec one = {.key = 42, .seq = 0}, *none = NULL;

	(void)state;
	assert_true(radix_sort_u64(&one, 1, sizeof(one), offsetof(struct rec, key)));
	assert_int_equal(one.key, 42);
	assert_true(radix_sort_u64(none, 0, sizeof(one), offsetof(struct rec, key)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(low_bytes),
	    cmocka_unit_test(every_byte),
	    cmocka_unit_test(high_bytes_only),
	    cmocka_unit_test(one_and_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

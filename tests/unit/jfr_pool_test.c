// SPDX-License-Identifier: GPL-2.0
/* The constant pools' intern tables (jfr/pool.h): what a burst of released entries leaves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "jfr/pool.h"

/* 30 000 threads come and are released: the index and the release list do not keep their size. */
static void released_burst_gives_back_its_index(void **state)
{
	struct pool p;
	uint64_t keys[30000];

	(void)state;
	pool_init(&p, true);
	for (uint32_t i = 0; i < 30000; i++) {
		keys[i] = pool_intern(&p, &i, sizeof(i));
		assert_true(keys[i] != 0);
	}
	size_t peak = p.index.cap;
	for (uint32_t i = 10; i < 30000; i++)
		assert_int_equal(pool_release(&p, keys[i]), 0);
	pool_free_released(&p, 1, NULL, NULL);
	print_message("index: %zu slots at the peak, %zu after; release list %zu\n", peak,
	              p.index.cap, p.released.cap);
	assert_int_equal(pool_used(&p), 10);
	assert_true(peak >= 65536);
	assert_true(p.index.cap <= 256);
	assert_true(p.released.cap <= 256);
	/* what stays is still found under its key, and new entries get keys never used */
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(pool_intern(&p, &i, sizeof(i)), keys[i]);
	uint32_t x = 99999;
	uint64_t k = pool_intern(&p, &x, sizeof(x));
	for (uint32_t i = 0; i < 30000; i++)
		assert_true(k != keys[i]);
	pool_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(released_burst_gives_back_its_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

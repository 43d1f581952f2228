// SPDX-License-Identifier: GPL-2.0
/*
 * Batches of copied ring records: a mapped batch is whole, aligned, populated blocks and stays so
 * as it grows; a malloc'd one grows by realloc; swapping exchanges the kind with the bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/batch.h"

/* Pages of [p, p + len) in memory now. */
static size_t resident_pages(const void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = len / page, in = 0;
	unsigned char *vec = malloc(n);

	assert_non_null(vec);
	assert_int_equal(mincore((void *)p, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return in;
}

static void fill(uint8_t *rec, size_t size, unsigned int seed)
{
	for (size_t i = 0; i < size; i++)
		rec[i] = (uint8_t)(seed * 31 + i);
}

static void test_mapped_blocks(void **state)
{
	struct batch b = {0};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	(void)state;
	assert_int_equal(batch_map(&b, 1), 0);
	assert_true(b.mapped);
	assert_int_equal(b.cap, BATCH_BLOCK);
	assert_int_equal((uintptr_t)b.buf % BATCH_BLOCK, 0);
	/* populated when mapped: the reading side takes no page fault for it */
	assert_int_equal(resident_pages(b.buf, b.cap), b.cap / page);
	batch_free(&b);
	assert_null(b.buf);
	assert_false(b.mapped);
	assert_int_equal(b.cap, 0);
}

static void test_mapped_growth_keeps_bytes(void **state)
{
	struct batch b = {0};
	uint8_t rec[1000], got[1000];
	size_t n = 0;

	(void)state;
	assert_int_equal(batch_map(&b, BATCH_BLOCK), 0);
	while (b.len + sizeof(rec) <= BATCH_BLOCK) {
		assert_true(batch_fits(&b, sizeof(rec)));
		fill(rec, sizeof(rec), (unsigned int)n++);
		assert_int_equal(batch_push(&b, rec, sizeof(rec)), 0);
	}
	assert_false(batch_fits(&b, sizeof(rec)));
	assert_int_equal(b.cap, BATCH_BLOCK);
	for (unsigned int i = 0; i < 3; i++) {
		fill(rec, sizeof(rec), (unsigned int)n++);
		assert_int_equal(batch_push(&b, rec, sizeof(rec)), 0);
	}
	/* grown by whole blocks, still mapped and aligned, every record where it was */
	assert_true(b.mapped);
	assert_int_equal(b.cap, 2 * BATCH_BLOCK);
	assert_int_equal((uintptr_t)b.buf % BATCH_BLOCK, 0);
	assert_int_equal(b.len, n * sizeof(rec));
	for (size_t i = 0; i < n; i++) {
		fill(got, sizeof(got), (unsigned int)i);
		assert_memory_equal(b.buf + i * sizeof(rec), got, sizeof(got));
	}
	batch_free(&b);
}

static void test_malloc_growth_and_swap(void **state)
{
	struct batch a = {0}, m = {0};
	uint8_t rec[4096];

	(void)state;
	for (unsigned int i = 0; i < 600; i++) {
		fill(rec, sizeof(rec), i);
		assert_int_equal(batch_push(&a, rec, sizeof(rec)), 0);
	}
	assert_false(a.mapped);
	assert_int_equal(a.len, 600 * sizeof(rec));
	assert_true(a.cap >= a.len);
	fill(rec, sizeof(rec), 599);
	assert_memory_equal(a.buf + 599 * sizeof(rec), rec, sizeof(rec));

	assert_int_equal(batch_map(&m, 10), 0);
	assert_int_equal(batch_push(&m, "abcdefgh", 8), 0);
	m.names = true;
	batch_swap(&a, &m);
	assert_true(a.mapped);
	assert_false(m.mapped);
	assert_true(a.names); /* the mark goes with the records */
	assert_false(m.names);
	assert_int_equal(a.len, 8);
	assert_memory_equal(a.buf, "abcdefgh", 8);
	assert_int_equal(m.len, 600 * sizeof(rec));
	batch_reset(&a);
	assert_int_equal(a.len, 0);
	assert_false(a.names);
	assert_true(a.cap >= 8);
	/* each is freed as what it is: ASan reports a munmap'd buffer given to free() */
	batch_free(&a);
	batch_free(&m);
}

static void test_map_keeps_malloc_bytes(void **state)
{
	struct batch b = {0};

	(void)state;
	assert_int_equal(batch_push(&b, "0123456789abcdef", 16), 0);
	assert_false(b.mapped);
	assert_int_equal(batch_map(&b, BATCH_BLOCK + 1), 0);
	assert_true(b.mapped);
	assert_int_equal(b.cap, 2 * BATCH_BLOCK);
	assert_int_equal(b.len, 16);
	assert_memory_equal(b.buf, "0123456789abcdef", 16);
	batch_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mapped_blocks),
	    cmocka_unit_test(test_mapped_growth_keeps_bytes),
	    cmocka_unit_test(test_malloc_growth_and_swap),
	    cmocka_unit_test(test_map_keeps_malloc_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

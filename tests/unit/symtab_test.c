// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol tables: the table symtab_finish() builds does not depend on the order its entries were
 * added in.  Entries in ELF order (shuffled) are sorted by address a byte at a time, entries that
 * come by address (a kernel's) are only ordered within each address: both must give the same
 * names, ends and lookups, with aliases at one address, addresses that differ in their low, middle
 * and high bytes only, and unsized symbols that end at the next one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sym/internal.h"

enum { N = 6000 };

struct spec {
	uint64_t addr, size;
	char name[24];
	uint8_t flags;
};

/* glibc's random(), seeded in make_specs(): the same entries in every run */
static uint64_t next(void)
{
	return (uint64_t)random() << 31 ^ (uint64_t)random();
}

/* Addresses in three clusters far apart (so that the high bytes differ too), every fourth an alias.
 */
static void make_specs(struct spec *v, size_t n)
{
	static const uint64_t base[3] = {0x1000, 0x7f12345600000ull, 0xffffffff81000000ull};

	srandom(1);
	for (size_t i = 0; i < n; i++) {
		struct spec *s = &v[i];

		if (i % 4 == 3) {
			*s = v[i - 1 - next() % 3];
		} else {
			s->addr = base[next() % 3] + (next() % 0x400000) * 16;
			s->size = next() % 2 ? 16 + next() % 64 : 0;
		}
		snprintf(s->name, sizeof(s->name), "%sfn_%zu", next() % 3 ? "" : "__", i);
		s->flags = (uint8_t)(next() % 2 ? SYMF_GLOBAL : 0) |
		           (uint8_t)(next() % 5 ? 0 : SYMF_VERSIONED);
	}
}

static int by_addr(const void *a, const void *b)
{
	const struct spec *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void build(struct symtab *t, const struct spec *v, size_t n)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(symtab_add(t, v[i].addr, v[i].size, UINT64_MAX, v[i].name,
		                            strlen(v[i].name), 0, v[i].flags),
		                 0);
	symtab_finish(t);
}

static void test_order_of_entries_does_not_matter(void **state)
{
	static struct spec shuffled[N], sorted[N];
	struct symtab a, b;

	(void)state;
	make_specs(shuffled, N);
	memcpy(sorted, shuffled, sizeof(sorted));
	/* stable: entries at one address keep the order they had, as the radix sort does */
	for (size_t i = 1; i < N; i++)
		for (size_t j = i; j > 0 && by_addr(&sorted[j - 1], &sorted[j]) > 0; j--) {
			struct spec x = sorted[j];

			sorted[j] = sorted[j - 1];
			sorted[j - 1] = x;
		}
	build(&a, shuffled, N);
	build(&b, sorted, N);
	assert_true(a.n > N / 2);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_int_equal(a.v[i].addr, b.v[i].addr);
		assert_int_equal(a.v[i].end, b.v[i].end);
		assert_int_equal(a.v[i].flags, b.v[i].flags);
		assert_string_equal(symtab_name(&a, i), symtab_name(&b, i));
		if (i)
			assert_true(a.v[i - 1].addr < a.v[i].addr);
	}
	/* every address added is found, as the symbol at that address */
	for (size_t i = 0; i < N; i++) {
		long k = symtab_find(&a, shuffled[i].addr);

		assert_true(k >= 0);
		assert_int_equal(a.v[k].addr, shuffled[i].addr);
	}
	symtab_fini(&a);
	symtab_fini(&b);
}

/* The best alias at one address wins whatever the order: global over local, plain over versioned.
 */
static void test_best_alias_in_any_order(void **state)
{
	static const struct spec v[] = {
	    {0x2000, 0, "memcpy_local", 0},
	    {0x1000, 32, "f_versioned", SYMF_GLOBAL | SYMF_VERSIONED},
	    {0x2000, 64, "memcpy", SYMF_GLOBAL},
	    {0x1000, 0, "f", SYMF_GLOBAL},
	    {0x3000, 0, "last", SYMF_GLOBAL},
	};
	struct symtab t;

	(void)state;
	build(&t, v, 5);
	assert_int_equal(t.n, 3);
	assert_string_equal(symtab_name(&t, 0), "f");
	assert_int_equal(t.v[0].end, 0x1020); /* the size of its sized alias */
	assert_string_equal(symtab_name(&t, 1), "memcpy");
	assert_int_equal(t.v[1].end, 0x2040);
	assert_string_equal(symtab_name(&t, 2), "last");
	symtab_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_of_entries_does_not_matter),
	    cmocka_unit_test(test_best_alias_in_any_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

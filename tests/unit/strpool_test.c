// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer's string pool: equal strings interned at any time, from any buffer, get one
 * pointer (the symbolizer compares interned names by pointer: "[vdso]", a mapping's path), also
 * after the set of interned strings has grown many times; plain additions are copies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sym/internal.h"

enum { N = 5000 };

static void test_interned_once_across_growth(void **state)
{
	static const char *first[N];
	struct strpool p;
	char buf[32];

	(void)state;
	strpool_init(&p);
	const char *vdso = strpool_intern(&p, "[vdso]", 6);
	for (int i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof(buf), "/usr/lib/obj-%d.so", i);

		first[i] = strpool_intern(&p, buf, (size_t)n);
		assert_non_null(first[i]);
		assert_string_equal(first[i], buf);
		assert_ptr_not_equal(first[i], buf);
	}
	/* the same bytes from another buffer, after every growth of the set */
	char *copy = strdup("[vdso]");
	assert_ptr_equal(strpool_intern(&p, copy, strlen(copy)), vdso);
	free(copy);
	for (int i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof(buf), "/usr/lib/obj-%d.so", i);

		assert_ptr_equal(strpool_intern(&p, buf, (size_t)n), first[i]);
		assert_ptr_equal(strpool_internf(&p, "/usr/lib/obj-%d.so", i), first[i]);
	}
	/* a prefix is another string; an addition is never the interned copy */
	const char *prefix = strpool_intern(&p, "/usr/lib/obj-1", 14);
	assert_ptr_not_equal(prefix, first[1]);
	assert_ptr_not_equal(strpool_add(&p, "[vdso]", 6), vdso);
	strpool_fini(&p);

	/* a pool used again after fini interns as a new one */
	vdso = strpool_intern(&p, "[vdso]", 6);
	for (int i = 0; i < N; i++)
		assert_non_null(strpool_internf(&p, "%d", i));
	assert_ptr_equal(strpool_intern(&p, "[vdso]", 6), vdso);
	strpool_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_interned_once_across_growth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/* Symbolizer: C++ names are demangled and typed "C++"; C names in the same object stay Native. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sym_test_util.h"

#define FAKE_PID 92001u

static void test_demangled(void **state)
{
	void *h = fixture_dlopen("libsymcxx.so");
	struct lfr_sym *sym = NULL;
	struct lfr_frame f;

	(void)state;
	assert_non_null(h);
	assert_int_equal(lfr_sym_new(&sym, NULL), 0);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymcxx.so", 0) >= 1);

	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, fixture_addr(h, "cxx_make_addr") + 3, &f));
	assert_string_equal(f.method, "lfrtest::Widget::make(long)");
	assert_int_equal(f.type, LFR_FRAME_CPP);
	assert_string_equal(lfr_frame_type_name(f.type), "C++");
	assert_string_equal(f.class_name, "libsymcxx.so");
	assert_int_equal(f.offset, 3);

	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, fixture_addr(h, "cxx_triple_addr"), &f));
	assert_string_equal(f.method, "int lfrtest::triple<int>(int)");
	assert_int_equal(f.type, LFR_FRAME_CPP);

	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, fixture_sym(h, "cxx_plain_c"), &f));
	assert_string_equal(f.method, "cxx_plain_c");
	assert_int_equal(f.type, LFR_FRAME_NATIVE);
	assert_string_equal(lfr_frame_type_name(f.type), "Native");

	/* Cached results keep their type. */
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, fixture_addr(h, "cxx_make_addr") + 3, &f));
	assert_int_equal(f.type, LFR_FRAME_CPP);
	lfr_sym_free(sym);
	dlclose(h);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangled),
	};
	/* clang-format on */

	return cmocka_run_group_tests_name("sym_cxx", tests, NULL, NULL);
}

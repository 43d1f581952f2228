// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol tables kept by build-id (user/sym/sym_cache.h): a symbolizer with the cache stores each
 * object's table and the next one reads it back and names the same; a debug file installed since
 * makes the stored table stale (said, read again from the debug file, stored again); a damaged
 * table (the blob whole) is refused; with debuginfod nothing is kept.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>

#include "lib/blob_cache.h"
#include "test_tmpdir.h"
#include "sym_test_util.h"

#define FAKE_PID 91501u

/* A symbolizer with the cache, its debug files under the fixture directory debug_dir. */
static struct lfr_sym *new_sym(struct lfr_blob_cache *c, const char *debug_dir, unsigned flags)
{
	char dirs[1024];
	struct lfr_sym_opts o = {.debug_dirs = dirs, .flags = flags};
	struct lfr_sym *sym = NULL;

	snprintf(dirs, sizeof(dirs), "%s", fixture(debug_dir));
	assert_int_equal(lfr_sym_new(&sym, &o), 0);
	lfr_sym_set_cache(sym, c);
	return sym;
}

static void expect(struct lfr_sym *sym, uint64_t pc, bool resolved, const char *method)
{
	struct lfr_frame f;

	lfr_sym_resolve_user(sym, FAKE_PID, pc, &f);
	assert_int_equal(f.resolved, resolved);
	if (method)
		assert_string_equal(f.method, method);
}

static void expect_stats(struct lfr_sym *sym, uint64_t read, uint64_t stored, uint64_t problems,
                         const char *why)
{
	struct lfr_sym_cache_stats st;

	lfr_sym_get_cache_stats(sym, &st);
	assert_int_equal(st.read, read);
	assert_int_equal(st.stored, stored);
	assert_int_equal(st.problems, problems);
	if (why)
		assert_non_null(strstr(st.first_problem, why));
}

static void test_read_back_names_the_same(void **state)
{
	void *h = fixture_dlopen("libsymfix.so");
	struct lfr_blob_cache *c;
	struct lfr_sym *sym;
	uint64_t add, mul;
	char err[256];

	(void)state;
	assert_non_null(h);
	add = fixture_sym(h, "fix_add");
	mul = fixture_sym(h, "fix_call_getpid");
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
	for (int round = 0; round < 2; round++) {
		sym = new_sym(c, "nodebug", 0);
		assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 0) >= 1);
		expect(sym, add + 1, true, "fix_add");
		expect(sym, mul, true, "fix_call_getpid");
		/* the first stores, the second reads */
		expect_stats(sym, round, !round, 0, NULL);
		lfr_sym_free(sym);
	}
	/* with debuginfod (lfr report): neither */
	sym = new_sym(c, "nodebug", LFR_SYM_DEBUGINFOD);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 0) >= 1);
	expect(sym, add + 1, true, "fix_add");
	expect_stats(sym, 0, 0, 0, NULL);
	lfr_sym_free(sym);
	lfr_blob_cache_close(c);
	dlclose(h);
}

static void test_debug_file_installed_since(void **state)
{
	void *h = fixture_dlopen("libsymbid.so");
	struct lfr_blob_cache *c;
	struct lfr_sym *sym;
	uint64_t hidden;
	char err[256];

	(void)state;
	assert_non_null(h);
	hidden = fixture_addr(h, "bid_hidden_addr");
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
	/* without its debug file: exported names only, stored so */
	sym = new_sym(c, "nodebug", 0);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymbid.so", 0) >= 1);
	expect(sym, hidden + 2, false, NULL);
	expect_stats(sym, 0, 1, 0, NULL);
	lfr_sym_free(sym);
	/* the debug file there now: the stored table is stale */
	sym = new_sym(c, "debug", 0);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymbid.so", 0) >= 1);
	expect(sym, hidden + 2, true, "bid_hidden");
	expect_stats(sym, 0, 1, 1, "of other symbols");
	lfr_sym_free(sym);
	/* and the debug file's table read back */
	sym = new_sym(c, "debug", 0);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymbid.so", 0) >= 1);
	expect(sym, hidden + 2, true, "bid_hidden");
	expect_stats(sym, 1, 0, 0, NULL);
	lfr_sym_free(sym);
	/* removed again: stale again, exported names only */
	sym = new_sym(c, "nodebug", 0);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymbid.so", 0) >= 1);
	expect(sym, hidden + 2, false, NULL);
	expect_stats(sym, 0, 1, 1, "of other symbols");
	lfr_sym_free(sym);
	lfr_blob_cache_close(c);
	dlclose(h);
}

/* The only .syms file of the cache, rewritten whole (its CRC right) after f changed it. */
static void rewrite(struct lfr_blob_cache *c, void (*f)(char *payload, size_t len))
{
	DIR *d = opendir(test_dir);
	struct dirent *de;
	char name[256] = "", err[256];
	struct lfr_blob b;
	char *buf;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".syms") && de->d_name[0] != '.')
			snprintf(name, sizeof(name), "%s", de->d_name);
	closedir(d);
	assert_int_equal(lfr_blob_cache_read(c, name, 1 << 26, &b, err, sizeof(err)), 0);
	/* the payload is a read-only mapping: changed in a copy */
	buf = malloc(b.len);
	assert_non_null(buf);
	memcpy(buf, b.data, b.len);
	f(buf, b.len);
	{
		struct iovec iov = {buf, b.len};

		assert_int_equal(lfr_blob_cache_write(c, name, &iov, 1, err, sizeof(err)), 0);
	}
	free(buf);
	lfr_blob_release(&b);
}

/* The header is 128 bytes, the entries 24 each: the second entry's name past the names. */
static void name_out_of_bounds(char *p, size_t len)
{
	(void)len;
	*(uint32_t *)(p + 128 + 24 + 16) = 0x7fffffff;
}

/* The last byte of the names no longer ends a name. */
static void names_unterminated(char *p, size_t len)
{
	p[len - 1] = 'x';
}

static void test_damaged_tables_refused(void **state)
{
	void *h = fixture_dlopen("libsymfix.so");
	void (*spoil[])(char *, size_t) = {name_out_of_bounds, names_unterminated};
	const char *why[] = {"damaged (entries)", "damaged (names)"};
	struct lfr_blob_cache *c;
	struct lfr_sym *sym;
	uint64_t add;
	char err[256];

	(void)state;
	assert_non_null(h);
	add = fixture_sym(h, "fix_add");
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
	sym = new_sym(c, "nodebug", 0);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 0) >= 1);
	expect(sym, add, true, "fix_add");
	lfr_sym_free(sym);
	for (int i = 0; i < 2; i++) {
		rewrite(c, spoil[i]);
		sym = new_sym(c, "nodebug", 0);
		assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 0) >= 1);
		expect(sym, add, true, "fix_add");
		expect_stats(sym, 0, 1, 1, why[i]);
		lfr_sym_free(sym);
	}
	lfr_blob_cache_close(c);
	dlclose(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_read_back_names_the_same, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_debug_file_installed_since, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_damaged_tables_refused, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind tables' cache (user/sym/unwind_cache.h): a table stored and read back is the table
 * built, with the ctime of the object open now; a cache file that does not agree with the object
 * (damaged, cut, a link, of another object) is not used, said, and replaced; objects without a
 * build-id are not cached; the directory must be the user's own; the least recently used file
 * makes room at the bound.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>

#include "sym/unwind_cache.h"
#include "sym_test_util.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static char dir[64];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/lfr-ucache-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* How many NAME.unwind files the cache holds, and the first one's name. */
static int files(char *first, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".unwind") && de->d_name[0] != '.') {
			if (!n && first)
				snprintf(first, len, "%s/%s", dir, de->d_name);
			n++;
		}
	closedir(d);
	return n;
}

static int get(struct lfr_unwind_cache *c, const char *path, struct lfr_unwind_table *t,
               struct lfr_unwind_cache_result *res)
{
	char err[256];
	int fd = open(path, O_RDONLY), ret;

	assert_true(fd >= 0);
	ret = lfr_unwind_cache_get(c, fd, t, res, err, sizeof(err));
	close(fd);
	return ret;
}

static void assert_same(const struct lfr_unwind_table *a, const struct lfr_unwind_table *b)
{
	assert_memory_equal(&a->hdr, &b->hdr, sizeof(a->hdr));
	assert_memory_equal(a->rows, b->rows, a->hdr.nr_rows * sizeof(*a->rows));
}

static void test_stored_then_read_back(void **state)
{
	struct lfr_unwind_table built, stored, hit;
	struct lfr_unwind_cache_result res;
	struct lfr_unwind_cache *c;
	char err[256];

	(void)state;
	assert_int_equal(lfr_unwind_cache_open(dir, &c, err, sizeof(err)), 0);
	assert_int_equal(get(NULL, LIBC, &built, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_BUILT);
	assert_int_equal(files(NULL, 0), 0);

	assert_int_equal(get(c, LIBC, &stored, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_STORED);
	assert_string_equal(res.problem, "");
	assert_int_equal(files(NULL, 0), 1);
	assert_same(&built, &stored);

	assert_int_equal(get(c, LIBC, &hit, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_HIT);
	assert_string_equal(res.problem, "");
	assert_same(&built, &hit); /* the ctime too: the object's own, now */
	lfr_unwind_table_free(&built);
	lfr_unwind_table_free(&stored);
	lfr_unwind_table_free(&hit);
	lfr_unwind_cache_close(c);
}

/* The cache's file spoiled by f, then asked for: not used, said why, built and stored again. */
static void spoiled(void (*f)(const char *path), const char *why)
{
	struct lfr_unwind_table built, t;
	struct lfr_unwind_cache_result res;
	struct lfr_unwind_cache *c;
	char err[256], path[512];

	assert_int_equal(lfr_unwind_cache_open(dir, &c, err, sizeof(err)), 0);
	assert_int_equal(get(c, LIBC, &built, &res), 0);
	assert_int_equal(files(path, sizeof(path)), 1);
	f(path);
	assert_int_equal(get(c, LIBC, &t, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_STORED);
	assert_non_null(strstr(res.problem, why));
	assert_non_null(strstr(res.problem, "built again"));
	assert_same(&built, &t);
	lfr_unwind_table_free(&t);
	/* replaced: read back now */
	assert_int_equal(get(c, LIBC, &t, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_HIT);
	assert_same(&built, &t);
	lfr_unwind_table_free(&t);
	lfr_unwind_table_free(&built);
	lfr_unwind_cache_close(c);
}

static void flip_a_row(const char *path)
{
	int fd = open(path, O_RDWR);
	struct stat st;
	char b;

	assert_true(fd >= 0 && !fstat(fd, &st));
	assert_int_equal(pread(fd, &b, 1, st.st_size - 5), 1);
	b ^= 0x10;
	assert_int_equal(pwrite(fd, &b, 1, st.st_size - 5), 1);
	close(fd);
}

static void cut(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 12), 0);
}

static void other_version(const char *path)
{
	int fd = open(path, O_RDWR);
	uint32_t v = 0xdead;

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &v, sizeof(v), 8), sizeof(v));
	close(fd);
}

static void link_elsewhere(const char *path)
{
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/passwd", path), 0);
}

static void test_damaged(void **state)
{
	(void)state;
	spoiled(flip_a_row, "damaged (CRC)");
}

static void test_cut(void **state)
{
	(void)state;
	spoiled(cut, "of the wrong size");
}

static void test_other_version(void **state)
{
	(void)state;
	spoiled(other_version, "of another format");
}

static void test_link(void **state)
{
	(void)state;
	spoiled(link_elsewhere, strerror(ELOOP));
}

static void test_no_build_id(void **state)
{
	struct lfr_unwind_cache_result res;
	struct lfr_unwind_table t;
	struct lfr_unwind_cache *c;
	char err[256];

	(void)state;
	assert_int_equal(lfr_unwind_cache_open(dir, &c, err, sizeof(err)), 0);
	assert_int_equal(get(c, fixture("libsymdl.so"), &t, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_BUILT);
	assert_true(t.hdr.nr_rows > 0);
	assert_int_equal(files(NULL, 0), 0);
	lfr_unwind_table_free(&t);
	lfr_unwind_cache_close(c);
}

static void test_directory_must_be_own(void **state)
{
	struct lfr_unwind_cache *c;
	char err[256], path[600];
	int fd;

	(void)state;
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(lfr_unwind_cache_open(dir, &c, err, sizeof(err)), -EPERM);
	assert_null(c);
	assert_non_null(strstr(err, "writable by others"));
	assert_int_equal(chmod(dir, 0700), 0);

	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lfr_unwind_cache_open(path, &c, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, "not a directory"));

	/* made when missing, mode 700 */
	snprintf(path, sizeof(path), "%s/made", dir);
	assert_int_equal(lfr_unwind_cache_open(path, &c, err, sizeof(err)), 0);
	lfr_unwind_cache_close(c);
	{
		struct stat st;

		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0700);
	}
}

static void test_least_recently_used_goes(void **state)
{
	struct lfr_unwind_cache_result res;
	struct lfr_unwind_table t;
	struct lfr_unwind_cache *c;
	char err[256];
	const char *objs[] = {LIBC, fixture("libsymbid.so"), fixture("libsymcfi.so")};

	(void)state;
	assert_int_equal(lfr_unwind_cache_open(dir, &c, err, sizeof(err)), 0);
	lfr_unwind_cache_set_max(c, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(get(c, objs[i], &t, &res), 0);
		assert_int_equal(res.how, LFR_UNWIND_CACHE_STORED);
		lfr_unwind_table_free(&t);
		usleep(20000); /* distinct modification times */
	}
	/* libc used again: the fixture is the least recently used */
	assert_int_equal(get(c, LIBC, &t, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_HIT);
	lfr_unwind_table_free(&t);
	usleep(20000);
	assert_int_equal(get(c, objs[2], &t, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_STORED);
	lfr_unwind_table_free(&t);
	assert_int_equal(files(NULL, 0), 2);
	assert_int_equal(get(c, LIBC, &t, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_HIT);
	lfr_unwind_table_free(&t);
	assert_int_equal(get(c, objs[1], &t, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_STORED);
	lfr_unwind_table_free(&t);
	lfr_unwind_cache_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_stored_then_read_back, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cut, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_other_version, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_build_id, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_directory_must_be_own, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_least_recently_used_goes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind tables' cache (user/sym/unwind_cache.h): a table stored and read back is the table
 * built, with the ctime of the object open now; a cache file that does not agree with the object
 * (damaged, cut, a link, of another format or object, rows out of order) is not used, said, and
 * replaced; objects without a build-id are not cached.  (The directory's own rules:
 * blob_cache_test.c.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>

#include "sym/unwind_cache.h"
#include "test_tmpdir.h"
#include "sym_test_util.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

/* How many NAME.unwind files the cache holds, and the first one's name. */
static int files(char *first, size_t len)
{
	DIR *d = opendir(test_dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".unwind") && de->d_name[0] != '.') {
			if (!n && first)
				snprintf(first, len, "%s/%s", test_dir, de->d_name);
			n++;
		}
	closedir(d);
	return n;
}

static int get(struct lfr_blob_cache *c, const char *path, struct lfr_unwind_table *t,
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
	struct lfr_blob_cache *c;
	char err[256];

	(void)state;
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
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
	/* read where it lies: the rows are inside the file's mapping, not a copy */
	assert_non_null(hit.map);
	assert_true((char *)hit.rows > (char *)hit.map &&
	            (char *)(hit.rows + hit.hdr.nr_rows) <= (char *)hit.map + hit.map_len);
	assert_null(built.map);
	lfr_unwind_table_free(&built);
	lfr_unwind_table_free(&stored);
	lfr_unwind_table_free(&hit);
	lfr_blob_cache_close(c);
}

/* The cache's file spoiled by f, then asked for: not used, said why, built and stored again. */
static void spoiled(void (*f)(const char *path), const char *why)
{
	struct lfr_unwind_table built, t;
	struct lfr_unwind_cache_result res;
	struct lfr_blob_cache *c;
	char err[256], path[512];

	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
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
	lfr_blob_cache_close(c);
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

/* The cache's file at path rewritten whole (its CRC right) after f changed its payload. */
static void rewrite(const char *path, void (*f)(char *payload, size_t len))
{
	int fd = open(path, O_RDWR);
	struct lfr_blob_cache *c;
	struct iovec iov;
	struct stat st;
	char err[256];
	char *buf;

	assert_true(fd >= 0 && !fstat(fd, &st));
	buf = malloc(st.st_size);
	assert_int_equal(pread(fd, buf, st.st_size, 0), st.st_size);
	close(fd);
	/* the payload follows the blob's 24 bytes */
	iov = (struct iovec){buf + 24, st.st_size - 24};
	f(iov.iov_base, iov.iov_len);
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
	assert_int_equal(lfr_blob_cache_write(c, strrchr(path, '/') + 1, &iov, 1, err, sizeof(err)),
	                 0);
	lfr_blob_cache_close(c);
	free(buf);
}

/* The table of another object: libc's rows, another object size (magic 8, version, rows). */
static void bump_object_size(char *payload, size_t len)
{
	(void)len;
	(*(uint64_t *)(payload + 16))++;
}

/* The last two rows swapped. */
static void swap_last_rows(char *payload, size_t len)
{
	char row[sizeof(struct lfr_unwind_row)];
	size_t at = len - 2 * sizeof(row);

	memcpy(row, payload + at, sizeof(row));
	memcpy(payload + at, payload + at + sizeof(row), sizeof(row));
	memcpy(payload + at + sizeof(row), row, sizeof(row));
}

static void other_object(const char *path)
{
	rewrite(path, bump_object_size);
}

static void rows_swapped(const char *path)
{
	rewrite(path, swap_last_rows);
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

static void test_other_object(void **state)
{
	(void)state;
	spoiled(other_object, "of another object");
}

static void test_rows_out_of_order(void **state)
{
	(void)state;
	spoiled(rows_swapped, "damaged (rows out of order)");
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
	struct lfr_blob_cache *c;
	char err[256];

	(void)state;
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
	assert_int_equal(get(c, fixture("libsymdl.so"), &t, &res), 0);
	assert_int_equal(res.how, LFR_UNWIND_CACHE_BUILT);
	assert_true(t.hdr.nr_rows > 0);
	assert_int_equal(files(NULL, 0), 0);
	lfr_unwind_table_free(&t);
	lfr_blob_cache_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_stored_then_read_back, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_damaged, test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_cut, test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_other_object, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_rows_out_of_order, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_link, test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_no_build_id, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

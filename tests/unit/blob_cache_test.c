// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's cache directory (user/lib/blob_cache.h): a file written is read back whole; a
 * file damaged, cut, of another format or a symbolic link is refused and said; the directory must
 * be the user's own (made mode 700 when missing); the least recently used file makes room at the
 * bound; a temporary file left by a write that never finished goes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/blob_cache.h"
#include "test_tmpdir.h"

static int files(void)
{
	DIR *d = opendir(test_dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void put(struct lfr_blob_cache *c, const char *name, const char *text)
{
	struct iovec iov[2] = {{(void *)text, 3}, {(void *)(text + 3), strlen(text) - 3}};
	char why[256];

	assert_int_equal(lfr_blob_cache_write(c, name, iov, 2, why, sizeof(why)), 0);
}

/* Reads name: 0 with its text checked, or the error with why checked. */
static void expect(struct lfr_blob_cache *c, const char *name, const char *text, int err,
                   const char *why_has)
{
	char why[256];
	struct lfr_blob b;
	int ret = lfr_blob_cache_read(c, name, 1 << 20, &b, why, sizeof(why));

	assert_int_equal(ret, err);
	if (!err) {
		assert_int_equal(b.len, strlen(text));
		assert_memory_equal(b.data, text, b.len);
		lfr_blob_release(&b);
		assert_null(b.map);
	} else {
		assert_null(b.data);
		assert_null(b.map);
		assert_non_null(strstr(why, why_has));
	}
}

static void path_of(const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", test_dir, name);
}

static void test_written_read_back(void **state)
{
	struct lfr_blob_cache *c;
	char err[256], name[160];
	const uint8_t bid[] = {0x93, 0xac, 0x01};

	(void)state;
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
	lfr_blob_cache_name(bid, sizeof(bid), ".syms", name, sizeof(name));
	assert_string_equal(name, "93ac01.syms");
	expect(c, name, NULL, -ENOENT, "");
	put(c, name, "a table of symbols");
	expect(c, name, "a table of symbols", 0, NULL);
	put(c, name, "replaced whole");
	expect(c, name, "replaced whole", 0, NULL);
	assert_int_equal(files(), 1);
	lfr_blob_cache_close(c);
}

static void test_refused(void **state)
{
	struct lfr_blob_cache *c;
	char err[256], path[256];
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
	put(c, "a.unwind", "0123456789abcdef");
	path_of("a.unwind", path, sizeof(path));
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "X", 1, 30), 1);
	close(fd);
	expect(c, "a.unwind", NULL, -EBADMSG, "a.unwind: damaged (CRC)");

	put(c, "b.unwind", "0123456789abcdef");
	path_of("b.unwind", path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 1), 0);
	expect(c, "b.unwind", NULL, -EBADMSG, "b.unwind: of the wrong size");
	assert_int_equal(truncate(path, 10), 0);
	expect(c, "b.unwind", NULL, -EBADMSG, "b.unwind: cut short");

	put(c, "c.unwind", "0123456789abcdef");
	path_of("c.unwind", path, sizeof(path));
	fd = open(path, O_RDWR);
	assert_int_equal(pwrite(fd, "M", 1, 0), 1);
	close(fd);
	expect(c, "c.unwind", NULL, -EBADMSG, "c.unwind: of another format");

	path_of("d.unwind", path, sizeof(path));
	assert_int_equal(symlink("/etc/passwd", path), 0);
	expect(c, "d.unwind", NULL, -ELOOP, strerror(ELOOP));

	/* larger than the reader takes */
	put(c, "e.unwind", "0123456789abcdef");
	{
		struct lfr_blob b;

		assert_int_equal(lfr_blob_cache_read(c, "e.unwind", 8, &b, err, sizeof(err)),
		                 -EBADMSG);
		assert_non_null(strstr(err, "of the wrong size"));
	}
	lfr_blob_cache_close(c);
}

static void test_directory_must_be_own(void **state)
{
	struct lfr_blob_cache *c;
	char err[256], path[256];
	struct stat st;
	int fd;

	(void)state;
	assert_int_equal(chmod(test_dir, 0777), 0);
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), -EPERM);
	assert_null(c);
	assert_non_null(strstr(err, "owned by another user or writable by others"));
	assert_int_equal(chmod(test_dir, 0720), 0);
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), -EPERM);
	assert_int_equal(chmod(test_dir, 0700), 0);

	path_of("file", path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lfr_blob_cache_open(path, &c, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, "not a directory"));

	/* not through a symbolic link, even to a directory of one's own */
	path_of("link", path, sizeof(path));
	assert_int_equal(symlink(test_dir, path), 0);
	assert_int_equal(lfr_blob_cache_open(path, &c, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "a symbolic link: give the directory itself"));

	path_of("made", path, sizeof(path));
	assert_int_equal(lfr_blob_cache_open(path, &c, err, sizeof(err)), 0);
	lfr_blob_cache_close(c);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
}

static void test_least_recently_used_goes(void **state)
{
	struct lfr_blob_cache *c;
	char err[256], path[256];
	struct timespec old[2] = {{1000, 0}, {1000, 0}};
	int fd;

	(void)state;
	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
	lfr_blob_cache_set_max(c, 2);
	put(c, "01.syms", "first one");
	put(c, "02.syms", "second one");
	/* one is older, then read: two is the least recently used */
	path_of("01.syms", path, sizeof(path));
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	path_of("02.syms", path, sizeof(path));
	old[0].tv_sec = old[1].tv_sec = 2000;
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	expect(c, "01.syms", "first one", 0, NULL);
	/* a temporary file of a write that never finished, long ago */
	path_of(".03.syms.1.tmp", path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	/* what is not the cache's own is neither counted nor removed, however old */
	for (int i = 0; i < 5; i++) {
		const char *foreign[] = {"notes.txt", "0A.syms", "01.syms.bak", "01.", "zz.syms"};

		path_of(foreign[i], path, sizeof(path));
		fd = open(path, O_WRONLY | O_CREAT, 0600);
		assert_true(fd >= 0);
		close(fd);
		old[0].tv_sec = old[1].tv_sec = 1;
		assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	}
	put(c, "03.syms", "third one");
	assert_int_equal(files(), 2 + 5);
	expect(c, "01.syms", "first one", 0, NULL);
	expect(c, "02.syms", NULL, -ENOENT, "");
	expect(c, "03.syms", "third one", 0, NULL);
	path_of(".03.syms.1.tmp", path, sizeof(path));
	assert_int_equal(access(path, F_OK), -1);
	path_of("notes.txt", path, sizeof(path));
	assert_int_equal(access(path, F_OK), 0);
	lfr_blob_cache_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_written_read_back, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_refused, test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_directory_must_be_own, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_least_recently_used_goes, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

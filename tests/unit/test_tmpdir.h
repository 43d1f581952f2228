/* SPDX-License-Identifier: GPL-2.0 */
/* A directory of the test's own under /tmp, made before each test and removed whole after it. */
#ifndef LFR_TESTS_TEST_TMPDIR_H
#define LFR_TESTS_TEST_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

/* The directory, for a group of tests run one at a time. */
static char test_dir[64];

static int test_tmpdir_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* cmocka setup: a new test_dir. */
static int test_tmpdir_setup(void **state)
{
	(void)state;
	snprintf(test_dir, sizeof(test_dir), "/tmp/lfr-test-XXXXXX");
	return mkdtemp(test_dir) ? 0 : -1;
}

/* cmocka teardown: test_dir and everything in it removed. */
static int test_tmpdir_teardown(void **state)
{
	(void)state;
	nftw(test_dir, test_tmpdir_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

#endif

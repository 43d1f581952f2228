// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 targets: mountinfo parsing, ids, and the errors for what is not a cgroup v2. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/cgroup.h"

static char *write_tmp(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/lfr-mountinfo-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void mount_found(void **state)
{
	const char *mi =
	    "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
	    "30 25 0:26 / /sys/fs/cgroup/cpu rw shared:9 - cgroup cgroup rw,cpu\n"
	    "29 25 0:25 / /sys/fs/cgroup/unified rw,nosuid shared:8 - cgroup2 cgroup2 rw\n";
	char *p = write_tmp(mi), buf[256];

	(void)state;
	assert_int_equal(lfr_cgroup2_mount(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/unified");
	unlink(p);
}

static void mount_missing(void **state)
{
	const char *mi = "22 1 0:21 / /proc rw - proc proc rw\n"
	                 "30 25 0:26 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
	                 "garbage without separator\n";
	char *p = write_tmp(mi), buf[256];

	(void)state;
	assert_int_equal(lfr_cgroup2_mount(p, buf, sizeof(buf)), -ENOENT);
	unlink(p);
	assert_int_equal(lfr_cgroup2_mount("/nonexistent/mountinfo", buf, sizeof(buf)), -ENOENT);
}

static void ids(void **state)
{
	char why[256] = "";
	uint64_t id = 0;

	(void)state;
	assert_int_equal(lfr_cgroup_resolve("4242", "/x", &id, why, sizeof(why)), 0);
	assert_int_equal(id, 4242);
	assert_int_equal(lfr_cgroup_resolve("18446744073709551615", "/x", &id, why, sizeof(why)),
	                 0);
	assert_true(id == UINT64_MAX);
	assert_int_equal(lfr_cgroup_resolve("0", "/x", &id, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "id 0"));
	assert_int_equal(lfr_cgroup_resolve("", "/x", &id, why, sizeof(why)), -EINVAL);
	/* Too large for an id: taken as a (missing) relative path. */
	assert_int_equal(
	    lfr_cgroup_resolve("99999999999999999999", "/nonexistent", &id, why, sizeof(why)),
	    -ENOENT);
}

static void not_cgroups(void **state)
{
	char why[512] = "";
	uint64_t id = 0;

	(void)state;
	assert_int_equal(lfr_cgroup_resolve("/nonexistent/cg", NULL, &id, why, sizeof(why)),
	                 -ENOENT);
	assert_non_null(strstr(why, "no cgroup /nonexistent/cg"));
	/* A relative path is taken inside the given mount. */
	assert_int_equal(lfr_cgroup_resolve("a/b", "/nonexistent", &id, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "/nonexistent/a/b"));
	assert_int_equal(lfr_cgroup_resolve("/tmp", NULL, &id, why, sizeof(why)), -EMEDIUMTYPE);
	assert_non_null(strstr(why, "not inside a cgroup2"));
	assert_int_equal(lfr_cgroup_resolve("/proc/self/status", NULL, &id, why, sizeof(why)),
	                 -ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(mount_found),
	    cmocka_unit_test(mount_missing),
	    cmocka_unit_test(ids),
	    cmocka_unit_test(not_cgroups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

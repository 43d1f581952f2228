// SPDX-License-Identifier: GPL-2.0
/*
 * lib/maps_line.h: every line of this process's /proc/self/maps (and of init's, where readable)
 * reads as sscanf's "%llx-%llx %7s %llx %x:%x %llu %n" reads it, which the three readers of maps
 * used before; then the shapes a line can have (no path, a deleted file, a path with blanks, a
 * device in hex) and lines that are refused.
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

#include "lib/maps_line.h"

/* The line read both ways agrees. */
static void same_as_sscanf(const char *line)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	struct lfr_maps_line m;
	char perms[8];
	int off = 0;
	bool want = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
	                   &maj, &min, &ino, &off) >= 7 &&
	            off;

	assert_int_equal(lfr_maps_line_parse(line, &m), want);
	if (!want)
		return;
	assert_int_equal(m.start, start);
	assert_int_equal(m.end, end);
	assert_string_equal(m.perms, perms);
	assert_int_equal(m.pgoff, pgoff);
	assert_int_equal(m.maj, maj);
	assert_int_equal(m.min, min);
	assert_int_equal(m.ino, ino);
	assert_ptr_equal(m.path, line + off);
	assert_int_equal(m.path_len, strcspn(line + off, "\n"));
}

static size_t file_lines(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		same_as_sscanf(line);
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

static void test_proc(void **state)
{
	(void)state;
	assert_true(file_lines("/proc/self/maps") > 5);
	file_lines("/proc/1/maps"); /* root's, or nothing */
}

static void test_shapes(void **state)
{
	static const char *const lines[] = {
	    "559a2c3e1000-559a2c3e3000 r-xp 00002000 08:01 1835027                    "
	    "/usr/bin/cat\n",
	    "7f0c1c000000-7f0c1c021000 rw-p 00000000 00:00 0 \n",
	    "7ffd5e9f1000-7ffd5ea12000 rw-p 00000000 00:00 0                          [stack]\n",
	    "7f0c1d000000-7f0c1d001000 r-xp 00000000 fd:1a 42    /tmp/a b (deleted)\n",
	    "7f0c1d000000-7f0c1d001000 r-xp 00000000 103:02 42 /x",
	    "7f0c1d000000-7f0c1d001000 r-xp 00000000 00:00 0",
	    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]\n",
	    /* refused */
	    "",
	    "\n",
	    "7f0c1d000000 r-xp 00000000 00:00 0\n",
	    "7f0c1d000000-7f0c1d001000 r-xp 00000000 00-00 0\n",
	    "7f0c1d000000-7f0c1d001000 r-xp 00000000 00:00\n",
	    "7f0c1d000000-7f0c1d001000 r-xp zz 00:00 0\n",
	    "7f0c1d000000-7f0c1d001000 r-xpqqqqq 00000000 00:00 0\n",
	};
	struct lfr_maps_line m;

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		same_as_sscanf(lines[i]);
	assert_true(lfr_maps_line_parse(lines[3], &m));
	assert_int_equal(m.maj, 0xfd);
	assert_int_equal(m.min, 0x1a);
	assert_int_equal(m.path_len, strlen("/tmp/a b (deleted)"));
	assert_true(lfr_maps_line_parse(lines[1], &m));
	assert_string_equal(m.path, "");
	/* 17 hex digits do not fit: refused, where sscanf saturates */
	assert_false(
	    lfr_maps_line_parse("17f0c1d0000000000-7f0c1d001000 r-xp 00000000 00:00 0\n", &m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_proc),
	    cmocka_unit_test(test_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Paths others chose, opened as regular files only (user/lib/regular_file.h): a FIFO without a
 * writer is refused at once (no open of it waits), a device is refused without being opened, a
 * link to a regular file is followed unless O_NOFOLLOW, and the descriptor is the file looked at.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/regular_file.h"

static char dir[] = "/tmp/lfr-regular-XXXXXX";

static const char *in_dir(const char *name)
{
	static char buf[2][600];
	static int next;
	char *p = buf[next++ % 2];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static int setup(void **state)
{
	(void)state;
	alarm(120); /* liveness: an open that waits ends the run here */
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void regular_files_only(void **state)
{
	struct stat st;
	int fd;
	FILE *f;

	(void)state;
	f = fopen(in_dir("file"), "w");
	assert_non_null(f);
	fputs("data", f);
	fclose(f);
	fd = lfr_open_regular(in_dir("file"), O_RDONLY, &st);
	assert_true(fd >= 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 4);
	/* read-only, non-blocking, close-on-exec */
	assert_int_equal(fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK), O_RDONLY | O_NONBLOCK);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	fd = lfr_open_regular(in_dir("file"), O_RDWR, NULL);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	close(fd);

	/* a FIFO with no writer: an open for reading would wait for one */
	assert_int_equal(mkfifo(in_dir("fifo"), 0600), 0);
	assert_int_equal(lfr_open_regular(in_dir("fifo"), O_RDONLY, &st), -ENODEV);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(lfr_open_regular(in_dir("fifo"), O_RDWR, NULL), -ENODEV);
	/* a device, a directory */
	assert_int_equal(lfr_open_regular("/dev/null", O_RDONLY, &st), -ENODEV);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(lfr_open_regular(dir, O_RDONLY, NULL), -ENODEV);
	assert_int_equal(lfr_open_regular(in_dir("missing"), O_RDONLY, NULL), -ENOENT);

	/* a link: followed to a regular file, not to a FIFO; refused with O_NOFOLLOW */
	assert_int_equal(symlink(in_dir("file"), in_dir("link")), 0);
	fd = lfr_open_regular(in_dir("link"), O_RDONLY, &st);
	assert_true(fd >= 0);
	assert_int_equal(st.st_size, 4);
	close(fd);
	assert_int_equal(lfr_open_regular(in_dir("link"), O_RDONLY | O_NOFOLLOW, NULL), -ELOOP);
	assert_int_equal(symlink(in_dir("fifo"), in_dir("fifolink")), 0);
	assert_int_equal(lfr_open_regular(in_dir("fifolink"), O_RDONLY, NULL), -ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(regular_files_only),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

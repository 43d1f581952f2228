// SPDX-License-Identifier: GPL-2.0
/*
 * Output files (user/lib/outfile.h), as root in a sticky directory others can write to: what
 * another user planted at the target (a FIFO, a symbolic link, a file of theirs) is refused at
 * once and left as it was, a directory or a device is refused, the caller's own file is replaced
 * only on commit, "-" is standard output only where allowed, and nothing of the new file is left
 * behind by an abort or a refused commit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/outfile.h"

#define OTHER_UID 65534 /* nobody */

static char dir[] = "/tmp/lfr-outfile-XXXXXX";
static char target[512];

/* The names in dir, but for keep (NULL: none): what an output left behind. */
static int others(const char *keep)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    (!keep || strcmp(de->d_name, keep)))
			n++;
	closedir(d);
	return n;
}

static int setup(void **state)
{
	(void)state;
	/* liveness: a test that blocks on an open ends here instead of hanging the run */
	alarm(120);
	if (!mkdtemp(dir) || chmod(dir, 01777))
		return -1;
	snprintf(target, sizeof(target), "%s/out.jfr", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static int clean(void **state)
{
	char cmd[600];

	(void)state;
	chmod(dir, 01777);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/* '%s'/.[!.]*", dir, dir);
	return system(cmd) ? -1 : 0;
}

/* Files of another user can only be made by root. */
static void as_root(void)
{
	if (geteuid())
		skip();
}

/* Opens target as an output: the status, and the message in err. */
static int try_open(struct lfr_outfile *o, unsigned flags, char *err, size_t n)
{
	err[0] = 0;
	return lfr_outfile_open(o, target, flags, 0640, err, n);
}

static void refused(const char *want, const char *kind)
{
	struct lfr_outfile o = LFR_OUTFILE_INIT;
	char err[512];

	assert_int_equal(try_open(&o, 0, err, sizeof(err)), -EEXIST);
	if (!strstr(err, want) || !strstr(err, target))
		fail_msg("%s: the message does not say '%s': %s", kind, want, err);
	lfr_outfile_abort(&o);
}

/* A FIFO another user made where the output goes: refused at once, even with no reader. */
static void planted_fifo(void **state)
{
	as_root();
	struct stat st;

	(void)state;
	assert_int_equal(mkfifo(target, 0666), 0);
	assert_int_equal(lchown(target, OTHER_UID, OTHER_UID), 0);
	refused("is a FIFO (owner uid 65534), not a regular file", "a FIFO");
	assert_int_equal(lstat(target, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(others("out.jfr"), 0);
}

/* A symbolic link another user made: the link is the entry looked at, never followed. */
static void planted_symlink(void **state)
{
	as_root();
	char victim[600];
	struct stat st;
	FILE *f;

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	f = fopen(victim, "w");
	assert_non_null(f);
	fputs("root's", f);
	fclose(f);
	assert_int_equal(symlink(victim, target), 0);
	assert_int_equal(lchown(target, OTHER_UID, OTHER_UID), 0);
	refused("is a symbolic link", "a symbolic link");
	assert_int_equal(lstat(target, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 6);
}

/* A regular file of another user in a sticky directory: refused, as fs.protected_regular does. */
static void planted_file(void **state)
{
	as_root();
	struct lfr_outfile o = LFR_OUTFILE_INIT;
	char err[512];
	FILE *f;

	(void)state;
	f = fopen(target, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chown(target, OTHER_UID, OTHER_UID), 0);
	refused("belongs to uid 65534, in a sticky directory", "another user's file");
	/* outside a sticky directory, the owner of the directory decides: replaced */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(try_open(&o, 0, err, sizeof(err)), 0);
	assert_int_equal(write(o.fd, "new", 3), 3);
	assert_int_equal(lfr_outfile_commit(&o, err, sizeof(err)), 0);
	assert_int_equal(chmod(dir, 01777), 0);
	struct stat st;
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_size, 3);
	mode_t mask = umask(0);
	umask(mask);
	assert_int_equal(st.st_mode & 0777, 0640 & ~mask);
}

/* A directory and a device are refused too. */
static void no_regular_file(void **state)
{
	struct lfr_outfile o = LFR_OUTFILE_INIT;
	char err[512];

	(void)state;
	assert_int_equal(mkdir(target, 0755), 0);
	assert_int_equal(try_open(&o, 0, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "is a directory"));
	assert_int_equal(
	    lfr_outfile_open(&o, "/dev/null", LFR_OUTFILE_STDOUT, 0640, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "/dev/null is a character device"));
	assert_non_null(strstr(err, "(- writes to standard output)"));
	assert_int_equal(lfr_outfile_open(&o, "/tmp/", 0, 0640, err, sizeof(err)), -EISDIR);
}

/* The caller's own file: replaced on commit only; an abort leaves it and nothing else. */
static void own_file_replaced_on_commit(void **state)
{
	struct lfr_outfile o = LFR_OUTFILE_INIT;
	char err[512], buf[16] = "";
	FILE *f;

	(void)state;
	f = fopen(target, "w");
	assert_non_null(f);
	fputs("old", f);
	fclose(f);
	assert_int_equal(try_open(&o, 0, err, sizeof(err)), 0);
	assert_int_equal(write(o.fd, "aborted", 7), 7);
	lfr_outfile_abort(&o);
	assert_int_equal(others("out.jfr"), 0);
	assert_int_equal(try_open(&o, 0, err, sizeof(err)), 0);
	assert_int_equal(write(o.fd, "new", 3), 3);
	f = fopen(target, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "old");
	assert_int_equal(lfr_outfile_commit(&o, err, sizeof(err)), 0);
	f = fopen(target, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "new");
	assert_int_equal(others("out.jfr"), 0);
}

/* A FIFO planted after the open and before the commit: the commit refuses it too. */
static void planted_meanwhile(void **state)
{
	as_root();
	struct lfr_outfile o = LFR_OUTFILE_INIT;
	char err[512];
	struct stat st;

	(void)state;
	assert_int_equal(try_open(&o, 0, err, sizeof(err)), 0);
	assert_int_equal(write(o.fd, "data", 4), 4);
	assert_int_equal(mkfifo(target, 0666), 0);
	assert_int_equal(lchown(target, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(lfr_outfile_commit(&o, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "is a FIFO"));
	assert_int_equal(lstat(target, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(others("out.jfr"), 0);
}

/* "-": standard output where the command allows it, refused elsewhere. */
static void dash_is_standard_output(void **state)
{
	struct lfr_outfile o = LFR_OUTFILE_INIT;
	char err[512], buf[16] = "";
	int p[2], saved = dup(STDOUT_FILENO);

	(void)state;
	assert_int_equal(lfr_outfile_open(&o, "-", 0, 0640, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "standard output"));
	assert_int_equal(pipe(p), 0);
	assert_true(dup2(p[1], STDOUT_FILENO) >= 0);
	close(p[1]);
	assert_int_equal(lfr_outfile_open(&o, "-", LFR_OUTFILE_STDOUT, 0640, err, sizeof(err)), 0);
	assert_int_equal(write(o.fd, "piped", 5), 5);
	assert_int_equal(lfr_outfile_commit(&o, err, sizeof(err)), 0);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	assert_int_equal(read(p[0], buf, sizeof(buf) - 1), 5);
	close(p[0]);
	assert_string_equal(buf, "piped");
	assert_int_equal(others(NULL), 0);
}

/* The new file has no name until it is committed (O_TMPFILE): a kill leaves nothing. */
static void killed_leaves_nothing(void **state)
{
	int status, p[2];
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct lfr_outfile o = LFR_OUTFILE_INIT;
		char err[512];

		if (lfr_outfile_open(&o, target, 0, 0640, err, sizeof(err)) ||
		    write(o.fd, "data", 4) != 4 || write(p[1], "w", 1) != 1)
			_exit(1);
		pause(); /* killed here, its output written and not committed */
		_exit(2);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1); /* the handshake: written */
	close(p[0]);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(others(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(planted_fifo, clean),
	    cmocka_unit_test_setup(planted_symlink, clean),
	    cmocka_unit_test_setup(planted_file, clean),
	    cmocka_unit_test_setup(no_regular_file, clean),
	    cmocka_unit_test_setup(own_file_replaced_on_commit, clean),
	    cmocka_unit_test_setup(planted_meanwhile, clean),
	    cmocka_unit_test_setup(dash_is_standard_output, clean),
	    cmocka_unit_test_setup(killed_leaves_nothing, clean),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

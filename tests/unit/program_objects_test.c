// SPDX-License-Identifier: GPL-2.0
/*
 * The objects a program maps at its start (user/record/program_objects.h): the program, its
 * dynamic linker and its libraries, as the dynamic linker finds them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>

#include "record/program_objects.h"
#include "sym_test_util.h"

struct found {
	char paths[16][PATH_MAX];
	int n;
};

static void collect(const char *path, void *arg)
{
	struct found *f = arg;

	assert_true(f->n < 16);
	snprintf(f->paths[f->n++], PATH_MAX, "%s", path);
}

/* Whether the basename of one of the objects starts with prefix. */
static bool has(const struct found *f, const char *prefix)
{
	for (int i = 0; i < f->n; i++) {
		const char *base = strrchr(f->paths[i], '/');

		if (base && !strncmp(base + 1, prefix, strlen(prefix)))
			return true;
	}
	return false;
}

static void test_program_and_libraries(void **state)
{
	char err[256], *real;
	struct found f = {0};
	bool lib = false;

	(void)state;
	/* the library is found in the program's directory through $ORIGIN only */
	assert_true(lfr_program_objects(fixture("unw_needs"), collect, &f, err, sizeof(err)) >= 4);
	real = realpath(fixture("unw_needs"), NULL);
	assert_non_null(real);
	assert_string_equal(f.paths[0], real);
	free(real);
	real = realpath(fixture("libunw.so"), NULL);
	assert_non_null(real);
	assert_true(f.n >= 4);
	for (int i = 0; i < f.n; i++)
		lib |= !strcmp(f.paths[i], real);
	free(real);
	assert_true(lib);
	assert_true(has(&f, "ld-linux-x86-64.so"));
	assert_true(has(&f, "libc.so"));
}

/* A name is looked up on PATH, as execvp does; a "#!" script gives its interpreter. */
static void test_path_and_scripts(void **state)
{
	char err[256], script[] = "/tmp/lfr-objects-XXXXXX";
	struct found f = {0};
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	int fd;

	(void)state;
	setenv("PATH", LFR_SYMDATA, 1);
	assert_true(lfr_program_objects("unw_prog", collect, &f, err, sizeof(err)) >= 3);
	assert_true(has(&f, "unw_prog"));
	f.n = 0;
	assert_int_equal(lfr_program_objects("no-such-program", collect, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not found"));
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);

	fd = mkstemp(script);
	assert_true(fd >= 0);
	dprintf(fd, "#!%s --flag\n", fixture("unw_prog"));
	fchmod(fd, 0700);
	close(fd);
	f.n = 0;
	assert_true(lfr_program_objects(script, collect, &f, err, sizeof(err)) >= 3);
	assert_true(has(&f, "unw_prog"));
	unlink(script);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_program_and_libraries),
	    cmocka_unit_test(test_path_and_scripts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

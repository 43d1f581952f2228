// SPDX-License-Identifier: GPL-2.0
/*
 * Objects a recording names (lfr report's lfr_sym_resolve_object(): a path and a build-id from an
 * lfr.ObjectFile event, no process): a local file is trusted for names only when its build-id is
 * the recorded one, so a recording without one gets no names from whatever file has that path
 * (and the reason says so); a path that names a FIFO or a device is never opened, nor waited on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>

#include "sym_test_util.h"

static char dir[] = "/tmp/lfr-recorded-XXXXXX";

static int setup(void **state)
{
	(void)state;
	alarm(120); /* liveness: an open that waits on a FIFO ends the run here */
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static size_t file_build_id(const char *file, uint8_t *out)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	const void *p;
	ssize_t n = 0;
	Elf *e;

	elf_version(EV_CURRENT);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e)
		n = dwelf_elf_gnu_build_id(e, &p);
	if (n > 0)
		memcpy(out, p, (size_t)n);
	elf_end(e);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

/* fix_add's ELF address in libsymfix.so (symdata/build.sh writes it beside the library). */
static uint64_t fix_add(void)
{
	unsigned long long plt, add;
	FILE *f = fopen(fixture("libsymfix.plt"), "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llx %llx", &plt, &add), 2);
	fclose(f);
	return add;
}

struct why {
	const char *path, *why;
};

static void find_why(const struct lfr_sym_object *o, void *arg)
{
	struct why *w = arg;

	if (!strcmp(o->path, w->path))
		w->why = o->unnamed_why;
}

static void named_by_build_id_only(void **state)
{
	const char *lib = fixture("libsymfix.so");
	uint8_t bid[64], other[20] = {0xde, 0xad, 0xbe, 0xef};
	size_t n = file_build_id(lib, bid);
	struct lfr_frame f;
	struct lfr_sym *sym;
	struct why w = {lib, NULL};

	(void)state;
	assert_true(n > 0);
	assert_int_equal(lfr_sym_new(&sym, NULL), 0);
	/* the recorded build-id: the local file is the one recorded */
	assert_true(lfr_sym_resolve_object(sym, lib, bid, n, fix_add() + 1, &f));
	assert_string_equal(f.method, "fix_add");
	lfr_sym_free(sym);

	/* another build-id: another build, no names */
	assert_int_equal(lfr_sym_new(&sym, NULL), 0);
	assert_false(lfr_sym_resolve_object(sym, lib, other, sizeof(other), fix_add() + 1, &f));
	lfr_sym_free(sym);

	/* none recorded: nothing proves the local file is the one recorded */
	assert_int_equal(lfr_sym_new(&sym, NULL), 0);
	assert_false(lfr_sym_resolve_object(sym, lib, NULL, 0, fix_add() + 1, &f));
	assert_int_equal(strncmp(f.method, "0x", 2), 0); /* an address */
	lfr_sym_foreach_object(sym, find_why, &w);
	if (!w.why || !strstr(w.why, "the recording gives no build-id for it"))
		fail_msg("the reason: %s", w.why ? w.why : "(none)");
	lfr_sym_free(sym);
}

static void fifo_and_device_not_opened(void **state)
{
	uint8_t bid[20] = {1, 2, 3, 4};
	char fifo[64];
	struct lfr_frame f;
	struct lfr_sym *sym;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/app.so", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(lfr_sym_new(&sym, NULL), 0);
	/* no writer: an open for reading would wait for one */
	assert_false(lfr_sym_resolve_object(sym, fifo, bid, sizeof(bid), 0x1139, &f));
	assert_false(lfr_sym_resolve_object(sym, "/dev/zero", bid, sizeof(bid), 0x1139, &f));
	lfr_sym_free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(named_by_build_id_only),
	    cmocka_unit_test(fifo_and_device_not_opened),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ELF files cut while they are read (a library truncated in place by an upgrade, a debug file
 * rewritten, an object a recording names replaced): every reader of ELF files must survive it.
 * Through a mapping of the file (ELF_C_READ_MMAP) the first page past the new end raises SIGBUS
 * and the recorder or the report dies; read with pread (ELF_C_READ) the cut is an error.
 *
 * elf_begin() is wrapped here: it truncates the file to one page right after libelf has opened
 * it, the worst moment (its section headers and data are gone, its header is read).  Each reader
 * runs in a child, which must exit normally: a death by a signal, or ASan's report of one, fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>

#include "record/program_objects.h"
#include "sym/cfi.h"
#include "sym/unwind_table.h"
#include "sym_test_util.h"

#define FAKE_PID 93001u
#define CUT_TO 4096

/* The file to cut at its next elf_begin() (its inode), none when cut_path is empty. */
static char cut_path[PATH_MAX];
static ino_t cut_ino;
static int cut_skip; /* elf_begin()s of that file to let pass first */
static int cuts;

Elf *elf_begin(int fd, Elf_Cmd cmd, Elf *ref)
{
	static Elf *(*real)(int, Elf_Cmd, Elf *);
	struct stat st;
	Elf *e;

	if (!real)
		real = (Elf * (*)(int, Elf_Cmd, Elf *)) dlsym(RTLD_NEXT, "elf_begin");
	e = real(fd, cmd, ref);
	if (cut_path[0] && fd >= 0 && !fstat(fd, &st) && st.st_ino == cut_ino && cut_skip-- <= 0) {
		if (truncate(cut_path, CUT_TO) == 0)
			cuts++;
		cut_path[0] = 0;
	}
	return e;
}

static char dir[] = "/tmp/lfr-elfcut-XXXXXX";

/* A copy of fixture name in dir (a file the test may cut), its path in out. */
static void copy_fixture(const char *name, const char *as, char *out, size_t n)
{
	char cmd[2 * PATH_MAX];

	snprintf(out, n, "%s/%s", dir, as);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", out,
	         fixture(name), out);
	assert_int_equal(system(cmd), 0);
}

static void arm(const char *path, int skip)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > CUT_TO + 512); /* something to cut */
	snprintf(cut_path, sizeof(cut_path), "%s", path);
	cut_ino = st.st_ino;
	cut_skip = skip;
	cuts = 0;
}

/* Runs fn(arg) in a child: it must exit 0 (having cut its file), not die. */
static void survives(void (*fn)(const void *), const void *arg)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		/* cmocka's and ASan's handlers would turn the death into a test failure of the
		 * child, which would then go on running the other tests */
		signal(SIGBUS, SIG_DFL);
		signal(SIGSEGV, SIG_DFL);
		fn(arg);
		_exit(cuts == 1 ? 0 : 3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("the reader died of signal %d (%s) when its file was cut",
		         WTERMSIG(status), strsignal(WTERMSIG(status)));
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 3)
		fail_msg("the file was not cut: the reader did not open it");
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* The symbolizer reading an object's symbols (lfr record, lfr report). */
static void preload(const void *path)
{
	struct lfr_sym *sym;

	if (lfr_sym_new(&sym, NULL))
		_exit(2);
	lfr_sym_preload_object(sym, path); /* fails or not: it must return */
	lfr_sym_free(sym);
}

static void symbols_of_a_cut_object(void **state)
{
	char path[PATH_MAX];

	(void)state;
	copy_fixture("libsymfix.so", "sym/libsymfix.so", path, sizeof(path));
	arm(path, 0);
	survives(preload, path);
}

/* lfr record's unwind tables, built from an object's .eh_frame. */
static void table(const void *path)
{
	struct lfr_unwind_table t;
	char err[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		_exit(2);
	if (!lfr_unwind_table_build(fd, &t, err, sizeof(err)))
		lfr_unwind_table_free(&t);
	close(fd);
}

static void unwind_table_of_a_cut_object(void **state)
{
	char path[PATH_MAX];

	(void)state;
	copy_fixture("libsymcfi.so", "unw/libsymcfi.so", path, sizeof(path));
	arm(path, 0);
	survives(table, path);
}

/* lfr record -- CMD: the program's objects, read before it runs. */
static void objects_cb(const char *path, void *arg)
{
	(void)path;
	(void)arg;
}

static void objects(const void *path)
{
	char err[256];

	lfr_program_objects(path, objects_cb, NULL, err, sizeof(err));
}

static void program_objects_of_a_cut_program(void **state)
{
	char path[PATH_MAX];

	(void)state;
	copy_fixture("symfix_pie", "prog/symfix_pie", path, sizeof(path));
	arm(path, 2); /* the third reading: its dynamic section's (two check its header first) */
	survives(objects, path);
}

/* A debug file by build-id, cut as it is read. */
static void debug_file(const void *root)
{
	char stripped[PATH_MAX];
	struct lfr_sym_opts so = {.debug_dirs = root};
	struct lfr_sym *sym;

	snprintf(stripped, sizeof(stripped), "%s", fixture("libsymbid.so"));
	if (lfr_sym_new(&sym, &so))
		_exit(2);
	lfr_sym_preload_object(sym, stripped);
	lfr_sym_free(sym);
}

static void debug_file_cut_while_read(void **state)
{
	char cmd[4 * PATH_MAX + 128], root[PATH_MAX], found[PATH_MAX];
	FILE *f;

	(void)state;
	snprintf(root, sizeof(root), "%s/debug", dir);
	snprintf(cmd, sizeof(cmd),
	         "mkdir -p '%s' && cp -r '%s/.build-id' '%s/' && find '%s' -name '*.debug' | head "
	         "-n 1",
	         root, fixture("debug"), root, root);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(found, sizeof(found), f));
	pclose(f);
	found[strcspn(found, "\n")] = 0;
	arm(found, 0);
	survives(debug_file, root);
}

/* The leaf rule's CFI (lfr record), read again from the object when a sample needs it. */
struct leaf {
	const char *path;
	uint64_t start, pc;
	dev_t dev;
	ino_t ino;
};

static void leaf(const void *arg)
{
	const struct leaf *l = arg;
	struct lfr_sym_mapping m = {.pid = FAKE_PID,
	                            .start = l->start,
	                            .end = l->start + (1 << 20),
	                            .path = l->path,
	                            .dev = l->dev,
	                            .ino = l->ino};
	struct lfr_frame fr;
	struct lfr_sym *sym;
	uint64_t words[4] = {0}, ra;

	if (lfr_sym_new(&sym, NULL) || lfr_sym_add_mapping(sym, &m))
		_exit(2);
	/* named first (the object's first reading, not cut), then its CFI read (cut) */
	if (!lfr_sym_resolve_user(sym, FAKE_PID, l->pc, &fr))
		_exit(4);
	lfr_sym_leaf_caller(sym, FAKE_PID, l->pc, 0x7ffd00001000ull, words, 4, &ra);
	lfr_sym_free(sym);
}

static void cfi_of_a_cut_object(void **state)
{
	char path[PATH_MAX];
	struct leaf l = {.path = path, .start = 0x7f0000000000ull};
	struct stat st;
	GElf_Phdr ph;
	size_t n;
	Elf *e;
	int fd;

	(void)state;
	copy_fixture("libsymcfi.so", "cfi/libsymcfi.so", path, sizeof(path));
	/* a pc in its executable segment: the mapping covers the file from offset 0 */
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getphdrnum(e, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			l.pc = l.start + ph.p_offset + ph.p_filesz / 2;
	elf_end(e);
	fstat(fd, &st);
	close(fd);
	assert_true(l.pc > l.start);
	l.dev = st.st_dev;
	l.ino = st.st_ino;
	arm(path, 1); /* the second reading: the CFI's */
	survives(leaf, &l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(symbols_of_a_cut_object),
	    cmocka_unit_test(unwind_table_of_a_cut_object),
	    cmocka_unit_test(program_objects_of_a_cut_program),
	    cmocka_unit_test(debug_file_cut_while_read),
	    cmocka_unit_test(cfi_of_a_cut_object),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

// SPDX-License-Identifier: GPL-2.0
/* Symbolizer: kernel and module frames from a kallsyms file given by path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sym_test_util.h"

static const char kallsyms[] = "0000000000000000 A fixed_percpu_data\n"
                               "ffffffff81000000 T _stext\n"
                               "ffffffff81000000 T startup_64\n"
                               "ffffffff81001000 t do_thing\n"
                               "ffffffff81001100 T vfs_read\n"
                               "ffffffff81002000 D some_data\n"
                               "ffffffff81003000 r ro_data\n"
                               "ffffffffc0000000 t ext4_readpage\t[ext4]\n"
                               "ffffffffc0000400 T ext4_file_read_iter\t[ext4]\n"
                               "ffffffffc0001000 d ext4_data\t[ext4]\n"
                               "ffffffffc0002000 t xfs_bmap\t[xfs]\n"
                               "ffffffffc0002100 b xfs_bss\t[xfs]\n"
                               "\n";

static const char *const files[] = {"kallsyms", "hidden", NULL};

static struct lfr_sym *new_sym(const char *dir, const char *file)
{
	char path[512];
	struct lfr_sym_opts o = {.kallsyms = path};
	struct lfr_sym *sym = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	assert_int_equal(lfr_sym_new(&sym, &o), 0);
	return sym;
}

static void expect_kernel(struct lfr_sym *sym, uint64_t pc, const char *cls, const char *method,
                          uint64_t offset)
{
	struct lfr_frame f;

	assert_true(lfr_sym_resolve_kernel(sym, pc, &f));
	assert_string_equal(f.class_name, cls);
	assert_string_equal(f.method, method);
	assert_int_equal(f.offset, offset);
	assert_int_equal(f.type, LFR_FRAME_KERNEL);
	assert_string_equal(lfr_frame_type_name(f.type), "Kernel");
}

static void expect_unknown(struct lfr_sym *sym, uint64_t pc, const char *method)
{
	struct lfr_frame f;

	assert_false(lfr_sym_resolve_kernel(sym, pc, &f));
	assert_false(f.resolved);
	assert_string_equal(f.class_name, "[kernel]");
	assert_string_equal(f.method, method);
	assert_int_equal(f.type, LFR_FRAME_KERNEL);
}

static void test_kernel_and_modules(void **state)
{
	char *dir = make_tmpdir();
	struct lfr_sym *sym;
	struct lfr_sym_stats st;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(write_file(dir, "kallsyms", kallsyms, "w"), 0);
	sym = new_sym(dir, "kallsyms");
	/* Loaded on first use from the configured path. */
	expect_kernel(sym, 0xffffffff81001105, "[kernel]", "vfs_read", 5);
	expect_kernel(sym, 0xffffffff81001000, "[kernel]", "do_thing", 0);
	/* Aliases: the name with fewer leading underscores wins. */
	expect_kernel(sym, 0xffffffff81000010, "[kernel]", "startup_64", 0x10);
	/* Text runs to the next symbol of any type; data is not code. */
	expect_kernel(sym, 0xffffffff81001fff, "[kernel]", "vfs_read", 0xeff);
	expect_unknown(sym, 0xffffffff81002010, "0xffffffff81002010");
	expect_unknown(sym, 0xffffffff80000000, "0xffffffff80000000");
	expect_kernel(sym, 0xffffffffc0000410, "[ext4]", "ext4_file_read_iter", 0x10);
	expect_kernel(sym, 0xffffffffc0000010, "[ext4]", "ext4_readpage", 0x10);
	expect_kernel(sym, 0xffffffffc0002010, "[xfs]", "xfs_bmap", 0x10);
	expect_unknown(sym, 0xffffffffc0002110, "0xffffffffc0002110");
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.kernel_symbols, 10);
	lfr_sym_free(sym);
	remove_tmpdir(dir, files);
}

/* kptr_restrict: every address reads as zero; the error says what to do, frames keep the pc. */
static void test_hidden_addresses(void **state)
{
	char *dir = make_tmpdir();
	struct lfr_sym *sym;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(write_file(dir, "hidden",
	                            "0000000000000000 T _stext\n0000000000000000 t do_thing\n",
	                            "w"),
	                 0);
	sym = new_sym(dir, "hidden");
	assert_int_equal(lfr_sym_load_kallsyms(sym, NULL), -EPERM);
	assert_non_null(strstr(lfr_sym_last_error(sym), "kptr_restrict"));
	expect_unknown(sym, 0xffffffff81001105, "0xffffffff81001105");

	/* A path given to the call overrides the configured one. */
	assert_int_equal(write_file(dir, "kallsyms", kallsyms, "w"), 0);
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/kallsyms", dir);
		assert_int_equal(lfr_sym_load_kallsyms(sym, path), 0);
	}
	expect_kernel(sym, 0xffffffff81001105, "[kernel]", "vfs_read", 5);
	lfr_sym_free(sym);
	remove_tmpdir(dir, files);
}

static void test_missing_file(void **state)
{
	struct lfr_sym *sym = new_sym("/nonexistent", "kallsyms");

	(void)state;
	assert_int_equal(lfr_sym_load_kallsyms(sym, NULL), -ENOENT);
	assert_non_null(strstr(lfr_sym_last_error(sym), "/nonexistent/kallsyms"));
	expect_unknown(sym, 0xffffffff81001105, "0xffffffff81001105");
	lfr_sym_free(sym);
}

static void test_malformed_file(void **state)
{
	char *dir = make_tmpdir();
	struct lfr_sym *sym;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(write_file(dir, "kallsyms", "ffffffff81000000 T _stext\nnonsense\n", "w"),
	                 0);
	sym = new_sym(dir, "kallsyms");
	assert_int_equal(lfr_sym_load_kallsyms(sym, NULL), -EINVAL);
	assert_non_null(strstr(lfr_sym_last_error(sym), "kallsyms:2"));
	lfr_sym_free(sym);
	remove_tmpdir(dir, files);
}

/*
 * A kernel that answers as LFR_CMD_KSYM does (sprint_symbol()'s "name+0xoff/0xsize [module]",
 * "" where no symbol is), counting its questions; or refusing them with `refuse`.
 */
struct fake_kernel {
	int asked;
	int refuse;          /* negative errno: every question fails so */
	const char *garbage; /* answer this to every question instead */
};

static const struct {
	uint64_t start, size;
	const char *name, *mod;
} fake_syms[] = {
    {0xffffffff81001100, 0x100, "vfs_read", NULL},
    {0xffffffff81001200, 0x80, "a+b", NULL},
    {0xffffffffc0000400, 0x40, "ext4_file_read_iter", "ext4"},
};

static int fake_ask(void *ctx, uint64_t pc, char *text, size_t len)
{
	struct fake_kernel *k = ctx;

	k->asked++;
	if (k->refuse)
		return k->refuse;
	if (k->garbage) {
		snprintf(text, len, "%s", k->garbage);
		return 0;
	}
	text[0] = '\0';
	for (size_t i = 0; i < sizeof(fake_syms) / sizeof(fake_syms[0]); i++) {
		uint64_t off = pc - fake_syms[i].start;

		if (pc < fake_syms[i].start || off >= fake_syms[i].size)
			continue;
		/* the kernel's "%#lx" prints 0 as "0x0" (glibc's as "0": the parser takes both) */
		snprintf(text, len, "%s+0x%" PRIx64 "/%#" PRIx64 "%s%s%s", fake_syms[i].name, off,
		         fake_syms[i].size, fake_syms[i].mod ? " [" : "",
		         fake_syms[i].mod ? fake_syms[i].mod : "", fake_syms[i].mod ? "]" : "");
	}
	return 0;
}

/* Names asked of the module: one question per function, never the kallsyms file. */
static void test_asked_names(void **state)
{
	struct lfr_sym *sym = new_sym("/nonexistent", "kallsyms");
	struct fake_kernel k = {0};
	struct lfr_sym_stats st;

	(void)state;
	lfr_sym_set_kernel_ask(sym, fake_ask, &k);
	expect_kernel(sym, 0xffffffff81001100, "[kernel]", "vfs_read", 0);
	expect_kernel(sym, 0xffffffff81001105, "[kernel]", "vfs_read", 5);
	expect_kernel(sym, 0xffffffff810011ff, "[kernel]", "vfs_read", 0xff);
	assert_int_equal(k.asked, 1);
	expect_kernel(sym, 0xffffffff81001210, "[kernel]", "a+b", 0x10);
	expect_kernel(sym, 0xffffffffc0000410, "[ext4]", "ext4_file_read_iter", 0x10);
	assert_int_equal(k.asked, 3);
	/* where no symbol is: unnamed, asked again only when the cache forgot it */
	expect_unknown(sym, 0xffffffff81001280, "0xffffffff81001280");
	expect_unknown(sym, 0xffffffff81001280, "0xffffffff81001280");
	assert_int_equal(k.asked, 4);
	expect_kernel(sym, 0xffffffffc0000400, "[ext4]", "ext4_file_read_iter", 0);
	assert_int_equal(k.asked, 4);
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.kernel_symbols, 0);
	assert_string_equal(lfr_sym_last_error(sym), "");
	lfr_sym_free(sym);
}

/* A refusal (no CAP_SYSLOG, an old module): the kallsyms file names from then on. */
static void test_asked_refused(void **state)
{
	char *dir = make_tmpdir();
	struct fake_kernel k = {.refuse = -EPERM};
	struct lfr_sym *sym;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(write_file(dir, "kallsyms", kallsyms, "w"), 0);
	sym = new_sym(dir, "kallsyms");
	lfr_sym_set_kernel_ask(sym, fake_ask, &k);
	expect_kernel(sym, 0xffffffff81001105, "[kernel]", "vfs_read", 5);
	expect_kernel(sym, 0xffffffffc0002010, "[xfs]", "xfs_bmap", 0x10);
	assert_int_equal(k.asked, 1);
	lfr_sym_free(sym);
	remove_tmpdir(dir, files);
}

/* Answers that do not read as sprint_symbol()'s leave the pc unnamed, and nothing is kept. */
static void test_asked_garbage(void **state)
{
	static const char *const bad[] = {
	    "vfs_read",          "vfs_read+0x10",
	    "vfs_read+0x10/0x8", "+0x1/0x2",
	    "f+0x1/0x2 [",       "f+0x1/0x2 []",
	    "f+0x1/0x2[ext4]",   "f+0xg/0x10",
	    "f+0x1/0x",          "f+1/0x12345678901234567",
	    "f+0x1/0x2 ext4]",
	};
	struct lfr_sym *sym = new_sym("/nonexistent", "kallsyms");
	struct fake_kernel k = {0};

	(void)state;
	lfr_sym_set_kernel_ask(sym, fake_ask, &k);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[32];

		k.garbage = bad[i];
		snprintf(want, sizeof(want), "0x%" PRIx64, 0xffffffff81000000 + 16 * i);
		expect_unknown(sym, 0xffffffff81000000 + 16 * i, want);
	}
	assert_int_equal(k.asked, (int)(sizeof(bad) / sizeof(bad[0])));
	/* the same answer well formed names the next pc */
	k.garbage = "f+0x1/0x2 [ext4]";
	expect_kernel(sym, 0xffffffff81000201, "[ext4]", "f", 1);
	/* an offset of 0 as a C library prints it, without "0x" */
	k.garbage = "g+0/0x10";
	expect_kernel(sym, 0xffffffff81000300, "[kernel]", "g", 0);
	lfr_sym_free(sym);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_and_modules),
		cmocka_unit_test(test_hidden_addresses),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_malformed_file),
		cmocka_unit_test(test_asked_names),
		cmocka_unit_test(test_asked_refused),
		cmocka_unit_test(test_asked_garbage),
	};
	/* clang-format on */

	return cmocka_run_group_tests_name("sym_kernel", tests, NULL, NULL);
}

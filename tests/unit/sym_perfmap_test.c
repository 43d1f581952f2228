// SPDX-License-Identifier: GPL-2.0
/* Symbolizer: JIT frames from /tmp/perf-PID.map files. */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sym_test_util.h"

#define JIT_PID 93001u

static const char *const files[] = {"perf-93001.map", "perf-93002.map", NULL};

static struct lfr_sym *new_sym(const char *dir)
{
	struct lfr_sym_opts o = {.perf_map_dir = dir};
	struct lfr_sym *sym = NULL;

	assert_int_equal(lfr_sym_new(&sym, &o), 0);
	return sym;
}

static void expect_jit(struct lfr_sym *sym, uint32_t pid, uint64_t pc, const char *method,
                       uint64_t offset)
{
	struct lfr_frame f;

	assert_true(lfr_sym_resolve_user(sym, pid, pc, &f));
	assert_string_equal(f.class_name, "[jit]");
	assert_string_equal(f.method, method);
	assert_int_equal(f.offset, offset);
	assert_int_equal(f.type, LFR_FRAME_JIT);
	assert_string_equal(lfr_frame_type_name(f.type), "JIT compiled");
}

static void test_perf_map(void **state)
{
	char *dir = make_tmpdir();
	struct lfr_sym_mapping anon = {
	    .pid = JIT_PID, .start = 0x7f0000000000, .end = 0x7f0000010000};
	struct lfr_sym *sym;
	struct lfr_frame f;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(write_file(dir, "perf-93001.map",
	                            "7f0000001000 40 jit_alpha\n"
	                            "7f0000001040 20 LazyCompile:~beta /srv/app.js:12\n"
	                            "garbage line\n"
	                            "0x7f0000002000 0x10 Ljava/lang/String;::hashCode\n"
	                            "7f0000003000 20 aa_recycled_old\n"
	                            "7f0000003000 18 zz_recycled_new\n"
	                            "7f0000004000 10 written_on_windows\r\n",
	                            "w"),
	                 0);
	sym = new_sym(dir);
	assert_int_equal(lfr_sym_add_mapping(sym, &anon), 0);
	expect_jit(sym, JIT_PID, 0x7f0000001010, "jit_alpha", 0x10);
	expect_jit(sym, JIT_PID, 0x7f0000001045, "LazyCompile:~beta /srv/app.js:12", 5);
	expect_jit(sym, JIT_PID, 0x7f0000002000, "Ljava/lang/String;::hashCode", 0);
	/* Code space reused by the JIT: the later line describes the code that runs now. */
	expect_jit(sym, JIT_PID, 0x7f0000003004, "zz_recycled_new", 4);
	/* A map written with CRLF line ends: the name ends before the \r. */
	expect_jit(sym, JIT_PID, 0x7f0000004002, "written_on_windows", 2);
	assert_false(lfr_sym_resolve_user(sym, JIT_PID, 0x7f000000301c, &f));
	/* Past the size of the last entry: the anonymous mapping keeps the address. */
	assert_false(lfr_sym_resolve_user(sym, JIT_PID, 0x7f0000001070, &f));
	assert_string_equal(f.class_name, "[anon]");
	assert_string_equal(f.method, "0x7f0000001070");

	/* With LFR_SYM_CACHE_FILELESS (the recorder's), JIT frames are still cached. */
	{
		struct lfr_sym_opts o = {.perf_map_dir = dir, .flags = LFR_SYM_CACHE_FILELESS};
		struct lfr_sym *fl = NULL;
		struct lfr_sym_stats st;

		assert_int_equal(lfr_sym_new(&fl, &o), 0);
		assert_int_equal(lfr_sym_add_mapping(fl, &anon), 0);
		expect_jit(fl, JIT_PID, 0x7f0000001010, "jit_alpha", 0x10);
		expect_jit(fl, JIT_PID, 0x7f0000001010, "jit_alpha", 0x10);
		lfr_sym_get_stats(fl, &st);
		assert_int_equal(st.cache_hits, 1);
		lfr_sym_free(fl);
	}

	/* A process known only by its perf map (no mapping records). */
	assert_int_equal(write_file(dir, "perf-93002.map", "1000 10 lonely\n", "w"), 0);
	expect_jit(sym, JIT_PID + 1, 0x1008, "lonely", 8);
	lfr_sym_free(sym);
	remove_tmpdir(dir, files);
}

/* HotSpot's names: the class and the method apart, as the JVM's own recordings have them. */
static void test_perf_map_hotspot(void **state)
{
	char *dir = make_tmpdir();
	struct lfr_sym *sym;
	struct lfr_frame f;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(
	    write_file(dir, "perf-93001.map",
	               "0x00007f0000001000 0x0000000000000130 long HotMethod.hot(long)\n"
	               "0x00007f0000002000 0x0000000000000100 java.lang.Object "
	               "java.util.HashMap.put(java.lang.Object, java.lang.Object)\n"
	               "0x00007f0000003000 0x0000000000000080 void Main.lambda$main$0()\n"
	               "0x00007f0000004000 0x0000000000001000 Interpreter\n"
	               "0x00007f0000006000 0x0000000000000100 StubRoutines (1)\n",
	               "w"),
	    0);
	sym = new_sym(dir);
	assert_true(lfr_sym_resolve_user(sym, JIT_PID, 0x7f0000001010, &f));
	assert_string_equal(f.class_name, "HotMethod");
	assert_string_equal(f.method, "hot");
	assert_int_equal(f.type, LFR_FRAME_JIT);
	assert_true(lfr_sym_resolve_user(sym, JIT_PID, 0x7f0000002000, &f));
	assert_string_equal(f.class_name, "java.util.HashMap");
	assert_string_equal(f.method, "put");
	assert_true(lfr_sym_resolve_user(sym, JIT_PID, 0x7f0000003000, &f));
	assert_string_equal(f.class_name, "Main");
	assert_string_equal(f.method, "lambda$main$0");
	assert_true(lfr_sym_resolve_user(sym, JIT_PID, 0x7f0000004800, &f));
	assert_string_equal(f.class_name, "[jit]");
	assert_string_equal(f.method, "Interpreter");
	assert_int_equal(f.type, LFR_FRAME_INTERPRETED);
	assert_string_equal(lfr_frame_type_name(f.type), "Interpreted");
	/* Other code blobs keep their whole name. */
	expect_jit(sym, JIT_PID, 0x7f0000006000, "StubRoutines (1)", 0);
	lfr_sym_free(sym);
	remove_tmpdir(dir, files);
}

/* The map grows while the JIT runs: a miss re-reads it (at most once a second). */
static void test_perf_map_grows(void **state)
{
	char *dir = make_tmpdir();
	struct lfr_sym *sym;
	struct lfr_frame f;
	struct timespec ts = {1, 100000000};

	(void)state;
	assert_non_null(dir);
	assert_int_equal(write_file(dir, "perf-93001.map", "5000 10 first\n", "w"), 0);
	sym = new_sym(dir);
	expect_jit(sym, JIT_PID, 0x5004, "first", 4);
	assert_int_equal(write_file(dir, "perf-93001.map", "6000 10 second\n", "a"), 0);
	assert_false(lfr_sym_resolve_user(sym, JIT_PID, 0x6004, &f));
	assert_string_equal(f.method, "0x6004");
	nanosleep(&ts, NULL);
	expect_jit(sym, JIT_PID, 0x6004, "second", 4);
	expect_jit(sym, JIT_PID, 0x5004, "first", 4);
	/* Forgetting the process drops its perf map too. */
	lfr_sym_forget_pid(sym, JIT_PID);
	assert_int_equal(write_file(dir, "perf-93001.map", "7000 10 after_exec\n", "w"), 0);
	expect_jit(sym, JIT_PID, 0x7004, "after_exec", 4);
	assert_false(lfr_sym_resolve_user(sym, JIT_PID, 0x5004, &f));
	lfr_sym_free(sym);
	remove_tmpdir(dir, files);
}

/*
 * A map that only grew is read from where the last read ended: a line rewritten in place before
 * that point is not read again (a full re-read would name 0x5004 "FIRST"), a last line still
 * being written counts as it is and whole once it is complete, and a map replaced by another file
 * is read again whole.
 */
static void test_perf_map_appended_only(void **state)
{
	char *dir = make_tmpdir(), path[512], path2[512];
	struct lfr_sym *sym;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/perf-93001.map", dir);
	assert_int_equal(write_file(dir, "perf-93001.map", "5000 10 first\n", "w"), 0);
	sym = new_sym(dir);
	expect_jit(sym, JIT_PID, 0x5004, "first", 4);
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 8, SEEK_SET), 0);
	fputs("FIRST", f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	fputs("6000 10 sec", f);
	assert_int_equal(fclose(f), 0);
	lfr_sym_perf_map_check(sym, JIT_PID, true);
	expect_jit(sym, JIT_PID, 0x5004, "first", 4);
	expect_jit(sym, JIT_PID, 0x6004, "sec", 4);
	assert_int_equal(write_file(dir, "perf-93001.map", "ond\n7000 10 third\n", "a"), 0);
	lfr_sym_perf_map_check(sym, JIT_PID, true);
	expect_jit(sym, JIT_PID, 0x6004, "second", 4);
	expect_jit(sym, JIT_PID, 0x7004, "third", 4);
	expect_jit(sym, JIT_PID, 0x5004, "first", 4);
	/* another file at the path: read whole */
	assert_int_equal(
	    write_file(dir, "perf-93002.map", "5000 10 replaced\n6000 10 longer_name_now\n", "w"),
	    0);
	snprintf(path2, sizeof(path2), "%s/perf-93002.map", dir);
	assert_int_equal(rename(path2, path), 0);
	lfr_sym_perf_map_check(sym, JIT_PID, true);
	expect_jit(sym, JIT_PID, 0x5004, "replaced", 4);
	expect_jit(sym, JIT_PID, 0x6004, "longer_name_now", 4);
	lfr_sym_free(sym);
	remove_tmpdir(dir, files);
}

static struct lfr_sym *new_sym_proc(const char *dir, const char *proc)
{
	struct lfr_sym_opts o = {.perf_map_dir = dir, .proc_dir = proc};
	struct lfr_sym *sym = NULL;

	assert_int_equal(lfr_sym_new(&sym, &o), 0);
	return sym;
}

static void path_join(char *out, size_t size, const char *dir, const char *name)
{
	assert_true((size_t)snprintf(out, size, "%s/%s", dir, name) < size);
}

/*
 * A perf map is input from anyone who can write /tmp: a FIFO (which would block the recorder
 * for ever), a symbolic link and a file of another user are not read; the target's own file is.
 */
static void test_perf_map_untrusted(void **state)
{
	static const char *const names[] = {"perf-93005.map", "perf-93006.map", "real.map",
	                                    "perf-93007.map", "perf-93008.map", NULL};
	char *dir = make_tmpdir(), *proc = make_tmpdir(), p[512], q[512];
	struct lfr_sym *sym;
	struct lfr_frame f;

	(void)state;
	assert_non_null(dir);
	assert_non_null(proc);
	path_join(p, sizeof(p), dir, "perf-93005.map");
	assert_int_equal(mkfifo(p, 0666), 0);
	assert_int_equal(write_file(dir, "real.map", "1000 10 via_link\n", "w"), 0);
	path_join(p, sizeof(p), dir, "perf-93006.map");
	assert_int_equal(symlink("real.map", p), 0);
	sym = new_sym_proc(dir, proc);
	assert_false(lfr_sym_resolve_user(sym, 93005, 0x1004, &f));
	assert_false(lfr_sym_resolve_user(sym, 93006, 0x1004, &f));
	assert_string_equal(f.method, "0x1004");
	lfr_sym_free(sym);

	if (getuid() != 0) {
		remove_tmpdir(dir, names);
		rmdir(proc);
		free(proc);
		skip(); /* files of other users can only be made by root */
	}
	/* the target (PROC/93007, PROC/93008) runs as uid 4243 */
	path_join(p, sizeof(p), proc, "93007");
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chown(p, 4243, 4243), 0);
	path_join(q, sizeof(q), proc, "93008");
	assert_int_equal(mkdir(q, 0755), 0);
	assert_int_equal(chown(q, 4243, 4243), 0);
	assert_int_equal(write_file(dir, "perf-93007.map", "2000 10 spoofed\n", "w"), 0);
	assert_int_equal(write_file(dir, "perf-93008.map", "2000 10 genuine\n", "w"), 0);
	path_join(p, sizeof(p), dir, "perf-93007.map");
	assert_int_equal(chown(p, 4242, 4242), 0);
	path_join(p, sizeof(p), dir, "perf-93008.map");
	assert_int_equal(chown(p, 4243, 4243), 0);
	sym = new_sym_proc(dir, proc);
	assert_false(lfr_sym_resolve_user(sym, 93007, 0x2004, &f));
	expect_jit(sym, 93008, 0x2004, "genuine", 4);
	lfr_sym_free(sym);
	path_join(p, sizeof(p), proc, "93007");
	rmdir(p);
	rmdir(q);
	rmdir(proc);
	free(proc);
	remove_tmpdir(dir, names);
}

/* Without perf_map_dir the map is looked for where the target sees /tmp, under its own pid. */
static void test_perf_map_in_container(void **state)
{
	static const char *const names[] = {"93009/root/tmp/perf-7.map", "93009/status", NULL};
	char *proc = make_tmpdir(), p[512];
	struct lfr_sym *sym;

	(void)state;
	assert_non_null(proc);
	for (const char *d = "93009\0"
	                     "93009/root\0"
	                     "93009/root/tmp\0";
	     *d; d += strlen(d) + 1) {
		path_join(p, sizeof(p), proc, d);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	assert_int_equal(write_file(proc, "93009/status", "Name:\tnode\nNSpid:\t93009\t7\n", "w"),
	                 0);
	assert_int_equal(
	    write_file(proc, "93009/root/tmp/perf-7.map", "3000 10 in_container\n", "w"), 0);
	sym = new_sym_proc(NULL, proc);
	expect_jit(sym, 93009, 0x3008, "in_container", 8);
	lfr_sym_free(sym);
	for (const char *const *n = names; *n; n++) {
		path_join(p, sizeof(p), proc, *n);
		unlink(p);
	}
	for (const char *d = "93009/root/tmp\0"
	                     "93009/root\0"
	                     "93009\0";
	     *d; d += strlen(d) + 1) {
		path_join(p, sizeof(p), proc, d);
		rmdir(p);
	}
	remove_tmpdir(proc, NULL);
}

/*
 * Addresses no file holds are named by themselves, each kept for the recording's life: past
 * LFR_SYM_PC_NAMES distinct ones (processes' JIT code without a perf map, coming and going under
 * address randomization) they are [unknown], counted, so that an always-on recorder's memory
 * does not grow with every such process.  Addresses named before keep their names.
 */
static void test_pc_names_bounded(void **state)
{
	char *dir = make_tmpdir();
	struct lfr_sym_mapping anon = {
	    .pid = JIT_PID, .start = 0x7f0000000000, .end = 0x7f0001000000};
	struct lfr_sym_stats st;
	struct lfr_sym *sym;
	struct lfr_frame f;
	char want[32];

	(void)state;
	assert_non_null(dir);
	sym = new_sym(dir);
	assert_int_equal(lfr_sym_add_mapping(sym, &anon), 0);
	for (uint64_t i = 0; i < LFR_SYM_PC_NAMES - 1; i++) {
		assert_false(lfr_sym_resolve_user(sym, JIT_PID, anon.start + 16 * i, &f));
		snprintf(want, sizeof(want), "0x%" PRIx64, anon.start + 16 * i);
		assert_string_equal(f.method, want);
		assert_string_equal(f.class_name, "[anon]");
	}
	/* a pid without mappings: the last address kept, then none */
	assert_false(lfr_sym_resolve_user(sym, JIT_PID + 7, 0x5000, &f));
	assert_string_equal(f.method, "0x5000");
	assert_false(lfr_sym_resolve_user(sym, JIT_PID + 7, 0x6000, &f));
	assert_string_equal(f.method, "[unknown]");
	assert_false(lfr_sym_resolve_user(sym, JIT_PID, anon.end - 16, &f));
	assert_string_equal(f.method, "[unknown]");
	assert_string_equal(f.class_name, "[anon]");
	/* named before: still by its address, in any process */
	assert_false(lfr_sym_resolve_user(sym, JIT_PID, anon.start + 16, &f));
	assert_string_equal(f.method, "0x7f0000000010");
	assert_false(lfr_sym_resolve_user(sym, JIT_PID + 7, 0x5000, &f));
	assert_string_equal(f.method, "0x5000");
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.pc_names, LFR_SYM_PC_NAMES);
	assert_int_equal(st.pc_names_capped, 2);
	lfr_sym_free(sym);
	remove_tmpdir(dir, NULL);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_map),
		cmocka_unit_test(test_perf_map_hotspot),
		cmocka_unit_test(test_perf_map_grows),
		cmocka_unit_test(test_perf_map_appended_only),
		cmocka_unit_test(test_perf_map_untrusted),
		cmocka_unit_test(test_perf_map_in_container),
		cmocka_unit_test(test_pc_names_bounded),
	};
	/* clang-format on */

	return cmocka_run_group_tests_name("sym_perfmap", tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/* Symbolizer: executables, shared libraries, mappings, unknown pcs, caching. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "sym_test_util.h"

#define FAKE_PID 90001u

static struct lfr_sym *new_sym(unsigned flags)
{
	struct lfr_sym_opts o = {.debug_dirs = fixture("nodebug"), .flags = flags};
	struct lfr_sym *sym = NULL;

	assert_int_equal(lfr_sym_new(&sym, &o), 0);
	return sym;
}

static void expect_frame(struct lfr_sym *sym, uint32_t pid, uint64_t pc, const char *cls,
                         const char *method, uint64_t offset)
{
	struct lfr_frame f;

	assert_true(lfr_sym_resolve_user(sym, pid, pc, &f));
	assert_string_equal(f.class_name, cls);
	assert_string_equal(f.method, method);
	assert_int_equal(f.offset, offset);
	assert_int_equal(f.type, LFR_FRAME_NATIVE);
	assert_true(f.resolved);
}

/* A PIE: mappings read from /proc while it runs, names resolved after it exited. */
static void test_pie_after_exit(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	struct child c;
	uint64_t leaf, stat_fn, mainp;
	char proc[64];
	struct stat st;

	(void)state;
	assert_int_equal(child_start(&c, fixture("symfix_pie")), 0);
	leaf = child_addr(&c, "prog_leaf");
	stat_fn = child_addr(&c, "prog_static");
	mainp = child_addr(&c, "main");
	assert_true(leaf && stat_fn && mainp);
	assert_int_equal(lfr_sym_load_proc_maps(sym, c.pid), 0);
	assert_int_equal(child_finish(&c), 0);
	snprintf(proc, sizeof(proc), "/proc/%d", (int)c.pid);
	assert_int_not_equal(stat(proc, &st), 0);

	expect_frame(sym, c.pid, leaf, "symfix_pie", "prog_leaf", 0);
	expect_frame(sym, c.pid, leaf + 3, "symfix_pie", "prog_leaf", 3);
	expect_frame(sym, c.pid, stat_fn + 1, "symfix_pie", "prog_static", 1);
	expect_frame(sym, c.pid, mainp + 4, "symfix_pie", "main", 4);
	lfr_sym_free(sym);
}

/* A fixed-address executable, described by explicit mapping records under another pid. */
static void test_exec_explicit_records(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	struct lfr_frame f;
	struct child c;
	uint64_t leaf;

	(void)state;
	assert_int_equal(child_start(&c, fixture("symfix_nopie")), 0);
	leaf = child_addr(&c, "prog_leaf");
	assert_true(add_maps_as(sym, c.pid, FAKE_PID, "/symfix_nopie", 0) >= 1);
	assert_int_equal(child_finish(&c), 0);

	expect_frame(sym, FAKE_PID, leaf + 2, "symfix_nopie", "prog_leaf", 2);
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, leaf, &f));
	/* ET_EXEC: the ELF address is the run-time address. */
	assert_int_equal(f.addr, leaf);
	assert_non_null(f.path);
	assert_string_equal(f.path, fixture("symfix_nopie"));
	lfr_sym_free(sym);
}

/* A shared library at a random base whose ELF addresses start at 0x200000. */
static void test_shared_library(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	void *h = fixture_dlopen("libsymfix.so");
	uint64_t add, local;
	struct lfr_frame f;

	(void)state;
	assert_non_null(h);
	add = fixture_sym(h, "fix_add");
	local = fixture_addr(h, "fix_local_addr");
	assert_true(add && local);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 0) >= 1);

	expect_frame(sym, FAKE_PID, add + 5, "libsymfix.so", "fix_add", 5);
	expect_frame(sym, FAKE_PID, local, "libsymfix.so", "fix_local", 0);
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, add, &f));
	assert_true(f.addr >= 0x200000 && f.addr < 0x210000);
	dlclose(h);
	lfr_sym_free(sym);
}

static void count_object(const struct lfr_sym_object *o, void *arg)
{
	const char **path = arg;

	assert_null(*path); /* one object listed */
	*path = o->path;
}

/*
 * An object read before any process maps it (lfr record's command, before it runs): its mapping,
 * under a path no file has now, finds it by device and inode, and the mapping's path is the one
 * shown.  Without the preload, nothing could read that mapping's file.
 */
static void test_preloaded_object(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	void *h = fixture_dlopen("libsymfix.so");
	const char *listed = NULL;
	struct lfr_sym_stats st;
	uint64_t add, start, end;
	struct lfr_frame f;

	(void)state;
	assert_non_null(h);
	add = fixture_sym(h, "fix_add");
	assert_true(add);
	assert_int_equal(lfr_sym_preload_object(sym, fixture("libsymfix.so")), 0);
	assert_int_equal(lfr_sym_preload_object(sym, fixture("libsymfix.so")), 0);
	assert_int_equal(lfr_sym_preload_object(sym, "/nonexistent/libsymfix.so"), -ENOENT);
	/* not listed nor counted until a process maps it */
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.objects, 0);
	lfr_sym_foreach_object(sym, count_object, &listed);
	assert_null(listed);

	assert_true(add_maps_renamed(sym, FAKE_PID, "/libsymfix.so", "/gone/libsymfix.so", &start,
	                             &end) >= 1);
	expect_frame(sym, FAKE_PID, add + 5, "libsymfix.so", "fix_add", 5);
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, add, &f));
	assert_string_equal(f.path, "/gone/libsymfix.so");
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.objects, 1);
	assert_int_equal(st.objects_failed, 0);
	lfr_sym_foreach_object(sym, count_object, &listed);
	assert_non_null(listed);
	assert_string_equal(listed, "/gone/libsymfix.so");
	dlclose(h);
	lfr_sym_free(sym);
}

/* PLT stubs are named "function@plt" (the build wrote where objdump saw getpid@plt). */
static void test_plt_stub(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	void *h = fixture_dlopen("libsymfix.so");
	unsigned long long plt = 0, add_vaddr = 0;
	FILE *f = fopen(fixture("libsymfix.plt"), "r");
	uint64_t add;

	(void)state;
	assert_non_null(h);
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llx %llx", &plt, &add_vaddr), 2);
	fclose(f);
	add = fixture_sym(h, "fix_add");
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 0) >= 1);
	expect_frame(sym, FAKE_PID, add + (plt - add_vaddr) + 6, "libsymfix.so", "getpid@plt", 6);
	dlclose(h);
	lfr_sym_free(sym);
}

/* A pc past the end of a sized symbol is not that symbol but keeps its address. */
static void test_sized_symbol(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	void *h = fixture_dlopen("libsymfix.so");
	uint64_t sized;
	struct lfr_frame f;
	char want[32];

	(void)state;
	assert_non_null(h);
	sized = fixture_addr(h, "fix_sized_addr");
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 0) >= 1);

	expect_frame(sym, FAKE_PID, sized, "libsymfix.so", "fix_sized", 0);
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, sized, &f));
	snprintf(want, sizeof(want), "0x%" PRIx64, f.addr + 8);

	assert_false(lfr_sym_resolve_user(sym, FAKE_PID, sized + 8, &f));
	assert_false(f.resolved);
	assert_string_equal(f.class_name, "libsymfix.so");
	assert_string_equal(f.method, want);
	assert_int_equal(f.type, LFR_FRAME_NATIVE);

	expect_frame(sym, FAKE_PID, sized + 64, "libsymfix.so", "fix_after", 0);
	dlclose(h);
	lfr_sym_free(sym);
}

/* Unknown pcs never disappear: they keep the address and the best class known. */
static void test_unknown_pcs(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	struct lfr_sym_mapping m = {.pid = FAKE_PID,
	                            .start = 0x400000,
	                            .end = 0x401000,
	                            .path = "/nonexistent/libgone.so.1"};
	struct lfr_frame f;

	(void)state;
	assert_int_equal(lfr_sym_add_mapping(sym, &m), 0);
	assert_false(lfr_sym_resolve_user(sym, FAKE_PID, 0x10, &f));
	assert_string_equal(f.class_name, "[unknown]");
	assert_string_equal(f.method, "0x10");
	assert_false(f.resolved);

	assert_false(lfr_sym_resolve_user(sym, 77777777, 0x7f1234567890, &f));
	assert_string_equal(f.class_name, "[unknown]");
	assert_string_equal(f.method, "0x7f1234567890");

	/* A file that cannot be read: class from the mapping, method the file offset. */
	assert_false(lfr_sym_resolve_user(sym, FAKE_PID, 0x400123, &f));
	assert_string_equal(f.class_name, "libgone.so.1");
	assert_string_equal(f.method, "0x123");
	assert_string_equal(f.path, "/nonexistent/libgone.so.1");

	/* The kernel's name of an unlinked file. */
	m.start = 0x600000;
	m.end = 0x601000;
	m.path = "/nonexistent/libdel.so (deleted)";
	assert_int_equal(lfr_sym_add_mapping(sym, &m), 0);
	assert_false(lfr_sym_resolve_user(sym, FAKE_PID, 0x600040, &f));
	assert_string_equal(f.class_name, "libdel.so");
	assert_string_equal(f.path, "/nonexistent/libdel.so");
	assert_string_equal(f.method, "0x40");

	/* A special mapping keeps its name whole. */
	m.start = 0x700000;
	m.end = 0x701000;
	m.path = "[anon:jit/code]";
	assert_int_equal(lfr_sym_add_mapping(sym, &m), 0);
	assert_false(lfr_sym_resolve_user(sym, FAKE_PID, 0x700010, &f));
	assert_string_equal(f.class_name, "[anon:jit/code]");
	assert_string_equal(f.method, "0x700010");

	/* Anonymous memory without a perf map. */
	m.start = 0x500000;
	m.end = 0x501000;
	m.path = NULL;
	assert_int_equal(lfr_sym_add_mapping(sym, &m), 0);
	assert_false(lfr_sym_resolve_user(sym, FAKE_PID, 0x500010, &f));
	assert_string_equal(f.class_name, "[anon]");
	assert_string_equal(f.method, "0x500010");
	lfr_sym_free(sym);
}

/* A mapping over part of another replaces that part, like mmap(MAP_FIXED). */
static void test_overlapping_mappings(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	struct lfr_sym_mapping a = {
	    .pid = FAKE_PID, .start = 0x1000, .end = 0x5000, .pgoff = 0x10000, .path = "/x/a.so"};
	struct lfr_sym_mapping b = {
	    .pid = FAKE_PID, .start = 0x2000, .end = 0x3000, .path = "/x/b.so"};
	struct lfr_sym_stats st;
	struct lfr_frame f;

	(void)state;
	assert_int_equal(lfr_sym_add_mapping(sym, &a), 0);
	assert_int_equal(lfr_sym_add_mapping(sym, &a), 0); /* again: no change */
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.mappings, 1);
	assert_int_equal(lfr_sym_add_mapping(sym, &b), 0);
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.mappings, 3);

	lfr_sym_resolve_user(sym, FAKE_PID, 0x1800, &f);
	assert_string_equal(f.class_name, "a.so");
	assert_string_equal(f.method, "0x10800");
	lfr_sym_resolve_user(sym, FAKE_PID, 0x2800, &f);
	assert_string_equal(f.class_name, "b.so");
	assert_string_equal(f.method, "0x800");
	lfr_sym_resolve_user(sym, FAKE_PID, 0x4800, &f);
	assert_string_equal(f.class_name, "a.so");
	assert_string_equal(f.method, "0x13800");

	lfr_sym_forget_pid(sym, FAKE_PID);
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.mappings, 0);
	lfr_sym_resolve_user(sym, FAKE_PID, 0x2800, &f);
	assert_string_equal(f.class_name, "[unknown]");
	lfr_sym_free(sym);
}

/* forget_pid (exec/exit) drops the cached results of that process. */
static void test_forget_and_cache(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	void *h = fixture_dlopen("libsymfix.so");
	struct lfr_frame f1, f2;
	struct lfr_sym_stats st;
	uint64_t add;

	(void)state;
	assert_non_null(h);
	add = fixture_sym(h, "fix_add");
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 0) >= 1);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID + 1, "/libsymfix.so", 0) >= 1);

	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, add + 1, &f1));
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, add + 1, &f2));
	/* Interned strings: equal names are equal pointers, across processes too. */
	assert_ptr_equal(f1.method, f2.method);
	assert_ptr_equal(f1.class_name, f2.class_name);
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID + 1, add + 2, &f2));
	assert_ptr_equal(f1.method, f2.method);
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.lookups, 3);
	assert_int_equal(st.cache_hits, 1);
	/* One ELF object shared by both processes. */
	assert_int_equal(st.objects, 1);

	lfr_sym_forget_pid(sym, FAKE_PID);
	assert_false(lfr_sym_resolve_user(sym, FAKE_PID, add + 1, &f1));
	assert_string_equal(f1.class_name, "[unknown]");
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID + 1, add + 1, &f2));
	assert_string_equal(f2.method, "fix_add");
	dlclose(h);
	lfr_sym_free(sym);
}

/*
 * LFR_SYM_CACHE_FILELESS (the recorder, which remembers the frames of files itself): a pc of a
 * file is named again, not taken from the cache; the same names.
 */
static void test_cache_fileless(void **state)
{
	struct lfr_sym *sym = new_sym(LFR_SYM_CACHE_FILELESS);
	void *h = fixture_dlopen("libsymfix.so");
	struct lfr_frame f1, f2;
	struct lfr_sym_stats st;
	uint64_t add;

	(void)state;
	assert_non_null(h);
	add = fixture_sym(h, "fix_add");
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 0) >= 1);
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, add + 1, &f1));
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, add + 1, &f2));
	assert_ptr_equal(f1.method, f2.method);
	assert_string_equal(f2.method, "fix_add");
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.lookups, 2);
	assert_int_equal(st.cache_hits, 0);
	dlclose(h);
	lfr_sym_free(sym);
}

/* A file whose inode differs from the mapping's (replaced since) is not trusted. */
static void test_replaced_file(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	void *h = fixture_dlopen("libsymfix.so");
	struct lfr_frame f;
	uint64_t add;

	(void)state;
	assert_non_null(h);
	add = fixture_sym(h, "fix_add");
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymfix.so", 1) >= 1);
	assert_false(lfr_sym_resolve_user(sym, FAKE_PID, add, &f));
	assert_string_equal(f.class_name, "libsymfix.so");
	assert_string_equal(strncmp(f.method, "0x", 2) ? "no address" : "address", "address");
	dlclose(h);
	lfr_sym_free(sym);
}

/*
 * A file not at its path: found inside the process's root (another mount namespace), or
 * through /proc/PID/map_files (removed since).  A fake proc directory stands in for /proc.
 */
static void test_other_roots(void **state)
{
	char *dir = make_tmpdir();
	char p[1024], link[2048];
	struct lfr_sym_opts o = {.debug_dirs = fixture("nodebug")};
	struct lfr_sym *sym = NULL;
	void *h = fixture_dlopen("libsymfix.so");
	uint64_t add, start = 0, end = 0;
	struct lfr_frame f;

	(void)state;
	assert_non_null(dir);
	assert_non_null(h);
	add = fixture_sym(h, "fix_add");
	o.proc_dir = dir;
	assert_int_equal(lfr_sym_new(&sym, &o), 0);

	/* DIR/91010/root/ns/lib/libsymfix.so is the file the process calls /ns/lib/libsymfix.so. */
	snprintf(p, sizeof(p), "%s/91010/root/ns/lib", dir);
	assert_int_equal(system((snprintf(link, sizeof(link), "mkdir -p '%s'", p), link)), 0);
	snprintf(p, sizeof(p), "%s/91010/root/ns/lib/libsymfix.so", dir);
	assert_int_equal(symlink(fixture("libsymfix.so"), p), 0);
	assert_true(add_maps_renamed(sym, 91010, "/libsymfix.so", "/ns/lib/libsymfix.so", &start,
	                             &end) >= 1);
	assert_true(lfr_sym_resolve_user(sym, 91010, add + 1, &f));
	assert_string_equal(f.method, "fix_add");
	assert_string_equal(f.class_name, "libsymfix.so");

	/* DIR/91011/map_files/START-END links to a file whose path is gone. */
	assert_true(
	    add_maps_renamed(sym, 91011, "/libsymfix.so", "/gone/libsymfix.so", &start, &end) >= 1);
	snprintf(p, sizeof(p), "%s/91011/map_files", dir);
	assert_int_equal(system((snprintf(link, sizeof(link), "mkdir -p '%s'", p), link)), 0);
	/* Only the executable mapping holding fix_add is linked. */
	{
		FILE *maps = fopen("/proc/self/maps", "r");
		char line[1024];

		assert_non_null(maps);
		while (fgets(line, sizeof(line), maps)) {
			unsigned long long s, e;

			if (strstr(line, "/libsymfix.so") &&
			    sscanf(line, "%llx-%llx", &s, &e) == 2 && add >= s && add < e) {
				snprintf(p, sizeof(p), "%s/91011/map_files/%llx-%llx", dir, s, e);
				assert_int_equal(symlink(fixture("libsymfix.so"), p), 0);
			}
		}
		fclose(maps);
	}
	assert_true(lfr_sym_resolve_user(sym, 91011, add + 2, &f));
	assert_string_equal(f.method, "fix_add");
	assert_int_equal(f.offset, 2);
	assert_string_equal(f.path, "/gone/libsymfix.so");

	lfr_sym_free(sym);
	dlclose(h);
	snprintf(link, sizeof(link), "rm -rf '%s'", dir);
	assert_int_equal(system(link), 0);
	free(dir);
}

/* The executable mapping of the loaded fixture that holds pc: its start, end and offset. */
static void exec_mapping_of(uint64_t pc, struct lfr_sym_mapping *m)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[1024];

	assert_non_null(maps);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long s, e, off;

		if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &off) == 3 && pc >= s && pc < e) {
			m->start = s;
			m->end = e;
			m->pgoff = off;
		}
	}
	fclose(maps);
	assert_true(m->start && pc < m->end);
}

/* Maps DIR/libcopyI.so, a copy of the fixture of its own inode, at the fixture's place. */
static void map_copy(struct lfr_sym *sym, const char *dir, unsigned int i, uint32_t pid,
                     const struct lfr_sym_mapping *at)
{
	struct lfr_sym_mapping m = *at;
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/libcopy%03u.so", dir, i);
	assert_int_equal(stat(path, &st), 0);
	m.pid = pid;
	m.path = path;
	m.dev = st.st_dev;
	m.ino = st.st_ino;
	assert_int_equal(lfr_sym_add_mapping(sym, &m), 0);
}

/*
 * A machine that keeps running new builds: 300 objects, each mapped by one process that then
 * exits.  The objects no process maps go (at most 64 are held at once), the one a live process
 * maps stays and names its frames, and a file mapped again after its object went is read again.
 */
static void test_objects_no_process_maps_freed(void **state)
{
	enum { COPIES = 300 };
	struct lfr_sym *sym = new_sym(0);
	void *h = fixture_dlopen("libsymfix.so");
	struct lfr_sym_mapping at = {0};
	char *dir = make_tmpdir(), path[512], cls[32], *image;
	struct lfr_sym_stats st;
	uint64_t add;
	size_t len;
	FILE *in;

	(void)state;
	assert_non_null(h);
	assert_non_null(dir);
	add = fixture_sym(h, "fix_add");
	exec_mapping_of(add, &at);
	in = fopen(fixture("libsymfix.so"), "rb");
	assert_non_null(in);
	image = malloc(1 << 20);
	assert_non_null(image);
	len = fread(image, 1, 1 << 20, in);
	fclose(in);
	assert_true(len > 0 && len < 1 << 20);
	for (unsigned int i = 0; i < COPIES; i++) {
		FILE *out;

		snprintf(path, sizeof(path), "%s/libcopy%03u.so", dir, i);
		out = fopen(path, "wb");
		assert_non_null(out);
		assert_int_equal(fwrite(image, 1, len, out), len);
		assert_int_equal(fclose(out), 0);
	}
	free(image);

	map_copy(sym, dir, 0, FAKE_PID, &at); /* lives throughout */
	expect_frame(sym, FAKE_PID, add + 5, "libcopy000.so", "fix_add", 5);
	for (unsigned int i = 1; i < COPIES; i++) {
		snprintf(cls, sizeof(cls), "libcopy%03u.so", i);
		map_copy(sym, dir, i, FAKE_PID + i, &at);
		expect_frame(sym, FAKE_PID + i, add + 5, cls, "fix_add", 5);
		lfr_sym_forget_pid(sym, FAKE_PID + i);
	}
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.objects, COPIES);
	assert_int_equal(st.objects_failed, 0);
	assert_in_range(st.objects_held, 1, 64);
	assert_int_equal(st.objects_freed, COPIES - st.objects_held);
	expect_frame(sym, FAKE_PID, add + 3, "libcopy000.so", "fix_add", 3);

	map_copy(sym, dir, 5, FAKE_PID + COPIES, &at);
	expect_frame(sym, FAKE_PID + COPIES, add + 5, "libcopy005.so", "fix_add", 5);
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.objects, COPIES + 1);
	/* the test's sym is gone before the files: nothing reads them after this */
	lfr_sym_free(sym);
	dlclose(h);
	for (unsigned int i = 0; i < COPIES; i++) {
		snprintf(path, sizeof(path), "%s/libcopy%03u.so", dir, i);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

/* With the fallback flag a live process needs no records at all. */
static void test_proc_maps_fallback(void **state)
{
	struct lfr_sym *sym = new_sym(LFR_SYM_PROC_MAPS_FALLBACK);
	void *h = fixture_dlopen("libsymfix.so");
	uint64_t add;

	(void)state;
	assert_non_null(h);
	add = fixture_sym(h, "fix_add");
	expect_frame(sym, getpid(), add + 1, "libsymfix.so", "fix_add", 1);
	dlclose(h);
	lfr_sym_free(sym);
}

/* [vdso] is named from the symbolizer's own copy of the vDSO image. */
static void test_vdso(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	uint64_t fn = h ? fixture_sym(h, "__vdso_clock_gettime") : 0;
	struct lfr_frame f;

	(void)state;
	if (!fn || !getauxval(AT_SYSINFO_EHDR)) {
		lfr_sym_free(sym);
		skip();
	}
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "[vdso]", 0) == 1);
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, fn + 1, &f));
	assert_string_equal(f.class_name, "[vdso]");
	/* The vDSO exports both names at one address. */
	assert_true(!strcmp(f.method, "__vdso_clock_gettime") ||
	            !strcmp(f.method, "clock_gettime"));
	assert_int_equal(f.offset, 1);
	lfr_sym_free(sym);
}

/* The length of our own [vdso] mapping, 0 when there is none. */
static size_t own_vdso_len(uint64_t base)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long s, e;
	char line[512];
	size_t len = 0;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &s, &e) == 2 && s == base)
			len = e - s;
	if (f)
		fclose(f);
	return len;
}

/*
 * A [vdso] of another size than ours (a 32-bit process's) is named from its own image, copied
 * from the process's memory; a process that is gone leaves the pc unnamed.
 */
static void test_vdso_other_image(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	uint64_t fn = h ? fixture_sym(h, "__vdso_clock_gettime") : 0;
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	size_t len = base ? own_vdso_len(base) : 0, big = len + 4096;
	struct lfr_sym_mapping m = {.pid = (uint32_t)getpid(), .path = "[vdso]"};
	struct lfr_frame f;
	char *img, want[32];

	(void)state;
	if (!fn || !len) {
		lfr_sym_free(sym);
		skip();
	}
	/* Our vDSO's image in a mapping one page longer: not ours by its size. */
	img = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(img != MAP_FAILED);
	memcpy(img, (const void *)base, len);
	m.start = (uintptr_t)img;
	m.end = m.start + big;
	assert_int_equal(lfr_sym_add_mapping(sym, &m), 0);
	assert_true(lfr_sym_resolve_user(sym, m.pid, m.start + (fn - base) + 2, &f));
	assert_string_equal(f.class_name, "[vdso]");
	assert_true(!strcmp(f.method, "__vdso_clock_gettime") ||
	            !strcmp(f.method, "clock_gettime"));
	assert_int_equal(f.offset, 2);

	/* No process of that pid: nothing to copy; the pc keeps its offset in the vDSO. */
	m.pid = 0x7ffffff0;
	assert_int_equal(lfr_sym_add_mapping(sym, &m), 0);
	assert_false(lfr_sym_resolve_user(sym, m.pid, m.start + (fn - base) + 2, &f));
	assert_string_equal(f.class_name, "[vdso]");
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)(fn - base + 2));
	assert_string_equal(f.method, want);
	munmap(img, big);
	lfr_sym_free(sym);
}

static void test_bad_mapping(void **state)
{
	struct lfr_sym *sym = new_sym(0);
	struct lfr_sym_mapping m = {.pid = FAKE_PID, .start = 0x2000, .end = 0x1000, .path = "/x"};

	(void)state;
	assert_int_equal(lfr_sym_add_mapping(sym, &m), -EINVAL);
	assert_non_null(strstr(lfr_sym_last_error(sym), "invalid mapping"));
	assert_int_equal(lfr_sym_load_proc_maps(sym, 0x7ffffff0), -ENOENT);
	assert_non_null(strstr(lfr_sym_last_error(sym), "exited"));
	assert_string_equal(lfr_frame_type_name(LFR_FRAME_NATIVE), "Native");
	lfr_sym_free(sym);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie_after_exit),
		cmocka_unit_test(test_exec_explicit_records),
		cmocka_unit_test(test_shared_library),
		cmocka_unit_test(test_preloaded_object),
		cmocka_unit_test(test_plt_stub),
		cmocka_unit_test(test_sized_symbol),
		cmocka_unit_test(test_unknown_pcs),
		cmocka_unit_test(test_overlapping_mappings),
		cmocka_unit_test(test_forget_and_cache),
		cmocka_unit_test(test_cache_fileless),
		cmocka_unit_test(test_replaced_file),
		cmocka_unit_test(test_other_roots),
		cmocka_unit_test(test_objects_no_process_maps_freed),
		cmocka_unit_test(test_proc_maps_fallback),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_vdso_other_image),
		cmocka_unit_test(test_bad_mapping),
	};
	/* clang-format on */

	return cmocka_run_group_tests_name("sym_elf", tests, NULL, NULL);
}

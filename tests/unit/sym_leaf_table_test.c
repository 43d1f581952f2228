// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf rule from an object's unwind table in the cache (user/sym/leaf_table.c): where the
 * symbolizer's cache holds the table the unwind loader stored for an object, the rule of each pc
 * is read from its rows instead of libdw's CFI, and is the same, pc for pc.
 *
 * Each object is mapped for two symbolizers, one without a cache (the rule from libdw, as
 * sym_cfi_test.c checks it) and one with a cache holding the object's table, and every pc at
 * and around every row start of the table, and more at a stride through its code, gets the same
 * outcome from both: the rule, the chain, the stack word read.  The table is read only for objects
 * without .eh_frame_hdr (where libdw reads every FDE in turn): the frame-pointer fixture linked
 * without it, Debian's static busybox when it is installed, and the arm64 fixture without it (the
 * caller in x30); the fixture with it and the C library keep libdw.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <gelf.h>

#include "lib/blob_cache.h"
#include "sym/cfi.h"
#include "sym/unwind_cache.h"
#include "test_tmpdir.h"
#include "sym_test_util.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define BUSYBOX "/bin/busybox"
#define PID 92070u
#define BASE 0x7f3300000000ull
#define SP 0x7ffd00003000ull
#define NWORDS 24
#define LR 0x7f00000a0000ull
#define PAC 0x007f000000000000ull
#define STRIDE 97

/* The outcomes of both symbolizers over an object's pcs. */
struct tally {
	uint64_t pcs, caller, from_lr, fp_ok, unknown;
};

#define MAX_PHDRS 32

/* The program headers of the file at path into ph (at most MAX_PHDRS): how many. */
static size_t read_phdrs(const char *path, GElf_Phdr *ph)
{
	int fd = open(path, O_RDONLY);
	size_t n;
	Elf *e;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getphdrnum(e, &n), 0);
	assert_true(n <= MAX_PHDRS);
	for (size_t i = 0; i < n; i++)
		assert_non_null(gelf_getphdr(e, (int)i, &ph[i]));
	elf_end(e);
	close(fd);
	return n;
}

/* Maps the executable PT_LOAD segments of path at BASE + vaddr for PID in sym. */
static void map_object(struct lfr_sym *sym, const char *path, const struct stat *st)
{
	GElf_Phdr ph[MAX_PHDRS];
	size_t n = read_phdrs(path, ph);

	for (size_t i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		assert_int_equal(
		    lfr_sym_add_mapping(
		        sym,
		        &(struct lfr_sym_mapping){
		            .pid = PID,
		            .start = BASE + (ph[i].p_vaddr & ~0xfffull),
		            .end = BASE + ((ph[i].p_vaddr + ph[i].p_memsz + 0xfff) & ~0xfffull),
		            .pgoff = ph[i].p_offset & ~0xfffull,
		            .dev = st->st_dev,
		            .ino = st->st_ino,
		            .path = path,
		        }),
		    0);
	}
}

/* The leaf rule of pc (an ELF address) by both symbolizers: the same outcome. */
static void same_at(struct lfr_sym *plain, struct lfr_sym *tab, uint64_t vaddr, struct tally *t)
{
	uint64_t words[NWORDS], regs[2] = {LR, PAC}, ips[2] = {BASE + vaddr, 0x5555000012345ull};
	uint64_t out_a[8], out_b[8];
	uint32_t nr_a = 0, nr_b = 0;
	int word_a, word_b;
	enum lfr_leaf_fix a, b;

	for (unsigned int i = 0; i < NWORDS; i++)
		words[i] = 0x7f0000c00000ull + 8 * i;
	a = lfr_sym_fix_leaf_regs(plain, PID, ips, 2, SP, words, NWORDS, regs, out_a, 8, &nr_a,
	                          &word_a);
	b = lfr_sym_fix_leaf_regs(tab, PID, ips, 2, SP, words, NWORDS, regs, out_b, 8, &nr_b,
	                          &word_b);
	if (a != b || nr_a != nr_b || word_a != word_b || memcmp(out_a, out_b, nr_a * 8))
		fail_msg("vaddr 0x%" PRIx64 ": libdw %d (%u frames, word %d), table %d (%u frames, "
		         "word %d)",
		         vaddr, a, nr_a, word_a, b, nr_b, word_b);
	t->pcs++;
	t->caller += a == LFR_LEAF_INSERTED;
	t->from_lr += a == LFR_LEAF_INSERTED && word_a == NWORDS;
	t->fp_ok += a == LFR_LEAF_KEPT;
	t->unknown += a == LFR_LEAF_UNCERTAIN;
}

/* The executable PT_LOAD of the file offset off, as its ELF address (false: none). */
static bool vaddr_of(Elf *e, uint64_t off, uint64_t *vaddr)
{
	size_t n;

	assert_int_equal(elf_getphdrnum(e, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		assert_non_null(gelf_getphdr(e, (int)i, &ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && off >= ph.p_offset &&
		    off - ph.p_offset < ph.p_filesz) {
			*vaddr = off - ph.p_offset + ph.p_vaddr;
			return true;
		}
	}
	return false;
}

/*
 * Both symbolizers over the pcs of an object: the one without a cache maps plain_path, the one
 * with it (unless !cached) tab_path, and the cache holds the table built from table_of; want_table:
 * tab_path's build-id and size are table_of's, and the table is read (a copy of another size is
 * another object to the cache).
 */
static struct tally compare_with(const char *plain_path, const char *tab_path, const char *table_of,
                                 bool want_table, bool cached)
{
	struct lfr_sym_opts opts = {0};
	struct lfr_sym *plain = NULL, *tab = NULL;
	struct lfr_unwind_cache_result res;
	struct lfr_sym_cache_stats cs;
	struct lfr_unwind_table t;
	struct lfr_blob_cache *c;
	struct tally tl = {0};
	struct stat st;
	char err[256];
	int fd;
	Elf *e;

	assert_int_equal(lfr_blob_cache_open(test_dir, &c, err, sizeof(err)), 0);
	fd = open(table_of, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(lfr_unwind_cache_get(c, fd, &t, &res, err, sizeof(err)), 0);
	assert_int_not_equal(res.how, LFR_UNWIND_CACHE_BUILT);
	close(fd);

	assert_int_equal(lfr_sym_new(&plain, &opts), 0);
	assert_int_equal(lfr_sym_new(&tab, &opts), 0);
	if (cached)
		lfr_sym_set_cache(tab, c);
	assert_int_equal(stat(plain_path, &st), 0);
	map_object(plain, plain_path, &st);
	assert_int_equal(stat(tab_path, &st), 0);
	map_object(tab, tab_path, &st);

	fd = open(table_of, O_RDONLY);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	for (uint32_t i = 0; i < t.hdr.nr_rows; i++) {
		uint64_t v;

		if (!vaddr_of(e, t.rows[i].start, &v))
			continue;
		same_at(plain, tab, v, &tl);
		if (v)
			same_at(plain, tab, v - 1, &tl);
		same_at(plain, tab, v + 1, &tl);
		/* and through the row, at a stride */
		uint64_t end = i + 1 < t.hdr.nr_rows ? t.rows[i + 1].start : t.rows[i].start + 1;

		for (uint64_t off = t.rows[i].start + STRIDE; off < end; off += STRIDE)
			if (vaddr_of(e, off, &v))
				same_at(plain, tab, v, &tl);
	}
	elf_end(e);
	close(fd);

	lfr_sym_get_cache_stats(tab, &cs);
	assert_int_equal(cs.leaf_tables, want_table && cached ? 1 : 0);
	lfr_sym_get_cache_stats(plain, &cs);
	assert_int_equal(cs.leaf_tables, 0);
	lfr_sym_free(plain);
	lfr_sym_free(tab);
	lfr_unwind_table_free(&t);
	lfr_blob_cache_close(c);
	print_message("%s: %" PRIu64 " pcs, %" PRIu64 " callers inserted (%" PRIu64
	              " from the link register), %" PRIu64 " frames set up, %" PRIu64 " unknown\n",
	              tab_path, tl.pcs, tl.caller, tl.from_lr, tl.fp_ok, tl.unknown);
	return tl;
}

static struct tally compare3(const char *plain_path, const char *tab_path, const char *table_of,
                             bool want_table)
{
	return compare_with(plain_path, tab_path, table_of, want_table, true);
}

/* Whether the file has a PT_GNU_EH_FRAME (libdw's search table of FDEs), read here. */
static bool has_eh_frame_hdr(const char *path)
{
	GElf_Phdr ph[MAX_PHDRS];
	size_t n = read_phdrs(path, ph);

	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			return true;
	return false;
}

/* The object's table is read for the leaf rule only when it has no search table. */
static struct tally compare(const char *path)
{
	return compare3(path, path, path, !has_eh_frame_hdr(path));
}

/* A copy of the frame-pointer fixture without .eh_frame_hdr at test_dir/NAME, with one more byte at
 * its end if grow. */
static const char *copy_fixture(const char *name, bool grow)
{
	static char copy[256];
	char buf[65536];
	int in, out;
	ssize_t n;

	snprintf(copy, sizeof(copy), "%s/%s", test_dir, name);
	in = open(fixture("libsymcfi_nohdr.so"), O_RDONLY);
	out = open(copy, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	if (grow)
		assert_int_equal(write(out, "", 1), 1);
	close(in);
	close(out);
	return copy;
}

static void test_frame_pointer_fixture(void **state)
{
	struct tally t;

	(void)state;
	assert_false(has_eh_frame_hdr(fixture("libsymcfi_nohdr.so")));
	t = compare(fixture("libsymcfi_nohdr.so"));
	/* built with frame pointers and frameless leaves: all three outcomes */
	assert_true(t.caller > 0 && t.fp_ok > 0 && t.unknown > 0);
}

/* With .eh_frame_hdr libdw's lookup is a binary search: its table is not read (and not needed). */
static void test_objects_with_a_search_table_keep_libdw(void **state)
{
	struct tally t;

	(void)state;
	assert_true(has_eh_frame_hdr(fixture("libsymcfi.so")) && has_eh_frame_hdr(LIBC));
	compare(fixture("libsymcfi.so"));
	t = compare(LIBC);
	assert_true(t.pcs > 10000 && t.caller > t.pcs / 2);
}

static void test_busybox_without_eh_frame_hdr(void **state)
{
	struct tally t;

	(void)state;
	if (access(BUSYBOX, R_OK)) {
		print_message("%s: not installed (busybox-static, tests/vm/deps): skipped\n",
		              BUSYBOX);
		return;
	}
	t = compare(BUSYBOX);
	assert_true(t.pcs > 10000 && t.caller > 0);
}

static void test_arm64(void **state)
{
	struct tally t;
	const char *path = fixture("liba64_nohdr.so");

	(void)state;
	if (access(path, R_OK))
		fail_msg("%s: missing: the arm64 fixture needs aarch64-linux-gnu-gcc "
		         "(tests/vm/deps-arm64)",
		         path);
	t = compare(path);
	/* the caller in x30 (the record's link register) and on the stack */
	assert_true(t.from_lr > 0 && t.caller > t.from_lr);
}

/* A file with the same build-id and another size is another object to the cache: libdw answers. */
static void test_another_size_is_not_used(void **state)
{
	const char *copy = copy_fixture("grown.so", true);

	(void)state;
	compare3(copy, copy, fixture("libsymcfi_nohdr.so"), false);
}

/*
 * The rule comes from the table: a copy of the fixture whose .eh_frame is zeroed (the same
 * build-id and size) has no CFI libdw can read, and its pcs get the original's rules.
 */
static void test_the_table_answers(void **state)
{
	const char *copy = copy_fixture("no-eh-frame.so", false);
	struct tally with, without;
	int fd = open(copy, O_RDWR);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;

	(void)state;
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		assert_non_null(gelf_getshdr(scn, &sh));
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".eh_frame") || !strcmp(name, ".eh_frame_hdr"))) {
			char *zero = calloc(1, sh.sh_size);

			assert_non_null(zero);
			assert_int_equal(pwrite(fd, zero, sh.sh_size, (off_t)sh.sh_offset),
			                 (ssize_t)sh.sh_size);
			free(zero);
		}
	}
	elf_end(e);
	close(fd);
	with = compare3(fixture("libsymcfi_nohdr.so"), copy, fixture("libsymcfi_nohdr.so"), true);
	assert_true(with.caller > 0 && with.fp_ok > 0);
	/* the same copy without the cache: libdw finds no CFI, so no caller and no frame is known
	 */
	without = compare_with(copy, copy, fixture("libsymcfi_nohdr.so"), true, false);
	assert_int_equal(without.caller + without.fp_ok, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_frame_pointer_fixture, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_objects_with_a_search_table_keep_libdw,
	                                    test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_busybox_without_eh_frame_hdr, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_arm64, test_tmpdir_setup, test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_another_size_is_not_used, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_the_table_answers, test_tmpdir_setup,
	                                    test_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables (user/sym/unwind_table.h): the rows of the fixtures (symdata/unwind_fixture.c)
 * against what their code does by construction, then every table against libdw itself: for the
 * pcs of its code, the row the kernel's binary search would find says what libdw's CFI row says.
 * The C library and the dynamic linker are built and checked too, and their sizes printed.
 * Last, the one-pass reading of FDEs (user/sym/cfi_program.h) gives, table for table, what libdw
 * gives a row at a time, over the fixtures and the shared objects of this machine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dwarf.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/mman.h>
#include <time.h>

#include <elfutils/libdw.h>
#include <gelf.h>

#include "sym/unwind_table.h"
#include "sym_test_util.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO "/lib64/ld-linux-x86-64.so.2"

struct obj {
	int fd;
	Elf *elf;
	struct lfr_unwind_table t;
};

static void obj_open(struct obj *o, const char *path)
{
	char err[256];
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(o->fd >= 0);
	elf_version(EV_CURRENT);
	o->elf = elf_begin(o->fd, ELF_C_READ, NULL);
	assert_non_null(o->elf);
	ret = lfr_unwind_table_build(o->fd, &o->t, err, sizeof(err));
	if (ret)
		fail_msg("%s: %s", path, err);
}

static void obj_close(struct obj *o)
{
	lfr_unwind_table_free(&o->t);
	elf_end(o->elf);
	close(o->fd);
}

/* The file offset of ELF address vaddr, from the program headers; -1 outside the file. */
static int64_t file_off(Elf *e, uint64_t vaddr)
{
	size_t n;

	assert_int_equal(elf_getphdrnum(e, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_filesz)
			return (int64_t)(vaddr - ph.p_vaddr + ph.p_offset);
	}
	return -1;
}

/* The address and size of a function of the symbol table. */
static bool func(Elf *e, const char *name, uint64_t *vaddr, uint64_t *size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name)) {
				*vaddr = s.st_value;
				*size = s.st_size;
				return true;
			}
		}
	}
	return false;
}

static const struct lfr_unwind_row *row_at(const struct obj *o, uint64_t vaddr)
{
	int64_t off = file_off(o->elf, vaddr);

	assert_true(off >= 0);
	return lfr_unwind_table_find(&o->t, (uint64_t)off);
}

static void assert_row(const struct lfr_unwind_row *r, int cfa, int cfa_off, int bp, int bp_off)
{
	assert_non_null(r);
	assert_int_equal(r->cfa, cfa);
	assert_int_equal(r->cfa_off, cfa_off);
	assert_int_equal(r->bp, bp);
	assert_int_equal(r->bp_off, bp_off);
}

static bool is_none(const struct lfr_unwind_row *r)
{
	return !r || r->cfa == LFR_UNWIND_CFA_NONE;
}

/* Sorted strictly, neighbours differ, the last row NONE (nothing past the last FDE). */
static void check_shape(const struct lfr_unwind_table *t)
{
	assert_int_equal(t->hdr.magic, LFR_UNWIND_MAGIC);
	assert_int_equal(t->hdr.version, LFR_UNWIND_VERSION);
	assert_int_equal(t->hdr.reserved, 0);
	assert_int_equal(t->hdr.reserved2, 0);
	assert_true(t->hdr.nr_rows >= 1);
	assert_int_equal(t->rows[t->hdr.nr_rows - 1].cfa, LFR_UNWIND_CFA_NONE);
	for (uint32_t i = 0; i < t->hdr.nr_rows; i++) {
		const struct lfr_unwind_row *r = &t->rows[i];

		assert_true(r->cfa < __LFR_UNWIND_CFA_MAX && r->bp < __LFR_UNWIND_BP_MAX);
		if (r->cfa == LFR_UNWIND_CFA_SP || r->cfa == LFR_UNWIND_CFA_BP)
			assert_true(r->cfa_off > 0 && r->cfa_off % 8 == 0);
		if (r->bp == LFR_UNWIND_BP_AT_CFA)
			assert_true(r->bp_off < 0 && r->bp_off % 8 == 0);
		if (!i)
			continue;
		assert_true(r->start > t->rows[i - 1].start);
		assert_false(r->cfa == t->rows[i - 1].cfa && r->bp == t->rows[i - 1].bp &&
		             r->cfa_off == t->rows[i - 1].cfa_off &&
		             r->bp_off == t->rows[i - 1].bp_off);
	}
}

/* ---- libdw as the reference ---- */

struct ref {
	Dwarf_CFI *eh;
	Dwarf *dw;
};

static void ref_open(struct ref *f, const struct obj *o)
{
	memset(f, 0, sizeof(*f));
	f->eh = dwarf_getcfi_elf(o->elf);
	f->dw = dwarf_begin_elf(o->elf, DWARF_C_READ, NULL);
}

static void ref_close(struct ref *f)
{
	if (f->eh)
		dwarf_cfi_end(f->eh);
	if (f->dw)
		dwarf_end(f->dw);
}

/* "Register + offset" of a one-operation DWARF location (libdw gives DW_OP_bregx), or false. */
static bool breg(const Dwarf_Op *ops, size_t n, int reg, int64_t *off)
{
	if (n == 1 && ops[0].atom == DW_OP_breg0 + reg) {
		*off = (int64_t)ops[0].number;
		return true;
	}
	if (n == 1 && ops[0].atom == DW_OP_bregx && ops[0].number == (Dwarf_Word)reg) {
		*off = (int64_t)ops[0].number2;
		return true;
	}
	return false;
}

/* "At CFA + off" as libdw gives it. */
static bool at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* What the row of libdw's frame must be, read independently of user/sym. */
static struct lfr_unwind_row expected(Dwarf_Frame *fr)
{
	struct lfr_unwind_row none = {0}, r = {0};
	Dwarf_Op mem[3], *ops;
	Dwarf_Addr s, e;
	bool sig = false;
	int64_t off;
	size_t n;

	if (dwarf_frame_info(fr, &s, &e, &sig) != 16 || sig)
		return none;
	if (dwarf_frame_register(fr, 16, mem, &ops, &n))
		return none;
	if (!n && ops)
		return (struct lfr_unwind_row){.cfa = LFR_UNWIND_OUTERMOST};
	if (!at_cfa(ops, n, &off) || off != -8 || dwarf_frame_cfa(fr, &ops, &n))
		return none;
	if (breg(ops, n, 7, &off))
		r.cfa = LFR_UNWIND_CFA_SP;
	else if (breg(ops, n, 6, &off))
		r.cfa = LFR_UNWIND_CFA_BP;
	else
		return none;
	if (off <= 0 || off % 8)
		return none;
	r.cfa_off = (int32_t)off;
	if (dwarf_frame_register(fr, 6, mem, &ops, &n))
		return none;
	if (!n) {
		r.bp = ops ? LFR_UNWIND_BP_UNDEFINED : LFR_UNWIND_BP_SAME;
		return r;
	}
	if (!at_cfa(ops, n, &off) || off >= 0 || off % 8)
		return none;
	r.bp = LFR_UNWIND_BP_AT_CFA;
	r.bp_off = (int16_t)off;
	return r;
}

/*
 * Every stride-th pc of the executable segments: the table's row agrees with libdw's (its
 * .eh_frame, else its .debug_frame).  Returns how many pcs libdw had a rule for.
 */
static size_t cross_check(const struct obj *o, uint64_t stride)
{
	struct ref f;
	size_t n, covered = 0;

	ref_open(&f, o);
	assert_int_equal(elf_getphdrnum(o->elf, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(o->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		for (uint64_t pc = ph.p_vaddr; pc < ph.p_vaddr + ph.p_filesz; pc += stride) {
			Dwarf_CFI *all[2] = {f.eh, f.dw ? dwarf_getcfi(f.dw) : NULL};
			const struct lfr_unwind_row *got = row_at(o, pc);
			Dwarf_Frame *fr = NULL;

			for (int k = 0; k < 2 && !fr; k++)
				if (all[k] && dwarf_cfi_addrframe(all[k], pc, &fr))
					fr = NULL;
			if (!fr) {
				if (!is_none(got))
					fail_msg("pc 0x%" PRIx64 ": no CFI but row cfa %u", pc,
					         got->cfa);
				continue;
			}
			struct lfr_unwind_row want = expected(fr);

			free(fr);
			covered++;
			assert_non_null(got);
			if (got->cfa != want.cfa || got->cfa_off != want.cfa_off ||
			    got->bp != want.bp || got->bp_off != want.bp_off)
				fail_msg("pc 0x%" PRIx64 ": row %u %d %u %d, libdw %u %d %u %d", pc,
				         got->cfa, got->cfa_off, got->bp, got->bp_off, want.cfa,
				         want.cfa_off, want.bp, want.bp_off);
		}
	}
	ref_close(&f);
	return covered;
}

/* ---- the fixtures ---- */

static const char *const fixtures[] = {"libunw.so", "libunw_fp.so", "libunw_df.so", "unw_prog"};

/* sub $200,%rsp: CFA = rsp + 208 right after it, rsp + 8 again after the add. */
static void test_locals(void **state)
{
	static const uint8_t sub[] = {0x48, 0x81, 0xec, 0xc8, 0x00, 0x00, 0x00};
	uint8_t code[sizeof(sub)];
	uint64_t fn, size;
	struct obj o;

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		obj_open(&o, fixture(fixtures[i]));
		assert_true(func(o.elf, "unw_locals", &fn, &size));
		assert_int_equal(pread(o.fd, code, sizeof(code), file_off(o.elf, fn)),
		                 (ssize_t)sizeof(code));
		assert_memory_equal(code, sub, sizeof(sub));
		assert_row(row_at(&o, fn), LFR_UNWIND_CFA_SP, 8, LFR_UNWIND_BP_SAME, 0);
		assert_row(row_at(&o, fn + sizeof(sub) - 1), LFR_UNWIND_CFA_SP, 8,
		           LFR_UNWIND_BP_SAME, 0);
		assert_row(row_at(&o, fn + sizeof(sub)), LFR_UNWIND_CFA_SP, 208, LFR_UNWIND_BP_SAME,
		           0);
		assert_int_equal(row_at(&o, fn + sizeof(sub))->start,
		                 file_off(o.elf, fn + sizeof(sub)));
		assert_row(row_at(&o, fn + size - 1), LFR_UNWIND_CFA_SP, 8, LFR_UNWIND_BP_SAME, 0);
		obj_close(&o);
	}
}

/* The first instruction of every function with CFI: CFA = rsp + 8, rbp the caller's. */
static void test_entries(void **state)
{
	static const char *const fns[] = {"unw_leaf", "unw_caller", "unw_locals",
	                                  "unw_expr", "unw_reg",    "unw_bpundef"};
	uint64_t fn, size;
	struct obj o;

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		obj_open(&o, fixture(fixtures[i]));
		check_shape(&o.t);
		for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); k++) {
			assert_true(func(o.elf, fns[k], &fn, &size));
			assert_row(row_at(&o, fn), LFR_UNWIND_CFA_SP, 8,
			           strcmp(fns[k], "unw_bpundef") ? LFR_UNWIND_BP_SAME
			                                         : LFR_UNWIND_BP_UNDEFINED,
			           0);
		}
		if (func(o.elf, "main", &fn, &size))
			assert_row(row_at(&o, fn), LFR_UNWIND_CFA_SP, 8, LFR_UNWIND_BP_SAME, 0);
		obj_close(&o);
	}
}

/* Rules the walk cannot follow are NONE; code without CFI has no rule. */
static void test_none(void **state)
{
	uint64_t fn, size;
	struct obj o;

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		obj_open(&o, fixture(fixtures[i]));
		/* pushq %rbx is one byte: the expression starts after it */
		assert_true(func(o.elf, "unw_expr", &fn, &size));
		assert_true(is_none(row_at(&o, fn + 1)));
		assert_row(row_at(&o, fn + size - 1), LFR_UNWIND_CFA_SP, 8, LFR_UNWIND_BP_SAME, 0);
		/* movq %rbp,%rbx is three bytes */
		assert_true(func(o.elf, "unw_reg", &fn, &size));
		assert_true(is_none(row_at(&o, fn + 3)));
		assert_row(row_at(&o, fn + size - 1), LFR_UNWIND_CFA_SP, 8, LFR_UNWIND_BP_SAME, 0);
		assert_true(func(o.elf, "unw_sig", &fn, &size));
		for (uint64_t pc = fn; pc < fn + size; pc++)
			assert_true(is_none(row_at(&o, pc)));
		assert_true(func(o.elf, "unw_nocfi", &fn, &size));
		for (uint64_t pc = fn; pc < fn + size; pc++)
			assert_true(is_none(row_at(&o, pc)));
		assert_true(func(o.elf, "unw_outer", &fn, &size));
		assert_int_equal(row_at(&o, fn)->cfa, LFR_UNWIND_OUTERMOST);
		obj_close(&o);
	}
}

/* With frame pointers, a function that calls has CFA = rbp + 16, rbp saved at CFA - 16. */
static void test_frame_pointers(void **state)
{
	uint64_t fn, size;
	bool framed = false;
	struct obj o;

	(void)state;
	obj_open(&o, fixture("libunw_fp.so"));
	assert_true(func(o.elf, "unw_caller", &fn, &size));
	for (uint64_t pc = fn; pc < fn + size; pc++) {
		const struct lfr_unwind_row *r = row_at(&o, pc);

		if (r->cfa == LFR_UNWIND_CFA_BP) {
			assert_row(r, LFR_UNWIND_CFA_BP, 16, LFR_UNWIND_BP_AT_CFA, -16);
			framed = true;
		}
	}
	assert_true(framed);
	obj_close(&o);
	/* without them, no row anywhere is rbp-based in the C functions */
	obj_open(&o, fixture("libunw.so"));
	assert_true(func(o.elf, "unw_caller", &fn, &size));
	for (uint64_t pc = fn; pc < fn + size; pc++)
		assert_int_equal(row_at(&o, pc)->cfa, LFR_UNWIND_CFA_SP);
	obj_close(&o);
}

/* A program's _start is the outermost frame (its return address is undefined). */
static void test_start(void **state)
{
	uint64_t fn, size;
	struct obj o;

	(void)state;
	obj_open(&o, fixture("unw_prog"));
	assert_true(func(o.elf, "_start", &fn, &size));
	assert_int_equal(row_at(&o, fn)->cfa, LFR_UNWIND_OUTERMOST);
	assert_int_equal(row_at(&o, fn + 1)->cfa, LFR_UNWIND_OUTERMOST);
	obj_close(&o);
}

/* Only .debug_frame describes the library's code: the table has its rules. */
static void test_debug_frame(void **state)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool eh_fdes = false;
	struct obj o;

	(void)state;
	obj_open(&o, fixture("libunw_df.so"));
	assert_int_equal(elf_getshdrstrndx(o.elf, &shstrndx), 0);
	while ((scn = elf_nextscn(o.elf, scn))) {
		GElf_Shdr sh;

		assert_non_null(gelf_getshdr(scn, &sh));
		/* the C runtime's .eh_frame holds its terminator only */
		if (!strcmp(elf_strptr(o.elf, shstrndx, sh.sh_name), ".eh_frame"))
			eh_fdes = sh.sh_size > 8;
	}
	assert_false(eh_fdes);
	assert_true(cross_check(&o, 1) > 50);
	obj_close(&o);
}

/* Every byte of every fixture's code agrees with libdw. */
static void test_cross_check(void **state)
{
	struct obj o;

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		obj_open(&o, fixture(fixtures[i]));
		assert_true(cross_check(&o, 1) > 50);
		obj_close(&o);
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The C library and the dynamic linker: sizes, time, and pcs spread over their code. */
static void test_system(void **state)
{
	static const char *const libs[] = {LIBC, LDSO};
	struct obj o;

	(void)state;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		double t0 = now_ms(), ms;
		size_t covered;

		obj_open(&o, libs[i]);
		ms = now_ms() - t0;
		check_shape(&o.t);
		covered = cross_check(&o, 7);
		assert_true(covered > 100);
		print_message("unwind table of %s: %u rows, %zu bytes, built in %.1f ms (this "
		              "build); %zu pcs checked against libdw\n",
		              libs[i], o.t.hdr.nr_rows, lfr_unwind_table_bytes(&o.t), ms, covered);
		obj_close(&o);
	}
}

/* The header's ctime is the file's. */
static void test_ctime(void **state)
{
	struct stat st;
	struct obj o;

	(void)state;
	obj_open(&o, fixture("libunw.so"));
	assert_int_equal(fstat(o.fd, &st), 0);
	assert_int_equal(o.t.hdr.ctime_sec, st.st_ctim.tv_sec);
	assert_int_equal(o.t.hdr.ctime_nsec, st.st_ctim.tv_nsec);
	assert_null(lfr_unwind_table_find(&o.t, o.t.rows[0].start - 1));
	assert_ptr_equal(lfr_unwind_table_find(&o.t, o.t.rows[0].start), &o.t.rows[0]);
	assert_ptr_equal(lfr_unwind_table_find(&o.t, UINT32_MAX), &o.t.rows[o.t.hdr.nr_rows - 1]);
	obj_close(&o);
}

/* A copy of a fixture in a memfd, with e_machine changed; or text. */
static int memfd_of(const char *src, uint16_t machine, const char *text)
{
	int fd = memfd_create("unw", MFD_CLOEXEC), in;
	char buf[65536];
	ssize_t n;

	assert_true(fd >= 0);
	if (text) {
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		return fd;
	}
	in = open(src, O_RDONLY);
	assert_true(in >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(fd, buf, (size_t)n), n);
	close(in);
	assert_int_equal(pwrite(fd, &machine, 2, 18), 2); /* e_machine, little-endian */
	return fd;
}

static void test_refused(void **state)
{
	struct lfr_unwind_table t;
	char err[256];
	int fd;

	(void)state;
	fd = memfd_of(fixture("libunw.so"), EM_RISCV, NULL);
	assert_int_equal(lfr_unwind_table_build(fd, &t, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "not an x86-64 or arm64 object"));
	assert_null(t.rows);
	close(fd);
	fd = memfd_of(NULL, 0, "#!/bin/sh\necho not an object\n");
	assert_int_equal(lfr_unwind_table_build(fd, &t, err, sizeof(err)), -ENOEXEC);
	assert_string_equal(err, "not an ELF file");
	close(fd);
	fd = open(LFR_SYMDATA, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(lfr_unwind_table_build(fd, &t, err, sizeof(err)), -ENOEXEC);
	assert_string_equal(err, "not a regular file");
	close(fd);
	/* the unchanged copy is fine */
	fd = memfd_of(fixture("libunw.so"), EM_X86_64, NULL);
	assert_int_equal(lfr_unwind_table_build(fd, &t, err, sizeof(err)), 0);
	lfr_unwind_table_free(&t);
	close(fd);
}

/* ---- one pass against libdw ---- */

/* Builds the table of path both ways; they must be equal.  Returns how the FDEs were read. */
static struct lfr_unwind_build_info same_both_ways(const char *path)
{
	struct lfr_unwind_build_info fast, slow;
	struct lfr_unwind_table a, b;
	char e1[256], e2[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC), r1, r2;

	assert_true(fd >= 0);
	r1 = lfr_unwind_table_build_ex(fd, &a, false, &fast, e1, sizeof(e1));
	r2 = lfr_unwind_table_build_ex(fd, &b, true, &slow, e2, sizeof(e2));
	close(fd);
	if (r1 != r2)
		fail_msg("%s: one pass %d (%s), libdw %d (%s)", path, r1, e1, r2, e2);
	assert_int_equal(slow.fdes_one_pass, 0);
	if (!r1) {
		if (a.hdr.nr_rows != b.hdr.nr_rows)
			fail_msg("%s: %u rows in one pass, %u by libdw", path, a.hdr.nr_rows,
			         b.hdr.nr_rows);
		for (uint32_t i = 0; i < a.hdr.nr_rows; i++)
			if (memcmp(&a.rows[i], &b.rows[i], sizeof(a.rows[i])))
				fail_msg("%s: row %u at 0x%x differs from libdw's (at 0x%x)", path,
				         i, a.rows[i].start, b.rows[i].start);
		lfr_unwind_table_free(&a);
		lfr_unwind_table_free(&b);
		assert_int_equal(fast.fdes_one_pass + fast.fdes_libdw, slow.fdes_libdw);
	}
	return fast;
}

/* The fixtures: unw_rules in one pass, unw_rules_libdw (a frame pointer by expression) not. */
static void test_one_pass_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct lfr_unwind_build_info in = same_both_ways(fixture(fixtures[i]));

		print_message("%s: %" PRIu64 " FDEs in one pass, %" PRIu64 " by libdw\n",
		              fixtures[i], in.fdes_one_pass, in.fdes_libdw);
		assert_true(in.fdes_one_pass >= 8);
		assert_int_equal(in.fdes_libdw, 1);
	}
	if (!access(fixture("liba64.so"), R_OK)) /* arm64 with pointer authentication */
		same_both_ways(fixture("liba64.so"));
}

/*
 * The shared objects of this machine (x86-64, and arm64 where the cross toolchain's are
 * installed), up to 80 of each: equal tables, and libc read in one pass throughout.
 */
static void test_one_pass_system(void **state)
{
	static const char *const pats[] = {"/usr/lib/x86_64-linux-gnu/*.so*",
	                                   "/usr/aarch64-linux-gnu/lib/*.so*"};
	struct lfr_unwind_build_info in = same_both_ways(LIBC);
	size_t objects = 0;

	(void)state;
	print_message("libc: %" PRIu64 " FDEs in one pass, %" PRIu64 " by libdw\n",
	              in.fdes_one_pass, in.fdes_libdw);
	assert_true(in.fdes_one_pass > 1000);
	assert_true(in.fdes_libdw * 100 < in.fdes_one_pass);
	for (size_t k = 0; k < sizeof(pats) / sizeof(pats[0]); k++) {
		glob_t g;
		size_t n = 0;

		if (glob(pats[k], 0, NULL, &g))
			continue;
		for (size_t i = 0; i < g.gl_pathc && n < 80; i++) {
			struct stat st;

			if (lstat(g.gl_pathv[i], &st) || !S_ISREG(st.st_mode) ||
			    st.st_size > (32 << 20))
				continue;
			same_both_ways(g.gl_pathv[i]);
			n++;
		}
		objects += n;
		globfree(&g);
	}
	print_message("one pass and libdw: the same tables for libc and %zu other objects\n",
	              objects);
	assert_true(objects >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_locals),
	    cmocka_unit_test(test_entries),
	    cmocka_unit_test(test_none),
	    cmocka_unit_test(test_frame_pointers),
	    cmocka_unit_test(test_start),
	    cmocka_unit_test(test_debug_frame),
	    cmocka_unit_test(test_cross_check),
	    cmocka_unit_test(test_ctime),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_system),
	    cmocka_unit_test(test_one_pass_fixtures),
	    cmocka_unit_test(test_one_pass_system),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

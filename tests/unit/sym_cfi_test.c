// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf rule (user/sym/cfi.h): the caller of a frameless function from its CFI.
 *
 * The fixtures are built by gcc -O2 -fno-omit-frame-pointer (symdata/libsymcfi.c).  The pcs tested
 * are found without disassembling: a function's address and size come from the dynamic linker,
 * the boundaries of its CFI rows from libdw, and the rule is checked row by row against what the
 * code of each function does by construction.  Stack words are synthesized (word i = a marker
 * naming slot i), so the slot the rule picked is visible; one test takes a real sample instead.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <ucontext.h>

#include <elfutils/libdw.h>

#include "sym/cfi.h"
#include "sym_test_util.h"

#define FAKE_PID 92001u
#define NWORDS 16
#define SP 0x7ffd00001000ull
#define MAX_ROWS 32

/* Word i of the synthetic stack: recognisable, and never a real address. */
#define MARK(i) (0x5100000000ull + (uint64_t)(i))

struct lib {
	void *h;
	uint64_t base; /* load bias: run-time address - ELF address */
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi; /* what the fixture's rows are read from, independently of cfi.c */
	int fd;
};

static struct lfr_sym *new_sym(const char *debug_dirs)
{
	struct lfr_sym_opts o = {.debug_dirs = debug_dirs};
	struct lfr_sym *sym = NULL;

	assert_int_equal(lfr_sym_new(&sym, &o), 0);
	return sym;
}

/* Opens a fixture library, maps it for FAKE_PID and reads its CFI (eh: .eh_frame, else DWARF). */
static void lib_open(struct lib *l, struct lfr_sym *sym, const char *name, const char *cfi_file,
                     bool eh)
{
	struct link_map *lm = NULL;
	char suffix[64];

	memset(l, 0, sizeof(*l));
	l->h = fixture_dlopen(name);
	assert_non_null(l->h);
	assert_int_equal(dlinfo(l->h, RTLD_DI_LINKMAP, &lm), 0);
	l->base = lm->l_addr;
	snprintf(suffix, sizeof(suffix), "/%s", name);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, suffix, 0) >= 1);
	elf_version(EV_CURRENT);
	l->fd = open(cfi_file, O_RDONLY);
	assert_true(l->fd >= 0);
	l->elf = elf_begin(l->fd, ELF_C_READ, NULL);
	assert_non_null(l->elf);
	if (eh) {
		l->cfi = dwarf_getcfi_elf(l->elf);
	} else {
		l->dw = dwarf_begin_elf(l->elf, DWARF_C_READ, NULL);
		assert_non_null(l->dw);
		l->cfi = dwarf_getcfi(l->dw);
	}
	assert_non_null(l->cfi);
}

static void lib_close(struct lib *l)
{
	if (l->dw)
		dwarf_end(l->dw);
	else
		dwarf_cfi_end(l->cfi);
	elf_end(l->elf);
	close(l->fd);
	dlclose(l->h);
}

/* Run-time address and size of a function of the fixture. */
static uint64_t fn_addr(struct lib *l, const char *fn, uint64_t *size)
{
	void *p = dlsym(l->h, fn);
	const ElfW(Sym) *s = NULL;
	Dl_info info;

	assert_non_null(p);
	assert_true(dladdr1(p, &info, (void **)&s, RTLD_DL_SYMENT));
	assert_non_null(s);
	*size = s->st_size;
	assert_true(*size > 0);
	return (uint64_t)(uintptr_t)p;
}

/* The run-time start of every CFI row of fn, in order. */
static size_t rows_of(struct lib *l, const char *fn, uint64_t *start, uint64_t *last)
{
	uint64_t size, at = fn_addr(l, fn, &size) - l->base, end = at + size;
	size_t n = 0;

	while (at < end) {
		Dwarf_Frame *fr;
		Dwarf_Addr s, e;
		bool sig;

		assert_int_equal(dwarf_cfi_addrframe(l->cfi, at, &fr), 0);
		assert_true(dwarf_frame_info(fr, &s, &e, &sig) >= 0);
		free(fr);
		assert_true(s <= at && e > at && n < MAX_ROWS);
		start[n] = at + l->base;
		last[n++] = (e < end ? e : end) - 1 + l->base;
		at = e;
	}
	return n;
}

static void stack_words(uint64_t *w)
{
	for (int i = 0; i < NWORDS; i++)
		w[i] = MARK(i);
}

/* -1: FP_OK, -2: UNKNOWN, k >= 0: CALLER with the return address in word k. */
static int rule_at(struct lfr_sym *sym, uint64_t pc, uint32_t nr_words)
{
	uint64_t w[NWORDS], ra = 0;

	stack_words(w);
	switch (lfr_sym_leaf_caller(sym, FAKE_PID, pc, SP, w, nr_words, &ra)) {
	case LFR_LEAF_FP_OK:
		return -1;
	case LFR_LEAF_UNKNOWN:
		return -2;
	case LFR_LEAF_CALLER:
		assert_true(ra >= MARK(0) && ra < MARK(nr_words));
		return (int)(ra - MARK(0));
	}
	fail();
	return -3;
}

/* Checks the rule at the first and the last byte of every row of fn against want[]. */
static void expect_rows(struct lfr_sym *sym, struct lib *l, const char *fn, const int *want,
                        size_t nwant, uint32_t nr_words)
{
	uint64_t start[MAX_ROWS], last[MAX_ROWS];
	size_t n = rows_of(l, fn, start, last);

	if (n != nwant)
		fprintf(stderr, "%s: %zu CFI rows, expected %zu\n", fn, n, nwant);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++) {
		int a = rule_at(sym, start[i], nr_words), b = rule_at(sym, last[i], nr_words);

		if (a != want[i] || b != want[i])
			fprintf(stderr,
			        "%s row %zu [0x%" PRIx64 ", 0x%" PRIx64 "]: %d %d, want %d\n", fn,
			        i, start[i] - l->base, last[i] - l->base, a, b, want[i]);
		assert_int_equal(a, want[i]);
		assert_int_equal(b, want[i]);
	}
}

/* gcc's frameless leaf: CFA = rsp + 8 throughout, the return address at sp. */
static void check_leaf_and_framed(struct lfr_sym *sym, struct lib *l)
{
	static const int leaf[] = {0};
	/* entry; after push %rbp (rbp still the caller's); the body; after pop %rbp */
	static const int framed[] = {0, 1, -1, 0};

	expect_rows(sym, l, "cfi_leaf", leaf, 1, NWORDS);
	expect_rows(sym, l, "cfi_framed", framed, 4, NWORDS);
	/* The return address is the first word: one copied word is enough, none is not. */
	expect_rows(sym, l, "cfi_leaf", leaf, 1, 1);
	{
		static const int none[] = {-2};

		expect_rows(sym, l, "cfi_leaf", none, 1, 0);
	}
}

static void test_eh_frame(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("nodebug"));
	struct lib l;

	(void)state;
	lib_open(&l, sym, "libsymcfi.so", fixture("libsymcfi.so"), true);
	check_leaf_and_framed(sym, &l);
	lib_close(&l);
	lfr_sym_free(sym);
}

/* A leaf that spilled a value got a frame; between push %rbp and mov %rsp,%rbp it had none. */
static void test_frame_after_push(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("nodebug"));
	uint64_t start[MAX_ROWS], last[MAX_ROWS];
	struct lib l;
	size_t n;

	(void)state;
	lib_open(&l, sym, "libsymcfi.so", fixture("libsymcfi.so"), true);
	n = rows_of(&l, "cfi_busy", start, last);
	/* gcc decides how many registers it saves; the shape is fixed. */
	assert_true(n >= 5);
	assert_int_equal(rule_at(sym, start[0], NWORDS), 0);
	assert_int_equal(rule_at(sym, start[1], NWORDS), 1);
	assert_int_equal(rule_at(sym, last[1], NWORDS), 1);
	assert_int_equal(rule_at(sym, start[2], NWORDS), -1);
	for (size_t i = 2; i < n && rule_at(sym, start[i], NWORDS) == -1; i++)
		assert_int_equal(rule_at(sym, last[i], NWORDS), -1);
	/* After the epilogue's pop %rbp, and the early return path, frameless again. */
	assert_int_equal(rule_at(sym, start[n - 1], NWORDS), 0);
	assert_int_equal(rule_at(sym, start[n - 2], NWORDS), 0);
	lib_close(&l);
	lfr_sym_free(sym);
}

/* libc-style: callee-saved registers (rbp among them) pushed, locals, no frame pointer. */
static void test_saves_and_locals(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("nodebug"));
	static const int all[] = {0, 1, 2, 7, 2, 1, 0};
	/* With 7 words copied, the row whose return address is word 7 cannot say. */
	static const int seven[] = {0, 1, 2, -2, 2, 1, 0};
	static const int two[] = {0, 1, -2, -2, -2, 1, 0};
	struct lib l;

	(void)state;
	lib_open(&l, sym, "libsymcfi.so", fixture("libsymcfi.so"), true);
	expect_rows(sym, &l, "cfi_saves", all, 7, NWORDS);
	expect_rows(sym, &l, "cfi_saves", all, 7, 8);
	expect_rows(sym, &l, "cfi_saves", seven, 7, 7);
	expect_rows(sym, &l, "cfi_saves", two, 7, 2);
	lib_close(&l);
	lfr_sym_free(sym);
}

/* rbp kept in a register, and an rbp-based CFA the walk does not assume: unknown, not guessed. */
static void test_other_rules(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("nodebug"));
	static const int want[] = {0, -2, -2, 0};
	struct lib l;

	(void)state;
	lib_open(&l, sym, "libsymcfi.so", fixture("libsymcfi.so"), true);
	expect_rows(sym, &l, "cfi_odd", want, 4, NWORDS);
	lib_close(&l);
	lfr_sym_free(sym);
}

/* No CFI row, no mapping, no process: unknown. */
static void test_no_cfi(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("nodebug"));
	uint64_t size, nocfi, w[NWORDS], ra = 0;
	struct lib l;

	(void)state;
	stack_words(w);
	lib_open(&l, sym, "libsymcfi.so", fixture("libsymcfi.so"), true);
	nocfi = fn_addr(&l, "cfi_nocfi", &size);
	{
		Dwarf_Frame *fr;

		/* The fixture is what the test says: no row covers it. */
		assert_int_not_equal(dwarf_cfi_addrframe(l.cfi, nocfi - l.base, &fr), 0);
	}
	assert_int_equal(lfr_sym_leaf_caller(sym, FAKE_PID, nocfi, SP, w, NWORDS, &ra),
	                 LFR_LEAF_UNKNOWN);
	assert_int_equal(lfr_sym_leaf_caller(sym, FAKE_PID, nocfi + size - 1, SP, w, NWORDS, &ra),
	                 LFR_LEAF_UNKNOWN);
	assert_int_equal(lfr_sym_leaf_caller(sym, FAKE_PID, 0x1000, SP, w, NWORDS, &ra),
	                 LFR_LEAF_UNKNOWN);
	assert_int_equal(lfr_sym_leaf_caller(sym, FAKE_PID + 1, nocfi, SP, w, NWORDS, &ra),
	                 LFR_LEAF_UNKNOWN);
	assert_int_equal(ra, 0);
	lib_close(&l);
	lfr_sym_free(sym);
}

/* The same code with its CFI in .debug_frame only (no .eh_frame rows). */
static void test_debug_frame(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("nodebug"));
	static const int saves[] = {0, 1, 2, 7, 2, 1, 0};
	uint64_t size;
	struct lib l;

	(void)state;
	lib_open(&l, sym, "libsymcfi_df.so", fixture("libsymcfi_df.so"), false);
	{
		Dwarf_CFI *eh = dwarf_getcfi_elf(l.elf);
		Dwarf_Frame *fr;

		if (eh) {
			assert_int_not_equal(
			    dwarf_cfi_addrframe(eh, fn_addr(&l, "cfi_leaf", &size) - l.base, &fr),
			    0);
			dwarf_cfi_end(eh);
		}
	}
	check_leaf_and_framed(sym, &l);
	expect_rows(sym, &l, "cfi_saves", saves, 7, NWORDS);
	lib_close(&l);
	lfr_sym_free(sym);
}

/* A stripped object whose CFI is in its debug file (found by build-id), and not without it. */
static void test_debug_file(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("cfidebug"));
	uint64_t start[MAX_ROWS], last[MAX_ROWS];
	struct lib l;
	char path[512], file[1024];
	FILE *p;

	(void)state;
	/* build.sh wrote where it put the debug file. */
	p = fopen(fixture("libsymcfi_dbg.debug_path"), "r");
	assert_non_null(p);
	assert_non_null(fgets(path, sizeof(path), p));
	fclose(p);
	path[strcspn(path, "\n")] = '\0';
	snprintf(file, sizeof(file), "%s/%s", LFR_SYMDATA, path);
	lib_open(&l, sym, "libsymcfi_dbg.so", file, false);
	check_leaf_and_framed(sym, &l);
	rows_of(&l, "cfi_leaf", start, last);
	lfr_sym_free(sym);
	/* The same, with the debug file out of reach. */
	sym = new_sym(fixture("nodebug"));
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymcfi_dbg.so", 0) >= 1);
	assert_int_equal(rule_at(sym, start[0], NWORDS), -2);
	lib_close(&l);
	lfr_sym_free(sym);
}

/* The whole chain: inserted, already present, kept, uncertain, capped. */
static void test_fix_leaf(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("nodebug"));
	uint64_t start[MAX_ROWS], last[MAX_ROWS], w[NWORDS], out[8], ips[3];
	uint64_t leaf, body, nocfi, size;
	uint32_t n = 99;
	struct lib l;

	(void)state;
	stack_words(w);
	lib_open(&l, sym, "libsymcfi.so", fixture("libsymcfi.so"), true);
	leaf = fn_addr(&l, "cfi_leaf", &size) + 4;
	nocfi = fn_addr(&l, "cfi_nocfi", &size);
	assert_int_equal(rows_of(&l, "cfi_framed", start, last), 4);
	body = start[2];

	ips[0] = leaf;
	ips[1] = 0x1111;
	ips[2] = 0x2222;
	assert_int_equal(lfr_sym_fix_leaf(sym, FAKE_PID, ips, 3, SP, w, NWORDS, out, 8, &n),
	                 LFR_LEAF_INSERTED);
	assert_int_equal(n, 4);
	assert_int_equal(out[0], leaf);
	assert_int_equal(out[1], MARK(0));
	assert_int_equal(out[2], 0x1111);
	assert_int_equal(out[3], 0x2222);

	/* A chain of the leaf alone gets its caller too. */
	assert_int_equal(lfr_sym_fix_leaf(sym, FAKE_PID, ips, 1, SP, w, NWORDS, out, 8, &n),
	                 LFR_LEAF_INSERTED);
	assert_int_equal(n, 2);
	assert_int_equal(out[1], MARK(0));

	/* The walker already had the caller: not twice. */
	ips[1] = MARK(0);
	assert_int_equal(lfr_sym_fix_leaf(sym, FAKE_PID, ips, 3, SP, w, NWORDS, out, 8, &n),
	                 LFR_LEAF_PRESENT);
	assert_int_equal(n, 3);
	assert_memory_equal(out, ips, sizeof(ips));

	/* Full to the cap: the outermost frame makes room for the caller. */
	ips[1] = 0x1111;
	assert_int_equal(lfr_sym_fix_leaf(sym, FAKE_PID, ips, 3, SP, w, NWORDS, out, 3, &n),
	                 LFR_LEAF_INSERTED);
	assert_int_equal(n, 3);
	assert_int_equal(out[1], MARK(0));
	assert_int_equal(out[2], 0x1111);

	/* A frame set up: the chain is right as it is. */
	ips[0] = body;
	assert_int_equal(lfr_sym_fix_leaf(sym, FAKE_PID, ips, 3, SP, w, NWORDS, out, 8, &n),
	                 LFR_LEAF_KEPT);
	assert_int_equal(n, 3);
	assert_memory_equal(out, ips, sizeof(ips));

	/* No CFI, or the return address not copied: unchanged, and said so. */
	ips[0] = nocfi;
	assert_int_equal(lfr_sym_fix_leaf(sym, FAKE_PID, ips, 3, SP, w, NWORDS, out, 8, &n),
	                 LFR_LEAF_UNCERTAIN);
	assert_int_equal(n, 3);
	assert_memory_equal(out, ips, sizeof(ips));
	ips[0] = leaf;
	assert_int_equal(lfr_sym_fix_leaf(sym, FAKE_PID, ips, 3, SP, w, 0, out, 8, &n),
	                 LFR_LEAF_UNCERTAIN);
	assert_int_equal(n, 3);
	assert_int_equal(lfr_sym_fix_leaf(sym, FAKE_PID, ips, 0, SP, w, NWORDS, out, 8, &n),
	                 LFR_LEAF_UNCERTAIN);
	assert_int_equal(n, 0);
	lib_close(&l);
	lfr_sym_free(sym);
}

/* The vDSO's CFI comes from the symbolizer's own copy of the image (the same kernel's). */
static void test_vdso(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("nodebug"));
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	uint64_t fn = h ? fixture_sym(h, "__vdso_clock_gettime") : 0;
	uint64_t w[NWORDS], ra = 0;

	(void)state;
	if (!fn) {
		lfr_sym_free(sym);
		skip();
	}
	stack_words(w);
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "[vdso]", 0) == 1);
	/* At a function's first instruction the return address is at sp, whatever the code. */
	assert_int_equal(lfr_sym_leaf_caller(sym, FAKE_PID, fn, SP, w, NWORDS, &ra),
	                 LFR_LEAF_CALLER);
	assert_int_equal(ra, MARK(0));
	assert_int_equal(lfr_sym_leaf_caller(sym, FAKE_PID, fn, SP, w, 0, &ra), LFR_LEAF_UNKNOWN);
	lfr_sym_free(sym);
}

/*
 * A real sample: a thread runs cfi_framed -> cfi_leaf; a signal interrupts it, and the handler
 * takes what the kernel takes (pc, sp, the first stack words, the first step of the rbp chain). The
 * chain lacks cfi_framed; the rule puts it back.
 */
static struct {
	uint64_t lo, hi; /* cfi_leaf */
	uint64_t ips[2], sp, words[NWORDS];
	atomic_int taken, stop;
} smp;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	const uint64_t *sp = (const uint64_t *)uc->uc_mcontext.gregs[REG_RSP];
	const uint64_t *fp = (const uint64_t *)uc->uc_mcontext.gregs[REG_RBP];

	(void)sig;
	(void)si;
	if (atomic_load(&smp.taken) || pc < smp.lo || pc >= smp.hi)
		return;
	smp.ips[0] = pc;
	smp.ips[1] = fp[1];
	smp.sp = (uint64_t)(uintptr_t)sp;
	for (int i = 0; i < NWORDS; i++)
		smp.words[i] = sp[i];
	atomic_store(&smp.taken, 1);
}

static void *spin(void *arg)
{
	uint64_t (*framed)(uint64_t) = (uint64_t(*)(uint64_t))arg;

	while (!atomic_load(&smp.stop))
		framed(1u << 20);
	return NULL;
}

/* The frame of spin() above cfi_framed: spin -> cfi_framed -> cfi_leaf. */
static void test_real_sample(void **state)
{
	struct lfr_sym *sym = new_sym(fixture("nodebug"));
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
	struct timespec ms = {0, 1000000};
	struct lfr_frame f;
	uint64_t size, out[3];
	uint32_t n = 0;
	pthread_t t;
	void *fn;
	struct lib l;

	(void)state;
	lib_open(&l, sym, "libsymcfi.so", fixture("libsymcfi.so"), true);
	smp.lo = fn_addr(&l, "cfi_leaf", &size);
	smp.hi = smp.lo + size;
	fn = dlsym(l.h, "cfi_framed");
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, spin, fn), 0);
	/* The thread is in cfi_leaf nearly all the time; try until a signal finds it there. */
	for (int i = 0; i < 100000 && !atomic_load(&smp.taken); i++) {
		pthread_kill(t, SIGUSR1);
		nanosleep(&ms, NULL);
	}
	atomic_store(&smp.stop, 1);
	pthread_join(t, NULL);
	assert_true(atomic_load(&smp.taken));

	/* The frame-pointer chain went from cfi_leaf straight past cfi_framed. */
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, smp.ips[0], &f));
	assert_string_equal(f.method, "cfi_leaf");
	lfr_sym_resolve_user(sym, FAKE_PID, smp.ips[1] - 1, &f);
	assert_string_not_equal(f.method, "cfi_framed");
	assert_int_equal(
	    lfr_sym_fix_leaf(sym, FAKE_PID, smp.ips, 2, smp.sp, smp.words, NWORDS, out, 3, &n),
	    LFR_LEAF_INSERTED);
	assert_int_equal(n, 3);
	assert_true(lfr_sym_resolve_user(sym, FAKE_PID, out[1] - 1, &f));
	assert_string_equal(f.method, "cfi_framed");
	assert_int_equal(out[2], smp.ips[1]);
	/* ... and what the chain had next is a return address into spin(), a small function. */
	assert_true(out[2] > (uint64_t)(uintptr_t)spin && out[2] < (uint64_t)(uintptr_t)spin + 256);
	lib_close(&l);
	lfr_sym_free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_eh_frame),
	    cmocka_unit_test(test_frame_after_push),
	    cmocka_unit_test(test_saves_and_locals),
	    cmocka_unit_test(test_other_rules),
	    cmocka_unit_test(test_no_cfi),
	    cmocka_unit_test(test_debug_frame),
	    cmocka_unit_test(test_debug_file),
	    cmocka_unit_test(test_fix_leaf),
	    cmocka_unit_test(test_vdso),
	    cmocka_unit_test(test_real_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

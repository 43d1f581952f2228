// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder on synthetic ring records: mappings of this very test program name its functions,
 * repeated stacks are written once and then found in the stack cache (only their leaf named
 * again), a new mapping of the process makes its cached stacks stale, ticks are joined with the
 * user stacks of their walks into one event each, frames met before in other stacks are not
 * named again, losses become lfr.LostSamples, and the module's counted losses are added at the
 * end so that events + lost = ticks matched; the frames of a stripped copy of this program stay
 * unnamed, with an lfr.ObjectFile event that lfr report names them by.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "jfr/reader.h"
#include "jfr/writer.h"
#include "record/batch.h"
#include "record/recorder.h"
#include "report/report.h"
#include "sym/sym.h"

#define TGID 4242

__attribute__((noinline)) void recorder_test_leaf(void)
{
	__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop");
}

__attribute__((noinline)) void recorder_test_caller(void)
{
	recorder_test_leaf();
	__asm__ volatile("nop");
}

/* Named as glibc's start code is: where the main thread's chain ends. */
__attribute__((noinline)) void __libc_start_call_main(void)
{
	recorder_test_caller();
	__asm__ volatile("nop");
}

struct env {
	char path[64];
	struct lfr_jfr_writer *w;
	struct lfr_sym *sym;
	struct lfr_recorder *rec;
	uint64_t t;
	/* the process (and thread) of add_self_mapping(), add_tick(), add_ustack() */
	uint32_t tgid;
};

/* Adds an MMAP record for the executable mapping of this program that holds ADDR. */
static void add_self_mapping(struct env *e, uintptr_t addr, const char *as_path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], path[256];
	unsigned long lo, hi, off, ino;
	unsigned int maj, min;
	bool found = false;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu %255s", &lo, &hi, &off, &maj, &min,
		           &ino, path) < 6)
			continue;
		if (addr < lo || addr >= hi)
			continue;
		size_t plen = strlen(as_path) + 1,
		       size = (sizeof(struct lfr_rec_mmap) + plen + 7) & ~7ul;
		struct lfr_rec_mmap *m = calloc(1, size);

		assert_non_null(m);
		m->hdr.type = LFR_REC_MMAP;
		m->hdr.size = (uint32_t)size;
		m->time_ns = e->t;
		m->tgid = e->tgid;
		m->flags = LFR_MMAP_F_EXEC;
		m->start = lo;
		m->end = hi;
		m->pgoff = off;
		if (!strcmp(as_path, path)) {
			m->ino = ino;
			m->dev_major = maj;
			m->dev_minor = min;
		}
		memcpy(m->path, as_path, plen);
		assert_int_equal(lfr_recorder_add(e->rec, &m->hdr), 0);
		free(m);
		found = true;
		break;
	}
	fclose(f);
	assert_true(found);
}

/* The mapping of this program's code, under its real path (so that it is named). */
static void add_own_code_mapping(struct env *e)
{
	char self[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	assert_true(n > 0);
	self[n] = '\0';
	add_self_mapping(e, (uintptr_t)recorder_test_leaf, self);
}

/* An MMAP record of anonymous executable memory (as a JIT's code cache): an empty path. */
static void add_anon_mapping(struct env *e)
{
	uint64_t buf[(sizeof(struct lfr_rec_mmap) + 8) / 8] = {0};
	struct lfr_rec_mmap *m = (void *)buf;

	m->hdr.type = LFR_REC_MMAP;
	m->hdr.size = sizeof(buf);
	m->time_ns = e->t;
	m->tgid = TGID;
	m->flags = LFR_MMAP_F_EXEC;
	m->start = 0x7f0000000000;
	m->end = 0x7f0000010000;
	assert_int_equal(lfr_recorder_add(e->rec, &m->hdr), 0);
}

static void add_sample_flags(struct env *e, uint64_t leaf_pc, uint64_t ret, uint32_t weight,
                             uint32_t flags)
{
	uint64_t buf[(sizeof(struct lfr_rec_sample) + 2 * 8) / 8 + 1] = {0};
	struct lfr_rec_sample *s = (void *)buf;

	s->hdr.type = LFR_REC_SAMPLE;
	s->hdr.size = sizeof(*s) + 2 * 8;
	s->time_ns = ++e->t;
	s->tgid = TGID;
	s->tid = TGID;
	s->weight = weight;
	s->nr_user = 2;
	s->ips[0] = leaf_pc;
	s->ips[1] = ret;
	s->flags = flags;
	assert_int_equal(lfr_recorder_add(e->rec, &s->hdr), 0);
}

/* A SAMPLE record of a tick in the kernel at KPC, the thread's user stack LEAF_PC <- RET. */
static void add_sample_in_kernel(struct env *e, uint64_t kpc, uint64_t leaf_pc, uint64_t ret)
{
	uint64_t buf[(sizeof(struct lfr_rec_sample) + 3 * 8) / 8 + 1] = {0};
	struct lfr_rec_sample *s = (void *)buf;

	s->hdr.type = LFR_REC_SAMPLE;
	s->hdr.size = sizeof(*s) + 3 * 8;
	s->time_ns = ++e->t;
	s->tgid = TGID;
	s->tid = TGID;
	s->weight = 1;
	s->flags = LFR_SAMPLE_F_IN_KERNEL;
	s->nr_kernel = 1;
	s->nr_user = 2;
	s->ips[0] = kpc;
	s->ips[1] = leaf_pc;
	s->ips[2] = ret;
	assert_int_equal(lfr_recorder_add(e->rec, &s->hdr), 0);
}

static void add_sample(struct env *e, uint64_t leaf_pc, uint64_t ret, uint32_t weight)
{
	add_sample_flags(e, leaf_pc, ret, weight, 0);
}

static void add_lost(struct env *e, uint32_t reason, uint64_t ticks)
{
	struct lfr_rec_lost l = {.hdr = {LFR_REC_LOST, sizeof(l)},
	                         .time_ns = ++e->t,
	                         .reason = reason,
	                         .count = 1,
	                         .ticks = ticks};

	assert_int_equal(lfr_recorder_add(e->rec, &l.hdr), 0);
}

/* A TICK record of walk WALK (a kernel pc when KPC is not 0). */
static void add_tick(struct env *e, uint64_t walk, uint32_t missed, uint64_t kpc)
{
	uint64_t buf[(sizeof(struct lfr_rec_tick) + 8) / 8] = {0};
	struct lfr_rec_tick *t = (void *)buf;

	t->hdr.type = LFR_REC_TICK;
	t->hdr.size = sizeof(*t) + (kpc ? 8 : 0);
	t->time_ns = ++e->t;
	t->walk_id = walk;
	t->tgid = e->tgid;
	t->tid = e->tgid;
	t->missed = missed;
	if (kpc) {
		t->flags = LFR_SAMPLE_F_IN_KERNEL;
		t->nr_kernel = 1;
		t->ips[0] = kpc;
	}
	assert_int_equal(lfr_recorder_add(e->rec, &t->hdr), 0);
}

/* The USTACK record of walk WALK for TICKS ticks: leaf_pc <- ret, or lost for REASON. */
static void add_ustack(struct env *e, uint64_t walk, uint32_t ticks, uint64_t leaf_pc, uint64_t ret,
                       uint32_t reason)
{
	uint64_t buf[(sizeof(struct lfr_rec_ustack) + 3 * 8) / 8] = {0};
	struct lfr_rec_ustack *u = (void *)buf;

	u->hdr.type = LFR_REC_USTACK;
	u->hdr.size = sizeof(*u) + (reason ? 0 : 3 * 8);
	u->walk_id = walk;
	u->time_ns = e->t;
	u->tgid = e->tgid;
	u->tid = e->tgid;
	u->ticks = ticks;
	u->lost_reason = reason;
	if (!reason) {
		u->nr_user = 2;
		u->nr_words = 1;
		u->ips[0] = leaf_pc;
		u->ips[1] = ret;
		u->ips[2] = ret; /* the word at sp */
	}
	assert_int_equal(lfr_recorder_add(e->rec, &u->hdr), 0);
}

/*
 * A USTACK record of walk WALK with FLAGS: NR_USER pcs then NR_WORDS stack words, two values in
 * all (A, then B).
 */
static void add_ustack_two(struct env *e, uint64_t walk, uint32_t flags, uint16_t nr_user,
                           uint16_t nr_words, uint64_t a, uint64_t b)
{
	uint64_t buf[(sizeof(struct lfr_rec_ustack) + 2 * 8) / 8] = {0};
	struct lfr_rec_ustack *u = (void *)buf;

	u->hdr.type = LFR_REC_USTACK;
	u->hdr.size = sizeof(buf);
	u->walk_id = walk;
	u->time_ns = e->t;
	u->tgid = TGID;
	u->tid = TGID;
	u->ticks = 1;
	u->flags = flags;
	u->nr_user = nr_user;
	u->nr_words = nr_words;
	u->ips[0] = a;
	u->ips[1] = b;
	assert_int_equal(lfr_recorder_add(e->rec, &u->hdr), 0);
}

/* A USTACK record with FLAGS and no stack words (as the kernel writes after unwinding by table). */
static void add_ustack_flags(struct env *e, uint64_t walk, uint64_t leaf_pc, uint64_t ret,
                             uint32_t flags)
{
	add_ustack_two(e, walk, flags, 2, 0, leaf_pc, ret);
}

/* The USTACK record of walk WALK: the leaf pc alone, and WORD at sp (the leaf rule's caller). */
static void add_ustack_word(struct env *e, uint64_t walk, uint64_t leaf_pc, uint64_t word)
{
	add_ustack_two(e, walk, 0, 1, 1, leaf_pc, word);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	int fd;

	assert_non_null(e);
	snprintf(e->path, sizeof(e->path), "/tmp/lfr-recorder-XXXXXX");
	fd = mkstemp(e->path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lfr_jfr_open(&e->w, e->path, NULL), 0);
	assert_int_equal(lfr_sym_new(&e->sym, NULL), 0);
	assert_int_equal(lfr_recorder_new(&e->rec, e->w, e->sym), 0);
	e->t = lfr_jfr_now();
	e->tgid = TGID;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	lfr_recorder_free(e->rec);
	lfr_sym_free(e->sym);
	if (e->w)
		lfr_jfr_abandon(e->w);
	unlink(e->path);
	free(e);
	return 0;
}

static void test_stacks_named_cached_and_invalidated(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;

	add_own_code_mapping(e);
	/* the same stack three times, the leaf pc moving inside the leaf; one merged tick */
	add_sample(e, leaf + 1, caller + 6, 1);
	add_sample(e, leaf + 2, caller + 6, 2);
	add_sample(e, leaf + 3, caller + 6, 1);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.events, 4);
	assert_int_equal(st.stack_hits, 2);
	assert_int_equal(st.frames, 6);
	assert_int_equal(st.unnamed, 0);
	assert_int_equal(js.stack_traces, 1);

	/* The process maps something new: what was cached may name differently now. */
	add_self_mapping(e, leaf, "/nonexistent/replacement");
	add_sample(e, leaf + 1, caller + 6, 1);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.stack_hits, 2);
	assert_int_equal(st.unnamed, 2); /* an unreadable file keeps both addresses */
	assert_int_equal(js.stack_traces, 2);
}

/*
 * A sample whose addresses were seen before is written without naming anything, with the same
 * stack; the word the leaf rule reads belongs to what makes it the same: a leaf interrupted at
 * its entry, whose caller is the word at sp, is another stack when that word differs.
 */
static void test_seen_addresses_name_nothing(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller,
	          start = (uintptr_t)__libc_start_call_main;
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;
	uint64_t traces;

	add_own_code_mapping(e);
	add_tick(e, 1, 0, 0);
	add_ustack(e, 1, 1, leaf + 2, caller + 6, 0);
	add_tick(e, 2, 0, 0);
	add_ustack(e, 2, 1, leaf + 2, caller + 6, 0);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.raw_hits, 1);
	assert_int_equal(st.stack_hits, 1);
	assert_int_equal(st.frames, 4);
	assert_int_equal(js.stack_traces, 1);
	traces = js.stack_traces;

	add_tick(e, 3, 0, 0);
	add_ustack_word(e, 3, leaf, caller + 6);
	add_tick(e, 4, 0, 0);
	add_ustack_word(e, 4, leaf, start + 6);
	add_tick(e, 5, 0, 0);
	add_ustack_word(e, 5, leaf, caller + 6);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.samples, 5);
	assert_int_equal(st.leaf_inserted, 3);
	assert_int_equal(st.raw_hits, 2); /* walk 5 repeats walk 3; walk 4 does not */
	assert_int_equal(st.frames, 10);
	assert_true(js.stack_traces > traces); /* walk 4's caller is another */
}

/* A SAMPLE record of the user stack PCS[0] <- PCS[1] <- ... (N pcs, at most 8). */
static void add_sample_pcs(struct env *e, const uint64_t *pcs, uint16_t n)
{
	uint64_t buf[(sizeof(struct lfr_rec_sample) + 8 * 8) / 8 + 1] = {0};
	struct lfr_rec_sample *s = (void *)buf;

	s->hdr.type = LFR_REC_SAMPLE;
	s->hdr.size = (uint32_t)(sizeof(*s) + n * 8);
	s->time_ns = ++e->t;
	s->tgid = TGID;
	s->tid = TGID;
	s->weight = 1;
	s->nr_user = n;
	memcpy(s->ips, pcs, n * 8);
	assert_int_equal(lfr_recorder_add(e->rec, &s->hdr), 0);
}

/*
 * A stack met for the first time whose frames were all met before, in other stacks, asks the
 * symbolizer for none of them; a new mapping of the process has them named again.
 */
static void test_frames_met_before_not_named_again(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller,
	          start = (uintptr_t)__libc_start_call_main;
	const uint64_t x[] = {leaf + 1, caller + 6, leaf + 4, start + 6},
	               y[] = {leaf + 1, leaf + 4, caller + 6, start + 6};
	struct lfr_recorder_stats st;
	struct lfr_sym_stats before, after;
	struct lfr_jfr_stats js;

	add_own_code_mapping(e);
	add_sample_pcs(e, x, 4);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_sym_get_stats(e->sym, &before);
	add_sample_pcs(e, y, 4);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_sym_get_stats(e->sym, &after);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(js.stack_traces, 2); /* another stack, */
	assert_int_equal(st.stack_hits, 0);
	assert_int_equal(st.unnamed, 0);
	assert_int_equal(after.lookups, before.lookups); /* of frames named before */

	/* the process maps something new over them: each is named again, and differently */
	before = after;
	add_self_mapping(e, leaf, "/nonexistent/replacement");
	add_sample_pcs(e, x, 4);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_sym_get_stats(e->sym, &after);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(after.lookups, before.lookups + 4);
	assert_int_equal(st.unnamed, 4);
	assert_int_equal(js.stack_traces, 3);
}

/*
 * A chain that ends with an invalid frame right after the thread's start code is whole (glibc has
 * no frame pointers there); one that ends so anywhere else, or at the depth limit, is truncated.
 */
static void test_chain_ending_at_thread_start_is_complete(void **state);

/*
 * JIT code that no perf map names yet (a JVM with -XX:+DumpPerfMapAtExit writes it at exit):
 * its samples wait, and are written named once the process has exited and its map is there.
 */
static void test_jit_samples_wait_for_the_map_written_at_exit(void **state)
{
	struct env *e = *state;
	char dir[] = "/tmp/lfr-recorder-jit-XXXXXX", map[64];
	struct lfr_sym_opts o = {.perf_map_dir = dir};
	struct lfr_rec_task exit = {
	    .hdr = {LFR_REC_TASK, sizeof(exit)}, .kind = LFR_TASK_EXIT, .tgid = TGID, .tid = TGID};
	uintptr_t caller = (uintptr_t)recorder_test_caller;
	struct lfr_recorder_stats st;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(map, sizeof(map), "%s/perf-%d.map", dir, TGID);
	lfr_recorder_free(e->rec);
	lfr_sym_free(e->sym);
	assert_int_equal(lfr_sym_new(&e->sym, &o), 0);
	assert_int_equal(lfr_recorder_new(&e->rec, e->w, e->sym), 0);
	add_own_code_mapping(e);
	add_anon_mapping(e);
	add_sample(e, 0x7f0000001010, caller + 6, 1);
	add_sample(e, 0x7f0000001020, caller + 6, 1);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	/* one more, held back a batch for its mapping: it meets the exit in the next one */
	add_sample(e, 0x7f0000001030, caller + 6, 1);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 0); /* no map: they wait */

	/* A map caught while the JVM writes it: the sample it names goes, the others wait. */
	f = fopen(map, "w");
	assert_non_null(f);
	fputs("0x00007f0000001000 0x0000000000000018 long Main.hot(long)\n", f);
	fclose(f);
	usleep(1100 * 1000); /* a live process's map is looked at once a second */
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.unnamed, 0);

	f = fopen(map, "a");
	assert_non_null(f);
	fputs("0x00007f0000001018 0x0000000000000028 long Main.hot(long)\n", f);
	fclose(f);
	/* the batch of the exit: its end reads the map at once */
	exit.time_ns = ++e->t;
	assert_int_equal(lfr_recorder_add(e->rec, &exit.hdr), 0);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.frames, 6);
	assert_int_equal(st.unnamed, 0); /* Main.hot from the map, the caller from this program */
	assert_int_equal(st.stack_hits, 2); /* the others find the first: the same method */
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	unlink(map);
	rmdir(dir);
}

/* A continuous recording does not wait: its chunks must hold their own time's samples. */
static void test_jit_samples_written_at_once_when_waiting_is_off(void **state)
{
	struct env *e = *state;
	struct lfr_recorder_stats st;

	lfr_recorder_jit_wait(e->rec, 0);
	add_own_code_mapping(e);
	add_anon_mapping(e);
	add_sample(e, 0x7f0000001010, (uintptr_t)recorder_test_caller + 6, 1);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.unnamed, 1);
}

static void test_chain_ending_at_thread_start_is_complete(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	uintptr_t root = (uintptr_t)__libc_start_call_main;
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;

	add_own_code_mapping(e);
	add_sample_flags(e, leaf + 1, root + 6, 1, LFR_SAMPLE_F_USER_BAD_FRAME);
	add_sample_flags(e, leaf + 2, root + 6, 1, LFR_SAMPLE_F_USER_BAD_FRAME); /* cached */
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.stack_hits, 1);
	assert_int_equal(st.unnamed, 0);
	assert_int_equal(st.incomplete, 0);

	add_sample_flags(e, leaf + 1, caller + 6, 1, LFR_SAMPLE_F_USER_BAD_FRAME);
	add_sample_flags(e, leaf + 1, root + 6, 1, LFR_SAMPLE_F_USER_TRUNCATED);
	add_sample_flags(e, leaf + 1, root + 6, 1,
	                 LFR_SAMPLE_F_USER_BAD_FRAME | LFR_SAMPLE_F_USER_FAULT);
	add_sample_flags(e, leaf + 2, root + 6, 1, LFR_SAMPLE_F_USER_BAD_FRAME); /* cached */
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.samples, 6);
	assert_int_equal(st.incomplete, 3);
	assert_int_equal(js.stack_traces, 3); /* whole; via caller; via root but truncated */
}

/*
 * A stack the kernel unwound from an unwind table (USER_CFI) is right as it is: the leaf rule is
 * not applied to it.  One that ended at code its table has no rule for (USER_NO_CFI) is
 * incomplete.
 */
static void test_table_unwound_stacks(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct lfr_recorder_stats st;

	add_own_code_mapping(e);
	/* after push %rbp the leaf rule needs the word at sp + 8, which is not there */
	add_tick(e, 0xe5, 0, 0);
	add_ustack_flags(e, 0xe5, leaf + 1, caller + 6, 0);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.leaf_uncertain, 1);
	add_tick(e, 0xe6, 0, 0);
	add_ustack_flags(e, 0xe6, leaf + 1, caller + 6, LFR_SAMPLE_F_USER_CFI);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.leaf_uncertain, 1);
	assert_int_equal(st.leaf_inserted, 0);
	assert_int_equal(st.incomplete, 0);
	add_tick(e, 0xe7, 0, 0);
	add_ustack_flags(e, 0xe7, leaf + 1, caller + 6,
	                 LFR_SAMPLE_F_USER_CFI | LFR_SAMPLE_F_USER_NO_CFI);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.incomplete, 1);
}

static void test_losses_account_for_every_tick(void **state)
{
	struct env *e = *state;
	struct lfr_counters total = {0};
	struct lfr_recorder_stats st;

	add_sample(e, 0x1000, 0x2000, 3);
	add_lost(e, LFR_LOST_RING_FULL, 5);
	add_lost(e, LFR_LOST_AUX_RING_FULL, 7); /* names lost, not ticks */
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	/* the module counted more losses than came in-band */
	total.present[LFR_CTR_LOST_FIRST + LFR_LOST_RING_FULL] = true;
	total.v[LFR_CTR_LOST_FIRST + LFR_LOST_RING_FULL] = 5;
	total.present[LFR_CTR_LOST_FIRST + LFR_LOST_EXIT] = true;
	total.v[LFR_CTR_LOST_FIRST + LFR_LOST_EXIT] = 4;
	assert_int_equal(lfr_recorder_account(e->rec, &total), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.lost_ticks[LFR_LOST_RING_FULL], 5);
	assert_int_equal(st.lost_ticks[LFR_LOST_EXIT], 4);
	assert_int_equal(st.lost_ticks[LFR_LOST_AUX_RING_FULL], 0);
	assert_int_equal(lfr_jfr_close(e->w, NULL, 0), 0);
	e->w = NULL;
}

/*
 * A recording that ended while its session was still draining: the ticks neither in samples nor
 * counted lost are written as lost "walk_pending", so that the file still accounts for each tick.
 */
static void test_pending_walks_at_the_end_are_accounted(void **state)
{
	struct env *e = *state;
	struct lfr_counters total = {0};
	struct lfr_recorder_stats st;

	add_sample(e, 0x1000, 0x2000, 3);
	add_lost(e, LFR_LOST_RING_FULL, 2);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	total.present[LFR_CTR_LOST_FIRST + LFR_LOST_RING_FULL] = true;
	total.v[LFR_CTR_LOST_FIRST + LFR_LOST_RING_FULL] = 2;
	total.present[LFR_CTR_LOST_FIRST + LFR_LOST_EXIT] = true;
	total.v[LFR_CTR_LOST_FIRST + LFR_LOST_EXIT] = 1;
	total.present[LFR_CTR_TICKS_MATCHED] = true;
	total.v[LFR_CTR_TICKS_MATCHED] = 3 + 2 + 1 + 7;
	assert_int_equal(lfr_recorder_account(e->rec, &total), 0);
	assert_int_equal(lfr_recorder_account_pending(e->rec, &total), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.lost_ticks[LFR_LOST_EXIT], 1);
	assert_int_equal(st.lost_pending, 7);
	/* idempotent: a second call finds everything accounted */
	assert_int_equal(lfr_recorder_account_pending(e->rec, &total), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.lost_pending, 7);
	assert_int_equal(lfr_jfr_close(e->w, NULL, 0), 0);
	e->w = NULL;
}

/*
 * Ticks and walks in every order: each tick is one event with its own time and kernel stack and
 * its walk's user stack; missed periods and walks that found no stack are losses, never copies
 * of a stack; a tick whose walk never came waits and is reported as unjoined.
 */
static void test_ticks_joined_with_their_walks(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;

	add_own_code_mapping(e);
	add_tick(e, 0xa1, 3, 0);                         /* walk a1: two ticks before its stack */
	add_tick(e, 0xa1, 0, 0xffffffff81000000);        /* the thread stayed in the kernel */
	add_ustack(e, 0xb2, 1, leaf + 2, caller + 6, 0); /* walk b2: the stack first */
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.events, 0);
	add_ustack(e, 0xa1, 2, leaf + 1, caller + 6, 0);
	add_tick(e, 0xb2, 0, 0);
	add_tick(e, 0xc3, 1, 0);
	add_ustack(e, 0xc3, 1, 0, 0, LFR_LOST_EXEC); /* exec'd before its walk */
	add_tick(e, 0xd4, 0, 0);                     /* given up: never walked */
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.lost_ticks[LFR_LOST_MISSED], 4);
	assert_int_equal(st.lost_ticks[LFR_LOST_EXEC], 1);
	assert_int_equal(st.unjoined, 1);
	assert_int_equal(js.stack_traces, 2); /* user only; with the kernel frame */

	/* the thread's rate: 3 samples for 3 + 4 missed periods of its CPU time */
	struct lfr_thread_rate top[2];

	assert_int_equal(lfr_recorder_busiest(e->rec, top, 2), 1);
	assert_int_equal(top[0].tid, TGID);
	assert_int_equal(top[0].samples, 3);
	assert_int_equal(top[0].missed, 4);
}

/* The USTACK record of walk WALK that carries its first tick: leaf_pc <- ret, TICKS in all. */
static void add_ustack_own(struct env *e, uint64_t walk, uint32_t ticks, uint64_t leaf_pc,
                           uint64_t ret)
{
	uint64_t buf[(sizeof(struct lfr_rec_ustack) + 2 * 8) / 8] = {0};
	struct lfr_rec_ustack *u = (void *)buf;

	u->hdr.type = LFR_REC_USTACK;
	u->hdr.size = sizeof(buf);
	u->walk_id = walk;
	u->time_ns = ++e->t;
	u->tgid = TGID;
	u->tid = TGID;
	u->ticks = ticks;
	u->flags = LFR_USTACK_F_TICK | LFR_SAMPLE_F_USER_CFI;
	u->nr_user = 2;
	u->ips[0] = leaf_pc;
	u->ips[1] = ret;
	assert_int_equal(lfr_recorder_add(e->rec, &u->hdr), 0);
}

/*
 * Stacks that carry their walk's first tick: one sample each, with the walk's other ticks, and
 * one held back a batch for its leaf's mapping (replayed as a tick and a stack of their own).
 */
static void test_stacks_carrying_their_tick(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;

	add_own_code_mapping(e);
	add_ustack_own(e, 0xe5, 1, leaf + 2, caller + 6);
	add_tick(e, 0xf6, 0, 0xffffffff81000000); /* a later tick, in the kernel */
	add_ustack_own(e, 0xf6, 2, leaf + 1, caller + 6);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.unjoined, 0);

	add_ustack_own(e, 0x107, 1, 0x7e0000001010, caller + 6); /* no mapping yet */
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.deferred, 1);
	/* the next batches hold theirs in the buffer the previous held ones were applied from */
	for (uint64_t i = 1; i <= 2; i++) {
		add_ustack_own(e, 0x107 + 0x11 * i, 1, 0x7e0000001010 + 0x1000 * i, caller + 6);
		assert_int_equal(lfr_recorder_process(e->rec, false), 0);
		lfr_recorder_get_stats(e->rec, &st);
		assert_int_equal(st.samples, 3 + i);
		assert_int_equal(st.deferred, 1 + i);
	}
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.samples, 6);
	assert_int_equal(st.events, 6);
	assert_int_equal(st.unjoined, 0);
	assert_int_equal(js.stack_traces, 5);
}

/*
 * A process seen only through its stacks: a thread that runs in user space queues its walks
 * without TICK records (each USTACK carries its tick), and the recorder must still look at its
 * process, whose command line (jdk.SystemProcess) and cgroups (lfr.Label) are read from /proc
 * when it first appears.  This test's own process is that one: its command line is in the file.
 */
static void test_process_seen_by_its_stacks_only(void **state)
{
	struct env *e = *state;
	uint64_t buf[(sizeof(struct lfr_rec_ustack) + 2 * 8) / 8] = {0};
	struct lfr_rec_ustack *u = (void *)buf;
	char arg0[4096] = "", *file;
	size_t len;
	FILE *f = fopen("/proc/self/cmdline", "r");

	assert_non_null(f);
	assert_true(fread(arg0, 1, sizeof(arg0) - 1, f) > 0);
	fclose(f);
	u->hdr.type = LFR_REC_USTACK;
	u->hdr.size = sizeof(buf);
	u->walk_id = 0x99;
	u->time_ns = ++e->t;
	u->tgid = u->tid = (uint32_t)getpid();
	u->ticks = 1;
	u->flags = LFR_USTACK_F_TICK;
	u->nr_user = 2;
	u->ips[0] = (uintptr_t)recorder_test_leaf + 1;
	u->ips[1] = (uintptr_t)recorder_test_caller + 6;
	assert_int_equal(lfr_recorder_add(e->rec, &u->hdr), 0);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	assert_int_equal(lfr_jfr_close(e->w, NULL, 0), 0);
	e->w = NULL;
	f = fopen(e->path, "r");
	assert_non_null(f);
	file = calloc(1, 1 << 20);
	assert_non_null(file);
	len = fread(file, 1, 1 << 20, f);
	fclose(f);
	if (!memmem(file, len, arg0, strlen(arg0)))
		fail_msg("the command line %s of the process is not in the file", arg0);
	free(file);
}

/* An OFFCPU record of walk WALK: DUR ns off the CPU in STATE, one kernel frame KPC. */
static void add_offcpu(struct env *e, uint64_t walk, uint64_t dur, uint32_t state, uint64_t kpc)
{
	uint64_t buf[(sizeof(struct lfr_rec_offcpu) + 8) / 8] = {0};
	struct lfr_rec_offcpu *o = (void *)buf;

	o->hdr.type = LFR_REC_OFFCPU;
	o->hdr.size = sizeof(buf);
	o->start_ns = ++e->t;
	e->t += dur;
	o->time_ns = e->t;
	o->walk_id = walk;
	o->tgid = TGID;
	o->tid = TGID;
	o->state = state;
	o->short_count = 7;
	o->short_ns = 700;
	o->nr_kernel = 1;
	o->ips[0] = kpc;
	assert_int_equal(lfr_recorder_add(e->rec, &o->hdr), 0);
}

/* Closes the test's recording and reads it back as lfr report does with O. */
static struct report *closed_file_report(struct env *e, const struct report_opts *o)
{
	struct report *rep = NULL;
	struct jfr_reader *r;
	char err[256];

	assert_int_equal(lfr_jfr_close(e->w, NULL, 0), 0);
	e->w = NULL;
	r = jfr_open_file(e->path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(report_read(r, o, &rep), 0);
	jfr_close(r);
	return rep;
}

/*
 * The writer forgets the stacks no recent chunk used once they are most of its pools (a burst of
 * 4 096 distinct stacks, then chunks of one other stack): a stack of the burst's time met again,
 * which the recorder's caches still know by its addresses, is written under a new key, its caches
 * of keys started over; without that the old key was refused ("unknown stack key").
 */
static void test_stacks_the_writer_forgot_named_again(void **state)
{
	struct env *e = *state;
	const uint64_t fn[4] = {(uintptr_t)recorder_test_leaf + 4,
	                        (uintptr_t)recorder_test_caller + 4, (uintptr_t)add_tick + 4,
	                        (uintptr_t)add_sample + 4};
	const uint64_t a[2] = {fn[0], fn[1]}, b[2] = {fn[1], fn[0]};
	struct lfr_jfr_options opt = {.max_chunk_age_ns = 1}; /* a chunk per flush */
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;
	struct report_opts o;
	struct report *rep;

	lfr_recorder_free(e->rec);
	lfr_jfr_abandon(e->w);
	assert_int_equal(lfr_jfr_open(&e->w, e->path, &opt), 0);
	assert_int_equal(lfr_recorder_new(&e->rec, e->w, e->sym), 0);
	add_own_code_mapping(e);
	add_sample_pcs(e, a, 2);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	assert_int_equal(lfr_jfr_flush(e->w), 0);
	for (unsigned i = 0; i < 4096; i++) {
		uint64_t pcs[6];

		for (unsigned d = 0; d < 6; d++)
			pcs[d] = fn[(i >> (2 * d)) & 3];
		add_sample_pcs(e, pcs, 6);
	}
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	assert_int_equal(lfr_jfr_flush(e->w), 0);
	for (unsigned i = 0; i < 5; i++) {
		add_sample_pcs(e, b, 2);
		assert_int_equal(lfr_recorder_process(e->rec, false), 0);
		assert_int_equal(lfr_jfr_flush(e->w), 0);
	}
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(js.sweeps, 1);
	assert_true(js.stack_traces < 10);
	add_sample_pcs(e, a, 2);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.key_cache_restarts, 1);
	assert_int_equal(st.samples, 1 + 4096 + 5 + 1);
	report_opts_init(&o);
	rep = closed_file_report(e, &o);
	assert_int_equal(rep->total, 1 + 4096 + 5 + 1);
	report_free(rep);
}

/*
 * A CPU sample's jdk.ExecutionSample is in async-profiler's STATE_DEFAULT, the state by which its
 * converter tells a CPU sampler's samples from wall-clock ones (jfrconv --cpu selects it alone).
 */
static void test_cpu_samples_in_state_default(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct report_opts o;
	struct report *rep;

	add_own_code_mapping(e);
	add_sample(e, leaf + 1, caller + 6, 1);
	add_sample_in_kernel(e, 0xffffffff81000000, leaf + 2, caller + 6);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	report_opts_init(&o);
	o.states = true;
	rep = closed_file_report(e, &o);
	assert_int_equal(rep->total, 2);
	assert_int_equal(rep->nstates, 1);
	assert_string_equal(rep->states[0].name, "STATE_DEFAULT");
	assert_int_equal(rep->states[0].value, 2);
	report_free(rep);
}

/*
 * Below a kernel stack, the user stack's leaf moving inside its function (a page fault's pc, say)
 * finds the stack written before by the two leaves' methods; another user leaf function, or
 * another caller, is another stack.
 */
static void test_user_leaf_below_the_kernel_cached_by_method(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	uintptr_t start = (uintptr_t)__libc_start_call_main;
	uint64_t kpc = 0xffffffff81000100ull;
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;
	struct report_opts o;
	struct report *rep;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	add_own_code_mapping(e);
	add_sample_in_kernel(e, kpc, leaf + 1, caller + 6);
	add_sample_in_kernel(e, kpc, leaf + 2, caller + 6);
	add_sample_in_kernel(e, kpc, leaf + 3, caller + 6);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.stack_hits, 2);
	assert_int_equal(st.frames, 9);
	assert_int_equal(js.stack_traces, 1);

	/* the user leaf in another function; then the first leaf with another caller */
	add_sample_in_kernel(e, kpc, caller + 1, start + 6);
	add_sample_in_kernel(e, kpc, leaf + 1, start + 6);
	add_sample_in_kernel(e, kpc, leaf + 4, start + 6);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.samples, 6);
	assert_int_equal(st.stack_hits, 3);
	assert_int_equal(js.stack_traces, 3);
	report_opts_init(&o);
	rep = closed_file_report(e, &o);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	report_print_collapsed(rep, &o, f);
	fclose(f);
	/* the samples found in the cache carry their own user leaf's function */
	assert_non_null(strstr(text, "recorder_test_caller;recorder_test_leaf"));
	assert_non_null(strstr(text, "__libc_start_call_main;recorder_test_caller"));
	assert_non_null(strstr(text, "__libc_start_call_main;recorder_test_leaf"));
	report_free(rep);
	free(text);
}

/*
 * Off-CPU intervals join their walks as ticks do: one shares its walk with a tick (the USTACK
 * counts both), one comes after its stack, one's walk found no stack; they become lfr.OffCpu events
 * that lfr report --off-cpu sums by duration, apart from the CPU sample.
 */
static void test_offcpu_joined_with_their_walks(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct lfr_recorder_stats st;
	struct report_opts o;
	struct report *rep;

	add_own_code_mapping(e);
	add_tick(e, 0xa1, 0, 0xffffffff81000000);
	add_offcpu(e, 0xa1, 300000000, LFR_OFFCPU_SLEEPING, 0xffffffff81000010);
	add_ustack(e, 0xa1, 2, leaf + 1, caller + 6, 0);
	add_ustack(e, 0xb2, 1, leaf + 2, caller + 6, 0);
	add_offcpu(e, 0xb2, 200000000, LFR_OFFCPU_UNINTERRUPTIBLE, 0xffffffff81000020);
	add_offcpu(e, 0xc3, 5000000, LFR_OFFCPU_SLEEPING, 0xffffffff81000030);
	add_ustack(e, 0xc3, 1, 0, 0, LFR_LOST_EXIT);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.off_cpu, 2);
	assert_int_equal(st.off_cpu_ns, 500000000);
	assert_int_equal(st.off_cpu_lost, 1);
	assert_int_equal(st.unjoined, 0);
	assert_int_equal(st.lost_ticks[LFR_LOST_EXIT], 0); /* an interval is not a tick */
	report_opts_init(&o);
	o.off_cpu = true;
	o.events[o.nevents++] = "lfr.OffCpu";
	o.value_field = "duration";
	rep = closed_file_report(e, &o);
	assert_int_equal(rep->total, 500000000);
	assert_int_equal(rep->matched_events, 2);
	report_free(rep);
}

/*
 * --wall: off-CPU intervals become one profiler.WallClockSample per period of a thread's time off
 * the CPU, the remainder carried to its next interval (3.5 + 2.5 periods: 3 + 3 samples, sleeping
 * and runnable); lfr.OffCpu events only at --off-cpu's minimum.  The CPU sample is a wall-clock
 * sample too (runnable), written by the writer of lfr record --wall (LFR_JFR_SAMPLE_WALL): lfr
 * report --wall counts the 7 wall-clock samples, not the CPU sample, which lfr report counts.
 */
static void test_wall_samples_of_offcpu_time(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct lfr_jfr_options jo = {.sample_events = LFR_JFR_SAMPLE_WALL};
	struct lfr_recorder_stats st;
	struct report_opts o;
	struct report *rep;
	struct jfr_reader *r;
	char err[256];

	lfr_recorder_free(e->rec);
	lfr_jfr_abandon(e->w);
	assert_int_equal(lfr_jfr_open(&e->w, e->path, &jo), 0);
	assert_int_equal(lfr_recorder_new(&e->rec, e->w, e->sym), 0);
	lfr_recorder_set_period(e->rec, 1000000);
	lfr_recorder_set_wall(e->rec, 3000000);
	add_own_code_mapping(e);
	add_tick(e, 0xa1, 0, 0xffffffff81000000);
	add_offcpu(e, 0xa1, 3500000, LFR_OFFCPU_SLEEPING, 0xffffffff81000010);
	add_ustack(e, 0xa1, 2, leaf + 1, caller + 6, 0);
	add_offcpu(e, 0xb2, 2500000, LFR_OFFCPU_PREEMPTED, 0xffffffff81000020);
	add_ustack(e, 0xb2, 1, leaf + 2, caller + 6, 0);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.wall_samples, 6);
	assert_int_equal(st.off_cpu, 1); /* the 2.5 ms interval is below the 3 ms minimum */
	report_opts_init(&o);
	report_opts_wall(&o);
	o.states = true;
	rep = closed_file_report(e, &o);
	assert_int_equal(rep->total, 7);
	assert_int_equal(rep->nstates, 2);
	for (size_t i = 0; i < rep->nstates; i++)
		assert_int_equal(rep->states[i].value,
		                 strcmp(rep->states[i].name, "STATE_SLEEPING") ? 4 : 3);
	report_free(rep);
	/* the CPU samples are the jdk.ExecutionSample events alone */
	report_opts_init(&o);
	r = jfr_open_file(e->path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(report_read(r, &o, &rep), 0);
	jfr_close(r);
	assert_int_equal(rep->total, 1);
	report_free(rep);
}

/* The LATENCY record of walk WALK: its tick at TICK, the walk DUR ns later. */
static void add_latency(struct env *e, uint64_t walk, uint64_t tick, uint64_t dur)
{
	struct lfr_rec_latency l = {.hdr = {LFR_REC_LATENCY, sizeof(l)},
	                            .time_ns = tick + dur,
	                            .tick_ns = tick,
	                            .walk_id = walk,
	                            .tgid = TGID,
	                            .tid = TGID};

	assert_int_equal(lfr_recorder_add(e->rec, &l.hdr), 0);
}

/*
 * Sampling latencies are written with the sample of their walk's first tick (its kernel stack and
 * the walk's user stack): one whose tick is read before its walk, one whose tick comes after it
 * (another CPU's ring) with a stack named before, and one whose tick was lost, counted apart. lfr
 * report --latency sums them by duration and lists the longest first.
 */
static void test_latency_written_with_its_first_tick(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct lfr_recorder_stats st;
	struct report_opts o;
	struct report *rep;
	char *text = NULL;
	size_t len = 0;
	uint64_t t1, t2;
	FILE *f;

	add_own_code_mapping(e);
	add_tick(e, 0xa1, 0, 0xffffffff81000000);
	t1 = e->t;
	add_tick(e, 0xa1, 0, 0xffffffff81000010); /* merged: the thread stayed in the kernel */
	add_latency(e, 0xa1, t1, 5000000);
	add_ustack(e, 0xa1, 2, leaf + 1, caller + 6, 0);
	e->t += 10;
	t2 = e->t + 1;
	add_latency(e, 0xb2, t2, 2000000);
	add_ustack(e, 0xb2, 1, leaf + 1, caller + 6, 0);
	add_tick(e, 0xb2, 0, 0xffffffff81000000);
	assert_int_equal(e->t, t2);
	add_latency(e, 0xc3, e->t + 5, 3000000);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.latencies, 2);
	assert_int_equal(st.latency_ns, 7000000);
	assert_int_equal(st.latency_max_ns, 5000000);
	assert_int_equal(st.latency_unmatched, 1);
	report_opts_init(&o);
	o.latency = true;
	o.timeline = true;
	o.events[o.nevents++] = "lfr.SamplingLatency";
	o.value_field = "duration";
	rep = closed_file_report(e, &o);
	assert_int_equal(rep->total, 7000000);
	assert_int_equal(rep->matched_events, 2);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	report_print_text(rep, &o, f);
	fclose(f);
	/* the longest first, each with the kernel function its tick interrupted */
	const char *longest = strstr(text, "Longest sampling latencies");
	assert_non_null(longest);
	const char *first = strstr(longest, "5.000"), *second = strstr(longest, "2.000");
	assert_non_null(first);
	assert_non_null(second);
	assert_true(first < second);
	report_free(rep);
	free(text);
}

/* A TASK record of KIND for the test's thread at time WHEN, naming it COMM. */
static void add_task(struct env *e, uint32_t kind, uint64_t when, const char *comm)
{
	struct lfr_rec_task k = {.hdr = {LFR_REC_TASK, sizeof(k)},
	                         .time_ns = when,
	                         .kind = kind,
	                         .tgid = TGID,
	                         .tid = TGID};

	snprintf(k.comm, sizeof(k.comm), "%s", comm);
	assert_int_equal(lfr_recorder_add(e->rec, &k.hdr), 0);
}

/*
 * USTACK records lost to a full ring: the tick of a walk whose thread walked again is given up
 * once every ring was read twice more (lfr_recorder_read()), and the tick of a thread that exited
 * a grace period after its exit; each counted by its reason, none left waiting.
 */
static void test_lost_stacks_given_up(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct lfr_recorder_stats st;

	add_own_code_mapping(e);
	add_tick(e, 0x11, 0, 0); /* its USTACK record lost */
	add_tick(e, 0x12, 0, 0); /* the thread's next walk */
	add_ustack(e, 0x12, 1, leaf + 1, caller + 6, 0);
	assert_int_equal(lfr_recorder_read(e->rec, e->t), 0);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.join_lost.ticks_superseded,
	                 0); /* its record may be on a ring read next */
	assert_int_equal(lfr_recorder_read(e->rec, e->t + 1), 0);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.join_lost.ticks_superseded, 1);

	add_tick(e, 0x13, 0, 0); /* the thread's last walk, its USTACK record lost too */
	add_task(e, LFR_TASK_EXIT, e->t + 1, "worker");
	assert_int_equal(lfr_recorder_read(e->rec, e->t + 2), 0);
	assert_int_equal(lfr_recorder_read(e->rec, e->t + 2 + LFR_JOIN_EXIT_GRACE_NS), 0);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.join_lost.ticks_exited, 1);
	assert_int_equal(st.join_lost.ticks_superseded, 1);
	assert_int_equal(st.unjoined, 0);
	assert_int_equal(st.samples, 1);
}

/* A TASK record of KIND for thread TID of process TGID at WHEN, naming it COMM. */
static void add_task_of(struct env *e, uint32_t kind, uint32_t tgid, uint32_t tid, uint64_t when,
                        const char *comm)
{
	struct lfr_rec_task k = {.hdr = {LFR_REC_TASK, sizeof(k)},
	                         .time_ns = when,
	                         .kind = kind,
	                         .tgid = tgid,
	                         .tid = tid,
	                         .ptgid = kind == LFR_TASK_FORK ? 1 : 0};

	snprintf(k.comm, sizeof(k.comm), "%s", comm);
	assert_int_equal(lfr_recorder_add(e->rec, &k.hdr), 0);
}

/* An MMAP record of a page of /bin/true at 0x400000 in TGID at WHEN. */
static void add_true_mapping(struct env *e, uint32_t tgid, uint64_t when)
{
	uint64_t buf[(sizeof(struct lfr_rec_mmap) + 16) / 8] = {0};
	struct lfr_rec_mmap *m = (void *)buf;

	m->hdr.type = LFR_REC_MMAP;
	m->hdr.size = sizeof(buf);
	m->time_ns = when;
	m->tgid = tgid;
	m->flags = LFR_MMAP_F_EXEC;
	m->start = 0x400000;
	m->end = 0x401000;
	memcpy(m->path, "/bin/true", sizeof("/bin/true"));
	assert_int_equal(lfr_recorder_add(e->rec, &m->hdr), 0);
}

/*
 * Threads and processes that exited are forgotten EXITED_KEEP_NS (30 s) after their exit, their
 * mappings with them (an always-on recorder kept them all); the busiest threads forgotten still
 * count among the busiest; a pid used again before then is not forgotten at its old exit; the
 * labels of the processes forgotten go with them.
 */
static void test_exited_threads_and_processes_forgotten(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	const uint64_t s = 1000000000ull, t0 = e->t;
	struct lfr_thread_rate top[2];
	struct lfr_sym_stats ss;
	struct lfr_jfr_stats js;
	const char *service[] = {"service.name", "short.service"};

	add_own_code_mapping(e);
	add_task(e, LFR_TASK_FORK, t0, "busy");
	add_tick(e, 0x21, 0, 0);
	add_ustack(e, 0x21, 1, leaf + 1, caller + 6, 0);
	add_task(e, LFR_TASK_EXIT, t0 + s, "busy");
	/* a pid that exits and is used again a second later, for a process that stays */
	add_task_of(e, LFR_TASK_FORK, 9000, 9000, t0 + s, "first");
	add_true_mapping(e, 9000, t0 + s);
	add_task_of(e, LFR_TASK_EXIT, 9000, 9000, t0 + s + 1000, "first");
	add_task_of(e, LFR_TASK_FORK, 9000, 9000, t0 + 2 * s, "again");
	add_true_mapping(e, 9000, t0 + 2 * s);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	/* a process a second for 100 s, each mapped, with a thread, and exiting */
	for (uint32_t i = 0; i < 100; i++) {
		uint64_t at = t0 + (3 + i) * s;

		add_task_of(e, LFR_TASK_FORK, 7000 + i, 7000 + i, at, "short");
		add_true_mapping(e, 7000 + i, at);
		/* as its cgroup would have labelled it (a service's process) */
		assert_int_equal(lfr_jfr_labels(e->w, at, 7000 + i, service, 1), 0);
		add_task_of(e, LFR_TASK_FORK, 7000 + i, 17000 + i, at + 10, "worker");
		add_task_of(e, LFR_TASK_EXIT, 7000 + i, 17000 + i, at + 20, "worker");
		add_task_of(e, LFR_TASK_EXIT, 7000 + i, 7000 + i, at + 30, "short");
		if (i % 10 == 9)
			assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	}
	/* those that exited in the last 30 s are known, none before: 30 or 31 of the 100, and 9000
	 */
	lfr_sym_get_stats(e->sym, &ss);
	assert_in_range(ss.procs, 31, 32);
	assert_false(lfr_sym_in_file(e->sym, 7000, 0x400800));
	assert_true(lfr_sym_in_file(e->sym, 7099, 0x400800));
	assert_true(lfr_sym_in_file(e->sym, 9000, 0x400800));
	/* and the JFR writer holds their threads only (two of each process, 9000's), not the 203
	 * that were written, once a flush has written the last events of those forgotten */
	assert_int_equal(lfr_jfr_flush(e->w), 0);
	lfr_jfr_get_stats(e->w, &js);
	assert_in_range(js.threads, 61, 65);
	/* and the labels of those 30 or 31 processes only */
	assert_in_range(js.labelled, 30, 31);
	/* the busy thread, forgotten, is still the busiest, by its name */
	assert_int_equal(lfr_recorder_busiest(e->rec, top, 2), 1);
	assert_int_equal(top[0].tid, TGID);
	assert_int_equal(top[0].samples, 1);
	assert_string_equal(top[0].comm, "busy");
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
}

/*
 * Rings are read one CPU after another: a short thread's exit (read from its own CPU's ring) may
 * be applied before its creation (from its parent's): the exit stands, and the thread and its
 * process are forgotten 30 s later all the same (they were held for good, about a third of the
 * threads of a churning workload).  A process whose thread other than the main one execs lives
 * on under its id, though its main thread's exit was read (its mappings were forgotten with it).
 * A machine gone quiet forgets too: a read of the rings moves the recorder's clock.
 */
static void test_exits_read_before_their_creation_forgotten(void **state)
{
	struct env *e = *state;
	const uint64_t s = 1000000000ull, t0 = e->t;
	struct lfr_sym_stats ss;
	struct lfr_jfr_stats js;

	/* a process whose second thread execs: its main thread exits first (the kernel's exec
	 * takes it down), and the exec'ing thread goes on under the main one's id; the records
	 * read in that order (8000) and the other (8100) */
	for (uint32_t pid = 8000; pid <= 8100; pid += 100) {
		add_task_of(e, LFR_TASK_FORK, pid, pid, t0, "execs");
		add_task_of(e, LFR_TASK_FORK, pid, pid + 1, t0 + 10, "execs");
		if (pid == 8000)
			add_task_of(e, LFR_TASK_EXIT, pid, pid, t0 + 20, "execs");
		add_task_of(e, LFR_TASK_EXEC, pid, pid, t0 + 30, "new-image");
		if (pid == 8100)
			add_task_of(e, LFR_TASK_EXIT, pid, pid, t0 + 20, "execs");
		add_true_mapping(e, pid, t0 + 40);
		assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	}
	for (uint32_t i = 0; i < 100; i++) {
		uint64_t at = t0 + (1 + i) * s;

		add_task_of(e, LFR_TASK_EXIT, 7000 + i, 17000 + i, at + 20, "worker");
		add_task_of(e, LFR_TASK_EXIT, 7000 + i, 7000 + i, at + 30, "short");
		add_task_of(e, LFR_TASK_FORK, 7000 + i, 7000 + i, at, "short");
		add_true_mapping(e, 7000 + i, at);
		add_task_of(e, LFR_TASK_FORK, 7000 + i, 17000 + i, at + 10, "worker");
		assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	}
	/* those that exited in the last 30 s are known, none before, and the two that exec'd */
	lfr_sym_get_stats(e->sym, &ss);
	assert_in_range(ss.procs, 32, 33);
	assert_true(lfr_sym_in_file(e->sym, 8000, 0x400800));
	assert_true(lfr_sym_in_file(e->sym, 8100, 0x400800));
	assert_false(lfr_sym_in_file(e->sym, 7000, 0x400800));
	assert_true(lfr_sym_in_file(e->sym, 7099, 0x400800));
	assert_int_equal(lfr_jfr_flush(e->w), 0);
	lfr_jfr_get_stats(e->w, &js);
	assert_in_range(js.threads, 62, 67);
	/* then no exit for a minute, the rings read: the rest is forgotten all the same */
	assert_int_equal(lfr_recorder_read(e->rec, t0 + 170 * s), 0);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_sym_get_stats(e->sym, &ss);
	assert_int_equal(ss.procs, 2);
	assert_int_equal(lfr_jfr_flush(e->w), 0);
	lfr_jfr_get_stats(e->w, &js);
	assert_in_range(js.threads, 2, 4);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
}

/*
 * A thread other than the main one that execs runs on under the main one's id: the module's EXEC
 * record names the id it leaves (ptid), which has no EXIT of its own.  That id's jdk.ThreadEnd is
 * written, and it is forgotten like an exited thread's; the process lives on.
 */
static void test_exec_by_a_second_thread_ends_its_id(void **state)
{
	struct env *e = *state;
	const uint64_t s = 1000000000ull, t0 = e->t;
	struct lfr_rec_task k = {.hdr = {LFR_REC_TASK, sizeof(k)},
	                         .time_ns = t0 + 30,
	                         .kind = LFR_TASK_EXEC,
	                         .tgid = 9000,
	                         .tid = 9000,
	                         .ptid = 9001};
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;
	struct lfr_sym_stats ss;

	add_task_of(e, LFR_TASK_FORK, 9000, 9000, t0, "execs");
	add_task_of(e, LFR_TASK_FORK, 9000, 9001, t0 + 10, "execs");
	add_task_of(e, LFR_TASK_EXIT, 9000, 9000, t0 + 20, "execs");
	snprintf(k.comm, sizeof(k.comm), "new-image");
	assert_int_equal(lfr_recorder_add(e->rec, &k.hdr), 0);
	add_true_mapping(e, 9000, t0 + 40);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.thread_starts, 2);
	assert_int_equal(st.thread_ends, 2);
	/* a minute later the id left is forgotten, the process and its main thread are not */
	assert_int_equal(lfr_recorder_read(e->rec, t0 + 60 * s), 0);
	assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	assert_int_equal(lfr_jfr_flush(e->w), 0);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(js.threads, 1);
	lfr_sym_get_stats(e->sym, &ss);
	assert_int_equal(ss.procs, 1);
	assert_true(lfr_sym_in_file(e->sym, 9000, 0x400800));
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
}

/*
 * A burst of exits (3 000 processes of two threads in 3 s), once forgotten, gives its memory
 * back once (the tables made small, the heap trimmed: heap_trims), while later single exits
 * give nothing back; a thread that lived through it still has its samples and its name.
 */
static void test_burst_of_exits_given_back(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	const uint64_t ms = 1000000ull, t0 = e->t;
	struct lfr_recorder_stats st;
	struct lfr_thread_rate top[1];

	add_own_code_mapping(e);
	add_task(e, LFR_TASK_FORK, t0, "lives");
	for (uint32_t i = 0; i < 3000; i++) {
		uint64_t at = t0 + i * ms;

		add_task_of(e, LFR_TASK_FORK, 300000 + i, 300000 + i, at, "burst");
		add_task_of(e, LFR_TASK_FORK, 300000 + i, 400000 + i, at + 10, "burst-worker");
		add_task_of(e, LFR_TASK_EXIT, 300000 + i, 400000 + i, at + 20, "burst-worker");
		add_task_of(e, LFR_TASK_EXIT, 300000 + i, 300000 + i, at + 30, "burst");
		if (i % 100 == 99)
			assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	}
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.heap_trims, 0);
	/* then a process a second for a minute: the burst is forgotten 30 s after it */
	for (uint32_t i = 0; i < 60; i++) {
		uint64_t at = t0 + (4 + i) * 1000 * ms;

		add_task_of(e, LFR_TASK_FORK, 500000 + i, 500000 + i, at, "calm");
		add_task_of(e, LFR_TASK_EXIT, 500000 + i, 500000 + i, at + 10, "calm");
		assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	}
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.heap_trims, 1);
	/* the thread that lived through it, found again in the tables made small */
	e->t = t0 + 65 * 1000 * ms;
	add_tick(e, 0x31, 0, 0);
	add_ustack(e, 0x31, 1, leaf + 1, caller + 6, 0);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 1);
	assert_int_equal(lfr_recorder_busiest(e->rec, top, 1), 1);
	assert_int_equal(top[0].tid, TGID);
	assert_string_equal(top[0].comm, "lives");
}

/*
 * The reading side looks at a process (reads its command line) on its first record, and forgets
 * it at its end: a pid used again is looked at anew, and what it holds is the living (it held
 * every process that ever ran); a record read after its process ended and was reaped leaves
 * nothing behind either.
 */
static void test_processes_looked_at_until_they_end(void **state)
{
	struct env *e = *state;
	struct lfr_recorder_stats st;
	uint32_t self = (uint32_t)getpid(), gone;
	pid_t child = fork();

	assert_true(child >= 0);
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	gone = (uint32_t)child; /* reaped: no /proc entry (unless its pid is taken again at once) */
	e->tgid = self;
	add_task_of(e, LFR_TASK_FORK, self, self, ++e->t, "first");
	add_tick(e, 1, 0, 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.looked, 1);
	add_task_of(e, LFR_TASK_EXIT, self, self, ++e->t, "first");
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.looked, 0);
	/* the pid again: looked at anew */
	add_task_of(e, LFR_TASK_FORK, self, self, ++e->t, "again");
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.looked, 1);
	/* 10 000 processes that came and went: none kept */
	for (uint32_t i = 0; i < 10000; i++) {
		uint32_t pid = 4000000 + i;

		add_task_of(e, LFR_TASK_FORK, pid, pid, ++e->t, "short");
		add_task_of(e, LFR_TASK_EXIT, pid, pid, ++e->t, "short");
	}
	/* a tick of a process reaped before it was read */
	e->tgid = gone;
	add_tick(e, 2, 0, 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.looked, 1);
	e->tgid = TGID;
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
}

/* PROCS processes EVERY_MS apart from T0, each with two samples of one stack, exiting at once. */
static void short_processes_with_stacks(struct env *e, uint32_t procs, uint64_t every_ms,
                                        size_t *peak_entries)
{
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	const uint64_t ms = 1000000ull, t0 = e->t;
	struct lfr_recorder_stats st;
	char self[256];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	assert_true(len > 0);
	self[len] = '\0';
	for (uint32_t i = 0; i < procs; i++) {
		e->t = t0 + i * every_ms * ms;
		e->tgid = 100000 + i;
		add_task_of(e, LFR_TASK_FORK, e->tgid, e->tgid, e->t, "short");
		add_self_mapping(e, leaf, self);
		for (uint64_t w = 1; w <= 2; w++) {
			add_tick(e, w, 0, 0);
			add_ustack(e, w, 1, leaf + 1, caller + 6, 0);
		}
		add_task_of(e, LFR_TASK_EXIT, e->tgid, e->tgid, e->t + 10, "short");
		if (i % 100 == 99) {
			assert_int_equal(lfr_recorder_process(e->rec, false), 0);
			lfr_recorder_get_stats(e->rec, &st);
			if (st.stack_cache_entries > *peak_entries)
				*peak_entries = st.stack_cache_entries;
		}
	}
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.samples, 2 * procs);
	assert_int_equal(st.raw_hits, procs);
}

/*
 * The stack caches, filled by processes that are gone, start over and give back their pages
 * once most of what they hold is of processes forgotten: a process every 5 ms for 80 s, each
 * with one stack (a cache entry in each cache, its second sample a hit); without it both caches
 * held all 16 000 processes' stacks (32 000 entries) and their pages for ever.
 */
static void test_stack_caches_of_forgotten_processes_given_back(void **state)
{
	struct env *e = *state;
	struct lfr_recorder_stats st;
	size_t peak = 0;

	short_processes_with_stacks(e, 16000, 5, &peak);
	/* from 60 s on most entries were of processes forgotten (exited 30 s before); by then the
	 * caches had outgrown their prepared part (8 192 entries each, at 41 s): both started over
	 * and gave back what lay beyond it, then held the 4 100 processes since, 2 entries each */
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.stack_cache_releases, 1);
	assert_int_equal(st.stack_cache_restarts, 1);
	assert_in_range(st.stack_cache_entries, 2 * 4000, 2 * 4200);
	assert_in_range(peak, 2 * 11800, 2 * 12100);
	e->tgid = TGID;
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
}

/*
 * A process every 50 ms for 300 s (an always-on recorder's machine where a job starts every few
 * seconds, tenfold): the caches never outgrow their prepared part, and start over whenever the
 * dead hold 2 048 entries and most of what they hold: every 81 s (30 s until the first of the
 * processes since is forgotten, 51 s for 1 024 of them), at 3 300 entries or fewer, where they
 * filled with the dead (12 000 entries by 300 s), a page more of the prepared part written
 * every few stacks.
 */
static void test_stack_caches_start_over_within_their_prepared_part(void **state)
{
	struct env *e = *state;
	struct lfr_recorder_stats st;
	size_t peak = 0;

	short_processes_with_stacks(e, 6000, 50, &peak);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.stack_cache_releases, 0);
	assert_int_equal(st.stack_cache_restarts, 3);
	assert_in_range(peak, 3000, 3300);
	e->tgid = TGID;
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
}

/*
 * A thread renamed right after its exec, the rename read first (another CPU's ring) and the exec
 * after it, in the same round or the next: the thread keeps the later name.
 */
/* One sample of walk WALK (none when 0) in a round of reading; the thread's name after it. */
static const char *round_name(struct env *e, uint64_t walk, bool final)
{
	static struct lfr_thread_rate top[1];

	if (walk) {
		add_tick(e, walk, 0, 0);
		add_ustack(e, walk, 1, (uintptr_t)recorder_test_leaf + 1,
		           (uintptr_t)recorder_test_caller + 6, 0);
	}
	assert_int_equal(lfr_recorder_process(e->rec, final), 0);
	assert_int_equal(lfr_recorder_busiest(e->rec, top, 1), 1);
	return top[0].comm;
}

static void test_latest_name_wins(void **state)
{
	struct env *e = *state;
	uint64_t exec_time = e->t + 1, rename_time = e->t + 2;

	e->t += 2;
	add_own_code_mapping(e);
	add_task(e, LFR_TASK_RENAME, rename_time, "cg-main");
	add_task(e, LFR_TASK_EXEC, exec_time, "callgraph");
	assert_string_equal(round_name(e, 0xa1, false), "cg-main");
	/* the next round: an exec read even later changes nothing; a later rename does */
	add_task(e, LFR_TASK_EXEC, exec_time, "callgraph");
	assert_string_equal(round_name(e, 0xa2, false), "cg-main");
	add_task(e, LFR_TASK_RENAME, ++e->t, "worker");
	assert_string_equal(round_name(e, 0, true), "worker");
}

/*
 * Naming behind the reading (lfr record's mode): the same records handed over in small batches to
 * the naming thread, with a queue limit that makes every hand-over wait for it, give the same
 * samples, losses and stacks as applying them in place; the file was flushed by that thread.
 */
static void naming_behind(struct env *e, size_t prepared)
{
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;

	add_own_code_mapping(e);
	if (prepared)
		assert_int_equal(lfr_recorder_prepare(e->rec, prepared), 0);
	assert_int_equal(lfr_recorder_behind(e->rec, 1, 19, true), 0);
	for (uint64_t i = 1; i <= 200; i++) {
		add_tick(e, i, i % 3 == 0, 0);
		add_ustack(e, i, 1, leaf + 1 + i % 4, caller + 6, 0);
		if (i % 10 == 0)
			assert_int_equal(lfr_recorder_process(e->rec, false), 0);
	}
	add_tick(e, 201, 0, 0);
	add_ustack(e, 201, 1, 0, 0, LFR_LOST_EXEC);
	lfr_recorder_get_file_stats(e->rec, &js);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	lfr_jfr_get_stats(e->w, &js);
	assert_int_equal(st.samples, 200);
	assert_int_equal(st.events, 200);
	assert_int_equal(st.lost_ticks[LFR_LOST_MISSED], 66);
	assert_int_equal(st.lost_ticks[LFR_LOST_EXEC], 1);
	assert_int_equal(st.unjoined, 0);
	assert_int_equal(st.records, 1 + 2 * 201); /* the mapping, then the ticks and walks */
	assert_int_equal(js.stack_traces, 1);
	assert_true(js.flushes >= 1);
}

static void test_naming_behind_gives_the_same_file(void **state)
{
	naming_behind(*state, 0);
}

/*
 * Batches mapped before the recording (lfr_recorder_prepare()) become the queue's spare ones:
 * the same file, each buffer freed once (ASan), also when no naming thread ever took them.
 */
static void test_prepared_batches(void **state)
{
	struct env *e = *state;

	naming_behind(e, 3 * BATCH_BLOCK);
	assert_int_equal(lfr_recorder_prepare(e->rec, 2 * BATCH_BLOCK), 0);
}

/* The reading side of test_stop_ends_the_wait_for_naming: a tick, then LOST records. */
struct feeder {
	struct env *e;
	uint64_t losses; /* LOST records to add, one tick each */
	sem_t started;
	long tid;
	int err; /* the first error of lfr_recorder_add() */
};

static void *feed(void *arg)
{
	struct feeder *f = arg;
	struct env *e = f->e;
	uint64_t tick[(sizeof(struct lfr_rec_tick) + 8) / 8] = {0};
	uint64_t ustack[(sizeof(struct lfr_rec_ustack) + 3 * 8) / 8] = {0};
	struct lfr_rec_tick *t = (void *)tick;
	struct lfr_rec_ustack *u = (void *)ustack;

	f->tid = (long)syscall(SYS_gettid);
	sem_post(&f->started);
	/* a tick in the kernel: naming it opens the kernel symbols */
	t->hdr.type = LFR_REC_TICK;
	t->hdr.size = sizeof(tick);
	t->time_ns = ++e->t;
	t->walk_id = 1;
	t->tgid = t->tid = TGID;
	t->flags = LFR_SAMPLE_F_IN_KERNEL;
	t->nr_kernel = 1;
	t->ips[0] = 0xffffffff81000010ull;
	u->hdr.type = LFR_REC_USTACK;
	u->hdr.size = sizeof(ustack);
	u->walk_id = 1;
	u->time_ns = e->t;
	u->tgid = u->tid = TGID;
	u->ticks = 1;
	u->nr_user = 2;
	u->nr_words = 1;
	u->ips[0] = u->ips[1] = u->ips[2] = 0x1000;
	f->err = lfr_recorder_add(e->rec, &t->hdr);
	if (!f->err)
		f->err = lfr_recorder_add(e->rec, &u->hdr);
	for (uint64_t i = 0; i < f->losses && !f->err; i++) {
		struct lfr_rec_lost l = {.hdr = {LFR_REC_LOST, sizeof(l)},
		                         .time_ns = ++e->t,
		                         .reason = LFR_LOST_RING_FULL,
		                         .count = 1,
		                         .ticks = 1};

		f->err = lfr_recorder_add(e->rec, &l.hdr);
	}
	return NULL;
}

/* /proc/self/task/TID/stat into buf: the fields after the name, from the state (field 3) on. */
static char *task_stat(long tid, char *buf, size_t size)
{
	char path[64], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	assert_non_null(p);
	return p + 2;
}

/* The state of thread TID of this process ('R', 'S', 'D', ...). */
static char thread_state(long tid)
{
	char buf[512];

	return *task_stat(tid, buf, sizeof(buf));
}

/*
 * A stop asked for (lfr record's SIGINT or SIGTERM) ends the reading side's wait for the naming
 * thread.  That thread blocks for good on its first batch (its kernel symbols are a FIFO nobody
 * writes), so the hand-overs of the reading side (one per full batch, with a limit of one byte
 * queued) soon wait for it: the lag stays bounded while the flag is clear.  Once it is set, the
 * reading side must finish adding its records with nothing named: before, it waited as long as
 * naming did (here, for ever: the join gives up after 120 s, a liveness bound only, and the test
 * fails).  Released, the naming thread then names everything that was read.
 */
static void test_stop_ends_the_wait_for_naming(void **state)
{
	struct env *e = *state;
	char dir[] = "/tmp/lfr-recorder-stop-XXXXXX", fifo[64];
	struct lfr_sym_opts so = {.kallsyms = fifo};
	static volatile sig_atomic_t stop;
	struct feeder f = {.e = e};
	struct lfr_recorder_stats st;
	struct timespec until;
	pthread_t th;
	int fd, ret;

	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/kallsyms", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	lfr_recorder_free(e->rec);
	lfr_sym_free(e->sym);
	assert_int_equal(lfr_sym_new(&e->sym, &so), 0);
	assert_int_equal(lfr_recorder_new(&e->rec, e->w, e->sym), 0);
	stop = 0;
	lfr_recorder_stop_flag(e->rec, &stop);
	assert_int_equal(lfr_recorder_behind(e->rec, 1, 19, false), 0);
	/* four full batches: the third and fourth hand-overs find one still queued */
	f.losses = 4 * (BATCH_BLOCK / sizeof(struct lfr_rec_lost));
	assert_int_equal(sem_init(&f.started, 0, 0), 0);
	assert_int_equal(pthread_create(&th, NULL, feed, &f), 0);
	assert_int_equal(sem_wait(&f.started), 0);
	/* it waits for naming (it sleeps, and has not returned) */
	while (thread_state(f.tid) != 'S') {
		assert_int_equal(pthread_tryjoin_np(th, NULL), EBUSY);
		usleep(1000);
	}
	stop = 1;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 120;
	ret = pthread_timedjoin_np(th, NULL, &until);
	if (!ret)
		lfr_recorder_get_stats(e->rec, &st); /* before naming can run */
	/* release the naming thread: the FIFO's open for reading returns, then reads its end */
	fd = open(fifo, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	close(fd);
	unlink(fifo);
	rmdir(dir);
	if (ret) {
		pthread_join(th, NULL);
		if (ret == ETIMEDOUT)
			fail_msg("the reading side still waited for the naming thread 120 s after "
			         "the stop");
		fail_msg("pthread_timedjoin_np: %s", strerror(ret));
	}
	assert_int_equal(f.err, 0);
	assert_int_equal(st.events, 0); /* nothing was named meanwhile */
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_int_equal(st.records, 2 + f.losses);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.lost_ticks[LFR_LOST_RING_FULL], f.losses);
	sem_destroy(&f.started);
}

#define TID_WORDS ((1u << 22) / 64) /* pid_max is at most 1 << 22 */

/* The tids of this process's threads, as a bit set. */
static void task_ids(uint64_t *set, size_t words)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	assert_non_null(d);
	memset(set, 0, words * sizeof(*set));
	while ((de = readdir(d))) {
		unsigned long tid = strtoul(de->d_name, NULL, 10);

		if (tid && tid / 64 < words)
			set[tid / 64] |= 1ull << (tid % 64);
	}
	closedir(d);
}

/* The thread that is not among BEFORE, once it runs: its tid. */
static long new_thread(const uint64_t *before, size_t words)
{
	uint64_t *now = calloc(words, sizeof(*now));

	assert_non_null(now);
	for (;;) {
		task_ids(now, words);
		for (size_t i = 0; i < words; i++) {
			uint64_t fresh = now[i] & ~before[i];

			if (fresh) {
				free(now);
				return (long)(i * 64 + (size_t)__builtin_ctzll(fresh));
			}
		}
		usleep(1000);
	}
}

/* Once the thread sleeps (waits for a hand-over): its nice value and scheduling policy. */
static void naming_sched(long tid, long *nice, long *policy)
{
	char buf[1024], state = 0;

	for (;;) {
		/* after the name: state (field 3) ... nice (19) ... policy (41) */
		char *p = task_stat(tid, buf, sizeof(buf));

		state = *p;
		for (int field = 3; field < 41 && p; field++) {
			p = strchr(p, ' ');
			if (p)
				p++;
			if (field + 1 == 19)
				*nice = atol(p);
		}
		assert_non_null(p);
		*policy = atol(p);
		if (state == 'S')
			return;
		usleep(1000);
	}
}

/* Hands the records added so far over, until the naming thread has flushed them. */
static void hand_over_until_flushed(struct env *e, uint64_t flushes)
{
	struct lfr_jfr_stats js;

	for (;;) {
		assert_int_equal(lfr_recorder_process(e->rec, false), 0);
		lfr_recorder_get_file_stats(e->rec, &js);
		if (js.flushes >= flushes)
			return;
		usleep(1000);
	}
}

/*
 * The naming thread names and flushes the first batch at the caller's priority (the file must be
 * at its path from the recording's first samples on, however busy the machine is), and only then
 * goes behind the recording: nice 19, SCHED_IDLE while little is queued.
 */
static void test_naming_first_flush_at_the_callers_priority(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	static uint64_t before[TID_WORDS];
	long tid, nice = -100, policy = -1;
	int caller_nice;

	errno = 0;
	caller_nice = getpriority(PRIO_PROCESS, 0);
	assert_int_equal(errno, 0);
	if (caller_nice >= 19)
		skip(); /* run at nice 19 itself: nothing tells the two priorities apart */
	add_own_code_mapping(e);
	task_ids(before, TID_WORDS);
	assert_int_equal(lfr_recorder_behind(e->rec, 1 << 20, 19, true), 0);
	tid = new_thread(before, TID_WORDS);
	naming_sched(tid, &nice, &policy);
	assert_int_equal(nice, caller_nice);
	assert_int_equal(policy, SCHED_OTHER);
	for (uint64_t i = 1; i <= 10; i++) {
		add_tick(e, i, 0, 0);
		add_ustack(e, i, 1, leaf + 1, caller + 6, 0);
	}
	hand_over_until_flushed(e, 1);
	for (uint64_t i = 11; i <= 20; i++) {
		add_tick(e, i, 0, 0);
		add_ustack(e, i, 1, leaf + 1, caller + 6, 0);
	}
	hand_over_until_flushed(e, 2);
	naming_sched(tid, &nice, &policy);
	assert_int_equal(nice, 19);
	assert_int_equal(policy, SCHED_IDLE);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
}

/*
 * A stripped copy of this program: its frames keep their addresses, and the recording says which
 * object (path, build-id) they are in, once; lfr report then names them from a debug root where
 * the unstripped program is the debug file of that build-id.
 */
static void test_stripped_object_told_and_named_later(void **state)
{
	struct env *e = *state;
	uintptr_t leaf = (uintptr_t)recorder_test_leaf, caller = (uintptr_t)recorder_test_caller;
	char dir[] = "/tmp/lfr-recorder-dbg-XXXXXX", self[256], cmd[1024], stripped[320];
	char link_dir[400], link_path[600], bid_hex[2 * 64 + 1];
	struct lfr_recorder_stats st;
	struct report_opts o;
	struct report *rep = NULL;
	struct jfr_reader *r;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	bool named = false;

	assert_true(n > 0);
	self[n] = '\0';
	assert_non_null(mkdtemp(dir));
	snprintf(stripped, sizeof(stripped), "%s/prog", dir);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' '%s'", self, stripped);
	assert_int_equal(system(cmd), 0);
	add_self_mapping(e, leaf, stripped);
	add_sample(e, leaf + 1, caller + 6, 1);
	add_sample(e, leaf + 2, caller + 6, 1);
	assert_int_equal(lfr_recorder_process(e->rec, true), 0);
	lfr_recorder_get_stats(e->rec, &st);
	assert_true(st.unnamed >= 2);
	assert_int_equal(lfr_jfr_close(e->w, NULL, 0), 0);
	e->w = NULL;

	r = jfr_open_file(e->path, cmd, sizeof(cmd));
	assert_non_null(r);
	report_opts_init(&o);
	assert_int_equal(report_read(r, &o, &rep), 0);
	jfr_close(r);
	assert_int_equal(rep->nobjects, 1);
	assert_string_equal(rep->objects[0].name, "prog");
	assert_string_equal(rep->objects[0].path, stripped);
	snprintf(bid_hex, sizeof(bid_hex), "%s", rep->objects[0].build_id);
	assert_true(strlen(bid_hex) >= 16);
	/* DEBUGDIR/.build-id/xx/yyyy.debug -> the unstripped program */
	snprintf(link_dir, sizeof(link_dir), "%s/.build-id/%.2s", dir, bid_hex);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", link_dir);
	assert_int_equal(system(cmd), 0);
	snprintf(link_path, sizeof(link_path), "%s/%s.debug", link_dir, bid_hex + 2);
	assert_int_equal(symlink(self, link_path), 0);
	assert_int_equal(report_name_frames(rep, dir, false), 0);
	for (size_t i = 0; i < rep->nframes; i++)
		named |= !strcmp(rep->frames[i].name, "recorder_test_leaf");
	assert_true(named);
	report_free(rep);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_stacks_named_cached_and_invalidated, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_seen_addresses_name_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_frames_met_before_not_named_again, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_user_leaf_below_the_kernel_cached_by_method, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_jit_samples_wait_for_the_map_written_at_exit,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_jit_samples_written_at_once_when_waiting_is_off,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_chain_ending_at_thread_start_is_complete, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_losses_account_for_every_tick, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pending_walks_at_the_end_are_accounted, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_ticks_joined_with_their_walks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lost_stacks_given_up, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exited_threads_and_processes_forgotten, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_exits_read_before_their_creation_forgotten, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_stack_caches_of_forgotten_processes_given_back,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stack_caches_start_over_within_their_prepared_part,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_processes_looked_at_until_they_end, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_exec_by_a_second_thread_ends_its_id, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_burst_of_exits_given_back, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stacks_carrying_their_tick, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_process_seen_by_its_stacks_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_latest_name_wins, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_table_unwound_stacks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_naming_first_flush_at_the_callers_priority, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_prepared_batches, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_naming_behind_gives_the_same_file, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_stop_ends_the_wait_for_naming, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_offcpu_joined_with_their_walks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_latency_written_with_its_first_tick, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_stacks_the_writer_forgot_named_again, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_cpu_samples_in_state_default, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_wall_samples_of_offcpu_time, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stripped_object_told_and_named_later, setup,
	                                    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

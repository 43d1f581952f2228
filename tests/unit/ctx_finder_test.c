// SPDX-License-Identifier: GPL-2.0
/* The thread-context finder's bookkeeping on the reading thread (record/ctx_finder.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/ctx_finder.h"

static int no_add(void *arg, const struct lfr_ctx_loc *l, struct lfr_error *e)
{
	(void)arg, (void)l, (void)e;
	return 0;
}

static void comm(struct lfr_ctx_finder *f, uint32_t tgid)
{
	struct lfr_rec_comm c = {.hdr = {LFR_REC_COMM, sizeof(c)}, .tgid = tgid, .tid = tgid};

	lfr_ctx_finder_record(f, &c.hdr);
}

static void mmap_file(struct lfr_ctx_finder *f, uint32_t tgid, uint64_t ino)
{
	struct {
		struct lfr_rec_mmap m;
		char path[8];
	} r = {.m = {.hdr = {LFR_REC_MMAP, sizeof(r)}, .tgid = tgid, .ino = ino, .dev_major = 8}};

	memcpy(r.path, "/lib/x", 7);
	lfr_ctx_finder_record(f, &r.m.hdr);
}

static void task(struct lfr_ctx_finder *f, uint32_t kind, uint32_t tgid, uint32_t tid)
{
	struct lfr_rec_task k = {
	    .hdr = {LFR_REC_TASK, sizeof(k)}, .kind = kind, .tgid = tgid, .tid = tid};

	lfr_ctx_finder_record(f, &k.hdr);
}

/*
 * An always-on recorder meets processes without end: what it keeps of them follows those that
 * live.  20 000 processes come, map 3 objects each and go; 10 stay.
 */
static void exited_processes_forgotten(void **state)
{
	struct lfr_ctx_finder *f;
	size_t procs, objects;

	(void)state;
	assert_int_equal(lfr_ctx_finder_new(&f, no_add, NULL), 0);
	for (uint32_t pid = 1000; pid < 21000; pid++) {
		comm(f, pid);
		for (uint64_t ino = 1; ino <= 3; ino++)
			mmap_file(f, pid, ino);
		task(f, LFR_TASK_EXIT, pid, pid + 1); /* another thread: the process lives on */
		if (pid >= 1010)
			task(f, LFR_TASK_EXIT, pid, pid);
	}
	lfr_ctx_finder_kept(f, &procs, &objects);
	print_message("kept after 20 000 processes: %zu processes, %zu objects\n", procs, objects);
	assert_int_equal(procs, 10);
	assert_true(objects <= 2 * 1024);
	assert_true(objects >= 30);
	lfr_ctx_finder_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(exited_processes_forgotten),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

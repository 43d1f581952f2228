// SPDX-License-Identifier: GPL-2.0
/*
 * A copy of a chunk with some of its events and only the constants they reach (jfr/reach.c,
 * jfr_rebase_chunk_keep() with constants; export/pyroscope.c's uploads): the kept events' stacks,
 * frames, methods, classes, threads and strings stay, those of the events left out go, no pool is
 * left empty, the strict checker accepts the copy and resolves every reference in it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "jfr/check.h"
#include "jfr/reach.h"
#include "jfr/rebase.h"
#include "jfr/reader.h"
#include "jfr/writer.h"

#define OK(call) assert_int_equal((call), 0)

static char path[64];

/* What the recording holds: a CPU-sampled thread and an off-CPU one, each with its own stack. */
struct fixture {
	uint8_t *data;
	size_t len;
	uint64_t sampled_thread, waiting_thread, cpu_stack, off_stack, work, wait;
};

static void record(struct fixture *f)
{
	struct lfr_jfr_options opt = {0};
	struct lfr_jfr_writer *w;
	uint64_t main_m, t = 1000000000;

	snprintf(path, sizeof(path), "/tmp/lfr-reach-test-%d.jfr", getpid());
	OK(lfr_jfr_open(&w, path, &opt));
	OK(lfr_jfr_method(w, "app", "main", LFR_JFR_FRAME_NATIVE, &main_m));
	OK(lfr_jfr_method(w, "app", "work", LFR_JFR_FRAME_NATIVE, &f->work));
	OK(lfr_jfr_method(w, "db", "wait_for_lock", LFR_JFR_FRAME_NATIVE, &f->wait));
	uint64_t cpu[] = {f->work, main_m}, off[] = {f->wait, main_m};

	OK(lfr_jfr_stack(w, cpu, 2, false, &f->cpu_stack));
	OK(lfr_jfr_stack(w, off, 2, false, &f->off_stack));
	OK(lfr_jfr_thread(w, 10, 10, "app", "app", &f->sampled_thread));
	OK(lfr_jfr_thread(w, 20, 20, "db", "db", &f->waiting_thread));
	OK(lfr_jfr_sampler_settings(w, t, 1000000, 64, true, "pid 10"));
	for (unsigned i = 0; i < 50; i++) {
		OK(lfr_jfr_execution_sample(w, t += 1000000, f->sampled_thread, f->cpu_stack,
		                            LFR_JFR_STATE_RUNNABLE));
		OK(lfr_jfr_off_cpu(w, t, 500000, f->waiting_thread, f->off_stack, "sleeping", 0,
		                   0));
	}
	OK(lfr_jfr_close(w, NULL, 0));
	FILE *fp = fopen(path, "rb");

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	f->len = (size_t)ftell(fp);
	rewind(fp);
	f->data = malloc(f->len);
	assert_non_null(f->data);
	assert_int_equal(fread(f->data, 1, f->len, fp), f->len);
	fclose(fp);
	unlink(path);
}

/* Keeps every event but lfr.OffCpu. */
static bool no_off_cpu(void *arg, uint64_t off, uint64_t type)
{
	const struct jfr_chunk *ch = arg;
	const struct jfr_type *t = jfr_type_by_id(ch->meta, type);

	(void)off;
	return !t || strcmp(t->name, "lfr.OffCpu");
}

static uint64_t type_id(const struct jfr_chunk *ch, const char *name)
{
	const struct jfr_type *t = jfr_type_by_name(ch->meta, name);

	assert_non_null(t);
	return t->id;
}

static void without_off_cpu_events(void **state)
{
	struct fixture f = {0};
	struct jfr_buf out = {0};
	struct hashtab reached = {0};
	struct jfr_chunk ch, got;
	char err[512];

	(void)state;
	record(&f);
	struct jfr_reader *r = jfr_open_mem(f.data, f.len, "original");

	assert_non_null(r);
	OK(jfr_chunk_load(r, 0, &ch));
	OK(jfr_reach(r, &ch, no_off_cpu, &ch, &reached, err, sizeof(err)));
	uint64_t stack_t = type_id(&ch, "jdk.types.StackTrace");
	uint64_t thread_t = type_id(&ch, "java.lang.Thread");
	uint64_t method_t = type_id(&ch, "jdk.types.Method");

	assert_non_null(hashtab_get(&reached, stack_t, f.cpu_stack));
	assert_null(hashtab_get(&reached, stack_t, f.off_stack));
	assert_non_null(hashtab_get(&reached, thread_t, f.sampled_thread));
	assert_null(hashtab_get(&reached, thread_t, f.waiting_thread));
	assert_non_null(hashtab_get(&reached, method_t, f.work));
	assert_null(hashtab_get(&reached, method_t, f.wait));

	struct jfr_keep keep = {.event = no_off_cpu, .arg = &ch, .constants = &reached};

	if (jfr_rebase_chunk_keep(r, &ch, 0, &keep, &out, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(out.len < f.len);
	struct lfr_jfr_check_result res;

	if (lfr_jfr_check_buffer(out.data, out.len, &res, err, sizeof(err)))
		fail_msg("the copy: %s", err);
	struct jfr_reader *rc = jfr_open_mem(out.data, out.len, "copy");

	assert_non_null(rc);
	OK(jfr_chunk_load(rc, 0, &got));
	/* what the samples need is there, with the same keys; what only the waits needed is not */
	assert_int_not_equal(jfr_pool_lookup(&got, stack_t, f.cpu_stack), 0);
	assert_int_equal(jfr_pool_lookup(&got, stack_t, f.off_stack), 0);
	assert_int_not_equal(jfr_pool_lookup(&got, thread_t, f.sampled_thread), 0);
	assert_int_equal(jfr_pool_lookup(&got, thread_t, f.waiting_thread), 0);
	assert_int_not_equal(jfr_pool_lookup(&got, method_t, f.work), 0);
	assert_int_equal(jfr_pool_lookup(&got, method_t, f.wait), 0);
	jfr_chunk_release(&got);
	jfr_close(rc);
	jfr_buf_free(&out);
	hashtab_free(&reached);
	jfr_chunk_release(&ch);
	jfr_close(r);
	free(f.data);
}

/*
 * Every event kept, with the constants they reach: every event is there with every reference
 * resolved (the strict checker resolves each one), and only what nothing refers to is gone (the
 * writer's pools of every frame type and thread state, whether used or not).
 */
static void every_event_resolves(void **state)
{
	struct lfr_jfr_check_result before, after;
	struct fixture f = {0};
	struct jfr_buf kept = {0};
	struct hashtab reached = {0};
	struct jfr_chunk ch;
	char err[512];

	(void)state;
	record(&f);
	struct jfr_reader *r = jfr_open_mem(f.data, f.len, "original");

	assert_non_null(r);
	OK(jfr_chunk_load(r, 0, &ch));
	OK(jfr_reach(r, &ch, NULL, NULL, &reached, err, sizeof(err)));
	struct jfr_keep keep = {.constants = &reached};

	OK(jfr_rebase_chunk_keep(r, &ch, 0, &keep, &kept, err, sizeof(err)));
	if (lfr_jfr_check_buffer(f.data, f.len, &before, err, sizeof(err)))
		fail_msg("the original: %s", err);
	if (lfr_jfr_check_buffer(kept.data, kept.len, &after, err, sizeof(err)))
		fail_msg("the copy: %s", err);
	assert_int_equal(after.events, before.events);
	assert_int_equal(after.references, before.references);
	assert_int_equal(after.pool_entries, reached.n);
	assert_true(after.pool_entries < before.pool_entries);
	jfr_buf_free(&kept);
	hashtab_free(&reached);
	jfr_chunk_release(&ch);
	jfr_close(r);
	free(f.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(without_off_cpu_events),
	    cmocka_unit_test(every_event_resolves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

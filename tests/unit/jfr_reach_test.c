// SPDX-License-Identifier: GPL-2.0
/*
 * The constants some events of a chunk reach, and a copy of the chunk with those events and one
 * checkpoint of only those constants (jfr/reach.c; export/pyroscope.c's uploads when a chunk holds
 * many series): the kept events' stacks, frames, methods, classes, threads and strings stay, those
 * of the events left out go, no pool is empty, and the strict checker resolves every reference.
 * Sets built one after another are each their own (nothing is cleared between them).
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
#include "jfr/reader.h"
#include "jfr/writer.h"

#define OK(call) assert_int_equal((call), 0)

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
	char path[64];

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
	for (unsigned i = 0; i < 50; i++) {
		OK(lfr_jfr_execution_sample(w, t += 1000000, f->sampled_thread, f->cpu_stack,
		                            LFR_JFR_STATE_RUNNABLE));
		OK(lfr_jfr_off_cpu(w, t, 500000, f->waiting_thread, f->off_stack, "sleeping", 0,
		                   0));
		if (i == 25)
			OK(lfr_jfr_flush(w)); /* two checkpoints of pools */
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

static const struct jfr_type *type_named(const struct jfr_chunk *ch, const char *name)
{
	const struct jfr_type *t = jfr_type_by_name(ch->meta, name);

	assert_non_null(t);
	return t;
}

/*
 * The copy of ch with its events of type keep only: its header, those events, the checkpoint of
 * what they reach, the metadata event; how many it kept.
 */
static uint64_t copy_of(struct jfr_reader *r, const struct jfr_chunk *ch, struct jfr_reach *rc,
                        const struct jfr_type *keep, struct jfr_buf *out)
{
	const uint8_t *chunk = r->data + ch->off;
	uint64_t meta_size = 0, kept = 0, type, size, cp;
	struct jfr_event_iter it;
	struct jfr_cur ev;
	char err[256];

	jfr_buf_reset(out);
	jfr_buf_put(out, chunk, JFR_CHUNK_HEADER_SIZE);
	jfr_reach_begin(rc, r, ch);
	jfr_event_iter_init(&it, r, ch);
	for (;;) {
		uint64_t start = (uint64_t)(it.p - r->data);

		if (jfr_event_next(&it, &type, &size, &ev) != 1)
			break;
		if (type != keep->id)
			continue;
		if (jfr_reach_event(rc, start, err, sizeof(err)))
			fail_msg("%s", err);
		jfr_buf_put(out, r->data + start, size);
		kept++;
	}
	cp = out->len;
	jfr_reach_checkpoint(rc, (uint64_t)ch->start_ticks, out);
	assert_true(jfr_varint_decode(chunk + ch->meta_off, 10, &meta_size));
	jfr_put_be64(out->data + JFR_H_CP_OFFSET, cp);
	jfr_put_be64(out->data + JFR_H_META_OFFSET, out->len);
	jfr_buf_put(out, chunk + ch->meta_off, meta_size);
	jfr_put_be64(out->data + JFR_H_SIZE, out->len);
	assert_false(out->oom);
	return kept;
}

/* The copy checked strictly and loaded: its pools in got. */
static void load_copy(const struct jfr_buf *b, uint64_t events, struct jfr_reader **rc,
                      struct jfr_chunk *got)
{
	struct lfr_jfr_check_result res;
	char err[512];

	if (lfr_jfr_check_buffer(b->data, b->len, &res, err, sizeof(err)))
		fail_msg("the copy: %s", err);
	assert_int_equal(res.events, events);
	assert_int_equal(res.checkpoints, 1);
	*rc = jfr_open_mem(b->data, b->len, "copy");
	assert_non_null(*rc);
	OK(jfr_chunk_load(*rc, 0, got));
}

/*
 * The copy of 50 events in b, checked and loaded: the stack, thread and method of the CPU samples
 * (cpu) or of the waits (!cpu) are in its pools, with the keys they have in ch; the others' not.
 */
static void check_copy(const struct jfr_buf *b, const struct jfr_chunk *ch, const struct fixture *f,
                       bool cpu)
{
	const uint64_t types[] = {type_named(ch, "jdk.types.StackTrace")->id,
	                          type_named(ch, "java.lang.Thread")->id,
	                          type_named(ch, "jdk.types.Method")->id};
	const uint64_t of_cpu[] = {f->cpu_stack, f->sampled_thread, f->work};
	const uint64_t of_wait[] = {f->off_stack, f->waiting_thread, f->wait};
	struct jfr_reader *rc;
	struct jfr_chunk got;

	load_copy(b, 50, &rc, &got);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(jfr_pool_lookup(&got, types[i], of_cpu[i]) != 0, cpu);
		assert_int_equal(jfr_pool_lookup(&got, types[i], of_wait[i]) != 0, !cpu);
	}
	jfr_chunk_release(&got);
	jfr_close(rc);
}

static void each_copy_its_own_constants(void **state)
{
	struct fixture f = {0};
	struct jfr_buf out = {0};
	struct jfr_reach reach = {0};
	struct jfr_chunk ch;

	(void)state;
	record(&f);
	struct jfr_reader *r = jfr_open_mem(f.data, f.len, "original");

	assert_non_null(r);
	OK(jfr_chunk_load(r, 0, &ch));
	/* the samples: what they need is there, same keys; what only the waits need is not */
	assert_int_equal(copy_of(r, &ch, &reach, type_named(&ch, "jdk.ExecutionSample"), &out), 50);
	check_copy(&out, &ch, &f, true);
	/* the next set, the waits: theirs only, though the first set's were stamped before */
	assert_int_equal(copy_of(r, &ch, &reach, type_named(&ch, "lfr.OffCpu"), &out), 50);
	check_copy(&out, &ch, &f, false);
	/* a set again of the samples: the same bytes as the first time (content decides them) */
	struct jfr_buf again = {0};

	copy_of(r, &ch, &reach, type_named(&ch, "jdk.ExecutionSample"), &again);
	copy_of(r, &ch, &reach, type_named(&ch, "jdk.ExecutionSample"), &out);
	assert_int_equal(again.len, out.len);
	assert_memory_equal(again.data, out.data, out.len);
	jfr_buf_free(&again);
	jfr_buf_free(&out);
	jfr_reach_free(&reach);
	jfr_chunk_release(&ch);
	jfr_close(r);
	free(f.data);
}

/* An event whose fields run past its size: an error naming its offset, nothing reached. */
static void an_event_that_does_not_parse(void **state)
{
	struct fixture f = {0};
	struct jfr_reach reach = {0};
	struct jfr_event_iter it;
	struct jfr_cur ev;
	struct jfr_chunk ch;
	uint64_t type, size, at = 0;
	char err[256];

	(void)state;
	record(&f);
	struct jfr_reader *r = jfr_open_mem(f.data, f.len, "original");

	assert_non_null(r);
	OK(jfr_chunk_load(r, 0, &ch));
	jfr_event_iter_init(&it, r, &ch);
	while (!at) {
		uint64_t start = (uint64_t)(it.p - r->data);

		assert_int_equal(jfr_event_next(&it, &type, &size, &ev), 1);
		if (type == type_named(&ch, "jdk.ExecutionSample")->id)
			at = start;
	}
	/* its size says two bytes: its type id and a part of its start time */
	f.data[at] = 2;
	jfr_reach_begin(&reach, r, &ch);
	assert_int_equal(jfr_reach_event(&reach, at, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "offset"));
	jfr_reach_free(&reach);
	jfr_chunk_release(&ch);
	jfr_close(r);
	free(f.data);
}

/* A set of nothing: a checkpoint of no pool (the upload of events that refer to nothing). */
static void an_empty_set(void **state)
{
	struct fixture f = {0};
	struct jfr_reach reach = {0};
	struct jfr_buf out = {0};
	struct jfr_chunk ch;
	uint64_t v[7];
	size_t at = 0;

	(void)state;
	record(&f);
	struct jfr_reader *r = jfr_open_mem(f.data, f.len, "original");

	assert_non_null(r);
	OK(jfr_chunk_load(r, 0, &ch));
	jfr_reach_begin(&reach, r, &ch);
	jfr_reach_checkpoint(&reach, 42, &out);
	assert_false(out.oom);
	/* size, type, startTime, duration, delta, then the flags byte and the pool count */
	for (int i = 0; i < 5; i++)
		at += jfr_varint_decode(out.data + at, out.len - at, &v[i]);
	v[5] = out.data[at++];
	at += jfr_varint_decode(out.data + at, out.len - at, &v[6]);
	assert_int_equal(at, out.len);
	assert_int_equal(v[0], out.len);
	assert_int_equal(v[1], JFR_EVENT_CHECKPOINT);
	assert_int_equal(v[2], 42);
	assert_int_equal(v[6], 0);
	jfr_buf_free(&out);
	jfr_reach_free(&reach);
	jfr_chunk_release(&ch);
	jfr_close(r);
	free(f.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(each_copy_its_own_constants),
	    cmocka_unit_test(an_event_that_does_not_parse),
	    cmocka_unit_test(an_empty_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

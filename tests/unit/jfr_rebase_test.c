// SPDX-License-Identifier: GPL-2.0
/*
 * Rebasing lfr's chunks onto another clock (jfr/rebase.c, lfr merge): every event's startTime and
 * the header's startTicks move by exactly the delta, everything else stays, the header's offsets
 * and the checkpoint chain still lead where they did, and the strict checker accepts the result.
 * Plus the schema property rebasing relies on: startTime is the only ticks timestamp of lfr's.
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
#include "jfr/encode.h"
#include "jfr/rebase.h"
#include "jfr/reader.h"
#include "jfr/schema.h"
#include "jfr/writer.h"

#define OK(call) assert_int_equal((call), 0)
#define SEC 1000000000LL
#define T0 (1000 * SEC)                /* 1000 s after boot */
#define T_MAX (INT64_MAX - 100 * SEC)  /* 100 s before the ticks run out */
#define REALTIME 1700000000000000000LL /* the fixtures' wall clock at their start */

static char path[64];

/*
 * The fixtures' clock: the writer reads it for its chunks' start ticks and durations, so that a
 * recording's every time stamp is fixed by the test, whatever the machine's uptime.
 */
static uint64_t clock_now;

static uint64_t fixed_clock(void)
{
	return clock_now;
}

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/lfr-rebase-test-%d.jfr", getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* A recording of several chunks (rotation by size), with flushes, every kind of event lfr writes
 * at a chunk's start, and a closed last chunk, or one still being written (live: it ends with the
 * writer's filler), its first time stamp t0 and every later one fixed; returns its bytes. */
static uint8_t *record(size_t *len, bool live, int64_t t0)
{
	struct lfr_jfr_options opt = {
	    .max_chunk_bytes = 64 << 10,
	    .clock = fixed_clock,
	    .clock_realtime0 = (int64_t)((uint64_t)REALTIME - (uint64_t)t0),
	};
	struct lfr_jfr_writer *w;
	uint64_t m[3], stack[2], thread[2], t = (uint64_t)t0;

	clock_now = t;

	OK(lfr_jfr_open(&w, path, &opt));
	OK(lfr_jfr_method(w, "app", "main", LFR_JFR_FRAME_NATIVE, &m[0]));
	OK(lfr_jfr_method(w, "app", "work", LFR_JFR_FRAME_NATIVE, &m[1]));
	OK(lfr_jfr_method(w, "[kernel]", "ksys_write", LFR_JFR_FRAME_KERNEL, &m[2]));
	uint64_t s0[] = {m[1], m[0]}, s1[] = {m[2], m[1], m[0]};
	OK(lfr_jfr_stack(w, s0, 2, false, &stack[0]));
	OK(lfr_jfr_stack(w, s1, 3, false, &stack[1]));
	OK(lfr_jfr_thread(w, 10, 10, "app", "app", &thread[0]));
	OK(lfr_jfr_thread(w, 11, 10, "app-worker", "app", &thread[1]));
	OK(lfr_jfr_sampler_settings(w, t, 1000000, 64, true, "pid 10"));
	OK(lfr_jfr_os_information(w, t, "Linux test"));
	OK(lfr_jfr_thread_start(w, t++, thread[1], thread[0]));
	for (unsigned round = 0; round < 40; round++) {
		for (unsigned i = 0; i < 300; i++)
			OK(lfr_jfr_execution_sample(w, t += 997, thread[i & 1], stack[i & 1],
			                            LFR_JFR_STATE_RUNNABLE));
		OK(lfr_jfr_lost_samples(w, t++, "ring full", round + 1));
		clock_now = t;
		OK(lfr_jfr_flush(w));
	}
	OK(lfr_jfr_thread_end(w, t++, thread[1]));
	clock_now = t;
	if (!live)
		OK(lfr_jfr_close(w, NULL, 0));

	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	uint8_t *data = malloc(*len);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, *len, f), *len);
	fclose(f);
	if (live)
		lfr_jfr_abandon(w);
	return data;
}

/* Every chunk of data rebased by delta, as one file. */
static struct jfr_buf rebase_all(const uint8_t *data, size_t len, int64_t delta)
{
	struct jfr_reader *r = jfr_open_mem(data, len, "original");
	struct jfr_buf out = {0};
	char err[512];

	assert_non_null(r);
	for (uint64_t off = 0; off < len;) {
		struct jfr_chunk ch;

		if (jfr_chunk_load(r, off, &ch))
			fail_msg("%s", r->err);
		assert_true(jfr_chunk_is_lfr(&ch));
		if (jfr_rebase_chunk(r, &ch, delta, &out, err, sizeof(err)))
			fail_msg("rebase: %s", err);
		off += ch.size;
		jfr_chunk_release(&ch);
	}
	jfr_close(r);
	assert_false(out.oom);
	return out;
}

static uint64_t varint_at(const uint8_t **p, const uint8_t *end)
{
	uint64_t v;
	unsigned n = jfr_varint_decode(*p, (size_t)(end - *p), &v);

	assert_true(n > 0);
	*p += n;
	return v;
}

/*
 * Compares one event of the original (a) with its rebased copy (b): same type, startTime + delta,
 * the rest equal; a checkpoint's delta to the previous one may differ (the events before it
 * changed size), and lfr's metadata wrapper holds the metadata event, compared in its turn.
 */
static void same_event(const uint8_t *a, const uint8_t *aend, const uint8_t *b, const uint8_t *bend,
                       int64_t delta, uint64_t *events)
{
	const uint8_t *a0 = a, *b0 = b;

	assert_int_equal(varint_at(&a, aend), aend - a0);
	assert_int_equal(varint_at(&b, bend), bend - b0);
	uint64_t type = varint_at(&a, aend);
	assert_int_equal(varint_at(&b, bend), type);
	(*events)++;
	if (a == aend) {
		assert_true(b == bend); /* a terminator */
		return;
	}
	int64_t ticks_a = (int64_t)varint_at(&a, aend), ticks_b = (int64_t)varint_at(&b, bend);
	assert_int_equal(ticks_b, ticks_a + delta);
	if (type == JFR_EVENT_CHECKPOINT) {
		assert_int_equal(varint_at(&b, bend), varint_at(&a, aend)); /* duration */
		uint64_t da = varint_at(&a, aend), db = varint_at(&b, bend);
		assert_true((da == 0) == (db == 0));
		/* a filler wrapping the metadata: no flags, no pools, then the metadata event */
		uint64_t sa;
		unsigned n = aend - a > 2 && !a[0] && !a[1]
		                 ? jfr_varint_decode(a + 2, (size_t)(aend - a - 2), &sa)
		                 : 0;

		if (n && sa == (uint64_t)(aend - a - 2) && a[2 + n] == JFR_EVENT_METADATA) {
			assert_memory_equal(a, b, 2);
			same_event(a + 2, aend, b + 2, bend, delta, events);
			return;
		}
	}
	assert_int_equal(aend - a, bend - b);
	assert_memory_equal(a, b, (size_t)(aend - a));
}

/* Rebases a recording starting at t0 by delta, checks it, and returns its first event's ticks. */
static int64_t rebase_by(int64_t t0, int64_t delta, bool live)
{
	size_t len;
	uint8_t *data = record(&len, live, t0);
	struct jfr_buf out = rebase_all(data, len, delta);
	struct jfr_reader *ra = jfr_open_mem(data, len, "original");
	struct jfr_reader *rb = jfr_open_mem(out.data, out.len, "rebased");
	struct lfr_jfr_check_result ca, cb;
	char err[512];
	unsigned chunks = 0;
	uint64_t events_a = 0, events_b = 0, ea = 0, eb = 0;

	for (uint64_t oa = 0, ob = 0; oa < len; chunks++) {
		struct jfr_chunk a, b;

		if (jfr_chunk_load(ra, oa, &a))
			fail_msg("%s", ra->err);
		/* the header's offsets lead to a metadata event and a whole checkpoint chain */
		if (jfr_chunk_load(rb, ob, &b))
			fail_msg("%s", rb->err);
		assert_int_equal(b.start_ticks, a.start_ticks + delta);
		assert_int_equal(b.start_nanos, a.start_nanos);
		assert_int_equal(b.duration_nanos, a.duration_nanos);
		assert_int_equal(b.ticks_per_second, a.ticks_per_second);
		assert_int_equal(b.major, a.major);
		assert_int_equal(b.minor, a.minor);
		assert_int_equal(b.state, a.state);
		assert_int_equal(b.flags, a.flags);
		assert_int_equal(b.ncheckpoints, a.ncheckpoints);
		assert_int_equal(b.meta->id, a.meta->id);
		assert_memory_equal(out.data + ob + 64, data + oa + 64, 4);

		struct jfr_event_iter ia, ib;
		struct jfr_cur ca_ev, cb_ev;
		uint64_t ta, tb, sa, sb;
		int na, nb;

		jfr_event_iter_init(&ia, ra, &a);
		jfr_event_iter_init(&ib, rb, &b);
		while ((na = jfr_event_next(&ia, &ta, &sa, &ca_ev)) == 1) {
			nb = jfr_event_next(&ib, &tb, &sb, &cb_ev);
			assert_int_equal(nb, 1);
			same_event(ia.p - sa, ia.p, ib.p - sb, ib.p, delta, &events_a);
			events_b++;
			/* each chunk's own clock pair gives the same instant */
			if (ta > JFR_EVENT_CHECKPOINT) {
				int64_t ticks_a = (int64_t)jfr_varint(&ca_ev);
				int64_t ticks_b = (int64_t)jfr_varint(&cb_ev);
				assert_int_equal(jfr_ticks_to_nanos(&b, ticks_b),
				                 jfr_ticks_to_nanos(&a, ticks_a));
			}
		}
		assert_int_equal(na, 0);
		assert_int_equal(jfr_event_next(&ib, &tb, &sb, &cb_ev), 0);
		ea += a.ncheckpoints;
		eb += b.ncheckpoints;
		oa += a.size;
		ob += b.size;
		assert_true(ob <= out.len);
		if (oa == len)
			assert_int_equal(ob, out.len);
		jfr_chunk_release(&a);
		jfr_chunk_release(&b);
	}
	assert_true(chunks > 2);
	assert_true(events_a > 12000);
	assert_int_equal(ea, eb);
	jfr_close(ra);
	jfr_close(rb);

	if (lfr_jfr_check_buffer(data, len, &ca, err, sizeof(err)))
		fail_msg("original: %s", err);
	if (lfr_jfr_check_buffer(out.data, out.len, &cb, err, sizeof(err)))
		fail_msg("rebased: %s", err);
	assert_int_equal(ca.first_ticks, t0); /* the fixture's time stamps are the test's */
	assert_true(ca.last_ticks > t0);
	assert_true(ca.time_ordered);
	assert_int_equal(cb.chunks, ca.chunks);
	assert_int_equal(cb.events, ca.events);
	assert_int_equal(cb.jmc_events, ca.jmc_events);
	assert_int_equal(cb.checkpoints, ca.checkpoints);
	assert_int_equal(cb.pool_entries, ca.pool_entries);
	assert_int_equal(cb.references, ca.references);
	assert_int_equal(cb.first_ticks, ca.first_ticks + delta);
	assert_int_equal(cb.last_ticks, ca.last_ticks + delta);
	assert_int_equal(cb.time_ordered, ca.time_ordered);
	assert_int_equal(cb.last_chunk_final, ca.last_chunk_final);
	print_message("%+lld rebased by %+lld%s: %u chunks, %llu events, %zu -> %zu bytes\n",
	              (long long)t0, (long long)delta, live ? " (live)" : "", chunks,
	              (unsigned long long)events_a, len, out.len);
	jfr_buf_free(&out);
	free(data);
	return cb.first_ticks;
}

/* A JVM started 600 s after boot: lfr's ticks shrink (shorter varints). */
static void rebase_back(void **state)
{
	(void)state;
	assert_int_equal(rebase_by(T0, -600 * SEC - 123, false), 400 * SEC - 123);
}

/* Onto a clock that started long before boot: longer varints. */
static void rebase_forward(void **state)
{
	(void)state;
	rebase_by(T0, 3000000000000000007LL, false);
}

/* A recording still being written, as of its last flush. */
static void rebase_live(void **state)
{
	(void)state;
	rebase_by(T0, -600 * SEC - 123, true);
}

/*
 * A JVM started after the recording, or during it: the rebased ticks are negative, or run from
 * negative to positive (the events span 12 ms), which both JDKs read.
 */
static void rebase_before_origin(void **state)
{
	(void)state;
	assert_int_equal(rebase_by(T0, -1600 * SEC, false), -600 * SEC);
	assert_int_equal(rebase_by(T0, -T0 - 6000000, false), -6000000);
	assert_int_equal(rebase_by(T0, -T0 - 6000000, true), -6000000);
}

/* Stamped near 0 (a recording made just after boot), moved either way. */
static void rebase_near_zero(void **state)
{
	(void)state;
	assert_int_equal(rebase_by(1, -600 * SEC, false), 1 - 600 * SEC);
	assert_int_equal(rebase_by(1, INT64_MIN, false), INT64_MIN + 1);
	assert_int_equal(rebase_by(1, 3000000000000000007LL, true), 3000000000000000008LL);
}

/* Stamped near 2^63: moved back, and by the most negative delta there is. */
static void rebase_near_max(void **state)
{
	(void)state;
	assert_int_equal(rebase_by(T_MAX, -600 * SEC, false), T_MAX - 600 * SEC);
	assert_int_equal(rebase_by(T_MAX, INT64_MIN, true), -100 * SEC - 1);
}

/* A delta that would carry a time stamp past either end of the ticks' range is refused. */
static void rebase_past_the_range(void **state)
{
	(void)state;
	/* stamped at t0, rebased by a first delta (legal), then by a second (past the range) */
	int64_t cases[][3] = {{T_MAX, 0, 200 * SEC}, {1, -600 * SEC, INT64_MIN + SEC}};

	for (unsigned i = 0; i < 2; i++) {
		size_t len;
		uint8_t *data = record(&len, false, cases[i][0]);
		struct jfr_buf first = rebase_all(data, len, cases[i][1]);
		struct jfr_reader *r = jfr_open_mem(first.data, first.len, "rebased");
		struct jfr_chunk ch;
		struct jfr_buf out = {0};
		char err[512] = "";

		assert_non_null(r);
		if (jfr_chunk_load(r, 0, &ch))
			fail_msg("%s", r->err);
		assert_int_equal(jfr_rebase_chunk(r, &ch, cases[i][2], &out, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "past the range of ticks"));
		assert_int_equal(out.len, 0);
		print_message("%+lld by %+lld then %+lld: %s\n", (long long)cases[i][0],
		              (long long)cases[i][1], (long long)cases[i][2], err);
		jfr_chunk_release(&ch);
		jfr_close(r);
		jfr_buf_free(&out);
		jfr_buf_free(&first);
		free(data);
	}
}

/* The delta takes a chunk's clock pair onto the first chunk's. */
static void delta_of_clock_pairs(void **state)
{
	(void)state;
	struct jfr_chunk jvm = {.start_nanos = 1700000000000000000LL, .start_ticks = 5000000};
	struct jfr_chunk lfr = {.start_nanos = 1700000000500000000LL,
	                        .start_ticks = 90000500000000LL};
	int64_t d = jfr_rebase_delta(&jvm, &lfr);
	int64_t ticks = 90000600000000LL; /* 100 ms after lfr's chunk start */

	/* read with the JVM chunk's pair, the rebased ticks name the instant lfr's pair gives */
	assert_int_equal(jvm.start_nanos + (ticks + d - jvm.start_ticks),
	                 lfr.start_nanos + (ticks - lfr.start_ticks));
	assert_int_equal(jfr_rebase_delta(&lfr, &lfr), 0);
}

/*
 * Rebasing moves only startTime: it must be the first field of every event type, the only ticks
 * timestamp of every event, and no pooled or inline type may carry one (pools are not rewritten).
 */
static void schema_start_time_is_the_only_timestamp(void **state)
{
	(void)state;
	unsigned events = 0;

	for (unsigned i = 0; i < jfr_schema_len; i++) {
		const struct jfr_type_def *t = &jfr_schema[i];
		bool event = t->super_type && !strcmp(t->super_type, "jdk.jfr.Event");

		if (event) {
			events++;
			assert_true(t->nfields > 0);
			assert_string_equal(t->fields[0].name, "startTime");
			assert_int_equal(t->fields[0].unit, U_TICKS_TIMESTAMP);
			assert_int_equal(t->fields[0].type, T_LONG);
			assert_int_equal(t->fields[0].flags, 0);
		}
		for (unsigned k = event ? 1 : 0; k < t->nfields; k++)
			if (t->fields[k].unit == U_TICKS_TIMESTAMP)
				fail_msg("%s.%s is a ticks timestamp: lfr merge would not move it",
				         t->name, t->fields[k].name);
	}
	assert_true(events >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(schema_start_time_is_the_only_timestamp),
	    cmocka_unit_test(delta_of_clock_pairs),
	    cmocka_unit_test_setup_teardown(rebase_back, setup, teardown),
	    cmocka_unit_test_setup_teardown(rebase_forward, setup, teardown),
	    cmocka_unit_test_setup_teardown(rebase_live, setup, teardown),
	    cmocka_unit_test_setup_teardown(rebase_before_origin, setup, teardown),
	    cmocka_unit_test_setup_teardown(rebase_near_zero, setup, teardown),
	    cmocka_unit_test_setup_teardown(rebase_near_max, setup, teardown),
	    cmocka_unit_test_setup_teardown(rebase_past_the_range, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

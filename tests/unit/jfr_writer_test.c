// SPDX-License-Identifier: GPL-2.0
/*
 * The JFR writer against the strict checker: metadata and checkpoint encoding, pool deduplication,
 * key stability across chunks, rotation by size and age, flushes, crashes at every byte of a flush
 * or a rotation, and error reporting.
 */
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "jfr/check.h"
#include "jfr/encode.h"
#include "jfr/reader.h"
#include "jfr/schema.h"
#include "jfr/writer.h"
#include "report/report.h"

static char path[64];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/lfr-jfr-test-%d.jfr", getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

#define OK(call) assert_int_equal((call), 0)

static void check_ok(struct lfr_jfr_check_result *r)
{
	char err[512];

	if (lfr_jfr_check_file(path, r, err, sizeof(err)))
		fail_msg("check failed: %s", err);
	/* after a flush or close, JMC sees every event too */
	assert_int_equal(r->jmc_events, r->events);
}

/*
 * Every chunk of path loads and every event of it parses, as lfr report reads them (jfr/reader.h;
 * stricter than the checker, which follows a filler past its chunk's end as the JDK does while
 * bytes follow it).
 */
static void reads_as_report_does(void)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));

	if (!r)
		fail_msg("%s", err);
	for (uint64_t off = 0; off < r->size;) {
		struct jfr_chunk ch;

		if (jfr_chunk_load(r, off, &ch) || jfr_chunk_verify(r, &ch))
			fail_msg("lfr report would not read it: %s", r->err);
		off += ch.size;
		jfr_chunk_release(&ch);
	}
	jfr_close(r);
}

struct fixture {
	struct lfr_jfr_writer *w;
	uint64_t m[4], stack[2], thread[2];
};

static void populate(struct fixture *f)
{
	OK(lfr_jfr_method(f->w, "app", "main", LFR_JFR_FRAME_NATIVE, &f->m[0]));
	OK(lfr_jfr_method(f->w, "app", "work", LFR_JFR_FRAME_NATIVE, &f->m[1]));
	OK(lfr_jfr_method(f->w, "libc.so.6", "write", LFR_JFR_FRAME_NATIVE, &f->m[2]));
	OK(lfr_jfr_method(f->w, "[kernel]", "ksys_write", LFR_JFR_FRAME_KERNEL, &f->m[3]));
	uint64_t s0[] = {f->m[1], f->m[0]}, s1[] = {f->m[3], f->m[2], f->m[1], f->m[0]};
	OK(lfr_jfr_stack(f->w, s0, 2, false, &f->stack[0]));
	OK(lfr_jfr_stack(f->w, s1, 4, false, &f->stack[1]));
	OK(lfr_jfr_thread(f->w, 10, 10, "app", "app", &f->thread[0]));
	OK(lfr_jfr_thread(f->w, 11, 10, "app-worker", "app", &f->thread[1]));
}

static void samples(struct fixture *f, unsigned n, uint64_t *t)
{
	for (unsigned i = 0; i < n; i++) {
		OK(lfr_jfr_execution_sample(f->w, (*t)++, f->thread[i & 1], f->stack[i & 1],
		                            LFR_JFR_STATE_RUNNABLE));
	}
}

static void metadata_encoding(void **state)
{
	(void)state;
	struct jfr_buf a = {0}, b = {0}, c = {0};
	uint64_t v, id1 = jfr_metadata_build(&a, 0, 0), id2 = jfr_metadata_build(&b, 0, 0);
	uint64_t id3 = jfr_metadata_build(&c, 0, 3600000);

	/* stable id from content, far from the small ids a JVM uses, and changed with content */
	assert_true(id1 == id2);
	assert_true(id1 >= (1ULL << 62));
	assert_true(id3 != id1);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	/* size prefix covers the whole event; type 0 */
	unsigned n = jfr_varint_decode(a.data, a.len, &v);
	assert_int_equal(n, 5);
	assert_int_equal(v, a.len);
	assert_int_equal(a.data[5], 0);
	jfr_buf_free(&a);
	jfr_buf_free(&b);
	jfr_buf_free(&c);

	/* the schema: every referenced type declared, events start with startTime (duration 2nd) */
	for (unsigned i = 0; i < jfr_schema_len; i++) {
		const struct jfr_type_def *t = &jfr_schema[i];

		for (unsigned j = 0; j < t->nfields; j++) {
			assert_non_null(jfr_schema_type(t->fields[j].type));
			if (!strcmp(t->fields[j].name, "duration"))
				assert_int_equal(j, 1);
		}
		if (t->super_type && !strcmp(t->super_type, "jdk.jfr.Event")) {
			assert_true(t->nfields >= 1);
			assert_string_equal(t->fields[0].name, "startTime");
			assert_int_equal(t->fields[0].unit, U_TICKS_TIMESTAMP);
		}
		if (t->simple)
			assert_int_equal(t->nfields, 1);
	}
}

static void empty_recording(void **state)
{
	(void)state;
	struct lfr_jfr_writer *w;
	struct lfr_jfr_check_result r;
	struct stat st;

	OK(lfr_jfr_open(&w, path, NULL));
	/* the file appears whole, at the first flush with events or at close */
	assert_int_equal(access(path, F_OK), -1);
	OK(lfr_jfr_flush(w));
	assert_int_equal(access(path, F_OK), -1);
	OK(lfr_jfr_close(w, NULL, 0));
	check_ok(&r);
	assert_true(r.last_chunk_final);
	/* the preallocated space is gone after close */
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size < 64 * 1024);
}

static void write_text(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static bool file_is(const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	return n == strlen(text) && !memcmp(buf, text, n);
}

/* The writer's temporary files beside path (.NAME.XXXXXX in its directory). */
static size_t temps(void)
{
	char pat[96];
	const char *base = strrchr(path, '/') + 1;
	glob_t g;
	size_t n;

	snprintf(pat, sizeof(pat), "%.*s.%s.??????", (int)(base - path), path, base);
	if (glob(pat, GLOB_PERIOD, NULL, &g))
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

/*
 * An existing file is replaced only by a recording that has data: abandoned before its first
 * flush with events the writer leaves it as it was and no temporary file; a new file is removed
 * then.  A file named PATH.tmp is someone else's: it stays.
 */
static void existing_file_survives(void **state)
{
	(void)state;
	struct lfr_jfr_writer *w;
	struct lfr_jfr_check_result r;
	struct fixture f;
	char tmp[80];
	uint64_t t = 1;
	FILE *other;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	other = fopen(tmp, "w");
	assert_non_null(other);
	fputs("not the writer's", other);
	fclose(other);
	write_text("old recording");
	OK(lfr_jfr_open(&w, path, NULL));
	OK(lfr_jfr_flush(w)); /* nothing to flush: still nothing to replace the file with */
	assert_true(file_is("old recording"));
	assert_false(lfr_jfr_published(w));
	lfr_jfr_abandon(w);
	assert_true(file_is("old recording"));
	assert_int_equal(temps(), 0);
	assert_int_equal(access(tmp, F_OK), 0);

	/* the first flush with events replaces it, and an abandon keeps what was flushed */
	OK(lfr_jfr_open(&f.w, path, NULL));
	populate(&f);
	samples(&f, 10, &t);
	assert_true(file_is("old recording"));
	OK(lfr_jfr_flush(f.w));
	assert_true(lfr_jfr_published(f.w));
	assert_int_equal(temps(), 0);
	lfr_jfr_abandon(f.w);
	check_ok(&r);
	assert_int_equal(r.events, 10);

	/* a new file abandoned without data is not left behind (unnamed where the file system has
	 * O_TMPFILE, else a temporary name beside it) */
	unlink(path);
	OK(lfr_jfr_open(&w, path, NULL));
	assert_int_equal(access(path, F_OK), -1);
	assert_true(temps() <= 1);
	lfr_jfr_abandon(w);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(temps(), 0);
	assert_int_equal(access(tmp, F_OK), 0);
	unlink(tmp);
}

static void pool_dedup(void **state)
{
	(void)state;
	struct fixture f;
	uint64_t k, t = 1;
	struct lfr_jfr_stats st;

	OK(lfr_jfr_open(&f.w, path, NULL));
	populate(&f);
	OK(lfr_jfr_method(f.w, "app", "main", LFR_JFR_FRAME_NATIVE, &k));
	assert_true(k == f.m[0]);
	OK(lfr_jfr_method(f.w, "app", "main", LFR_JFR_FRAME_CPP, &k));
	assert_true(k != f.m[0]); /* the frame type is part of the method */
	OK(lfr_jfr_method(f.w, "other", "main", LFR_JFR_FRAME_NATIVE, &k));
	assert_true(k != f.m[0]);
	/* "[kernel]" is written as "kernel" (JMC): both spellings are one class */
	OK(lfr_jfr_method(f.w, "kernel", "ksys_write", LFR_JFR_FRAME_KERNEL, &k));
	assert_true(k == f.m[3]);
	uint64_t s0[] = {f.m[1], f.m[0]};
	OK(lfr_jfr_stack(f.w, s0, 2, false, &k));
	assert_true(k == f.stack[0]);
	OK(lfr_jfr_stack(f.w, s0, 2, true, &k));
	assert_true(k != f.stack[0]); /* truncated differs */
	OK(lfr_jfr_stack(f.w, s0, 1, false, &k));
	assert_true(k != f.stack[0]);
	OK(lfr_jfr_thread(f.w, 11, 10, "app-worker", "app", &k));
	assert_true(k == f.thread[1]);
	OK(lfr_jfr_thread(f.w, 11, 10, "renamed", "app", &k));
	assert_true(k != f.thread[1]);
	lfr_jfr_get_stats(f.w, &st);
	assert_int_equal(st.methods, 6);
	assert_int_equal(st.stack_traces, 4);
	assert_int_equal(st.threads, 3);
	/* symbols: "()V", app, main, work, libc.so.6, write, kernel, ksys_write, other */
	assert_int_equal(st.symbols, 9);
	assert_int_equal(st.classes, 4);
	samples(&f, 1000, &t);
	OK(lfr_jfr_close(f.w, NULL, 0));

	struct lfr_jfr_check_result r;
	check_ok(&r);
	assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample"), 1000);
	/* only what the events reference is written, once: statics (6 frame types, 8 states),
	 * 2 stacks, 4 methods, 3 classes, 8 symbols, 2 threads, 1 group */
	assert_int_equal(r.pool_entries, 14 + 2 + 4 + 3 + 8 + 2 + 1);
	assert_true(r.time_ordered);
}

/*
 * Object names that start with '[' (the kernel's, "[vdso]", a perf tool's "[kernel.kallsyms]"):
 * JMC reads such a class name as an array's descriptor and throws; the writer drops the brackets,
 * and the checker, which rejects a name JMC cannot convert, accepts the file.
 */
static void object_names_jmc_reads(void **state)
{
	static const char *const objects[] = {
	    "[kernel.kallsyms]", "[vdso]", "[", "[[x]]", "[I", "[]", "a[b]"};
	struct lfr_jfr_check_result r;
	struct fixture f;
	uint64_t k[7], stack, t = 1;

	(void)state;
	OK(lfr_jfr_open(&f.w, path, NULL));
	populate(&f);
	for (unsigned i = 0; i < 7; i++)
		OK(lfr_jfr_method(f.w, objects[i], "fn", LFR_JFR_FRAME_NATIVE, &k[i]));
	OK(lfr_jfr_stack(f.w, k, 7, false, &stack));
	OK(lfr_jfr_execution_sample(f.w, t, f.thread[0], stack, LFR_JFR_STATE_CPU));
	OK(lfr_jfr_close(f.w, NULL, 0));
	check_ok(&r);
	assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample"), 1);
}

static void checkpoint_per_flush(void **state)
{
	(void)state;
	struct fixture f;
	uint64_t t = 1;
	struct lfr_jfr_check_result r;

	OK(lfr_jfr_open(&f.w, path, NULL));
	populate(&f);
	for (unsigned i = 1; i <= 5; i++) {
		samples(&f, 10, &t);
		OK(lfr_jfr_lost_samples(f.w, t++, "ring full", i));
		OK(lfr_jfr_flush(f.w));
		/* readable after every flush, with exactly what was flushed */
		check_ok(&r);
		assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample"), 10 * i);
		assert_int_equal(lfr_jfr_check_count(&r, "lfr.LostSamples"), i);
		assert_int_equal(r.checkpoints, 1 + (i > 0 ? 1 : 0) + (i > 1 ? i - 1 : 0));
		assert_false(r.last_chunk_final);
		assert_int_equal(r.chunks, 1);
	}
	/* later checkpoints add nothing new: each chunk carries an entry once */
	assert_int_equal(r.pool_entries, 14 + 2 + 4 + 3 + 8 + 2 + 1);
	/* a flush with nothing new keeps the file as it is */
	OK(lfr_jfr_flush(f.w));
	check_ok(&r);
	assert_int_equal(r.checkpoints, 6);
	OK(lfr_jfr_close(f.w, NULL, 0));
	check_ok(&r);
	assert_true(r.last_chunk_final);
}

static void rotation_by_size_keeps_keys(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.max_chunk_bytes = 256 << 10};
	struct fixture f;
	struct lfr_jfr_check_result r;
	struct lfr_jfr_stats st;
	uint64_t t = 1, total = 0;

	OK(lfr_jfr_open(&f.w, path, &opt));
	populate(&f);
	uint64_t many[64];
	for (unsigned i = 0; i < 64; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fn%u", i);
		OK(lfr_jfr_method(f.w, "libmany.so", name, LFR_JFR_FRAME_NATIVE, &many[i]));
	}
	for (unsigned round = 0; round < 30; round++) {
		for (unsigned i = 0; i < 500; i++) {
			uint64_t frames[12], k;
			unsigned x = (round * 500 + i) * 2654435761u;

			/* new stacks every round, and the two old ones in every chunk */
			for (unsigned d = 0; d < 12; d++)
				frames[d] = many[(x >> (2 * d)) % 64];
			OK(lfr_jfr_stack(f.w, frames, 12, i & 1, &k));
			OK(lfr_jfr_execution_sample(f.w, t++, f.thread[i & 1], k,
			                            LFR_JFR_STATE_SLEEPING));
			total++;
		}
		samples(&f, 20, &t);
		total += 20;
		OK(lfr_jfr_flush(f.w));
	}
	lfr_jfr_get_stats(f.w, &st);
	OK(lfr_jfr_close(f.w, NULL, 0));
	/* the checker fails on any key carrying two values and any unresolved reference */
	check_ok(&r);
	assert_true(r.chunks > 1);
	assert_int_equal(r.chunks, st.chunks);
	print_message("rotation by size: %u chunks, %llu pool entries\n", r.chunks,
	              (unsigned long long)r.pool_entries);
	assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample"), total);
	assert_true(r.time_ordered);
	assert_true(r.last_chunk_final);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	/* chunks stay close to the limit: no chunk holds more than a flush past it */
	assert_true((uint64_t)sb.st_size < st.chunks * (256 << 10) + (256 << 10));
}

/*
 * A burst's flush (thousands of new stacks) grows the flush buffers; the quiet flushes after it
 * give that memory back instead of keeping the burst's size for the rest of the recording.
 */
static void flush_buffers_follow_recent_use(void **state)
{
	(void)state;
	struct fixture f;
	struct lfr_jfr_check_result r;
	struct lfr_jfr_stats st;
	uint64_t t = 1, many[64];

	OK(lfr_jfr_open(&f.w, path, NULL));
	populate(&f);
	for (unsigned i = 0; i < 64; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fn%u", i);
		OK(lfr_jfr_method(f.w, "libmany.so", name, LFR_JFR_FRAME_NATIVE, &many[i]));
	}
	for (unsigned i = 0; i < 20000; i++) {
		uint64_t frames[12], k;
		unsigned x = i * 2654435761u;

		for (unsigned d = 0; d < 12; d++)
			frames[d] = many[((x >> (2 * d)) + d * i) % 64];
		OK(lfr_jfr_stack(f.w, frames, 12, false, &k));
		OK(lfr_jfr_execution_sample(f.w, t++, f.thread[i & 1], k, LFR_JFR_STATE_RUNNABLE));
	}
	OK(lfr_jfr_flush(f.w));
	lfr_jfr_get_stats(f.w, &st);
	print_message("flush buffers after the burst: %llu bytes\n",
	              (unsigned long long)st.buffer_bytes);
	assert_true(st.buffer_bytes >= 512 << 10);
	for (unsigned i = 0; i < 3; i++) {
		samples(&f, 10, &t);
		OK(lfr_jfr_flush(f.w));
	}
	lfr_jfr_get_stats(f.w, &st);
	print_message("flush buffers after quiet flushes: %llu bytes\n",
	              (unsigned long long)st.buffer_bytes);
	assert_true(st.buffer_bytes < 64 << 10);
	OK(lfr_jfr_close(f.w, NULL, 0));
	check_ok(&r);
	assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample"), 20030);
}

/*
 * Methods, stacks and trace contexts that no recent chunk used are forgotten once they are most of
 * the pools (a burst of distinct stacks an hour ago): the pools keep what recent chunks used, the
 * keys kept stay valid, and content met again gets a new key, never an old one.
 */
static void unused_entries_forgotten(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.max_chunk_age_ns = 1}; /* a chunk per flush */
	struct fixture f;
	struct lfr_jfr_check_result r;
	struct lfr_jfr_stats st;
	uint64_t t = 1, first_method = 0, first_stack = 0, first_ctx = 0, k, ctx;
	uint8_t trace[16] = {1}, span[8] = {0};

	OK(lfr_jfr_open(&f.w, path, &opt));
	populate(&f);
	for (unsigned i = 0; i < 6000; i++) {
		char name[32];
		uint64_t m, frames[2];

		snprintf(name, sizeof(name), "burst%u", i);
		OK(lfr_jfr_method(f.w, "libburst.so", name, LFR_JFR_FRAME_NATIVE, &m));
		frames[0] = m;
		frames[1] = f.m[0];
		OK(lfr_jfr_stack(f.w, frames, 2, false, &k));
		OK(lfr_jfr_execution_sample(f.w, t, f.thread[0], k, LFR_JFR_STATE_RUNNABLE));
		memcpy(span, &i, sizeof(i));
		OK(lfr_jfr_context(f.w, trace, span, 1, NULL, 0, &ctx));
		OK(lfr_jfr_trace_context(f.w, t++, f.thread[0], ctx));
		if (!i) {
			first_method = m;
			first_stack = k;
			first_ctx = ctx;
		}
	}
	OK(lfr_jfr_flush(f.w));
	lfr_jfr_get_stats(f.w, &st);
	assert_true(st.stack_traces >= 6000 && st.methods >= 6000 && st.trace_contexts == 6000);
	assert_int_equal(st.sweeps, 0);
	/* four chunks of the two stacks of populate() only */
	for (unsigned i = 0; i < 4; i++) {
		samples(&f, 10, &t);
		OK(lfr_jfr_flush(f.w));
	}
	lfr_jfr_get_stats(f.w, &st);
	print_message(
	    "kept after the burst: %llu stacks, %llu methods, %llu classes, %llu symbols, "
	    "%llu contexts; %llu forgotten\n",
	    (unsigned long long)st.stack_traces, (unsigned long long)st.methods,
	    (unsigned long long)st.classes, (unsigned long long)st.symbols,
	    (unsigned long long)st.trace_contexts, (unsigned long long)st.swept);
	assert_int_equal(st.sweeps, 1);
	assert_int_equal(lfr_jfr_pool_sweeps(f.w), 1);
	assert_int_equal(st.stack_traces, 2);
	assert_int_equal(st.methods, 4);
	assert_int_equal(st.trace_contexts, 0);
	assert_true(st.swept >= 3 * 6000);
	/* the burst's first stack met again: new keys, written whole in this chunk */
	uint64_t m, frames[2];

	OK(lfr_jfr_method(f.w, "libburst.so", "burst0", LFR_JFR_FRAME_NATIVE, &m));
	assert_true(m != first_method);
	frames[0] = m;
	frames[1] = f.m[0];
	OK(lfr_jfr_stack(f.w, frames, 2, false, &k));
	assert_true(k != first_stack);
	OK(lfr_jfr_execution_sample(f.w, t, f.thread[0], k, LFR_JFR_STATE_RUNNABLE));
	memset(span, 0, sizeof(span));
	OK(lfr_jfr_context(f.w, trace, span, 1, NULL, 0, &ctx));
	assert_true(ctx != first_ctx);
	OK(lfr_jfr_trace_context(f.w, t++, f.thread[0], ctx));
	/* a forgotten key is refused, not written */
	assert_int_equal(
	    lfr_jfr_execution_sample(f.w, t, f.thread[0], first_stack, LFR_JFR_STATE_RUNNABLE),
	    -EINVAL);
	OK(lfr_jfr_close(f.w, NULL, 0));
	check_ok(&r);
	assert_int_equal(r.chunks, 6);
	assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample"), 6000 + 40 + 1);
	assert_int_equal(lfr_jfr_check_count(&r, "lfr.TraceContext"), 6000 + 1);
}

/*
 * A process's labels go with the process: told with the events buffered when it was forgotten,
 * then no more, and not given to a later process under its pid; the table follows the living.
 */
static void labels_of_processes_gone_forgotten(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.max_chunk_age_ns = 1}; /* a chunk per flush */
	const char *kv[] = {"service.name", "old"}, *kv2[] = {"service.name", "new"};
	struct fixture f;
	struct lfr_jfr_check_result r;
	struct lfr_jfr_stats st;
	uint64_t t = 1;

	OK(lfr_jfr_open(&f.w, path, &opt));
	populate(&f); /* threads of process 10 */
	for (uint32_t pid = 10; pid < 5010; pid++)
		OK(lfr_jfr_labels(f.w, t, pid, kv, 1));
	samples(&f, 2, &t);
	OK(lfr_jfr_flush(f.w)); /* chunk 1: process 10's label */
	samples(&f, 2, &t);
	for (uint32_t pid = 10; pid < 5010; pid++)
		lfr_jfr_labels_forget(f.w, pid);
	lfr_jfr_get_stats(f.w, &st);
	assert_int_equal(st.labelled, 5000); /* the buffered events are not written yet */
	OK(lfr_jfr_flush(f.w));              /* chunk 2: process 10's label, with its last events */
	lfr_jfr_get_stats(f.w, &st);
	assert_int_equal(st.labelled, 0);
	samples(&f, 2, &t);     /* a new process under pid 10, without labels */
	OK(lfr_jfr_flush(f.w)); /* chunk 3: none */
	OK(lfr_jfr_labels(f.w, t, 10, kv2, 1));
	lfr_jfr_labels_forget(f.w, 10);
	OK(lfr_jfr_labels(f.w, t, 10, kv2, 1)); /* taken back */
	samples(&f, 2, &t);
	OK(lfr_jfr_flush(f.w)); /* chunk 4: the new label */
	lfr_jfr_get_stats(f.w, &st);
	assert_int_equal(st.labelled, 1);
	OK(lfr_jfr_close(f.w, NULL, 0));
	check_ok(&r);
	assert_int_equal(r.chunks, 4);
	assert_int_equal(lfr_jfr_check_count(&r, "lfr.Label"), 3);
}

static void rotation_by_age(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.max_chunk_age_ns = 1};
	struct fixture f;
	struct lfr_jfr_check_result r;
	uint64_t t = 1;

	OK(lfr_jfr_open(&f.w, path, &opt));
	populate(&f);
	for (unsigned i = 0; i < 4; i++) {
		samples(&f, 7, &t);
		OK(lfr_jfr_flush(f.w));
	}
	OK(lfr_jfr_close(f.w, NULL, 0));
	check_ok(&r);
	/* the first flush fills the first chunk, every later one starts a new chunk */
	assert_int_equal(r.chunks, 4);
	assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample"), 28);
}

/*
 * A crash at every point of a flush (and of the rotation and growth it may include): the file must
 * always read as the previous flush or the new one.  Returns the number of crash points tried.
 */
static void deep_stacks(struct fixture *f, unsigned n, uint64_t *t)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t frames[128], k;

		for (unsigned d = 0; d < 128; d++)
			frames[d] = f->m[(i >> (d % 8)) % 4];
		frames[0] = f->m[i % 4];
		frames[1] = f->m[(i / 4) % 4];
		frames[2] = f->m[(i / 16) % 4];
		frames[3] = f->m[(i / 64) % 4];
		OK(lfr_jfr_stack(f->w, frames, 128, false, &k));
		OK(lfr_jfr_execution_sample(f->w, (*t)++, f->thread[0], k, LFR_JFR_STATE_RUNNABLE));
	}
}

/*
 * A crash at every byte of a flush (and of the rotation and growth it may include): the file must
 * always read as the previous flush or the new one.  Returns the number of crash points tried and
 * counts the points that left an unreadable file.
 */
/*
 * Crashes during the second flush of a recording (which may rotate and grow chunks): either at
 * every byte of its I/O (by_op false), or at every I/O call with cuts of 0, 1, 7, 4095 and all of
 * its bytes (by_op true).  The file must always read as the previous flush or the new one.  Returns
 * the number of crash points tried; *broken counts the distinct crash points (consecutive cuts
 * leaving the same state count once) whose file is unreadable.
 */
static unsigned crash_everywhere(const struct lfr_jfr_options *opt, bool by_op, unsigned deep,
                                 unsigned first, unsigned second, unsigned *broken)
{
	static const int64_t cuts[] = {0, 1, 7, 4095, INT64_MAX};
	unsigned points = 0;
	bool was_broken = false;

	*broken = 0;
	for (int64_t i = 0;; i++) {
		struct fixture f;
		struct lfr_jfr_check_result r;
		char err[512];
		uint64_t t = 1;

		OK(lfr_jfr_open(&f.w, path, opt));
		populate(&f);
		deep_stacks(&f, deep, &t);
		samples(&f, first, &t);
		OK(lfr_jfr_flush(f.w));
		samples(&f, second, &t);
		if (by_op)
			lfr_jfr_set_io_fault(f.w, i / 5, cuts[i % 5]);
		else
			lfr_jfr_set_io_budget(f.w, i);
		int ret = lfr_jfr_flush(f.w);
		if (ret)
			assert_int_equal(ret, -EIO);
		lfr_jfr_abandon(f.w); /* killed: nothing else reaches the file */
		points++;
		if (lfr_jfr_check_file(path, &r, err, sizeof(err))) {
			if (getenv("LFR_TEST_VERBOSE"))
				print_message("crash point %lld: %s\n", (long long)i, err);
			*broken += !was_broken;
			was_broken = true;
			/*
			 * the repair cuts the tail and gives back the previous flush, a chunk's
			 * filler left past its end (a rotation's) trimmed: read by lfr report and
			 * the JDK, not only by the checker
			 */
			char rerr[512];
			int rr = lfr_jfr_repair(path, rerr, sizeof(rerr));
			if (rr != 1)
				fail_msg("crash point %lld: lfr_jfr_repair: %d: %s", (long long)i,
				         rr, rerr);
			check_ok(&r);
			reads_as_report_does();
			assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample") - deep,
			                 first);
		} else {
			uint64_t n = lfr_jfr_check_count(&r, "jdk.ExecutionSample") - deep;
			uint64_t jmc = r.jmc_events - deep; /* every event is a sample here */

			/* JMC may still see the previous flush while the JDK sees the new one */
			assert_true(jmc == first || jmc == first + second);
			assert_true(jmc <= n);

			was_broken = false;
			if (!(n == first || n == first + second))
				fail_msg("crash point %lld: %llu samples", (long long)i,
				         (unsigned long long)n);
			/* a flush that failed only in its last step (the duration) is visible */
			assert_true(ret || n == first + second);
		}
		if (!ret) {
			char rerr[512];

			/* a readable file needs no repair */
			assert_int_equal(lfr_jfr_repair(path, rerr, sizeof(rerr)), 0);
			return points;
		}
	}
}

static void crash_during_flush(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.max_chunk_bytes = 64 << 10};
	unsigned broken, points = crash_everywhere(&opt, false, 0, 50, 60, &broken);

	assert_true(points > 100);
	assert_int_equal(broken, 0);
	print_message("flush: %u crash points, all readable\n", points);
}

static void crash_during_rotation(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.max_chunk_age_ns = 1, .max_chunk_bytes = 64 << 10};
	unsigned broken, points = crash_everywhere(&opt, true, 0, 50, 60, &broken);

	/* the new chunk is built inside the old chunk's filler and published by one write */
	assert_true(points > 20);
	assert_int_equal(broken, 0);
	print_message("rotation: %u crash points, all readable\n", points);
}

static void crash_during_rotation_and_growth(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.max_chunk_age_ns = 1, .max_chunk_bytes = 64 << 10};
	unsigned broken, points = crash_everywhere(&opt, true, 103, 50, 60, &broken);

	/* growing the last chunk extends the file before its chunk size: exactly one crash point
	 * per growth, between those two system calls, leaves an unreadable file */
	assert_true(points > 30);
	if (broken != 1)
		fail_msg("%u of %u crash points left an unreadable file", broken, points);
	print_message("rotation and growth: %u crash points, %u unreadable\n", points, broken);
}

static void truncated_files_rejected_cleanly(void **state)
{
	(void)state;
	struct fixture f;
	struct lfr_jfr_check_result r;
	uint64_t t = 1;
	char err[512];

	OK(lfr_jfr_open(&f.w, path, NULL));
	populate(&f);
	samples(&f, 40, &t);
	OK(lfr_jfr_close(f.w, NULL, 0));
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	static uint8_t data[1 << 16];
	size_t len = fread(data, 1, sizeof(data), fp);
	fclose(fp);
	assert_true(len > 100 && len < sizeof(data));
	OK(lfr_jfr_check_buffer(data, len, &r, err, sizeof(err)));
	/* every cut of a finished chunk is an error, never a crash or a silent success */
	for (size_t cut = 0; cut < len; cut++)
		assert_int_equal(lfr_jfr_check_buffer(data, cut, &r, err, sizeof(err)), -1);
	/* and bytes after the last chunk are reported */
	assert_int_equal(lfr_jfr_check_buffer(data, len + 0, &r, err, sizeof(err)), 0);
}

/* A kill at every system call of close: readable, or repaired to the last flush. */
static void crash_during_close(void **state)
{
	(void)state;
	unsigned broken = 0;

	for (int op = 0;; op++) {
		struct fixture f;
		struct lfr_jfr_check_result r;
		char err[512];
		uint64_t t = 1;

		OK(lfr_jfr_open(&f.w, path, NULL));
		populate(&f);
		samples(&f, 30, &t);
		OK(lfr_jfr_flush(f.w));
		lfr_jfr_set_io_fault(f.w, op, 0);
		int ret = lfr_jfr_close(f.w, err, sizeof(err));
		if (lfr_jfr_check_file(path, &r, err, sizeof(err))) {
			broken++;
			assert_int_equal(lfr_jfr_repair(path, err, sizeof(err)), 1);
			check_ok(&r);
		} else {
			assert_int_equal(r.jmc_events, r.events);
		}
		assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample"), 30);
		if (!ret) {
			assert_true(r.last_chunk_final);
			break;
		}
	}
	/* between the chunk size and the file's truncation */
	assert_int_equal(broken, 1);
}

/* The checker is the referee of the tests above: it must catch what the readers reject. */
static void checker_rejects_corruptions(void **state)
{
	(void)state;
	struct fixture f;
	struct lfr_jfr_check_result r;
	uint64_t t = 1, v;
	char err[512];
	static uint8_t data[1 << 16], bad[(1 << 16) + 16];

	OK(lfr_jfr_open(&f.w, path, NULL));
	populate(&f);
	samples(&f, 20, &t);
	OK(lfr_jfr_close(f.w, NULL, 0));
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	size_t len = fread(data, 1, sizeof(data), fp);
	fclose(fp);
	OK(lfr_jfr_check_buffer(data, len, &r, err, sizeof(err)));

	/* bytes after the last chunk */
	memcpy(bad, data, len);
	memset(bad + len, 0, 16);
	assert_int_equal(lfr_jfr_check_buffer(bad, len + 16, &r, err, sizeof(err)), -1);
	if (!strstr(err, "after the"))
		fail_msg("%s", err);

	/* chunk size past the end of the file */
	memcpy(bad, data, len);
	jfr_put_be64(bad + 8, len + 1);
	assert_int_equal(lfr_jfr_check_buffer(bad, len, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "beyond the end"));

	/* a chunk left in progress */
	memcpy(bad, data, len);
	bad[64] = 1;
	assert_int_equal(lfr_jfr_check_buffer(bad, len, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not finished"));

	/* the checkpoint chain pointing at the metadata */
	memcpy(bad, data, len);
	memcpy(bad + 16, bad + 24, 8);
	assert_int_equal(lfr_jfr_check_buffer(bad, len, &r, err, sizeof(err)), -1);

	/* a checkpoint whose size no longer matches its content */
	memcpy(bad, data, len);
	uint64_t cp = jfr_get_be64(data + 16);
	assert_int_equal(jfr_varint_decode(bad + cp, 5, &v), 5);
	assert_true(jfr_varint_encode_padded(bad + cp, v + 1, 5));
	assert_int_equal(lfr_jfr_check_buffer(bad, len, &r, err, sizeof(err)), -1);

	/* an event of size zero: the terminator, which ends a closed file */
	memcpy(bad, data, len);
	size_t at = len - 2;
	assert_int_equal(data[at], 2);
	assert_int_equal(data[at + 1], 0);
	bad[at] = 0;
	assert_int_equal(lfr_jfr_check_buffer(bad, len, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "size 0"));

	/* no terminator: JMC would read past the chunk */
	memcpy(bad, data, len);
	bad[at + 1] = 1;
	assert_int_equal(lfr_jfr_check_buffer(bad, len, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "JMC"));
}

static void errors_are_reported(void **state)
{
	(void)state;
	struct lfr_jfr_writer *w;
	uint64_t k;

	assert_int_equal(lfr_jfr_open(&w, "/nonexistent-dir/x.jfr", NULL), -ENOENT);
	assert_non_null(strstr(lfr_jfr_strerror(w), "/nonexistent-dir/x.jfr"));
	lfr_jfr_abandon(w);

	/* /dev/full cannot be extended or written: the first chunk fails with a message */
	if (access("/dev/full", W_OK) == 0) {
		assert_true(lfr_jfr_open(&w, "/dev/full", NULL) < 0);
		assert_non_null(strstr(lfr_jfr_strerror(w), "/dev/full"));
		lfr_jfr_abandon(w);
	}

	OK(lfr_jfr_open(&w, path, NULL));
	uint64_t bogus = 99;
	assert_int_equal(lfr_jfr_stack(w, &bogus, 1, false, &k), -EINVAL);
	assert_non_null(strstr(lfr_jfr_strerror(w), "unknown method key 99"));
	assert_int_equal(lfr_jfr_execution_sample(w, 1, 42, 0, LFR_JFR_STATE_RUNNABLE), -EINVAL);
	assert_int_equal(lfr_jfr_lost_samples(w, 1, "", 1), -EINVAL);
	assert_int_equal(lfr_jfr_method(w, "x", "y", LFR_JFR_FRAME_TYPE_COUNT, &k), -EINVAL);
	/* an injected write failure is reported and every later call refuses */
	OK(lfr_jfr_method(w, "x", "y", LFR_JFR_FRAME_NATIVE, &k));
	OK(lfr_jfr_execution_sample(w, 1, 0, 0, LFR_JFR_STATE_RUNNABLE));
	lfr_jfr_set_io_budget(w, 0);
	assert_int_equal(lfr_jfr_flush(w), -EIO);
	assert_non_null(strstr(lfr_jfr_strerror(w), "injected"));
	assert_int_equal(lfr_jfr_execution_sample(w, 2, 0, 0, LFR_JFR_STATE_RUNNABLE), -EIO);
	char err[512];
	assert_int_equal(lfr_jfr_close(w, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, path));
}

/* lfr_jfr_sample writes the configured event set; the information events open every chunk. */
static void sample_event_sets_and_repeated_info(void **state)
{
	static const unsigned sets[] = {0,
	                                LFR_JFR_SAMPLE_EXECUTION,
	                                LFR_JFR_SAMPLE_CPU_TIME,
	                                LFR_JFR_SAMPLE_ALL,
	                                LFR_JFR_SAMPLE_WALL,
	                                LFR_JFR_SAMPLE_CPU_TIME | LFR_JFR_SAMPLE_WALL};
	struct lfr_jfr_check_result r;
	(void)state;

	for (unsigned i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct lfr_jfr_options opt = {.max_chunk_bytes = 64 << 10,
		                              .sample_events = sets[i]};
		struct fixture f = {0};
		uint64_t t = lfr_jfr_now();

		OK(lfr_jfr_open(&f.w, path, &opt));
		populate(&f);
		OK(lfr_jfr_os_information(f.w, t, "Linux test"));
		OK(lfr_jfr_cpu_information(f.w, t, NULL));
		OK(lfr_jfr_os_information(f.w, t, "Linux replaced")); /* replaces, not adds */
		OK(lfr_jfr_sampler_settings(f.w, t, 1000000, 64, true, "all"));
		for (int round = 0; round < 4; round++) {
			for (int k = 0; k < 3000; k++)
				OK(lfr_jfr_sample(f.w, t++, f.thread[k & 1], f.stack[k & 1],
				                  LFR_JFR_STATE_CPU, 1000000));
			OK(lfr_jfr_thread_samples_lost(f.w, t, f.thread[0], 2));
			OK(lfr_jfr_flush(f.w));
		}
		OK(lfr_jfr_close(f.w, NULL, 0));
		check_ok(&r);
		/* alone, the wall-clock sample comes with jdk.ExecutionSample */
		unsigned set =
		    sets[i] & LFR_JFR_SAMPLE_ALL ? sets[i] : sets[i] | LFR_JFR_SAMPLE_DEFAULT;
		bool es = set & LFR_JFR_SAMPLE_EXECUTION, cts = set & LFR_JFR_SAMPLE_CPU_TIME,
		     wcs = set & LFR_JFR_SAMPLE_WALL;
		assert_true(r.chunks >= 2);
		assert_int_equal(lfr_jfr_check_count(&r, "jdk.ExecutionSample"), es ? 12000 : 0);
		assert_int_equal(lfr_jfr_check_count(&r, "jdk.CPUTimeSample"), cts ? 12000 : 0);
		assert_int_equal(lfr_jfr_check_count(&r, "profiler.WallClockSample"),
		                 wcs ? 12000 : 0);
		assert_int_equal(lfr_jfr_check_count(&r, "jdk.CPUTimeSamplesLost"), cts ? 4 : 0);
		/* the first chunk has both calls, every later one the replacement only */
		assert_int_equal(lfr_jfr_check_count(&r, "jdk.OSInformation"), r.chunks + 1);
		assert_int_equal(lfr_jfr_check_count(&r, "jdk.CPUInformation"), r.chunks);
		assert_int_equal(lfr_jfr_check_count(&r, "lfr.SamplerSettings"), r.chunks);
		/* the recording's "event", 6 settings per sample event type and the period of
		 * jdk.ExecutionSample and profiler.WallClockSample in ns (async-profiler's) */
		assert_int_equal(lfr_jfr_check_count(&r, "jdk.ActiveSetting"),
		                 r.chunks * (1 + 6 * (es + cts + wcs) + es + wcs));
	}

	struct lfr_jfr_writer *w;
	struct lfr_jfr_options bad = {.sample_events = 8};
	assert_int_equal(lfr_jfr_open(&w, path, &bad), -EINVAL);
	assert_non_null(strstr(lfr_jfr_strerror(w), "unknown sample events"));
	lfr_jfr_abandon(w);
}

/* One sample of a new thread tid (its process: tid too) named name, in a process named proc. */
static uint64_t thread_sample(struct fixture *f, uint32_t tid, const char *name, const char *proc,
                              uint64_t *t)
{
	uint64_t key;

	OK(lfr_jfr_thread(f->w, tid, tid, name, proc, &key));
	OK(lfr_jfr_execution_sample(f->w, (*t)++, key, f->stack[0], LFR_JFR_STATE_RUNNABLE));
	return key;
}

static const struct report_thread *report_thread_named(const struct report *rep, const char *name)
{
	for (size_t i = 0; i < rep->nthreads; i++)
		if (!strcmp(rep->threads[i].name, name))
			return &rep->threads[i];
	fail_msg("no thread %s in the report", name);
	return NULL;
}

/*
 * A released thread is freed after the flush that writes its last events, with its group once its
 * last thread goes; once the table is full its slot serves a new thread under a new key (the
 * checker fails a key defined twice with different values), and every event reads with its own
 * thread and process.  A thread interned again before it was freed keeps its key; one interned
 * again after it was freed gets a new one.
 */
static void released_threads_freed_and_slots_reused(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.max_chunk_age_ns =
	                                  1}; /* a chunk per flush after the first */
	struct fixture f;
	struct lfr_jfr_check_result r;
	struct lfr_jfr_stats st;
	uint64_t t = 1, gone, newer, back, again, later;
	char err[512];

	OK(lfr_jfr_open(&f.w, path, &opt));
	populate(&f); /* two threads */
	gone = thread_sample(&f, 20, "gone", "gone-proc", &t);
	back = thread_sample(&f, 22, "back", "back-proc", &t);
	/* the table's first 256 slots filled */
	for (uint32_t i = 0; i < 252; i++)
		thread_sample(&f, 100 + i, "filler", "filler-proc", &t);
	OK(lfr_jfr_flush(f.w)); /* chunk 1 */
	lfr_jfr_thread_release(f.w, gone);
	/* released and named again before the flush: taken back, the same key */
	lfr_jfr_thread_release(f.w, back);
	OK(lfr_jfr_thread(f.w, 22, 22, "back", "back-proc", &again));
	assert_int_equal(again, back);
	OK(lfr_jfr_flush(f.w)); /* no events: "gone" freed, still in chunk 1 */
	lfr_jfr_get_stats(f.w, &st);
	assert_int_equal(st.threads, 255);
	/* the table is full: the freed slot, under its second key */
	newer = thread_sample(&f, 21, "newer", "newer-proc", &t);
	assert_int_equal(newer, 1ull << 32 | gone);
	/* the freed thread named again: a new entry in a new slot */
	later = thread_sample(&f, 20, "gone", "gone-proc", &t);
	assert_int_equal(later, 257);
	OK(lfr_jfr_flush(f.w)); /* chunk 2 */
	lfr_jfr_get_stats(f.w, &st);
	assert_int_equal(st.threads, 257);
	OK(lfr_jfr_close(f.w, NULL, 0));
	check_ok(&r);
	assert_int_equal(r.chunks, 2);

	struct jfr_reader *rd = jfr_open_file(path, err, sizeof(err));
	struct report_opts o;
	struct report *rep = NULL;

	if (!rd)
		fail_msg("%s", err);
	report_opts_init(&o);
	if (report_read(rd, &o, &rep) < 0)
		fail_msg("%s", rd->err);
	jfr_close(rd);
	static const struct {
		const char *name, *process;
		int64_t tid;
		uint64_t samples;
	} want[] = {{"gone", "gone-proc", 20, 2},
	            {"newer", "newer-proc", 21, 1},
	            {"back", "back-proc", 22, 1}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct report_thread *th = report_thread_named(rep, want[i].name);

		assert_int_equal(th->value, want[i].samples);
		assert_non_null(th->process);
		assert_non_null(strstr(th->process, want[i].process));
		assert_int_equal(th->tid, want[i].tid);
	}
	report_free(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(metadata_encoding),
	    cmocka_unit_test_setup_teardown(empty_recording, setup, teardown),
	    cmocka_unit_test_setup_teardown(existing_file_survives, setup, teardown),
	    cmocka_unit_test_setup_teardown(pool_dedup, setup, teardown),
	    cmocka_unit_test_setup_teardown(object_names_jmc_reads, setup, teardown),
	    cmocka_unit_test_setup_teardown(checkpoint_per_flush, setup, teardown),
	    cmocka_unit_test_setup_teardown(rotation_by_size_keeps_keys, setup, teardown),
	    cmocka_unit_test_setup_teardown(flush_buffers_follow_recent_use, setup, teardown),
	    cmocka_unit_test_setup_teardown(unused_entries_forgotten, setup, teardown),
	    cmocka_unit_test_setup_teardown(labels_of_processes_gone_forgotten, setup, teardown),
	    cmocka_unit_test_setup_teardown(rotation_by_age, setup, teardown),
	    cmocka_unit_test_setup_teardown(released_threads_freed_and_slots_reused, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(crash_during_flush, setup, teardown),
	    cmocka_unit_test_setup_teardown(crash_during_rotation, setup, teardown),
	    cmocka_unit_test_setup_teardown(crash_during_rotation_and_growth, setup, teardown),
	    cmocka_unit_test_setup_teardown(truncated_files_rejected_cleanly, setup, teardown),
	    cmocka_unit_test_setup_teardown(crash_during_close, setup, teardown),
	    cmocka_unit_test_setup_teardown(checker_rejects_corruptions, setup, teardown),
	    cmocka_unit_test_setup_teardown(errors_are_reported, setup, teardown),
	    cmocka_unit_test_setup_teardown(sample_event_sets_and_repeated_info, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A continuous recording's repository: one file per chunk, each a recording the strict checker
 * accepts; eviction by size and by age; one writer per repository; dumps of a repository being
 * written (the newest chunk as of its last flush), of a finished one and of one whose writer was
 * killed.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "jfr/check.h"
#include "jfr/repository.h"
#include "jfr/writer.h"

#define OK(call) assert_int_equal((call), 0)

static char dir[64], out[80];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/lfr-repo-test-%d", getpid());
	snprintf(out, sizeof(out), "/tmp/lfr-repo-test-%d.jfr", getpid());
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", dir, out);
	return system(cmd) ? -1 : 0;
}

struct fixture {
	struct lfr_jfr_writer *w;
	uint64_t thread, stack;
};

static void populate(struct fixture *f)
{
	uint64_t m[2];

	OK(lfr_jfr_method(f->w, "app", "main", LFR_JFR_FRAME_NATIVE, &m[0]));
	OK(lfr_jfr_method(f->w, "app", "work", LFR_JFR_FRAME_NATIVE, &m[1]));
	uint64_t frames[] = {m[1], m[0]};
	OK(lfr_jfr_stack(f->w, frames, 2, false, &f->stack));
	OK(lfr_jfr_thread(f->w, 10, 10, "app", "app", &f->thread));
}

/* n samples at the current time, then a flush */
static void flush_samples(struct fixture *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		OK(lfr_jfr_execution_sample(f->w, lfr_jfr_now(), f->thread, f->stack,
		                            LFR_JFR_STATE_RUNNABLE));
	OK(lfr_jfr_flush(f->w));
}

static uint64_t check_samples(const char *file, unsigned *chunks)
{
	struct lfr_jfr_check_result r;
	char err[512];

	if (lfr_jfr_check_file(file, &r, err, sizeof(err)))
		fail_msg("%s: %s", file, err);
	if (chunks)
		*chunks = r.chunks;
	return lfr_jfr_check_count(&r, "jdk.ExecutionSample");
}

/* The chunk files of the repository: each one checked alone; returns how many, and their bytes. */
static size_t chunk_files(uint64_t *bytes, uint64_t *samples)
{
	struct lfr_jfr_repo_chunk *v;
	char err[256], file[160];
	size_t n;

	OK(lfr_jfr_repo_list(dir, &v, &n, err, sizeof(err)));
	*bytes = *samples = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		snprintf(file, sizeof(file), "%s/%s", dir, v[i].name);
		OK(stat(file, &st));
		*bytes += (uint64_t)st.st_size;
		*samples += check_samples(file, NULL);
		if (i)
			assert_true(v[i].start_nanos > v[i - 1].start_nanos);
	}
	free(v);
	return n;
}

static void one_file_per_chunk_and_dumps(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.repository = true, .max_chunk_age_ns = 1};
	struct lfr_jfr_dump_stats ds;
	struct fixture f;
	char err[512];
	uint64_t bytes, samples;
	unsigned chunks;

	OK(lfr_jfr_open(&f.w, dir, &opt));
	populate(&f);
	for (unsigned i = 0; i < 6; i++)
		flush_samples(&f, 7);
	/* every flush with events after the first starts a chunk, in a file of its own */
	assert_int_equal(chunk_files(&bytes, &samples), 6);
	assert_int_equal(samples, 42);

	/* a dump while the recording goes on: the newest chunk as of its last flush, trimmed */
	OK(lfr_jfr_repo_dump(dir, out, 0, &ds, err, sizeof(err)));
	assert_int_equal(ds.chunks, 6);
	assert_int_equal(check_samples(out, &chunks), 42);
	assert_int_equal(chunks, 6);
	assert_true(ds.bytes < bytes); /* the newest file's preallocated room is not copied */
	assert_true(ds.end_nanos > ds.start_nanos);

	/* nothing ends in the future */
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	assert_int_equal(lfr_jfr_repo_dump(dir, out, (int64_t)(now.tv_sec + 3600) * 1000000000, &ds,
	                                   err, sizeof(err)),
	                 -ENOENT);
	assert_non_null(strstr(err, "no chunk covers that span"));
	/* the earlier dump was not touched by the failed one */
	assert_int_equal(check_samples(out, NULL), 42);

	flush_samples(&f, 5);
	OK(lfr_jfr_close(f.w, NULL, 0));
	OK(lfr_jfr_repo_dump(dir, out, 0, &ds, err, sizeof(err)));
	assert_int_equal(check_samples(out, &chunks), 47);
	assert_int_equal(chunks, 7);
}

static void eviction_by_size(void **state)
{
	(void)state;
	const uint64_t cap = 512 << 10, chunk = 64 << 10;
	struct lfr_jfr_options opt = {
	    .repository = true, .max_chunk_bytes = chunk, .repo_max_bytes = cap};
	struct lfr_jfr_stats st;
	struct fixture f;
	uint64_t bytes, samples, most = 0;
	unsigned rounds = 0;

	OK(lfr_jfr_open(&f.w, dir, &opt));
	populate(&f);
	do {
		flush_samples(&f, 2000);
		chunk_files(&bytes, &samples);
		if (bytes > most)
			most = bytes;
		lfr_jfr_get_stats(f.w, &st);
		/* the cap, plus the chunk being written */
		assert_true(bytes <= cap + chunk);
		assert_int_equal(bytes, st.repo_bytes);
	} while (++rounds < 200 && st.evicted < 10);
	print_message("eviction by size: %u flushes, at most %llu bytes, %llu chunks evicted\n",
	              rounds, (unsigned long long)most, (unsigned long long)st.evicted);
	assert_true(st.evicted >= 10);
	assert_true(most > cap / 2);
	OK(lfr_jfr_close(f.w, NULL, 0));
}

static void eviction_by_age_and_one_writer(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {
	    .repository = true, .max_chunk_age_ns = 1, .repo_max_age_ns = 1};
	struct lfr_jfr_writer *second;
	struct lfr_jfr_stats st;
	struct fixture f;
	uint64_t bytes, samples;

	OK(lfr_jfr_open(&f.w, dir, &opt));
	populate(&f);
	for (unsigned i = 0; i < 4; i++) {
		flush_samples(&f, 3);
		/* every finished chunk ended more than 1 ns ago: only the newest stays */
		assert_int_equal(chunk_files(&bytes, &samples), 1);
	}
	lfr_jfr_get_stats(f.w, &st);
	assert_int_equal(st.evicted, 3);

	assert_int_equal(lfr_jfr_open(&second, dir, &opt), -EBUSY);
	assert_non_null(strstr(lfr_jfr_strerror(second), "another recording writes"));
	lfr_jfr_abandon(second);
	OK(lfr_jfr_close(f.w, NULL, 0));
}

static void killed_writer_leaves_a_readable_repository(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.repository = true, .max_chunk_age_ns = 1};
	struct lfr_jfr_dump_stats ds;
	struct fixture f;
	char err[512], stale[160];

	OK(lfr_jfr_open(&f.w, dir, &opt));
	populate(&f);
	for (unsigned i = 0; i < 3; i++)
		flush_samples(&f, 4);
	/* events added after the last flush are lost with the writer, nothing else */
	for (unsigned i = 0; i < 9; i++)
		OK(lfr_jfr_execution_sample(f.w, lfr_jfr_now(), f.thread, f.stack,
		                            LFR_JFR_STATE_RUNNABLE));
	lfr_jfr_abandon(f.w);
	OK(lfr_jfr_repo_dump(dir, out, 0, &ds, err, sizeof(err)));
	assert_int_equal(check_samples(out, NULL), 12);

	/* the next writer takes the repository over, dropping a half-created chunk file */
	snprintf(stale, sizeof(stale), "%s/2000-01-01T00-00-00.000000000Z.jfr.tmp", dir);
	FILE *fp = fopen(stale, "w");
	assert_non_null(fp);
	fclose(fp);
	OK(lfr_jfr_open(&f.w, dir, &opt));
	assert_int_equal(access(stale, F_OK), -1);
	populate(&f);
	flush_samples(&f, 1);
	OK(lfr_jfr_close(f.w, NULL, 0));
	OK(lfr_jfr_repo_dump(dir, out, 0, &ds, err, sizeof(err)));
	assert_int_equal(check_samples(out, NULL), 13);
}

/*
 * A repository another user can write to is refused, by the writer and by dumps: a 0777
 * directory, a symbolic link to one, and (as root) a directory that belongs to someone else.
 */
static void untrusted_directories_are_refused(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.repository = true};
	struct lfr_jfr_dump_stats ds;
	struct lfr_jfr_writer *w;
	struct fixture f;
	char err[512], link[96], lock[96];

	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(lfr_jfr_open(&w, dir, &opt), -EPERM);
	assert_non_null(strstr(lfr_jfr_strerror(w), "writable by other users"));
	lfr_jfr_abandon(w);
	snprintf(lock, sizeof(lock), "%s/.lock", dir);
	assert_int_equal(access(lock, F_OK), -1);
	assert_int_equal(lfr_jfr_repo_dump(dir, out, 0, &ds, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by other users"));

	assert_int_equal(chmod(dir, 0750), 0);
	OK(lfr_jfr_open(&f.w, dir, &opt));
	populate(&f);
	flush_samples(&f, 2);
	OK(lfr_jfr_close(f.w, NULL, 0));
	OK(lfr_jfr_repo_dump(dir, out, 0, &ds, err, sizeof(err)));

	snprintf(link, sizeof(link), "%s-link", dir);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(lfr_jfr_open(&w, link, &opt), -ELOOP);
	assert_non_null(strstr(lfr_jfr_strerror(w), "symbolic link"));
	lfr_jfr_abandon(w);
	unlink(link);

	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(lfr_jfr_open(&w, dir, &opt), -EPERM);
		assert_non_null(strstr(lfr_jfr_strerror(w), "belongs to uid 65534"));
		lfr_jfr_abandon(w);
	}
}

/* Writes n bytes of data to dir/name. */
static void put_file(const char *name, const void *data, size_t n)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

static bool present(const char *name)
{
	char p[160];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

/*
 * Files with a chunk file's name whose header the reader rejects are not the recorder's: they are
 * neither evicted nor counted, and their start and duration (untrusted, here start + duration
 * overflows) are not added up.  A dump names them as damaged.
 */
static void foreign_files_are_not_chunks(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {
	    .repository = true, .max_chunk_age_ns = 1, .repo_max_age_ns = 1};
	struct lfr_jfr_dump_stats ds;
	struct fixture f;
	char err[512];
	uint8_t h[68] = {'F', 'L', 'R', 0};
	const char *text = "2000-01-01T00-00-00.000000000Z.jfr",
	           *hdr = "2000-01-01T00-00-01.000000000Z.jfr";

	/* version 2.1, then size 68 with no metadata: rejected; start and duration near the max */
	h[5] = 2;
	h[7] = 1;
	h[15] = 68;
	memset(h + 32, 0x7f, 1);
	memset(h + 33, 0xff, 7);
	memset(h + 40, 0x7f, 1);
	memset(h + 41, 0xff, 7);
	assert_int_equal(mkdir(dir, 0750), 0);
	put_file(text, "not a recording\n", 16);
	put_file(hdr, h, sizeof(h));
	OK(lfr_jfr_open(&f.w, dir, &opt));
	populate(&f);
	for (unsigned i = 0; i < 3; i++)
		flush_samples(&f, 2);
	OK(lfr_jfr_close(f.w, NULL, 0));
	assert_true(present(text));
	assert_true(present(hdr));
	OK(lfr_jfr_repo_dump(dir, out, 0, &ds, err, sizeof(err)));
	assert_int_equal(ds.damaged, 2);
	assert_non_null(strstr(ds.damaged_names, text));
	assert_int_equal(check_samples(out, NULL), 2);
}

/*
 * Chunk files that cannot be read (a FIFO, a directory or a link under a chunk's name, a file of
 * mode 000 for a reader that is not root) are neither dropped silently nor waited on: a dump
 * copies the others, counts and names them with why; when none of the span can be read it fails.
 * Whether one is in the span is told by its name's time and the next chunk's start.
 */
static void unreadable_files_are_named(void **state)
{
	(void)state;
	struct lfr_jfr_options opt = {.repository = true, .max_chunk_age_ns = 1};
	struct lfr_jfr_repo_chunk *v;
	struct lfr_jfr_dump_stats ds;
	struct fixture f;
	char err[1024], p[160], q[160];
	size_t n;

	OK(lfr_jfr_open(&f.w, dir, &opt));
	populate(&f);
	for (unsigned i = 0; i < 4; i++)
		flush_samples(&f, 3);
	OK(lfr_jfr_close(f.w, NULL, 0));
	OK(lfr_jfr_repo_list(dir, &v, &n, err, sizeof(err)));
	assert_int_equal(n, 4);
	/* the second chunk's file becomes a FIFO, the third's a directory */
	snprintf(p, sizeof(p), "%s/%s", dir, v[1].name);
	OK(unlink(p));
	OK(mkfifo(p, 0640));
	snprintf(q, sizeof(q), "%s/%s", dir, v[2].name);
	OK(unlink(q));
	OK(mkdir(q, 0750));
	/* and one long before them, out of a span that starts at the last chunk */
	snprintf(p, sizeof(p), "%s/2000-01-01T00-00-00.000000000Z.jfr", dir);
	OK(symlink("/dev/zero", p));

	OK(lfr_jfr_repo_dump(dir, out, 0, &ds, err, sizeof(err)));
	assert_int_equal(ds.chunks, 2);
	assert_int_equal(check_samples(out, NULL), 6);
	assert_int_equal(ds.unreadable, 3);
	if (!strstr(ds.unreadable_names, v[1].name) || !strstr(ds.unreadable_names, v[2].name) ||
	    !strstr(ds.unreadable_names, "(a FIFO, not a regular file)") ||
	    !strstr(ds.unreadable_names, "(a directory, not a regular file)") ||
	    !strstr(ds.unreadable_names,
	            "2000-01-01T00-00-00.000000000Z.jfr (a symbolic link, not followed)"))
		fail_msg("unreadable chunk files: %s", ds.unreadable_names);
	/*
	 * From the third chunk's start: the FIFO before it ended there (the next start), so it may
	 * hold some of the span, and so may the directory; the link of 2000 ended long before
	 */
	OK(lfr_jfr_repo_dump(dir, out, v[2].start_nanos, &ds, err, sizeof(err)));
	assert_int_equal(ds.chunks, 1);
	assert_int_equal(ds.unreadable, 2);
	assert_null(strstr(ds.unreadable_names, "2000-01-01"));

	/* none of the span readable: no dump, every one named */
	snprintf(p, sizeof(p), "%s/%s", dir, v[3].name);
	OK(unlink(p));
	snprintf(p, sizeof(p), "%s/%s", dir, v[0].name);
	OK(unlink(p));
	OK(mkfifo(p, 0640));
	unlink(out);
	assert_int_equal(lfr_jfr_repo_dump(dir, out, 0, &ds, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "no chunk file of the span could be read"));
	assert_non_null(strstr(err, v[0].name));
	assert_int_equal(access(out, F_OK), -1);
	free(v);
}

static void names_sort_in_time_order(void **state)
{
	(void)state;
	char a[LFR_JFR_REPO_NAME_MAX], b[LFR_JFR_REPO_NAME_MAX];

	lfr_jfr_repo_name(a, 1764000000123456789LL);
	assert_string_equal(a, "2025-11-24T16-00-00.123456789Z.jfr");
	lfr_jfr_repo_name(b, 1764000000123456790LL);
	assert_true(strcmp(a, b) < 0);
	lfr_jfr_repo_name(b, 1764000010000000000LL);
	assert_true(strcmp(a, b) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(names_sort_in_time_order),
	    cmocka_unit_test_setup_teardown(one_file_per_chunk_and_dumps, setup, teardown),
	    cmocka_unit_test_setup_teardown(eviction_by_size, setup, teardown),
	    cmocka_unit_test_setup_teardown(eviction_by_age_and_one_writer, setup, teardown),
	    cmocka_unit_test_setup_teardown(killed_writer_leaves_a_readable_repository, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(untrusted_directories_are_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(foreign_files_are_not_chunks, setup, teardown),
	    cmocka_unit_test_setup_teardown(unreadable_files_are_named, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A file read while it is being written, through `lfr report`'s reader.  A writer process flushes
 * 1200 times (new methods, stacks and threads in most flushes, so every checkpoint carries new
 * constants) and starts a new chunk every 64 KB.  For the first 600 flushes, writer and reader
 * take turns: after each flush the writer says what it has written, and the reader must see exactly
 * those samples in exactly those chunks.  For the next 600, the reader lets the writer go on after
 * each flush and reads while it writes and flushes the next one: every read succeeds and sees at
 * least what was flushed before it, at most what is flushed next, and never less than the previous
 * read (what is visible is a growing prefix); a read after the last flush sees all of it.  Nothing
 * depends on how fast either side runs: the writer's clock is the test's, and each side waits for
 * what the other says, not for time to pass.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "jfr/writer.h"
#include "jfr/reader.h"
#include "report/report.h"

#define LOCKSTEP 600 /* flushes each followed by a read that must see exactly them */
#define RACING 600   /* flushes written while reads run beside them */

static char path[] = "/tmp/lfr-live-XXXXXX";

/* What the writer has written as of one of its flushes. */
struct flushed {
	uint64_t round, samples, chunks;
};

static uint64_t clock_now;

static uint64_t fixed_clock(void)
{
	return clock_now;
}

static bool write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p = (const char *)p + k;
		n -= (size_t)k;
	}
	return true;
}

/* 1 when n bytes were read, 0 at end of file, -1 on an error or a partial read. */
static int read_all(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, (char *)p + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k == 0 && got == 0 ? 0 : -1;
		got += (size_t)k;
	}
	return 1;
}

/*
 * The child: flushes LOCKSTEP + RACING times, telling report_fd after each flush what it has
 * written, waiting for a byte on go_fd after each of the first LOCKSTEP, and after the last one
 * for the reader to finish (the file stays a recording in progress).  Exits non-zero on the first
 * writer error.
 */
static void writer(int report_fd, int go_fd)
{
	struct lfr_jfr_options opt = {
	    .max_chunk_bytes = 64 * 1024,
	    .clock = fixed_clock,
	    .clock_realtime0 = 1700000000000000000LL,
	};
	struct lfr_jfr_writer *w;
	uint64_t t = 1000000000000ULL, stacks[64], threads[16], root;
	char name[512], go;
	int nstacks = 0;

	clock_now = t;
	if (lfr_jfr_open(&w, path, &opt) ||
	    lfr_jfr_method(w, "app", "main", LFR_JFR_FRAME_NATIVE, &root))
		_exit(3);
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "worker-%d", i);
		if (lfr_jfr_thread(w, 100 + (uint32_t)i, 100, name, "app", &threads[i]))
			_exit(3);
	}
	for (unsigned int round = 0; round < LOCKSTEP + RACING; round++) {
		struct lfr_jfr_stats st;
		uint64_t m, frames[2];

		/* a new function and stack in every flush, the next checkpoint carries them; long
		 * names fill a chunk every hundred flushes or so */
		snprintf(name, sizeof(name), "fn_%u_%0300u", round, round);
		if (lfr_jfr_method(w, "app", name, LFR_JFR_FRAME_NATIVE, &m))
			_exit(3);
		frames[0] = m;
		frames[1] = root;
		if (lfr_jfr_stack(w, frames, 2, false, &stacks[nstacks % 64]))
			_exit(3);
		nstacks++;
		for (int i = 0; i < 2; i++)
			if (lfr_jfr_execution_sample(
			        w, t += 100000, threads[(round + i) % 16],
			        stacks[(round * 7 + i) % (nstacks < 64 ? nstacks : 64)],
			        LFR_JFR_STATE_RUNNABLE))
				_exit(3);
		clock_now = t;
		if (lfr_jfr_flush(w))
			_exit(4);
		lfr_jfr_get_stats(w, &st);

		struct flushed f = {round + 1, st.samples, st.chunks};

		if (!write_all(report_fd, &f, sizeof(f)))
			_exit(5);
		if (round + 1 < LOCKSTEP + RACING && read_all(go_fd, &go, 1) != 1)
			_exit(6);
	}
	/* done: the reader closes its end when it has read the last flush */
	read_all(go_fd, &go, 1);
	_exit(0);
}

/* One read of the file: 0 with the samples and chunks it saw, or -1 with a message printed. */
static int read_report(int n, const struct report_opts *o, uint64_t *total, uint64_t *chunks)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	struct report *rep = NULL;

	if (!r) {
		print_error("read %d: %s\n", n, err);
		return -1;
	}
	if (report_read(r, o, &rep) < 0) {
		print_error("read %d: %s\n", n, r->err);
		report_free(rep);
		jfr_close(r);
		return -1;
	}
	*total = rep->total;
	*chunks = rep->nchunks;
	report_free(rep);
	jfr_close(r);
	return 0;
}

static void test_reads_while_writing(void **state)
{
	struct report_opts o;
	struct flushed f = {0};
	uint64_t total = 0, chunks = 0, last_total = 0, lockstep_chunks = 0;
	int fd = mkstemp(path), status = 0, to_reader[2], to_writer[2], reads = 0;
	pid_t child;
	char go = 'g';

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path); /* the writer creates it (no PATH.tmp step) */
	assert_int_equal(pipe(to_reader), 0);
	assert_int_equal(pipe(to_writer), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(to_reader[0]);
		close(to_writer[1]);
		writer(to_reader[1], to_writer[0]);
	}
	close(to_reader[1]);
	close(to_writer[0]);
	report_opts_init(&o);

	/*
	 * After each of the first LOCKSTEP flushes the writer waits while the reader reads: exactly
	 * what it flushed.  After each later one the reader lets it go on and reads while it writes
	 * and flushes the next: at least what it had flushed, at most what it flushes next, and
	 * never less than the previous read.
	 */
	assert_int_equal(read_all(to_reader[0], &f, sizeof(f)), 1);
	for (;;) {
		bool lockstep = f.round <= LOCKSTEP;
		struct flushed next;

		assert_int_equal(f.round, reads + 1);
		if (lockstep) {
			assert_int_equal(read_report(reads, &o, &total, &chunks), 0);
			if (total != f.samples || chunks != f.chunks)
				fail_msg("after flush %llu: read %llu samples in %llu chunks, the "
				         "writer "
				         "wrote %llu in %llu",
				         (unsigned long long)f.round, (unsigned long long)total,
				         (unsigned long long)chunks, (unsigned long long)f.samples,
				         (unsigned long long)f.chunks);
			if (f.round == LOCKSTEP)
				lockstep_chunks = chunks;
		}
		if (f.round == LOCKSTEP + RACING)
			break;
		assert_true(write_all(to_writer[1], &go, 1));
		if (!lockstep)
			assert_int_equal(read_report(reads, &o, &total, &chunks), 0);
		assert_int_equal(read_all(to_reader[0], &next, sizeof(next)), 1);
		if (!lockstep && (total < f.samples || total > next.samples || total < last_total))
			fail_msg(
			    "read %d beside flush %llu: %llu samples, %llu before it, %llu flushed "
			    "before and %llu after",
			    reads, (unsigned long long)next.round, (unsigned long long)total,
			    (unsigned long long)last_total, (unsigned long long)f.samples,
			    (unsigned long long)next.samples);
		last_total = total;
		reads++;
		f = next;
	}
	/* the last flush, read after it: all of it */
	assert_int_equal(read_report(reads, &o, &total, &chunks), 0);
	if (total != f.samples || chunks != f.chunks)
		fail_msg("after the last flush: read %llu samples in %llu chunks, the writer wrote "
		         "%llu in %llu",
		         (unsigned long long)total, (unsigned long long)chunks,
		         (unsigned long long)f.samples, (unsigned long long)f.chunks);
	reads++;
	assert_int_equal(f.samples, 2 * (LOCKSTEP + RACING));
	assert_true(lockstep_chunks >= 5);       /* the reads after a flush met rotations */
	assert_true(f.chunks > lockstep_chunks); /* and so did the reads beside one */
	close(to_writer[1]);
	close(to_reader[0]);
	waitpid(child, &status, 0);
	unlink(path);
	print_message(
	    "%d reads of a file being written (after each of its first %d flushes, beside "
	    "each of its next %d, after its last) succeeded; the last saw %llu samples in "
	    "%llu chunks (%llu after the first %d flushes)\n",
	    reads, LOCKSTEP, RACING - 1, (unsigned long long)total, (unsigned long long)chunks,
	    (unsigned long long)lockstep_chunks, LOCKSTEP);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0); /* the writer never failed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reads_while_writing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

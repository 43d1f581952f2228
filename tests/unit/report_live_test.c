// SPDX-License-Identifier: GPL-2.0
/*
 * A file read while it is being written: a writer process flushes every 5 ms (new methods, stacks
 * and threads in most flushes, so every checkpoint carries new constants) and starts a new chunk
 * every 64 KB; 1000 reads of the file meanwhile, each through `lfr report`'s reader, all succeed,
 * and each sees at least the samples the previous one saw (what is visible is a growing prefix).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "jfr/writer.h"
#include "jfr/reader.h"
#include "report/report.h"

#define READS 1000

static char path[] = "/tmp/lfr-live-XXXXXX";

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* The child: writes until killed.  Exits non-zero on the first writer error. */
static void write_forever(void)
{
	struct lfr_jfr_options opt = {.max_chunk_bytes = 64 * 1024};
	struct lfr_jfr_writer *w;
	uint64_t t = lfr_jfr_now(), stacks[64], threads[16], root;
	char name[512];
	int nstacks = 0;

	if (lfr_jfr_open(&w, path, &opt) ||
	    lfr_jfr_method(w, "app", "main", LFR_JFR_FRAME_NATIVE, &root))
		_exit(3);
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "worker-%d", i);
		if (lfr_jfr_thread(w, 100 + (uint32_t)i, 100, name, "app", &threads[i]))
			_exit(3);
	}
	for (unsigned int round = 0;; round++) {
		uint64_t m, frames[2];

		/* bounded: past 20 s of flushes, flushes that only move the duration on */
		if (round >= 4000) {
			if (lfr_jfr_flush(w))
				_exit(4);
			sleep_ms(5);
			continue;
		}

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
		if (lfr_jfr_flush(w))
			_exit(4);
		sleep_ms(5);
	}
}

static void test_reads_while_writing(void **state)
{
	struct report_opts o;
	uint64_t last_total = 0, last_chunks = 0;
	struct stat st;
	int fd = mkstemp(path), status = 0, ok = 0;
	pid_t child;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path); /* the writer creates it (no PATH.tmp step) */
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		write_forever();
	/* the first flush with events publishes the file */
	for (int i = 0; i < 2000 && (stat(path, &st) || st.st_size == 0); i++)
		sleep_ms(5);
	report_opts_init(&o);
	for (int i = 0; i < READS; i++) {
		char err[512];
		struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
		struct report *rep = NULL;

		if (!r) {
			print_error("read %d: %s\n", i, err);
			break;
		}
		if (report_read(r, &o, &rep) < 0) {
			print_error("read %d: %s\n", i, r->err);
			report_free(rep);
			jfr_close(r);
			break;
		}
		if (rep->total < last_total) {
			print_error("read %d: %llu samples after %llu\n", i,
			            (unsigned long long)rep->total, (unsigned long long)last_total);
			report_free(rep);
			jfr_close(r);
			break;
		}
		last_total = rep->total;
		last_chunks = rep->nchunks;
		report_free(rep);
		jfr_close(r);
		ok++;
		if (i % 2 == 0)
			sleep_ms(1); /* land at every phase of the writer's flush */
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	unlink(path);
	print_message(
	    "%d of %d reads of a file being written succeeded; the last saw %llu samples\n", ok,
	    READS, (unsigned long long)last_total);
	assert_true(WIFSIGNALED(status)); /* the writer never failed */
	assert_int_equal(ok, READS);
	assert_true(last_total > 0);
	assert_true(last_chunks >= 5); /* the reads met rotations too */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reads_while_writing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Writes recordings with known content for the JDK-as-referee tests (tests/jdk/run).
 *
 *   gen_recording basic FILE       three threads, three known stacks, every event type (the CPU
 *                                  samples wall-clock samples too), closed
 *   gen_recording chunks FILE      many distinct stacks and a small chunk size: several chunks
 *   gen_recording flushonly FILE   flushed twice and never closed (as after kill -9)
 *   gen_recording cut FILE BYTES   flushed once, then the next flush dies after BYTES bytes of I/O
 *   gen_recording cutop FILE OP BYTES
 *                                  flushed once, then the next flush, which starts a new chunk,
 *                                  dies in its I/O call number OP after BYTES bytes of it
 *
 *   gen_recording loop FILE        records and flushes every 5 ms, new chunk every 100 ms, until
 *                                  killed
 *   gen_recording check FILE       runs the structure checker: "check ok events N jmc N chunks N
 *                                  samples N" or the error
 *
 * Prints what the file must contain as "expect KEY VALUE" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "jfr/check.h"
#include "jfr/writer.h"

#define CHECK(call)                                                                                \
	do {                                                                                       \
		if ((call) < 0) {                                                                  \
			fprintf(stderr, "gen_recording: %s: %s\n", #call, lfr_jfr_strerror(w));    \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static struct lfr_jfr_writer *w;
static uint64_t t0;
/*
 * The writer's clock in "chunks" mode: the time of the last sample written, so that chunk starts
 * and ends are those of the samples however long this program takes (a loaded machine once took
 * more than 4 ms between opening the file and the first sample, and left the file's first 4 ms
 * empty).
 */
static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}
static uint64_t threads[3], stacks[3];
static unsigned long samples, lost_total;
static uint64_t step = 1000000;   /* ns between two samples */
static uint64_t period = 1001001; /* the sampler settings' period */

/* worker-1: leaf <- b <- a <- main (user), worker-2: c <- a <- main, main: kernel on top of user */
static void setup(void)
{
	uint64_t m_main, m_a, m_b, m_c, m_leaf, m_read, m_sys, m_libc;

	CHECK(lfr_jfr_method(w, "gen_workload", "main", LFR_JFR_FRAME_NATIVE, &m_main));
	CHECK(lfr_jfr_method(w, "gen_workload", "a", LFR_JFR_FRAME_NATIVE, &m_a));
	CHECK(lfr_jfr_method(w, "gen_workload", "b", LFR_JFR_FRAME_NATIVE, &m_b));
	CHECK(lfr_jfr_method(w, "libstdc++.so.6", "std::vector<int>::push_back(int const&)",
	                     LFR_JFR_FRAME_CPP, &m_c));
	CHECK(lfr_jfr_method(w, "gen_workload", "leaf", LFR_JFR_FRAME_NATIVE, &m_leaf));
	CHECK(lfr_jfr_method(w, "libc.so.6", "read", LFR_JFR_FRAME_NATIVE, &m_libc));
	CHECK(lfr_jfr_method(w, "[kernel]", "ksys_read", LFR_JFR_FRAME_KERNEL, &m_read));
	CHECK(lfr_jfr_method(w, "[kernel]", "entry_SYSCALL_64", LFR_JFR_FRAME_KERNEL, &m_sys));
	uint64_t s1[] = {m_leaf, m_b, m_a, m_main};
	uint64_t s2[] = {m_c, m_a, m_main};
	uint64_t s3[] = {m_read, m_sys, m_libc, m_main};
	CHECK(lfr_jfr_stack(w, s1, 4, false, &stacks[0]));
	CHECK(lfr_jfr_stack(w, s2, 3, false, &stacks[1]));
	CHECK(lfr_jfr_stack(w, s3, 4, true, &stacks[2]));
	CHECK(lfr_jfr_thread(w, 1001, 1000, "worker-1", "gen_workload", &threads[0]));
	CHECK(lfr_jfr_thread(w, 1002, 1000, "worker-2", "gen_workload", &threads[1]));
	CHECK(lfr_jfr_thread(w, 1000, 1000, "gen_workload", "gen_workload", &threads[2]));
}

static void info_events(void)
{
	struct lfr_jfr_recording r = {
	    .id = 1, .name = "lfr", .flush_interval_ms = 1000, .start_ticks = t0};

	CHECK(lfr_jfr_active_recording(w, t0, &r));
	CHECK(lfr_jfr_os_information(w, t0, NULL));
	CHECK(lfr_jfr_cpu_information(w, t0, NULL));
	CHECK(lfr_jfr_sampler_settings(w, t0, period, 127, true, "pid 1000"));
	/* two labels of the recording, two of the process 1000: four lfr.Label events per chunk */
	const char *own[] = {"host.name", "gen-host", "env", "test"};
	const char *proc[] = {"service.name", "gen-service", "container.id",
	                      "b4d6d161c62525d726fa394b27df30e14f8ea5646313ada576b390de70cfc8cc"};
	CHECK(lfr_jfr_labels(w, t0, 0, own, 2));
	CHECK(lfr_jfr_labels(w, t0, 1000, proc, 2));
	for (int i = 0; i < 3; i++)
		CHECK(lfr_jfr_thread_start(w, t0, threads[i], i < 2 ? threads[2] : 0));
}

static void sample_batch(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned k = samples % 3;

		fake_now = t0 + step * (samples + 1);
		CHECK(lfr_jfr_sample(w, t0 + step * (samples + 1), threads[k], stacks[k],
		                     LFR_JFR_STATE_CPU, period));
		samples++;
	}
}

static void lost(const char *reason, unsigned n)
{
	CHECK(lfr_jfr_lost_samples(w, t0 + step * (samples + 1), reason, n));
	lost_total += n;
}

/*
 * The OpenTelemetry contexts of worker-1's first sample and worker-2's second (lfr record's
 * lfr.TraceContext): trace 0102...10, spans a1...a8 (with an attribute) and b1...b8.
 */
static void trace_contexts(void)
{
	uint8_t trace[16], span1[8], span2[8];
	struct lfr_jfr_attr attr = {"http.route", "/checkout", 10, 9};
	uint64_t c1, c2;

	for (int i = 0; i < 16; i++)
		trace[i] = (uint8_t)(i + 1);
	for (int i = 0; i < 8; i++) {
		span1[i] = (uint8_t)(0xa1 + i);
		span2[i] = (uint8_t)(0xb1 + i);
	}
	CHECK(lfr_jfr_context(w, trace, span1, 1, &attr, 1, &c1));
	CHECK(lfr_jfr_context(w, trace, span2, 0, NULL, 0, &c2));
	CHECK(lfr_jfr_trace_context(w, t0 + step, threads[0], c1));
	CHECK(lfr_jfr_trace_context(w, t0 + step * 5, threads[1], c2));
}

static void close_or_die(void)
{
	char err[512];

	if (lfr_jfr_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "gen_recording: close: %s\n", err);
		exit(1);
	}
}

static void expect_common(unsigned long nsamples)
{
	printf("expect samples %lu\n", nsamples);
	printf("expect thread worker-1\nexpect thread worker-2\nexpect thread gen_workload\n");
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen_recording basic|chunks|cputime|flushonly|cut|cutop "
		                "FILE [OP] [BYTES]\n");
		return 2;
	}
	const char *mode = argv[1], *file = argv[2];
	struct lfr_jfr_options opt = {0};

	if (!strcmp(mode, "check")) {
		struct lfr_jfr_check_result r;
		char err[512];

		if (lfr_jfr_check_file(file, &r, err, sizeof(err))) {
			printf("check failed: %s\n", err);
			return 1;
		}
		printf("check ok events %llu jmc %llu chunks %u samples %llu\n",
		       (unsigned long long)r.events, (unsigned long long)r.jmc_events, r.chunks,
		       (unsigned long long)lfr_jfr_check_count(&r, "jdk.ExecutionSample"));
		return 0;
	}
	if (!strcmp(mode, "loop"))
		opt.max_chunk_age_ns = 100000000;
	/* as lfr record --wall: every CPU sample a wall-clock sample too */
	if (!strcmp(mode, "basic"))
		opt.sample_events = LFR_JFR_SAMPLE_WALL;

	if (!strcmp(mode, "cutop"))
		opt.max_chunk_age_ns = 1;
	if (!strcmp(mode, "chunks")) {
		struct timespec real;

		opt.max_chunk_bytes = 256 << 10;
		step = 1000;
		fake_now = lfr_jfr_now();
		clock_gettime(CLOCK_REALTIME, &real);
		opt.clock = fake_clock;
		opt.clock_realtime0 =
		    (int64_t)real.tv_sec * 1000000000 + real.tv_nsec - (int64_t)fake_now;
	}
	if (!strcmp(mode, "cputime")) {
		opt.max_chunk_bytes = 64 << 10; /* a new chunk at every flush below */
		opt.sample_events = LFR_JFR_SAMPLE_ALL;
		period = 1000000;
	}
	if (lfr_jfr_open(&w, file, &opt) < 0) {
		fprintf(stderr, "gen_recording: %s\n", lfr_jfr_strerror(w));
		return 1;
	}
	t0 = opt.clock ? fake_now : lfr_jfr_now();
	setup();
	info_events();

	if (!strcmp(mode, "basic")) {
		sample_batch(150);
		lost("ring full", 5);
		CHECK(lfr_jfr_flush(w));
		sample_batch(150);
		lost("ring full", 2);
		lost("no slot", 1);
		CHECK(lfr_jfr_thread_end(w, t0 + step * (samples + 1), threads[1]));
		/* two off-CPU intervals of the main thread in read(): 300 ms, then 1.5 ms */
		CHECK(lfr_jfr_off_cpu(w, t0 + step, 300000000, threads[2], stacks[2], "sleeping", 4,
		                      1200000));
		CHECK(lfr_jfr_off_cpu(w, t0 + step * 2, 1500000, threads[2], stacks[2],
		                      "uninterruptible", 5, 1300000));
		/* a sampling latency of 7.5 ms: a tick in read() walked at the return */
		CHECK(lfr_jfr_sampling_latency(w, t0 + step * 3, 7500000, threads[2], stacks[2]));
		/* a wall-clock sample of the thread waiting in read() (lfr record --wall) */
		CHECK(lfr_jfr_wall_sample(w, t0 + step * 4, threads[2], stacks[2],
		                          LFR_JFR_STATE_SLEEPING));
		trace_contexts();
		close_or_die();
		expect_common(300);
		printf("expect lost 3\nexpect lost_total 8\nexpect chunks 1\n");
	} else if (!strcmp(mode, "chunks")) {
		/* distinct deep stacks so that pools and events fill several 256 KiB chunks */
		uint64_t m[64];
		char name[64];
		for (int i = 0; i < 64; i++) {
			snprintf(name, sizeof(name), "function_%d", i);
			CHECK(lfr_jfr_method(w, "libdeep.so", name, LFR_JFR_FRAME_NATIVE, &m[i]));
		}
		for (int round = 0; round < 20; round++) {
			for (int i = 0; i < 2000; i++) {
				uint64_t frames[40], key;
				unsigned x = (unsigned)(round * 2000 + i) * 2654435761u;

				for (int d = 0; d < 40; d++)
					frames[d] = m[(x >> (d % 16)) % 64 ^ (d & 1)];
				CHECK(lfr_jfr_stack(w, frames, 40, false, &key));
				fake_now = t0 + step * (samples + 1);
				CHECK(lfr_jfr_execution_sample(w, t0 + step * (samples + 1),
				                               threads[i % 3], key,
				                               LFR_JFR_STATE_CPU));
				samples++;
			}
			sample_batch(30);
			CHECK(lfr_jfr_flush(w));
		}
		struct lfr_jfr_stats st;
		lfr_jfr_get_stats(w, &st);
		close_or_die();
		expect_common(samples);
		printf("expect chunks %llu\n", (unsigned long long)st.chunks);
	} else if (!strcmp(mode, "cputime")) {
		/* both sample events, lost samples per thread, chunks that stand alone */
		unsigned long lost_n = 0;
		for (int round = 0; round < 6; round++) {
			for (int i = 0; i < 1500; i++) {
				unsigned k = samples % 3;

				CHECK(lfr_jfr_sample(w, t0 + step * (samples + 1), threads[k],
				                     stacks[k], LFR_JFR_STATE_CPU, 1000000));
				samples++;
			}
			CHECK(lfr_jfr_thread_samples_lost(w, t0 + step * (samples + 1), threads[0],
			                                  round + 1));
			lost_n += round + 1;
			CHECK(lfr_jfr_flush(w));
		}
		struct lfr_jfr_stats st;
		lfr_jfr_get_stats(w, &st);
		close_or_die();
		expect_common(samples);
		printf("expect lost 6\nexpect lost_total %lu\nexpect chunks %llu\n", lost_n,
		       (unsigned long long)st.chunks);
	} else if (!strcmp(mode, "flushonly")) {
		sample_batch(60);
		CHECK(lfr_jfr_flush(w));
		sample_batch(60);
		lost("ring full", 4);
		CHECK(lfr_jfr_flush(w));
		lfr_jfr_abandon(w);
		expect_common(120);
		printf("expect lost 1\n");
	} else if (!strcmp(mode, "cut") && argc > 3) {
		sample_batch(90);
		CHECK(lfr_jfr_flush(w));
		sample_batch(90);
		lfr_jfr_set_io_budget(w, atoll(argv[3]));
		int r = lfr_jfr_flush(w);
		lfr_jfr_abandon(w);
		/* the second flush either completed within the budget or left the first one */
		expect_common(r == 0 ? 180 : 90);
	} else if (!strcmp(mode, "loop")) {
		struct timespec pause = {0, 5000000};

		step = 5000;
		for (;;) {
			sample_batch(1000);
			lost("ring full", 1);
			CHECK(lfr_jfr_flush(w));
			nanosleep(&pause, NULL);
		}
	} else if (!strcmp(mode, "cutop") && argc > 4) {
		sample_batch(90);
		CHECK(lfr_jfr_flush(w));
		sample_batch(90);
		lfr_jfr_set_io_fault(w, atoll(argv[3]), atoll(argv[4]));
		int r = lfr_jfr_flush(w);
		lfr_jfr_abandon(w);
		printf("expect flush %s\n", r == 0 ? "complete" : "cut");
		expect_common(r == 0 ? 180 : 90);
		printf("expect samples_alt 180\n"); /* cut after the events were published */
	} else {
		fprintf(stderr, "gen_recording: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Throughput of the JFR writer on a synthetic sample stream shaped like a real profile: a few hot
 * stacks take most samples, a long tail of rarer ones, a trickle of never-seen stacks, frames from
 * a few thousand functions in a few dozen objects, 20-60 frames deep, many threads.  Every sample
 * goes through lfr_jfr_stack() (the stack is interned again, as a recorder that does not cache
 * would do) and lfr_jfr_sample(); the file is flushed every 100000 samples.
 *
 *   jfr_writer_bench [-n SAMPLES] [-o FILE] [-e default|execution|cputime|all]
 *
 * -e: the sample event set (default: the writer's, jdk.ExecutionSample; all: with
 * jdk.CPUTimeSample).
 *
 * Prints samples/s (wall clock and per CPU second: the latter does not depend on the machine's
 * load), bytes per sample and the file size.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "jfr/check.h"
#include "jfr/writer.h"

#define NOBJ 40
#define NFUNC 4000
#define NTHREAD 64
#define NHOT 3000
#define MAXDEPTH 60

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double secs(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct stack {
	unsigned depth;
	uint64_t frames[MAXDEPTH];
};

static void random_stack(struct stack *s, const uint64_t *methods)
{
	/* a shared base (main, loops) and a varying top, like real call graphs */
	s->depth = 20 + next() % (MAXDEPTH - 20);
	for (unsigned d = 0; d < s->depth; d++) {
		unsigned base = d >= s->depth - 8;
		s->frames[d] = methods[base ? (s->depth - d) : next() % NFUNC];
	}
}

#define CHECK(call)                                                                                \
	do {                                                                                       \
		if ((call) < 0) {                                                                  \
			fprintf(stderr, "jfr_writer_bench: %s\n", lfr_jfr_strerror(w));            \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	unsigned long n = 2000000;
	const char *out = "/tmp/lfr-jfr-bench.jfr";
	int c;

	struct lfr_jfr_options opt = {0};
	while ((c = getopt(argc, argv, "n:o:e:")) != -1) {
		if (c == 'e') {
			if (!strcmp(optarg, "execution"))
				opt.sample_events = LFR_JFR_SAMPLE_EXECUTION;
			else if (!strcmp(optarg, "cputime"))
				opt.sample_events = LFR_JFR_SAMPLE_CPU_TIME;
			else if (!strcmp(optarg, "all"))
				opt.sample_events = LFR_JFR_SAMPLE_ALL;
			else if (strcmp(optarg, "default"))
				c = '?';
			if (c == 'e')
				continue;
		}
		if (c == 'n')
			n = strtoul(optarg, NULL, 10);
		else if (c == 'o')
			out = optarg;
		else {
			fprintf(stderr, "usage: jfr_writer_bench [-n SAMPLES] [-o FILE] "
			                "[-e default|execution|cputime|all]\n");
			return 2;
		}
	}
	struct lfr_jfr_writer *w;
	if (lfr_jfr_open(&w, out, &opt) < 0) {
		fprintf(stderr, "jfr_writer_bench: %s\n", lfr_jfr_strerror(w));
		return 1;
	}
	static uint64_t methods[NFUNC], threads[NTHREAD];
	char obj[32], fn[64];
	for (unsigned i = 0; i < NFUNC; i++) {
		snprintf(obj, sizeof(obj), "lib%u.so", i % NOBJ);
		snprintf(fn, sizeof(fn), "namespace::function_%u(int, char const*)", i);
		CHECK(lfr_jfr_method(w, obj, fn, i % 7 ? LFR_JFR_FRAME_NATIVE : LFR_JFR_FRAME_CPP,
		                     &methods[i]));
	}
	for (unsigned i = 0; i < NTHREAD; i++) {
		snprintf(fn, sizeof(fn), "worker-%u", i);
		CHECK(lfr_jfr_thread(w, 5000 + i, 5000, fn, "bench", &threads[i]));
	}
	static struct stack hot[NHOT];
	for (unsigned i = 0; i < NHOT; i++)
		random_stack(&hot[i], methods);

	uint64_t t = lfr_jfr_now();
	double t0 = secs(CLOCK_MONOTONIC), c0 = secs(CLOCK_PROCESS_CPUTIME_ID);
	struct stack fresh;
	for (unsigned long i = 0; i < n; i++) {
		const struct stack *s;
		uint64_t r = next() % 1000, key;

		if (r < 10) { /* 1%: a stack never seen before */
			random_stack(&fresh, methods);
			s = &fresh;
		} else if (r < 700) { /* 69%: one of the 30 hottest */
			s = &hot[next() % 30];
		} else { /* 30%: the tail */
			s = &hot[next() % NHOT];
		}
		CHECK(lfr_jfr_stack(w, s->frames, s->depth, false, &key));
		CHECK(lfr_jfr_sample(w, t + i * 10000, threads[next() % NTHREAD], key,
		                     LFR_JFR_STATE_CPU, 1000000));
		if (i % 100000 == 99999)
			CHECK(lfr_jfr_flush(w));
	}
	struct lfr_jfr_stats st;
	lfr_jfr_get_stats(w, &st);
	char err[512];
	if (lfr_jfr_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "jfr_writer_bench: %s\n", err);
		return 1;
	}
	double el = secs(CLOCK_MONOTONIC) - t0, cpu = secs(CLOCK_PROCESS_CPUTIME_ID) - c0;
	struct stat sb;
	if (stat(out, &sb) < 0) {
		perror(out);
		return 1;
	}
	struct lfr_jfr_check_result res;
	if (lfr_jfr_check_file(out, &res, err, sizeof(err)) ||
	    (lfr_jfr_check_count(&res, "jdk.ExecutionSample") != n &&
	     lfr_jfr_check_count(&res, "jdk.CPUTimeSample") != n)) {
		fprintf(stderr, "jfr_writer_bench: the file does not check: %s\n", err);
		return 1;
	}
	printf("jfr writer: %lu samples in %.3f s (%.3f s of CPU): %.0f samples/s, %.0f per CPU "
	       "second, %.1f bytes/sample, %llu stacks, %llu chunks, %lld bytes\n",
	       n, el, cpu, n / el, n / cpu, (double)sb.st_size / n,
	       (unsigned long long)st.stack_traces, (unsigned long long)st.chunks,
	       (long long)sb.st_size);
	return 0;
}

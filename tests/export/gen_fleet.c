// SPDX-License-Identifier: GPL-2.0
/*
 * Recordings of known content for tests/export/run, written with lfr's writer and a fixed clock:
 *
 *   gen_fleet file FILE
 *       three chunks of three processes, as lfr record --wall writes them (wall-clock samples
 *       off the CPU in each chunk): 100 (service.name checkout, a container) and 200
 *       (service.name db) with CPU samples in the first chunk, 100 alone in the second, 300 (no
 *       labels: its service is its name) in the third with off-CPU intervals; a frame left
 *       unnamed in an object with its build-id (lfr.ObjectFile).  OpenTelemetry thread contexts
 *       (lfr.TraceContext): every other sample of 101 in the first chunk and all of them in the
 *       second in span a1..a8 (with an attribute), 201's first 10 and 301's "io" interval in
 *       span b1..b8, both of trace 0102..10.
 *
 *   gen_fleet many FILE N
 *       one chunk of N processes of distinct names (pid 1000 + i, "svc-NNN"), each one thread
 *       with 3 CPU samples of a stack of its own (svc-NNN's work_NNN) above a frame they share
 *       (libc.so.6's memcpy) and one of the kernel: as many series as processes.  Each process
 *       has its jdk.SystemProcess ("/usr/bin/svc-NNN --port N"), a label (team=svc-NNN-team) and
 *       an object file (lfr.ObjectFile "svc-NNN", /usr/bin/svc-NNN); a process of no thread (pid
 *       999, "svc-999") has its jdk.SystemProcess too.
 *
 *   gen_fleet spool DIR T0 CHUNKS KIND=URL... [--max-size BYTES] [--kill] [--wake]
 *       writes CHUNKS chunks, one per flush, into the repository DIR (chunk names from T0, epoch
 *       s), each with samples of processes 100 and 200, while exports follow DIR (export/follow.h,
 *       waits of 20 ms to 200 ms).  Then, with --kill, exits at once, as a killed recorder does;
 *       otherwise ends the recording and waits (up to 10 minutes, a liveness bound) until every
 *       export has nothing waiting, and stops them.  Prints "evicted N": the chunk files the
 *       repository's --max-size removed.  With --wake the exports list the repository only when
 *       the writer tells them that a chunk file is finished (their poll an hour), and before the
 *       recording ends every export must have sent all but the newest chunk (within 2 minutes, a
 *       liveness bound): "sent before the end N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export/follow.h"
#include "export/target.h"
#include "jfr/writer.h"

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		if ((x) < 0) {                                                                     \
			fprintf(stderr, "gen_fleet: %s: %s\n", #x, lfr_jfr_strerror(w));           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

#define PERIOD 10101010 /* ns: 99 Hz */

static struct lfr_jfr_writer *w;
static uint64_t now_ns = 1000000000000ull;

static uint64_t fake_clock(void)
{
	return now_ns;
}

struct keys {
	uint64_t stack[3], thread[4];
};

static void setup(struct keys *k)
{
	uint64_t m[6];
	static const uint8_t bid[] = {0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89};

	CHECK(lfr_jfr_method(w, "checkout", "main", LFR_JFR_FRAME_NATIVE, &m[0]));
	CHECK(lfr_jfr_method(w, "checkout", "handle_order", LFR_JFR_FRAME_NATIVE, &m[1]));
	CHECK(lfr_jfr_method(w, "libc.so.6", "memcpy", LFR_JFR_FRAME_NATIVE, &m[2]));
	CHECK(lfr_jfr_method(w, "kernel", "ksys_read", LFR_JFR_FRAME_KERNEL, &m[3]));
	CHECK(lfr_jfr_method(w, "libstripped.so", "0x1a2b", LFR_JFR_FRAME_NATIVE, &m[4]));
	CHECK(lfr_jfr_method(w, "postgres", "ExecScan", LFR_JFR_FRAME_NATIVE, &m[5]));
	uint64_t s0[] = {m[2], m[1], m[0]}, s1[] = {m[3], m[4], m[5]}, s2[] = {m[5]};

	CHECK(lfr_jfr_stack(w, s0, 3, false, &k->stack[0]));
	CHECK(lfr_jfr_stack(w, s1, 3, false, &k->stack[1]));
	CHECK(lfr_jfr_stack(w, s2, 1, false, &k->stack[2]));
	CHECK(lfr_jfr_thread(w, 101, 100, "checkout-main", "checkout", &k->thread[0]));
	CHECK(lfr_jfr_thread(w, 102, 100, "checkout-io", "checkout", &k->thread[1]));
	CHECK(lfr_jfr_thread(w, 201, 200, "postgres", "postgres", &k->thread[2]));
	CHECK(lfr_jfr_thread(w, 301, 300, "loner", "loner", &k->thread[3]));
	CHECK(lfr_jfr_object_file(w, now_ns, "libstripped.so", "/usr/lib/libstripped.so", bid,
	                          sizeof(bid)));
}

static void labels(void)
{
	const char *own[] = {"host.name", "gen-host", "env", "test"};
	const char *p100[] = {"service.name", "checkout", "container.id",
	                      "f52a212505a606972cf8614c3cb856539e71b77ecae33436c5ac442232fbacf8"};
	const char *p200[] = {"service.name", "db"};

	CHECK(lfr_jfr_labels(w, now_ns, 0, own, 2));
	CHECK(lfr_jfr_labels(w, now_ns, 100, p100, 2));
	CHECK(lfr_jfr_labels(w, now_ns, 200, p200, 1));
	CHECK(lfr_jfr_sampler_settings(w, now_ns, PERIOD, 127, true, "system-wide"));
}

static void samples(uint64_t thread, uint64_t stack, int n)
{
	for (int i = 0; i < n; i++) {
		now_ns += 3000 + (uint64_t)i;
		CHECK(lfr_jfr_sample(w, now_ns, thread, stack, LFR_JFR_STATE_RUNNABLE, PERIOD));
	}
}

/* n samples, those i < upto with i % every == 0 in trace context ctx. */
static void samples_in(uint64_t thread, uint64_t stack, int n, uint64_t ctx, int every, int upto)
{
	for (int i = 0; i < n; i++) {
		now_ns += 3000 + (uint64_t)i;
		CHECK(lfr_jfr_sample(w, now_ns, thread, stack, LFR_JFR_STATE_RUNNABLE, PERIOD));
		if (i < upto && i % every == 0)
			CHECK(lfr_jfr_trace_context(w, now_ns, thread, ctx));
	}
}

/* The contexts: trace 0102..10, spans a1..a8 (an attribute) and b1..b8. */
static void contexts(uint64_t *a, uint64_t *b)
{
	uint8_t trace[16], span_a[8], span_b[8];
	struct lfr_jfr_attr route = {"http.route", "/checkout", 10, 9};

	for (int i = 0; i < 16; i++)
		trace[i] = (uint8_t)(i + 1);
	for (int i = 0; i < 8; i++) {
		span_a[i] = (uint8_t)(0xa1 + i);
		span_b[i] = (uint8_t)(0xb1 + i);
	}
	CHECK(lfr_jfr_context(w, trace, span_a, 1, &route, 1, a));
	CHECK(lfr_jfr_context(w, trace, span_b, 0, NULL, 0, b));
}

static int gen_file(const char *path)
{
	/* a wall-clock recording (lfr record --wall): each CPU sample a wall-clock sample too */
	struct lfr_jfr_options opt = {.clock = fake_clock,
	                              .clock_realtime0 = 1790000000000000000ll,
	                              .max_chunk_age_ns = 1,
	                              .sample_events =
	                                  LFR_JFR_SAMPLE_DEFAULT | LFR_JFR_SAMPLE_WALL};
	struct keys k;
	uint64_t ca, cb;
	char err[256];

	if (lfr_jfr_open(&w, path, &opt) < 0) {
		fprintf(stderr, "gen_fleet: %s\n", lfr_jfr_strerror(w));
		return 1;
	}
	setup(&k);
	labels();
	contexts(&ca, &cb);
	samples_in(k.thread[0], k.stack[0], 40, ca, 2, 40);
	samples(k.thread[1], k.stack[1], 7);
	samples_in(k.thread[2], k.stack[2], 25, cb, 1, 10);
	/* samples off the CPU in every chunk */
	CHECK(lfr_jfr_wall_sample(w, now_ns, k.thread[1], k.stack[1], LFR_JFR_STATE_SLEEPING));
	CHECK(lfr_jfr_flush(w));
	now_ns += 1000000;
	samples_in(k.thread[0], k.stack[0], 13, ca, 1, 13);
	CHECK(lfr_jfr_wall_sample(w, now_ns, k.thread[2], k.stack[1], LFR_JFR_STATE_SLEEPING));
	CHECK(lfr_jfr_flush(w));
	now_ns += 1000000;
	samples(k.thread[3], k.stack[2], 5);
	CHECK(lfr_jfr_off_cpu(w, now_ns, 2500000, k.thread[3], k.stack[1], "sleeping", 0, 0));
	CHECK(lfr_jfr_off_cpu(w, now_ns + 3000000, 700000, k.thread[3], k.stack[1], "io", 0, 0));
	CHECK(lfr_jfr_trace_context(w, now_ns + 3000000, k.thread[3], cb));
	for (int i = 0; i < 3; i++)
		CHECK(lfr_jfr_wall_sample(w, now_ns + 10 * (uint64_t)i, k.thread[3], k.stack[1],
		                          LFR_JFR_STATE_SLEEPING));
	now_ns += 4000000;
	if (lfr_jfr_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "gen_fleet: %s\n", err);
		return 1;
	}
	return 0;
}

static int gen_many(const char *path, int n)
{
	struct lfr_jfr_options opt = {.clock = fake_clock,
	                              .clock_realtime0 = 1790000000000000000ll,
	                              .sample_events = LFR_JFR_SAMPLE_DEFAULT};
	uint64_t shared[2], m, stack, thread;
	char name[32], fn[32], cmd[64], team[48], err[256];
	static const uint8_t bid[] = {0x5e, 0x1f, 0x00, 0x0d};

	if (lfr_jfr_open(&w, path, &opt) < 0) {
		fprintf(stderr, "gen_fleet: %s\n", lfr_jfr_strerror(w));
		return 1;
	}
	CHECK(lfr_jfr_sampler_settings(w, now_ns, PERIOD, 127, true, "system-wide"));
	CHECK(lfr_jfr_method(w, "kernel", "ksys_write", LFR_JFR_FRAME_KERNEL, &shared[0]));
	CHECK(lfr_jfr_method(w, "libc.so.6", "memcpy", LFR_JFR_FRAME_NATIVE, &shared[1]));
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "svc-%03d", i);
		snprintf(fn, sizeof(fn), "work_%03d", i);
		CHECK(lfr_jfr_method(w, name, fn, LFR_JFR_FRAME_NATIVE, &m));
		uint64_t frames[] = {shared[0], shared[1], m};

		CHECK(lfr_jfr_stack(w, frames, 3, false, &stack));
		CHECK(lfr_jfr_thread(w, (uint32_t)(1000 + i), (uint32_t)(1000 + i), name, name,
		                     &thread));
		samples(thread, stack, 3);
		snprintf(cmd, sizeof(cmd), "/usr/bin/%s --port %d", name, 8000 + i);
		CHECK(lfr_jfr_system_process(w, now_ns, (uint32_t)(1000 + i), cmd));
		snprintf(team, sizeof(team), "%s-team", name);
		const char *kv[] = {"team", team};

		CHECK(lfr_jfr_labels(w, now_ns, (uint32_t)(1000 + i), kv, 1));
		snprintf(cmd, sizeof(cmd), "/usr/bin/%s", name);
		CHECK(lfr_jfr_object_file(w, now_ns, name, cmd, bid, sizeof(bid)));
	}
	CHECK(lfr_jfr_system_process(w, now_ns, 999, "/usr/bin/svc-999 --gone"));
	if (lfr_jfr_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "gen_fleet: %s\n", err);
		return 1;
	}
	return 0;
}

/* the writer's evictions, for the exports (which start once the writer has made DIR) */
static struct lfr_follow *following;

static void on_evict(void *arg, const char *name, uint64_t bytes)
{
	(void)arg;
	if (following)
		lfr_follow_evicted(following, name, bytes);
}

static void on_chunk_file(void *arg)
{
	(void)arg;
	if (following)
		lfr_follow_chunk_finished(following);
}

/* The fewest chunks an export of f has sent. */
static uint64_t least_sent(struct lfr_follow *f)
{
	struct lfr_export_state st;
	uint64_t least = UINT64_MAX;

	for (size_t i = 0; i < lfr_follow_count(f); i++) {
		lfr_follow_state(f, i, &st);
		least = st.sent_chunks < least ? st.sent_chunks : least;
	}
	return least;
}

/*
 * Whether every export has nothing waiting (its recording ended), as this process's exports
 * said: until their first save the state is the one a recorder before left.
 */
static int all_sent(struct lfr_follow *f)
{
	struct lfr_export_state st;

	for (size_t i = 0; i < lfr_follow_count(f); i++) {
		lfr_follow_state(f, i, &st);
		if (st.pending_chunks || !st.written || st.pid != (uint32_t)getpid())
			return 0;
	}
	return 1;
}

static int spool(int argc, char **argv)
{
	const char *dir = argv[2];
	struct lfr_export_target t[LFR_EXPORT_TARGETS_MAX];
	struct lfr_follow_opts fo = {
	    .backoff_min_ns = 20000000, .backoff_max_ns = 200000000, .poll_ns = 20000000};
	struct lfr_jfr_options opt = {.clock = fake_clock, .max_chunk_age_ns = 1, .repository = 1};
	struct lfr_follow *f = NULL;
	struct lfr_jfr_stats js;
	size_t nt = 0;
	int chunks = atoi(argv[4]), kill = 0, wake = 0;
	char why[768];
	struct keys k;

	opt.clock_realtime0 = atoll(argv[3]) * 1000000000ll - (int64_t)now_ns;
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "--kill"))
			kill = 1;
		else if (!strcmp(argv[i], "--wake"))
			wake = 1, fo.poll_ns = 3600000000000ull;
		else if (!strcmp(argv[i], "--max-size") && i + 1 < argc)
			/* chunks of at most a quarter of it, as lfr record makes them */
			opt.repo_max_bytes = strtoull(argv[++i], NULL, 10),
			opt.max_chunk_bytes = opt.repo_max_bytes / 4;
		else if (lfr_export_targets_parse(argv[i], t, &nt, LFR_EXPORT_TARGETS_MAX, why,
		                                  sizeof(why))) {
			fprintf(stderr, "gen_fleet: %s\n", why);
			return 2;
		}
	}
	opt.on_evict = on_evict;
	opt.on_chunk_file = on_chunk_file;
	if (lfr_jfr_open(&w, dir, &opt) < 0) {
		fprintf(stderr, "gen_fleet: %s\n", lfr_jfr_strerror(w));
		return 1;
	}
	if (lfr_follow_start(&f, dir, t, nt, &fo, why, sizeof(why))) {
		fprintf(stderr, "gen_fleet: %s\n", why);
		return 1;
	}
	following = f;
	setup(&k);
	labels();
	for (int c = 0; c < chunks; c++) {
		samples(k.thread[c % 2], k.stack[0], 3 + c % 5);
		samples(k.thread[2], k.stack[2], 1 + c % 3);
		now_ns += 1000000000; /* a second per chunk: their names are a second apart */
		CHECK(lfr_jfr_flush(w));
	}
	lfr_jfr_get_stats(w, &js);
	printf("evicted %llu\n", (unsigned long long)js.evicted);
	fflush(stdout);
	if (kill)
		_exit(0);
	for (int i = 0; wake && i < 6000 && least_sent(f) < (uint64_t)chunks - 1; i++)
		usleep(20000);
	if (wake) {
		printf("sent before the end %llu\n", (unsigned long long)least_sent(f));
		fflush(stdout);
	}
	CHECK(lfr_jfr_close(w, why, sizeof(why)));
	lfr_follow_recording_ended(f);
	/* with --wake nothing waited before the end: the last chunk, sent after it, is the sign */
	for (int i = 0; i < 30000 && (!all_sent(f) || (wake && least_sent(f) < (uint64_t)chunks));
	     i++)
		usleep(20000);
	lfr_follow_stop(f, 0);
	lfr_follow_free(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "file"))
		return gen_file(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "many"))
		return gen_many(argv[2], atoi(argv[3]));
	if (argc >= 6 && !strcmp(argv[1], "spool"))
		return spool(argc, argv);
	fprintf(stderr, "usage: gen_fleet file FILE | many FILE N | spool DIR T0 CHUNKS "
	                "KIND=URL... [--max-size "
	                "BYTES] [--kill]\n");
	return 2;
}

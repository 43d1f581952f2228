// SPDX-License-Identifier: GPL-2.0
/*
 * spanctx: threads that run functions named after the OpenTelemetry span they publish in their
 * thread context (OTEP 4947's otel_thread_ctx_v1), so that a profiler's sample can be checked
 * against its stack: a sample taken in span_K (or span_rewrite_K) ran for span K.
 *
 * This file holds the variable, the records and every thread.  It is built into the executable
 * (spanctx: local-exec TLS), into a library linked with it (spanctx-lib: TLSDESC; spanctx-gd:
 * general-dynamic, the GNU dialect) and into one loaded with dlopen (spanctx-dlopen: TLSDESC, a
 * block the DTV gives).  The process also publishes its process context (OTEP 4719), a memfd named
 * OTEL_CTX whose Resource holds threadlocal.attribute_key_map = [http.route, worker]: each record
 * carries http.route=/span/K and worker=THREAD.
 *
 *   thread "ctx-swap":    for K in 1..3: otel_thread_ctx_v1 = NULL, then &record[K] (pointer
 *                         publication); span_K(): CPU, then a sleep (wall samples off the CPU)
 *   thread "ctx-valid":   one record; valid = 0, its ids for K, valid = 1; span_K()
 *   thread "ctx-rewrite": one record rewritten all the time inside span_rewrite_K (valid = 0, the
 *                         ids byte by byte, valid = 1, then read as long): a sample sees K's ids
 *                         or valid 0, never a mix
 *   thread "ctx-none":    no record (NULL): no_span()
 *
 * Ids: span id = 8 bytes of 0x11 * K; trace id = 8 bytes of the thread's tag, then 8 of K (tags:
 * ctx-swap a1, ctx-valid a2, ctx-rewrite a3).  A torn id would mix two of them.
 *
 * Every thread first runs warm() with the span 9 (ids of K = 9, no attributes; ctx-none: none)
 * until the file GO exists, so that the recorder can register the process first, then runs its
 * spans until it has had SECONDS of CPU time.  Prints one line per thread
 * ("spanctx-thread NAME TID") and "spanctx: done" at the end.
 *
 * Usage: spanctx SECONDS GO
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "spanctx.h"

#define FN __attribute__((noinline, used, visibility("default")))

/* OTEP 4947's record: 28 bytes, then the attributes; byte-packed, 2-byte aligned. */
struct otel_thread_ctx_record {
	uint8_t trace_id[16];
	uint8_t span_id[8];
	uint8_t valid;
	uint8_t trace_flags;
	uint16_t attrs_data_size;
	uint8_t attrs_data[100];
} __attribute__((packed, aligned(8)));

__attribute__((visibility("default"))) __thread struct otel_thread_ctx_record *otel_thread_ctx_v1;

#define fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

static double seconds;
static const char *go_file;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void burn_ns(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;
	volatile uint64_t x = 0;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += i;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The ids and attributes of span K for the thread of tag TAG named NAME. */
static void fill(volatile struct otel_thread_ctx_record *r, uint8_t tag, int k, const char *name)
{
	static const char route[] = "/span/";
	uint16_t n = 0;
	size_t route_len = sizeof(route) - 1;
	size_t len;

	for (int i = 0; i < 8; i++) {
		r->trace_id[i] = tag;
		r->trace_id[8 + i] = (uint8_t)k;
		r->span_id[i] = (uint8_t)(0x11 * k);
	}
	r->trace_flags = 1;
	if (k == 9) {
		r->attrs_data_size = 0;
		return;
	}
	/* key 0: http.route = /span/K */
	r->attrs_data[n++] = 0;
	r->attrs_data[n++] = (uint8_t)(route_len + 1);
	for (size_t i = 0; i < route_len; i++)
		r->attrs_data[n++] = (uint8_t)route[i];
	r->attrs_data[n++] = (uint8_t)('0' + k);
	/* key 1: worker = NAME */
	len = strlen(name);
	r->attrs_data[n++] = 1;
	r->attrs_data[n++] = (uint8_t)len;
	for (size_t i = 0; i < len; i++)
		r->attrs_data[n++] = (uint8_t)name[i];
	r->attrs_data_size = n;
}

FN void warm(void)
{
	while (access(go_file, F_OK))
		burn_ns(1000000);
}

/* 20 ms of CPU, then 10 ms asleep: wall-clock samples find the thread off the CPU in span K. */
FN void span_1(void)
{
	burn_ns(20000000);
	sleep_ms(10);
}

FN void span_2(void)
{
	burn_ns(20000000);
	sleep_ms(10);
}

FN void span_3(void)
{
	burn_ns(20000000);
	sleep_ms(10);
}

static void (*const spans[4])(void) = {NULL, span_1, span_2, span_3};

/*
 * Rewrites record R with span K's ids 200000 times: each time invalid first, the ids byte by byte,
 * valid last; then reads it while it is valid (as long as the rewrite takes).
 */
static void rewrite(volatile struct otel_thread_ctx_record *r, int k)
{
	volatile uint8_t sink = 0;

	for (int n = 0; n < 200000; n++) {
		r->valid = 0;
		fence();
		for (int i = 0; i < 8; i++) {
			r->trace_id[8 + i] = (uint8_t)k;
			r->span_id[i] = (uint8_t)(0x11 * k);
		}
		fence();
		r->valid = 1;
		fence();
		for (int i = 0; i < 16; i++)
			sink = (uint8_t)(sink + r->span_id[i & 7]);
	}
}

FN void span_rewrite_1(volatile struct otel_thread_ctx_record *r)
{
	rewrite(r, 1);
}

FN void span_rewrite_2(volatile struct otel_thread_ctx_record *r)
{
	rewrite(r, 2);
}

FN void span_rewrite_3(volatile struct otel_thread_ctx_record *r)
{
	rewrite(r, 3);
}

FN void no_span(void)
{
	burn_ns(20000000);
}

static void announce(const char *name)
{
	prctl(PR_SET_NAME, name);
	printf("spanctx-thread %s %ld\n", name, (long)syscall(SYS_gettid));
	fflush(stdout);
}

static bool more(uint64_t start)
{
	return thread_cpu_ns() - start < (uint64_t)(seconds * 1e9);
}

/* Pointer publication: NULL while the next record is made ready, then the record. */
static void *swap_thread(void *arg)
{
	static struct otel_thread_ctx_record recs[10];
	uint64_t start;

	(void)arg;
	announce("ctx-swap");
	for (int k = 1; k <= 9; k++)
		fill(&recs[k], 0xa1, k, "ctx-swap");
	for (int k = 1; k <= 9; k++)
		recs[k].valid = 1;
	otel_thread_ctx_v1 = &recs[9];
	warm();
	start = thread_cpu_ns();
	for (int k = 1; more(start); k = k % 3 + 1) {
		otel_thread_ctx_v1 = NULL;
		fence();
		otel_thread_ctx_v1 = &recs[k];
		fence();
		spans[k]();
		fence();
	}
	otel_thread_ctx_v1 = NULL;
	return NULL;
}

/* One record, its valid byte down while it changes. */
static void *valid_thread(void *arg)
{
	static struct otel_thread_ctx_record rec;
	uint64_t start;

	(void)arg;
	announce("ctx-valid");
	fill(&rec, 0xa2, 9, "ctx-valid");
	rec.valid = 1;
	otel_thread_ctx_v1 = &rec;
	warm();
	start = thread_cpu_ns();
	for (int k = 1; more(start); k = k % 3 + 1) {
		rec.valid = 0;
		fence();
		fill(&rec, 0xa2, k, "ctx-valid");
		fence();
		rec.valid = 1;
		fence();
		spans[k]();
		fence();
	}
	otel_thread_ctx_v1 = NULL;
	return NULL;
}

static void *rewrite_thread(void *arg)
{
	static struct otel_thread_ctx_record rec;
	void (*const rw[4])(volatile struct otel_thread_ctx_record *) = {
	    NULL, span_rewrite_1, span_rewrite_2, span_rewrite_3};
	uint64_t start;

	(void)arg;
	announce("ctx-rewrite");
	fill(&rec, 0xa3, 9, "ctx-rewrite");
	rec.valid = 1;
	otel_thread_ctx_v1 = &rec;
	warm();
	start = thread_cpu_ns();
	for (int k = 1; more(start); k = k % 3 + 1) {
		rec.valid = 0;
		fence();
		fill(&rec, 0xa3, k, "ctx-rewrite");
		fence();
		rec.valid = 1;
		fence();
		rw[k](&rec);
		fence();
	}
	otel_thread_ctx_v1 = NULL;
	return NULL;
}

static void *none_thread(void *arg)
{
	uint64_t start;

	(void)arg;
	announce("ctx-none");
	warm();
	start = thread_cpu_ns();
	while (more(start))
		no_span();
	return NULL;
}

/* Protocol buffers, as much as a Resource with two attributes needs. */
static size_t pb_len(uint8_t *p, unsigned field, const void *data, size_t n)
{
	size_t off = 0;

	p[off++] = (uint8_t)(field << 3 | 2);
	for (size_t v = n;; v >>= 7) {
		p[off++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		if (v <= 0x7f)
			break;
	}
	memcpy(p + off, data, n);
	return off + n;
}

static size_t any_string(uint8_t *p, const char *s)
{
	return pb_len(p, 1, s, strlen(s));
}

static size_t key_value(uint8_t *p, const char *key, const uint8_t *value, size_t n)
{
	uint8_t kv[512];
	size_t m = pb_len(kv, 1, key, strlen(key));

	m += pb_len(kv + m, 2, value, n);
	return pb_len(p, 1, kv, m);
}

/* OTEP 4719's process context: the header, the Resource after it. */
struct otel_ctx_header {
	char signature[8];
	uint32_t version;
	uint32_t payload_size;
	uint64_t published_at_ns;
	uint64_t payload;
};

static void publish_process_context(void)
{
	uint8_t any[128], arr[256], val[300], payload[1024];
	size_t n = 0, a = 0;
	struct otel_ctx_header *h;
	struct timespec ts;
	int fd = (int)syscall(SYS_memfd_create, "OTEL_CTX", 1 /* MFD_CLOEXEC */);
	void *m;

	if (fd < 0 || ftruncate(fd, 4096)) {
		perror("spanctx: memfd");
		exit(1);
	}
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		perror("spanctx: mmap");
		exit(1);
	}
	madvise(m, 4096, MADV_DONTFORK);
	/* array_value (5) of the AnyValue: ArrayValue { values (1): AnyValue { string_value } } */
	a += pb_len(arr + a, 1, any, any_string(any, "http.route"));
	a += pb_len(arr + a, 1, any, any_string(any, "worker"));
	n += key_value(payload + n, "threadlocal.schema_version", any, any_string(any, "tls_v1"));
	n += key_value(payload + n, "threadlocal.attribute_key_map", val, pb_len(val, 5, arr, a));
	h = m;
	memcpy((char *)m + sizeof(*h), payload, n);
	h->version = 2;
	h->payload_size = (uint32_t)n;
	h->payload = (uint64_t)(uintptr_t)((char *)m + sizeof(*h));
	clock_gettime(CLOCK_REALTIME, &ts);
	h->published_at_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	memcpy(h->signature, "OTEL_CTX", 8);
}

int spanctx_run(int argc, char **argv)
{
	void *(*const threads[])(void *) = {swap_thread, valid_thread, rewrite_thread, none_thread};
	pthread_t t[4];

	if (argc != 3 || (seconds = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s SECONDS GO\n", argv[0]);
		return 2;
	}
	go_file = argv[2];
	publish_process_context();
	printf("spanctx pid=%ld\n", (long)getpid());
	fflush(stdout);
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, threads[i], NULL)) {
			fprintf(stderr, "spanctx: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("spanctx: done\n");
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * drainer_bench: joined samples per second through the drainer's real path — lfr_recorder_add()
 * and lfr_recorder_process() (decoding, joining TICK and USTACK records, mappings, thread names,
 * symbolization of every frame, method and stack interning, jdk.ExecutionSample events) into a JFR
 * file on disk.  "records" are joined samples (ticks), as `lfr record` delivers them.
 *
 *   drainer_bench [-n RECORDS] [-d DEPTH] [-s STACKS] [-t THREADS] [-b BATCH] [-o FILE] [-B]
 *
 * The record stream is synthetic but made of this program's own code: the frames are addresses in
 * 512 functions of this executable (named from its ELF symbol table) and in a few C library
 * functions, mapped by MMAP records that describe this process's real mappings (path, offset,
 * device, inode), so every frame goes through the symbolizer's ELF lookup the first time and its
 * (pid, pc) cache after.  Stack reuse is realistic: STACKS distinct call paths (default 4000) drawn
 * with a Zipf-like weight (the hottest path takes about a tenth of the samples), a shared base of
 * frames, and a leaf pc that varies within its function as a hot loop's does.  THREADS threads
 * (default 64) of 4 processes sample in turn; each thread's COMM and each process's mappings
 * come first.  The samples arrive as the module writes them: per stack walk its TICK records, then
 * its USTACK record (the user pcs and 16 stack words), which carries the walk's tick when that
 * tick interrupted user code; one walk in 8 is shared by 2 to 4 ticks of a
 * thread that stayed in the kernel, and those ticks and one in 8 of the others carry 8 kernel pcs
 * from 64 kernel paths.  Ring records are fed in batches of BATCH (default 4096) as the recorder
 * sees a ring drain; time spent building the stream is not measured.  cpu_rate and ns_per_record
 * use the process's CPU time (one thread: records per second of one core), rate the wall time.  The
 * file is closed (final flush) inside the measured time.
 *
 * With -B the recorder names behind the reading, as `lfr record` runs it (lfr_recorder_behind()):
 * this thread only adds records and hands each batch over, the recorder's naming thread applies
 * them (a queue of at most 32 MB: past it this thread waits, so it runs at the naming thread's
 * pace with its buffers recycled, the steady state of a recording whose naming keeps up).  The
 * line then ends with the reading side's own cost: read_cpu_seconds (this thread's CPU time up to
 * the last hand-over), read_rate (records per second of it) and read_ns_per_record.
 *
 * Prints one line: "drainer: records=N depth=D stacks=S threads=T seconds=T cpu_seconds=T rate=R
 * records/s cpu_rate=R ns_per_record=X bytes_per_sample=B frames_named=P% stack_traces=N methods=N
 * sym_cache_hits=P%".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/lfr.h>

#include "jfr/writer.h"
#include "record/recorder.h"
#include "sym/sym.h"

#include "record_stream.h"

#define NPROC 4
#define MAXDEPTH 1024
#define NWALKS 65536 /* stack walks in the replayed pool */
#define KDEPTH 8     /* kernel pcs of a tick that interrupted the kernel */
#define NKSTACKS 64

static uint64_t kstacks[NKSTACKS][KDEPTH];

/* 512 small functions of this program, so that frames name real symbols of a real ELF file. */
static volatile unsigned long sink;
#define F(n)                                                                                       \
	__attribute__((noinline, used)) static void fn##n(unsigned long x)                         \
	{                                                                                          \
		for (unsigned long i = 0; i < x; i++)                                              \
			sink = sink * 31 + i + n;                                                  \
	}
#define F8(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7)
#define F64(n) F8(n##0) F8(n##1) F8(n##2) F8(n##3) F8(n##4) F8(n##5) F8(n##6) F8(n##7)
F64(1)
F64(2)
F64(3)
F64(4)
F64(5)
F64(6)
F64(7)
F64(8)
#define P(n) fn##n,
#define P8(n) P(n##0) P(n##1) P(n##2) P(n##3) P(n##4) P(n##5) P(n##6) P(n##7)
#define P64(n) P8(n##0) P8(n##1) P8(n##2) P8(n##3) P8(n##4) P8(n##5) P8(n##6) P8(n##7)
static void (*const fns[])(unsigned long) = {P64(1) P64(2) P64(3) P64(4) P64(5) P64(6) P64(7)
                                                 P64(8)};
#define NFN (sizeof(fns) / sizeof(fns[0]))

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of this process: on a shared machine the wall time also counts others' work. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double thread_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr, "usage: drainer_bench [-n RECORDS] [-d DEPTH] [-s STACKS] [-t THREADS] "
	                "[-b BATCH] [-o FILE] [-B]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long nrec = 2000000, depth = 32, nstacks = 4000, nthreads = 64, batch = 4096;
	const char *out = "/tmp/lfr-drainer-bench.jfr";
	/* return addresses in the C library, as real stacks have them */
	const uintptr_t libc_pcs[] = {(uintptr_t)qsort, (uintptr_t)bsearch, (uintptr_t)strtol,
	                              (uintptr_t)fopen, (uintptr_t)fclose,  (uintptr_t)getenv};
	struct buf stream = {0}, pre = {0};
	uint64_t *stacks, *cum, total = 0;
	struct lfr_recorder_stats rst;
	struct lfr_jfr_stats jst;
	struct lfr_sym_stats sst;
	struct lfr_recorder *rec;
	struct lfr_jfr_writer *w;
	struct lfr_sym *sym;
	struct lfr_sym_opts so = {0};
	size_t ustack_bytes;
	long fed = 0;
	char err[256];
	struct stat st;
	double t0, t1, c0, c1, r0 = 0, r1 = 0;
	bool behind = false;
	int c;

	while ((c = getopt(argc, argv, "n:d:s:t:b:o:Bh")) != -1) {
		switch (c) {
		case 'B':
			behind = true;
			break;
		case 'n':
			nrec = atol(optarg);
			break;
		case 'd':
			depth = atol(optarg);
			break;
		case 's':
			nstacks = atol(optarg);
			break;
		case 't':
			nthreads = atol(optarg);
			break;
		case 'b':
			batch = atol(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || nrec < 1 || depth < 4 || depth > MAXDEPTH || nstacks < 1 ||
	    nthreads < NPROC || batch < 1)
		usage();

	/* The call paths: a shared base of 3 frames, a varied middle, a leaf function; Zipf
	 * weights. */
	stacks = calloc((size_t)(nstacks * depth), sizeof(*stacks));
	cum = calloc((size_t)nstacks, sizeof(*cum));
	if (!stacks || !cum)
		return 1;
	for (long s = 0; s < nstacks; s++) {
		uint64_t *f = stacks + s * depth;

		for (long d = 0; d < depth; d++) {
			long fromroot = depth - 1 - d;
			uintptr_t base;

			if (fromroot < 3)
				base = (uintptr_t)fns[fromroot];
			else if (d > 0 && d <= 2 && s % 3 == 0)
				base = libc_pcs[next() % (sizeof(libc_pcs) / sizeof(libc_pcs[0]))];
			else
				base = (uintptr_t)fns[3 + next() % (NFN - 3)];
			f[d] = base + 4 + next() % 12;
		}
		total += 1000000 / (uint64_t)(s + 1) + 1;
		cum[s] = total;
	}

	/* Announcements first: each process's mappings, each thread's name. */
	for (uint32_t p = 0; p < NPROC; p++)
		if (add_mappings(&pre, 1000 + p, 0) <= 0) {
			fprintf(stderr,
			        "drainer_bench: no executable mappings in /proc/self/maps\n");
			return 1;
		}
	for (long t = 0; t < nthreads; t++) {
		struct lfr_rec_comm *cm = reserve(&pre, sizeof(*cm));

		cm->hdr.type = LFR_REC_COMM;
		cm->hdr.size = sizeof(*cm);
		cm->tgid = 1000 + (uint32_t)(t % NPROC);
		cm->tid = t < NPROC ? cm->tgid : 2000 + (uint32_t)t;
		snprintf(cm->comm, sizeof(cm->comm), "worker-%d", (int)(t % 10000));
	}

	/* NKSTACKS kernel paths (system calls, page faults): kernel stacks repeat as user ones do
	 */
	for (int k = 0; k < NKSTACKS; k++)
		for (int d = 0; d < KDEPTH; d++)
			kstacks[k][d] = 0xffffffff81000000ULL + (next() % 4096) * 64;

	/* A pool of 65536 stack walks as the module writes them: for each, the TICK records that
	 * refer to it, then its USTACK record.  Most walks have one tick; one in 8 has 2 to 4, as a
	 * thread that stayed in the kernel between ticks has, and those ticks and one in 8 of the
	 * others interrupted the kernel and carry KDEPTH kernel pcs.  The one tick of user code of
	 * a walk has no TICK record: its USTACK record carries it (LFR_USTACK_F_TICK). */
	ustack_bytes = sizeof(struct lfr_rec_ustack) + (size_t)(depth + LFR_USTACK_WORDS) * 8;
	for (int i = 0; i < NWALKS; i++) {
		struct lfr_rec_ustack *u;
		uint64_t x = next() % total;
		long lo = 0, hi = nstacks - 1, t = (long)(next() % (uint64_t)nthreads);
		uint32_t tgid = 1000 + (uint32_t)(t % NPROC);
		uint32_t tid = t < NPROC ? tgid : 2000 + (uint32_t)t;
		unsigned int nticks = next() % 8 ? 1 : 2 + (unsigned int)(next() % 3);
		bool own = nticks == 1 && next() % 8 != 0;

		while (lo < hi) {
			long mid = (lo + hi) / 2;

			if (cum[mid] > x)
				hi = mid;
			else
				lo = mid + 1;
		}
		for (unsigned int k = own; k < nticks; k++) {
			bool in_kernel = true;
			size_t size = sizeof(struct lfr_rec_tick) + (in_kernel ? KDEPTH * 8 : 0);
			struct lfr_rec_tick *tk = reserve(&stream, size);

			tk->hdr.type = LFR_REC_TICK;
			tk->hdr.size = (uint32_t)size;
			tk->walk_id = (uint64_t)i + 1;
			tk->cpu = (uint32_t)(i & 1);
			tk->tgid = tgid;
			tk->tid = tid;
			if (in_kernel) {
				tk->flags = LFR_SAMPLE_F_IN_KERNEL;
				tk->nr_kernel = KDEPTH;
				memcpy(tk->ips, kstacks[next() % NKSTACKS], sizeof(kstacks[0]));
			}
		}
		u = reserve(&stream, ustack_bytes);
		u->hdr.type = LFR_REC_USTACK;
		u->hdr.size = (uint32_t)ustack_bytes;
		u->walk_id = (uint64_t)i + 1;
		u->tgid = tgid;
		u->tid = tid;
		u->ticks = nticks;
		u->flags = own ? LFR_USTACK_F_TICK : 0;
		u->nr_user = (uint16_t)depth;
		u->nr_words = LFR_USTACK_WORDS;
		u->sp = 0x7ffc00000000ULL;
		memcpy(u->ips, stacks + lo * depth, (size_t)depth * 8);
		/* a hot loop's pc moves within its function */
		u->ips[0] = (uintptr_t)fns[3 + (lo % (NFN - 3))] + 4 + next() % 24;
	}

	so.flags = 0;
	if (lfr_jfr_open(&w, out, NULL)) {
		fprintf(stderr, "drainer_bench: %s: %s\n", out,
		        w ? lfr_jfr_strerror(w) : "cannot open");
		return 1;
	}
	if (lfr_sym_new(&sym, &so) || lfr_recorder_new(&rec, w, sym)) {
		fprintf(stderr, "drainer_bench: out of memory\n");
		return 1;
	}

	if (behind && lfr_recorder_behind(rec, 32u << 20, 19, true)) {
		fprintf(stderr, "drainer_bench: cannot start the naming thread\n");
		return 1;
	}
	t0 = now();
	c0 = cpu_now();
	r0 = thread_cpu_now();
	for (size_t off = 0; off < pre.len;) {
		const struct lfr_rec_header *h = (const void *)(pre.p + off);

		lfr_recorder_add(rec, h);
		off += h->size;
	}
	{
		uint64_t time_ns = 1000000000ULL, walk_base = 0;
		long nadded = 0;
		size_t off = 0;

		/* whole walks until nrec ticks have been fed; walk ids stay unique across replays
		 */
		while (fed < nrec || off != 0) {
			struct lfr_rec_header *h = (void *)(stream.p + off);
			int e;

			if (h->type == LFR_REC_TICK) {
				struct lfr_rec_tick *tk = (void *)h;

				tk->time_ns = time_ns;
				tk->walk_id = walk_base + (tk->walk_id - 1) % NWALKS + 1;
				time_ns += 10000;
				fed++;
			} else {
				struct lfr_rec_ustack *u = (void *)h;

				u->time_ns = time_ns;
				u->walk_id = walk_base + (u->walk_id - 1) % NWALKS + 1;
				if (u->flags & LFR_USTACK_F_TICK) {
					time_ns += 10000;
					fed++;
				}
			}
			if ((e = lfr_recorder_add(rec, h))) {
				fprintf(stderr, "drainer_bench: add: %s\n", strerror(-e));
				return 1;
			}
			off += h->size;
			if (off >= stream.len) {
				off = 0;
				walk_base += NWALKS;
			}
			if (++nadded % batch == 0 && (e = lfr_recorder_process(rec, false))) {
				fprintf(stderr, "drainer_bench: process: %s\n",
				        lfr_jfr_strerror(w));
				return 1;
			}
			if (fed >= nrec && h->type == LFR_REC_USTACK)
				break;
		}
		r1 = thread_cpu_now();
		if (lfr_recorder_process(rec, true)) {
			fprintf(stderr, "drainer_bench: process: %s\n", lfr_jfr_strerror(w));
			return 1;
		}
	}
	lfr_recorder_get_stats(rec, &rst);
	lfr_jfr_get_stats(w, &jst);
	lfr_sym_get_stats(sym, &sst);
	if (lfr_jfr_close(w, err, sizeof(err))) {
		fprintf(stderr, "drainer_bench: close: %s\n", err);
		return 1;
	}
	t1 = now();
	c1 = cpu_now();
	if (stat(out, &st)) {
		perror("drainer_bench: stat");
		return 1;
	}
	if ((long)rst.events != fed) {
		fprintf(stderr, "drainer_bench: %llu of %ld samples written\n",
		        (unsigned long long)rst.events, fed);
		return 1;
	}
	printf(
	    "drainer: records=%ld depth=%ld stacks=%ld threads=%ld seconds=%.3f cpu_seconds=%.3f "
	    "rate=%.0f records/s cpu_rate=%.0f ns_per_record=%.1f bytes_per_sample=%.2f "
	    "frames_named=%.1f%% stack_traces=%llu "
	    "methods=%llu sym_cache_hits=%.1f%% stack_hits=%.1f%% raw_hits=%.1f%% "
	    "leaf_inserted=%llu "
	    "leaf_uncertain=%llu",
	    fed, depth, nstacks, nthreads, t1 - t0, c1 - c0, (double)fed / (t1 - t0),
	    (double)fed / (c1 - c0), (c1 - c0) * 1e9 / (double)fed,
	    (double)st.st_size / (double)fed,
	    rst.frames ? 100.0 * (double)(rst.frames - rst.unnamed) / (double)rst.frames : 0.0,
	    (unsigned long long)jst.stack_traces, (unsigned long long)jst.methods,
	    sst.lookups ? 100.0 * (double)sst.cache_hits / (double)sst.lookups : 0.0,
	    rst.samples ? 100.0 * (double)rst.stack_hits / (double)rst.samples : 0.0,
	    rst.samples ? 100.0 * (double)rst.raw_hits / (double)rst.samples : 0.0,
	    (unsigned long long)rst.leaf_inserted, (unsigned long long)rst.leaf_uncertain);
	if (behind)
		printf(" read_cpu_seconds=%.3f read_rate=%.0f read_ns_per_record=%.1f", r1 - r0,
		       (double)fed / (r1 - r0), (r1 - r0) * 1e9 / (double)fed);
	printf("\n");
	lfr_recorder_free(rec);
	lfr_sym_free(sym);
	free(stacks);
	free(cum);
	free(stream.p);
	free(pre.p);
	return 0;
}

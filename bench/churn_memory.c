// SPDX-License-Identifier: GPL-2.0
/*
 * churn_memory: what the recorder holds for processes and threads that came and went.
 *
 *   churn_memory [-r ROUNDS] [-p PROCESSES] [-t THREADS] [-m [-n]] [-s [-j]] [-q SECONDS]
 *
 * Feeds the recorder (lfr_recorder_add()/lfr_recorder_process(), as `lfr record` does) ROUNDS
 * rounds of PROCESSES short-lived processes, each created, exec'd, running THREADS threads that
 * are created and exit, and exiting; with -m each process's executable mappings (this program's
 * own, from /proc/self/maps) as MMAP records, with -s one sample of each thread; with -j its leaf
 * is in code no mapping holds, at another address in every process (JIT code without a perf
 * map, under address randomization).  After each round
 * it prints the heap in use (mallinfo2) and its growth per process of the round, the JFR writer's
 * threads, the entries of the recorder's stack caches and this program's resident memory (the
 * caches' pages, mapped apart from the heap, count there only):
 *
 *   churn_memory round=R processes=P threads=T heap_kib=H kib_per_process=K jfr_threads=J
 *                stack_cache=C rss_kib=S
 *
 * One process starts every 10 ms of the records' time (a busy build machine's pace).  A recorder
 * that forgets what exited (30 s after its exit) holds the same heap once a round is longer than
 * that; one that keeps it grows by the same amount each round.  With -q, SECONDS of quiet follow
 * (a process of one thread a second), and every 10 s a line of what is left after the burst:
 *
 *   churn_memory quiet_s=Q heap_kib=H jfr_threads=J rss_kib=S
 *
 * Documentation/benchmarks.md, "bench/soak".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/lfr.h>

#include "jfr/writer.h"
#include "record/recorder.h"
#include "sym/sym.h"

#include "record_stream.h"

/* This program's resident memory (VmRSS): the caches' pages written, which the heap omits. */
static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, resident = 0;

	if (f) {
		if (fscanf(f, "%ld %ld", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void add_task(struct buf *b, uint32_t kind, uint32_t tgid, uint32_t tid, uint32_t parent,
                     uint64_t time_ns, const char *comm)
{
	struct lfr_rec_task *k = reserve(b, sizeof(*k));

	k->hdr.type = LFR_REC_TASK;
	k->hdr.size = sizeof(*k);
	k->time_ns = time_ns;
	k->kind = kind;
	k->tgid = tgid;
	k->tid = tid;
	k->ptgid = parent;
	k->ptid = parent;
	snprintf(k->comm, sizeof(k->comm), "%s", comm);
}

/* One walk of tid that carries its tick: four frames of the C library, or with JIT a leaf that
 * no mapping holds, at an address of its process's own. */
static void add_sample(struct buf *b, uint32_t tgid, uint32_t tid, uint64_t walk, uint64_t time_ns,
                       bool jit)
{
	size_t size = sizeof(struct lfr_rec_ustack) + (4 + LFR_USTACK_WORDS) * 8;
	struct lfr_rec_ustack *u = reserve(b, size);

	u->hdr.type = LFR_REC_USTACK;
	u->hdr.size = (uint32_t)size;
	u->walk_id = walk;
	u->time_ns = time_ns;
	u->tgid = tgid;
	u->tid = tid;
	u->ticks = 1;
	u->flags = LFR_USTACK_F_TICK;
	u->nr_user = 4;
	u->nr_words = LFR_USTACK_WORDS;
	u->sp = 0x7ffc00000000ULL;
	u->ips[0] = jit ? 0x7f0000000040ULL + ((uint64_t)tgid << 12) : (uintptr_t)qsort + 8;
	u->ips[1] = (uintptr_t)bsearch + 8;
	u->ips[2] = (uintptr_t)strtol + 8;
	u->ips[3] = (uintptr_t)getenv + 8;
}

/* -n: where the C library's code is mapped, its bytes, and the copies made of them. */
struct builds {
	char dir[32];
	uint8_t *image;
	size_t len;
	uint64_t start, end, pgoff;
	unsigned long n;
};

static int builds_init(struct builds *nb)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], path[2048] = "";
	struct stat st;
	int fd = -1;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %2047s", &s, &e, perms, &off, path) ==
		        5 &&
		    perms[2] == 'x' && strstr(path, "/libc.so")) {
			nb->start = s;
			nb->end = e;
			nb->pgoff = off;
			break;
		}
	}
	if (f)
		fclose(f);
	if (!nb->end || (fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) ||
	    !(nb->image = malloc((size_t)st.st_size)) ||
	    read(fd, nb->image, (size_t)st.st_size) != st.st_size) {
		fprintf(stderr, "churn_memory: -n: cannot read the C library (%s)\n", path);
		return 1;
	}
	close(fd);
	nb->len = (size_t)st.st_size;
	snprintf(nb->dir, sizeof(nb->dir), "/tmp/lfr-builds-XXXXXX");
	if (!mkdtemp(nb->dir)) {
		perror("churn_memory: -n");
		return 1;
	}
	return 0;
}

/* A new build of the C library for tgid: its copy written, mapped over the library's code. */
static int add_new_build(struct buf *b, struct builds *nb, uint32_t tgid, uint64_t time_ns)
{
	char path[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/libc-%lu.so.6", nb->dir, nb->n++);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, nb->image, nb->len) != (ssize_t)nb->len || fstat(fd, &st) ||
	    close(fd)) {
		fprintf(stderr, "churn_memory: -n: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	add_mmap(b, tgid, time_ns, nb->start, nb->end, nb->pgoff, st.st_ino, major(st.st_dev),
	         minor(st.st_dev), path);
	return 0;
}

static void builds_fini(struct builds *nb)
{
	char path[64];

	for (unsigned long i = 0; i < nb->n; i++) {
		snprintf(path, sizeof(path), "%s/libc-%lu.so.6", nb->dir, i);
		unlink(path);
	}
	if (nb->dir[0])
		rmdir(nb->dir);
	free(nb->image);
}

/* The recorder fed, and where its records' ids and time stand. */
struct feed {
	struct lfr_recorder *rec;
	struct lfr_jfr_writer *w;
	uint64_t time_ns, walk;
	uint32_t pid;
	bool maps, samples, jit;
	struct builds *builds; /* -n */
};

/* One process of THREADS threads besides its main one, created and ended; 0 or 1 (said why). */
static int one_process(struct feed *f, long threads)
{
	struct buf b = {0};
	uint32_t tgid = f->pid++;
	int e;

	add_task(&b, LFR_TASK_FORK, tgid, tgid, 1, f->time_ns++, "churn");
	if (f->maps && add_mappings(&b, tgid, f->time_ns++) <= 0) {
		fprintf(stderr, "churn_memory: no executable mappings in /proc/self/maps\n");
		return 1;
	}
	if (f->builds && add_new_build(&b, f->builds, tgid, f->time_ns++))
		return 1;
	add_task(&b, LFR_TASK_EXEC, tgid, tgid, 0, f->time_ns++, "churn");
	for (long t = 0; t < threads; t++) {
		uint32_t tid = f->pid++;

		add_task(&b, LFR_TASK_FORK, tgid, tid, tgid, f->time_ns++, "worker");
		if (f->samples)
			add_sample(&b, tgid, tid, f->walk++, f->time_ns++, f->jit);
		add_task(&b, LFR_TASK_EXIT, tgid, tid, 0, f->time_ns++, "worker");
	}
	if (f->samples)
		add_sample(&b, tgid, tgid, f->walk++, f->time_ns++, f->jit);
	add_task(&b, LFR_TASK_EXIT, tgid, tgid, 0, f->time_ns++, "churn");
	for (size_t off = 0; off < b.len;) {
		const struct lfr_rec_header *h = (const void *)(b.p + off);

		if ((e = lfr_recorder_add(f->rec, h))) {
			fprintf(stderr, "churn_memory: add: %s\n", strerror(-e));
			return 1;
		}
		off += h->size;
	}
	free(b.p);
	if (lfr_recorder_process(f->rec, false)) {
		fprintf(stderr, "churn_memory: process: %s\n", lfr_jfr_strerror(f->w));
		return 1;
	}
	return 0;
}

static int flush(struct feed *f)
{
	if (!lfr_jfr_flush(f->w))
		return 0;
	fprintf(stderr, "churn_memory: flush: %s\n", lfr_jfr_strerror(f->w));
	return 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: churn_memory [-r ROUNDS] [-p PROCESSES] [-t THREADS] [-m [-n]] "
	                "[-s [-j]] [-q SECONDS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long rounds = 4, procs = 2000, threads = 5, quiet = 0;
	struct feed f = {.time_ns = 1000000000ull, .walk = 1, .pid = 1000};
	struct lfr_sym_opts so = {0};
	struct lfr_sym *sym = NULL;
	struct lfr_sym_stats ss;
	struct builds nb = {0};
	struct lfr_jfr_stats st;
	struct lfr_recorder_stats rs;
	size_t before = 0;
	char err[256];
	int c;

	while ((c = getopt(argc, argv, "r:p:t:mnsjq:h")) != -1) {
		switch (c) {
		case 'r':
			rounds = atol(optarg);
			break;
		case 'p':
			procs = atol(optarg);
			break;
		case 't':
			threads = atol(optarg);
			break;
		case 'm':
			f.maps = true;
			break;
		case 'n':
			f.builds = &nb;
			break;
		case 's':
			f.samples = true;
			break;
		case 'j':
			f.jit = true;
			break;
		case 'q':
			quiet = atol(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || rounds < 1 || procs < 1 || threads < 0 || quiet < 0 ||
	    (f.builds && !f.maps))
		usage();
	if (f.builds && builds_init(&nb))
		return 1;
	if (lfr_jfr_open(&f.w, "/tmp/lfr-churn-memory.jfr", NULL) || lfr_sym_new(&sym, &so) ||
	    lfr_recorder_new(&f.rec, f.w, sym)) {
		fprintf(stderr, "churn_memory: cannot start the recorder\n");
		return 1;
	}
	before = mallinfo2().uordblks;
	for (long r = 1; r <= rounds; r++) {
		size_t start = mallinfo2().uordblks, now;

		for (long p = 0; p < procs; p++) {
			if (one_process(&f, threads))
				return 1;
			/* a hundred processes a second, as on a busy build machine; the recorder
			 * flushes once a second (of its clock: here, of the records') */
			f.time_ns += 10000000;
			if (p % 100 == 99 && flush(&f))
				return 1;
		}
		now = mallinfo2().uordblks;
		lfr_jfr_get_stats(f.w, &st);
		lfr_recorder_get_stats(f.rec, &rs);
		lfr_sym_get_stats(sym, &ss);
		printf("churn_memory round=%ld processes=%ld threads=%ld heap_kib=%.1f "
		       "kib_per_process=%.2f jfr_threads=%llu stack_cache=%llu objects=%llu "
		       "rss_kib=%ld\n",
		       r, r * procs, r * procs * (threads + 1), (double)(now - before) / 1024,
		       ((double)now - (double)start) / 1024 / (double)procs,
		       (unsigned long long)st.threads, (unsigned long long)rs.stack_cache_entries,
		       (unsigned long long)ss.objects_held, rss_kib());
	}
	/* then quiet: a process of one thread a second, its exit moving the recorder's clock */
	for (long q = 1; q <= quiet; q++) {
		f.time_ns += 1000000000;
		if (one_process(&f, 0) || flush(&f))
			return 1;
		if (q % 10 && q != quiet)
			continue;
		lfr_jfr_get_stats(f.w, &st);
		printf("churn_memory quiet_s=%ld heap_kib=%.1f jfr_threads=%llu rss_kib=%ld\n", q,
		       ((double)mallinfo2().uordblks - (double)before) / 1024,
		       (unsigned long long)st.threads, rss_kib());
	}
	if (lfr_recorder_process(f.rec, true) || lfr_jfr_close(f.w, err, sizeof(err))) {
		fprintf(stderr, "churn_memory: the end: %s\n", lfr_jfr_strerror(f.w));
		return 1;
	}
	lfr_recorder_free(f.rec);
	lfr_sym_free(sym);
	builds_fini(&nb);
	remove("/tmp/lfr-churn-memory.jfr");
	return 0;
}

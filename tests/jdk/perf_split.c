// SPDX-License-Identifier: GPL-2.0
/*
 * perf_split: records a program with the host kernel's perf events, in the shape lfr's kernel
 * records have (the frame-pointer user chain, the user sp and the first 16 stack words from sp),
 * corrects each chain with the leaf rule (lfr_sym_fix_leaf) unless --raw, names the frames with
 * lfr's symbolizer and writes a .jfr with lfr's writer.  It checks the leaf rule and
 * tests/vm/scenarios/split-check.py on real samples of tests/workloads/split without lfr.ko.
 *
 *   perf_split [--raw] OUT.jfr PROGRAM [ARGS...]
 *
 * The program's output is passed through; the last line on stderr counts what the rule did:
 *   perf_split: N samples; leaf rule: I inserted, P present, K kept, U uncertain
 * Exit status: 0, 1 on a failure, 2 for bad usage, 3 when perf events cannot be opened (not root
 * and kernel.perf_event_paranoid > 1).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jfr/writer.h"
#include "sym/cfi.h"
#include "sym/sym.h"

#define RING_PAGES 512 /* per CPU, a power of two */
#define MAX_CPUS 64
#define MAX_FRAMES 256
#define NWORDS 16
#define MAX_TIDS 4096
/* perf's register numbers of x86-64 (asm/perf_regs.h): the mask selects bp, sp and ip. */
#define REG_BIT_BP 6
#define REG_BIT_SP 7
#define REG_BIT_IP 8

static struct lfr_sym *sym;
static struct lfr_jfr_writer *w;
static bool raw;
static pid_t child;
static unsigned long nsamples, counts[4];
static struct {
	uint32_t tid;
	uint64_t key;
} tids[MAX_TIDS];
static size_t ntids;
static long page;

static void die(const char *what)
{
	fprintf(stderr, "perf_split: %s: %s\n", what, lfr_jfr_strerror(w));
	exit(1);
}

static uint64_t method_of(uint64_t pc, bool return_address)
{
	struct lfr_frame f;
	uint64_t key;

	lfr_sym_resolve_user(sym, (uint32_t)child, return_address ? pc - 1 : pc, &f);
	if (lfr_jfr_method(w, f.class_name, f.method, LFR_JFR_FRAME_NATIVE, &key) < 0)
		die("method");
	return key;
}

static uint64_t thread_of(uint32_t pid, uint32_t tid)
{
	char name[64] = "?", path[96];
	FILE *f;

	for (size_t i = 0; i < ntids; i++)
		if (tids[i].tid == tid)
			return tids[i].key;
	if (ntids == MAX_TIDS) {
		fprintf(stderr, "perf_split: more than %d threads\n", MAX_TIDS);
		exit(1);
	}
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = '\0';
		fclose(f);
	}
	tids[ntids].tid = tid;
	if (lfr_jfr_thread(w, tid, pid, name, "perf_split", &tids[ntids].key) < 0)
		die("thread");
	return tids[ntids++].key;
}

/*
 * One PERF_RECORD_SAMPLE of sample_type TID | TIME | CALLCHAIN | REGS_USER | STACK_USER, in that
 * order: pid, tid; time; nr, ips[nr]; abi, bp, sp, ip; size, data[size], dyn_size.
 */
static void sample(const uint8_t *p, const uint8_t *end)
{
	uint32_t pid, tid, n = 0, nout = 0, nw = 0;
	uint64_t time, nr, ips[MAX_FRAMES], out[MAX_FRAMES + 1], keys[MAX_FRAMES + 1];
	uint64_t words[NWORDS] = {0}, sp = 0, size, stack;
	const uint64_t *q;

	memcpy(&pid, p, 4);
	memcpy(&tid, p + 4, 4);
	q = (const uint64_t *)(p + 8);
	time = *q++;
	nr = *q++;
	if ((const uint8_t *)(q + nr + 2) > end)
		return;
	for (uint64_t i = 0; i < nr; i++)
		if (q[i] < (uint64_t)PERF_CONTEXT_MAX && n < MAX_FRAMES)
			ips[n++] = q[i];
	q += nr;
	if (*q++ != PERF_SAMPLE_REGS_ABI_NONE) {
		sp = q[1];
		q += 3;
	}
	size = *q++;
	if (size && (const uint8_t *)q + size + 8 <= end) {
		uint64_t dyn;

		memcpy(&dyn, (const uint8_t *)q + size, 8);
		nw = (uint32_t)(dyn / 8 < NWORDS ? dyn / 8 : NWORDS);
		memcpy(words, q, nw * 8);
	}
	if (pid != (uint32_t)child || !n)
		return;
	if (raw) {
		memcpy(out, ips, n * sizeof(*ips));
		nout = n;
	} else {
		counts[lfr_sym_fix_leaf(sym, pid, ips, n, sp, words, nw, out, MAX_FRAMES + 1,
		                        &nout)]++;
	}
	for (uint32_t i = 0; i < nout; i++)
		keys[i] = method_of(out[i], i > 0);
	if (lfr_jfr_stack(w, keys, nout, false, &stack) < 0 ||
	    lfr_jfr_execution_sample(w, time, thread_of(pid, tid), stack, LFR_JFR_STATE_CPU) < 0)
		die("sample");
	nsamples++;
}

static void drain(struct perf_event_mmap_page *m)
{
	const uint8_t *base = (const uint8_t *)m + page;
	uint64_t sz = (uint64_t)RING_PAGES * page;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE), tail = m->data_tail;
	static uint64_t buf[65536 / 8];
	uint8_t *b = (uint8_t *)buf;

	while (tail < head) {
		struct perf_event_header h;

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = base[(tail + i) % sz];
		if (h.size < sizeof(h))
			break;
		for (size_t i = 0; i < h.size; i++)
			b[i] = base[(tail + i) % sz];
		if (h.type == PERF_RECORD_SAMPLE)
			sample(b + sizeof(h), b + h.size);
		else if (h.type == PERF_RECORD_LOST)
			fprintf(stderr, "perf_split: perf lost %llu samples\n",
			        (unsigned long long)buf[2]);
		tail += h.size;
	}
	__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	struct perf_event_attr a = {0};
	struct perf_event_mmap_page *rings[MAX_CPUS];
	struct lfr_jfr_options opt = {0};
	int go[2], outp[2], status, ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	char line[512], err[256];
	bool maps = false;
	FILE *cout;

	page = sysconf(_SC_PAGESIZE);
	if (argc > 1 && !strcmp(argv[1], "--raw")) {
		raw = true;
		argv++;
		argc--;
	}
	if (argc < 3 || ncpu < 1 || ncpu > MAX_CPUS) {
		fprintf(stderr, "usage: perf_split [--raw] OUT.jfr PROGRAM [ARGS...]\n");
		return 2;
	}
	if (lfr_sym_new(&sym, NULL) || lfr_jfr_open(&w, argv[1], &opt) < 0) {
		fprintf(stderr, "perf_split: cannot start: %s\n", w ? lfr_jfr_strerror(w) : "");
		return 1;
	}
	if (pipe(go) || pipe(outp))
		return 1;
	/* The child waits until the events exist; they start counting at its exec. */
	child = fork();
	if (!child) {
		char c;

		dup2(outp[1], 1);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.freq = 1;
	a.sample_freq = 499;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
	                PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = 1ull << REG_BIT_BP | 1ull << REG_BIT_SP | 1ull << REG_BIT_IP;
	a.sample_stack_user = NWORDS * 8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.exclude_callchain_kernel = 1;
	a.inherit = 1;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC; /* lfr's clock */
	for (int c = 0; c < ncpu; c++) {
		int fd = (int)syscall(SYS_perf_event_open, &a, child, c, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr,
			        "perf_split: perf_event_open: %s (run as root, or set "
			        "kernel.perf_event_paranoid <= 1)\n",
			        strerror(errno));
			kill(child, SIGKILL);
			return 3;
		}
		rings[c] = mmap(NULL, (size_t)(RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		                MAP_SHARED, fd, 0);
		if (rings[c] == MAP_FAILED) {
			perror("perf_split: mmap");
			kill(child, SIGKILL);
			return 1;
		}
	}
	close(outp[1]);
	if (write(go[1], "x", 1) != 1)
		return 1;
	cout = fdopen(outp[0], "r");
	for (;;) {
		struct pollfd pfd = {.fd = outp[0], .events = POLLIN};

		if (poll(&pfd, 1, 50) > 0) {
			if (!fgets(line, sizeof(line), cout))
				break;
			fputs(line, stdout);
			fflush(stdout);
			/* The workload's first line comes after its threads exist. */
			if (!maps && !strncmp(line, "split pid=", 10))
				maps = !lfr_sym_load_proc_maps(sym, (uint32_t)child);
		}
		for (int c = 0; c < ncpu; c++)
			drain(rings[c]);
	}
	waitpid(child, &status, 0);
	for (int c = 0; c < ncpu; c++)
		drain(rings[c]);
	fprintf(stderr,
	        "perf_split: %lu samples; leaf rule: %lu inserted, %lu present, %lu kept, %lu "
	        "uncertain\n",
	        nsamples, counts[LFR_LEAF_INSERTED], counts[LFR_LEAF_PRESENT],
	        counts[LFR_LEAF_KEPT], counts[LFR_LEAF_UNCERTAIN]);
	if (lfr_jfr_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "perf_split: %s\n", err);
		return 1;
	}
	lfr_sym_free(sym);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}

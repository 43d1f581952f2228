// SPDX-License-Identifier: GPL-2.0
/*
 * genjfr: writes a synthetic but realistic JFR recording for the `lfr report` benchmark, the fuzz seed
 * corpus and the report tests.  Samples follow a skewed distribution over a few thousand stacks built
 * as random walks through a call graph of Java, native (class = shared object) and kernel frames; the
 * file has several chunks, each with its own metadata and constant pools (keys unique file-wide).
 * Output is valid for the JDK's `jfr` tool.
 *
 *   genjfr -o FILE [-n SAMPLES] [-c CHUNKS] [-t THREADS] [-s STACKS] [-m METHODS] [-r SEED]
 *          [--event NAME] [--lost N] [--split P1,P2,...] [--kernel-only K] [--control-names]
 *
 * --event NAME declares the sample event under another name (e.g. lfr.CPUSample) with an extra
 * `weight` field; --lost N adds N lfr.LostSamples events (reason, lostSamples) and N jdk.DataLoss.
 * --split gives a known split for the --diff tests: only the first stacks are sampled, stack i in
 * exactly Pi percent of the samples (a deterministic round of 100), each with a leaf method of
 * its own; the leaves are printed as "split NAME PERCENT".  --kernel-only K makes every K-th stack
 * one of kernel frames only (a thread interrupted in the kernel, its user stack not walked); their
 * samples are printed as "kernel_only N".  --control-names puts terminal controls (ESC [2J that
 * clears a screen, ESC ] 0;x BEL that sets its title, CR, LF) into the Java methods' and the
 * threads' names, the file otherwise the same.
 * The expected per-thread and per-event-type totals are printed to stdout for the tests.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfrbuf.h"

/* ---- metadata ---- */

enum {
	T_LONG = 1, T_INT, T_BOOLEAN, T_STRING, T_THREAD, T_STACKTRACE, T_STACKFRAME, T_METHOD,
	T_CLASS, T_SYMBOL, T_FRAMETYPE, T_THREADSTATE, T_SAMPLE = 100, T_LOST, T_DATALOSS
};

struct mstrings {
	const char *v[256];
	int n;
};

static int sidx(struct mstrings *s, const char *str)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], str))
			return i;
	s->v[s->n] = str;
	return s->n++;
}

struct field {
	const char *name;
	int type;
	int cp, array;
};

struct cls {
	int id;
	const char *name, *super;
	int simple;
	struct field fields[8];
};

static void put_elem_head(struct buf *b, struct mstrings *s, const char *name, int nattr)
{
	put_varint(b, sidx(s, name));
	put_varint(b, nattr);
}

static void put_attr(struct buf *b, struct mstrings *s, const char *k, const char *v)
{
	put_varint(b, sidx(s, k));
	put_varint(b, sidx(s, v));
}

static char numbuf[64][16];
static int numn;

static const char *num(int v)
{
	char *p = numbuf[numn++ % 64];
	snprintf(p, 16, "%d", v);
	return p;
}

static void write_metadata(struct buf *out, const char *sample_name, int lfr)
{
	struct cls classes[] = {
		{ T_LONG, "long", NULL, 0, { { 0 } } },
		{ T_INT, "int", NULL, 0, { { 0 } } },
		{ T_BOOLEAN, "boolean", NULL, 0, { { 0 } } },
		{ T_STRING, "java.lang.String", NULL, 0, { { 0 } } },
		{ T_THREAD, "java.lang.Thread", NULL, 0,
		  { { "osName", T_STRING }, { "osThreadId", T_LONG }, { "javaName", T_STRING },
		    { "javaThreadId", T_LONG } } },
		{ T_STACKTRACE, "jdk.types.StackTrace", NULL, 0,
		  { { "truncated", T_BOOLEAN }, { "frames", T_STACKFRAME, 0, 1 } } },
		{ T_STACKFRAME, "jdk.types.StackFrame", NULL, 0,
		  { { "method", T_METHOD, 1 }, { "lineNumber", T_INT }, { "bytecodeIndex", T_INT },
		    { "type", T_FRAMETYPE, 1 } } },
		{ T_METHOD, "jdk.types.Method", NULL, 0,
		  { { "type", T_CLASS, 1 }, { "name", T_SYMBOL, 1 }, { "descriptor", T_SYMBOL, 1 },
		    { "modifiers", T_INT }, { "hidden", T_BOOLEAN } } },
		{ T_CLASS, "java.lang.Class", NULL, 0,
		  { { "name", T_SYMBOL, 1 }, { "modifiers", T_INT }, { "hidden", T_BOOLEAN } } },
		{ T_SYMBOL, "jdk.types.Symbol", NULL, 1, { { "string", T_STRING } } },
		{ T_FRAMETYPE, "jdk.types.FrameType", NULL, 1, { { "description", T_STRING } } },
		{ T_THREADSTATE, "jdk.types.ThreadState", NULL, 1, { { "name", T_STRING } } },
		{ T_SAMPLE, sample_name, "jdk.jfr.Event", 0,
		  { { "startTime", T_LONG }, { "sampledThread", T_THREAD, 1 },
		    { "stackTrace", T_STACKTRACE, 1 }, { "state", T_THREADSTATE, 1 },
		    { lfr ? "weight" : NULL, T_LONG } } },
		{ T_LOST, "lfr.LostSamples", "jdk.jfr.Event", 0,
		  { { "startTime", T_LONG }, { "reason", T_STRING }, { "lostSamples", T_LONG } } },
		{ T_DATALOSS, "jdk.DataLoss", "jdk.jfr.Event", 0,
		  { { "startTime", T_LONG }, { "amount", T_LONG }, { "total", T_LONG } } },
	};
	int ncls = sizeof(classes) / sizeof(classes[0]);
	struct mstrings s = { .n = 0 };
	struct buf body = { 0 };

	/* root { metadata { class* } region } */
	put_elem_head(&body, &s, "root", 0);
	put_varint(&body, 2);
	put_elem_head(&body, &s, "metadata", 0);
	put_varint(&body, ncls);
	for (int i = 0; i < ncls; i++) {
		struct cls *c = &classes[i];
		int nf = 0;
		while (nf < 8 && c->fields[nf].name)
			nf++;
		put_elem_head(&body, &s, "class", 2 + !!c->super + c->simple);
		put_attr(&body, &s, "id", num(c->id));
		put_attr(&body, &s, "name", c->name);
		if (c->super)
			put_attr(&body, &s, "superType", c->super);
		if (c->simple)
			put_attr(&body, &s, "simpleType", "true");
		put_varint(&body, nf);
		for (int k = 0; k < nf; k++) {
			struct field *f = &c->fields[k];
			put_elem_head(&body, &s, "field", 2 + f->cp + f->array);
			put_attr(&body, &s, "name", f->name);
			put_attr(&body, &s, "class", num(f->type));
			if (f->cp)
				put_attr(&body, &s, "constantPool", "true");
			if (f->array)
				put_attr(&body, &s, "dimension", "1");
			put_varint(&body, 0);
		}
	}
	put_elem_head(&body, &s, "region", 2);
	put_attr(&body, &s, "locale", "en_US");
	put_attr(&body, &s, "gmtOffset", "0");
	put_varint(&body, 0);

	size_t start = out->len;
	need(out, 5);
	out->len += 5;
	put_varint(out, 0); /* type: metadata */
	put_varint(out, 0); /* startTicks */
	put_varint(out, 0); /* duration */
	put_varint(out, 1000 + lfr); /* metadata id */
	put_varint(out, s.n);
	for (int i = 0; i < s.n; i++)
		put_str(out, s.v[i]);
	need(out, body.len);
	memcpy(out->p + out->len, body.p, body.len);
	out->len += body.len;
	put_varint5_at(out->p + start, out->len - start);
	free(body.p);
}

/* ---- the synthetic program ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static const char *const pkgs[] = { "com/example/app", "com/example/db", "org/acme/http",
				    "java/util", "java/util/concurrent", "io/netty/channel" };
static const char *const nouns[] = { "Request", "Handler", "Codec", "Pool", "Cache", "Parser",
				     "Index", "Session", "Buffer", "Scheduler" };
static const char *const verbs[] = { "process", "handle", "decode", "encode", "lookup", "flush",
				     "read", "write", "compute", "merge", "visit", "run" };
static const char *const libc_syms[] = { "memcpy", "malloc", "free", "__libc_read", "__write",
					 "pthread_mutex_lock", "epoll_wait", "strlen" };
static const char *const kern_syms[] = { "entry_SYSCALL_64", "do_syscall_64", "ksys_read",
					 "vfs_read", "tcp_recvmsg", "copy_user_generic",
					 "schedule", "do_epoll_wait" };

enum ftype { FT_INTERP = 1, FT_JIT, FT_NATIVE, FT_KERNEL };

struct method {
	int cls;  /* class key - 1 */
	int name; /* symbol key */
	enum ftype kind;
};

int main(int argc, char **argv)
{
	uint64_t nsamples = 100000;
	int nchunks = 4, nthreads = 16, nstacks = 5000, nmethods = 2000, nlost = 0;
	const char *outpath = NULL, *event = "jdk.ExecutionSample";
	static const struct option lo[] = { { "event", required_argument, NULL, 'e' },
					    { "lost", required_argument, NULL, 'l' },
					    { "split", required_argument, NULL, 'S' },
					    { "kernel-only", required_argument, NULL, 'K' },
					    { "control-names", no_argument, NULL, 'C' },
					    { NULL, 0, NULL, 0 } };
	int c, nsplit = 0, split[16], kernel_only = 0;
	const char *ctl = "";

	rng_state = 88172645463325252ull;
	while ((c = getopt_long(argc, argv, "o:n:c:t:s:m:r:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case 'n': nsamples = strtoull(optarg, NULL, 10); break;
		case 'c': nchunks = atoi(optarg); break;
		case 't': nthreads = atoi(optarg); break;
		case 's': nstacks = atoi(optarg); break;
		case 'm': nmethods = atoi(optarg); break;
		case 'r': rng_state = strtoull(optarg, NULL, 10) * 2654435761u + 1; break;
		case 'e': event = optarg; break;
		case 'l': nlost = atoi(optarg); break;
		case 'K': kernel_only = atoi(optarg); break;
		case 'C': ctl = "\x1b[2J\x1b]0;x\x07\r\n"; break;
		case 'S': {
			int sum = 0;
			for (char *p = optarg; *p && nsplit < 16; p += *p == ',') {
				char *end;
				split[nsplit] = (int)strtol(p, &end, 10);
				if (end == p || split[nsplit] < 0)
					break;
				sum += split[nsplit++];
				p = end;
			}
			if (sum != 100) {
				fprintf(stderr, "genjfr: --split: percentages adding up to 100\n");
				return 2;
			}
			break;
		}
		default:
			fprintf(stderr, "usage: genjfr -o FILE [-n SAMPLES] [-c CHUNKS] [-t THREADS] "
					"[-s STACKS] [-m METHODS] [-r SEED] [--event NAME] [--lost N] "
					"[--split P1,P2,...] [--kernel-only K] [--control-names]\n");
			return 2;
		}
	}
	if (!outpath || nchunks < 1 || nthreads < 1 || nstacks < nsplit || nmethods < 20 + nsplit) {
		fprintf(stderr, "genjfr: need -o FILE and positive sizes (-m >= 20)\n");
		return 2;
	}
	int lfr = strcmp(event, "jdk.ExecutionSample") != 0;
	FILE *out = fopen(outpath, "w");
	if (!out) {
		perror(outpath);
		return 1;
	}

	/* symbols: keys 1.. ; classes: keys 1.. */
	int nclasses = nmethods / 8 + 2;
	char **symbols = calloc(nmethods + nclasses + 16, sizeof(char *));
	int nsym = 0;
	char tmp[256];
	struct method *methods = calloc(nmethods, sizeof(*methods));
	int *class_sym = calloc(nclasses, sizeof(int));
	/* class 0 = libc.so.6, class 1 = the kernel (named as lfr names it: JMC takes a class name
	 * that starts with '[' for an array's descriptor and fails on "[kernel.kallsyms]"), the
	 * rest Java */
	symbols[nsym++] = strdup("libc.so.6");
	class_sym[0] = nsym;
	symbols[nsym++] = strdup("kernel");
	class_sym[1] = nsym;
	for (int i = 2; i < nclasses; i++) {
		snprintf(tmp, sizeof(tmp), "%s/%s%d", pkgs[rnd() % 6], nouns[rnd() % 10], i);
		symbols[nsym++] = strdup(tmp);
		class_sym[i] = nsym;
	}
	int desc_sym = ++nsym;
	symbols[desc_sym - 1] = strdup("()V");
	for (int i = 0; i < nmethods; i++) {
		struct method *m = &methods[i];
		if (i < 8) {
			m->cls = 0;
			m->kind = FT_NATIVE;
			snprintf(tmp, sizeof(tmp), "%s", libc_syms[i]);
		} else if (i < 16) {
			m->cls = 1;
			m->kind = FT_KERNEL;
			snprintf(tmp, sizeof(tmp), "%s", kern_syms[i - 8]);
		} else {
			m->cls = 2 + rnd() % (nclasses - 2);
			m->kind = rnd() % 4 ? FT_JIT : FT_INTERP;
			const char *verb = verbs[rnd() % 12];
			snprintf(tmp, sizeof(tmp), "%s%s%d", verb, ctl, i);
		}
		symbols[nsym++] = strdup(tmp);
		m->name = nsym;
	}

	/* stacks as random walks: a Java part from a thread root, then maybe libc, then maybe kernel */
	uint32_t **stacks = calloc(nstacks, sizeof(*stacks));
	int *depths = calloc(nstacks, sizeof(int));
	for (int s = 0; s < nstacks; s++) {
		int jdepth = 4 + rnd() % 40;
		int ndepth = rnd() % 3 == 0 ? 1 + rnd() % 2 : 0;
		int kdepth = ndepth && rnd() % 2 ? 2 + rnd() % 5 : 0;
		int d = jdepth + ndepth + kdepth;
		stacks[s] = calloc(d, sizeof(uint32_t));
		depths[s] = d;
		/* build root-first, store leaf-first */
		uint32_t path[64];
		int k = 0;
		uint32_t m = 16 + (rnd() % 8); /* a handful of thread entry points */
		for (int j = 0; j < jdepth; j++) {
			path[k++] = m;
			/* callees are mostly "near" the caller so stacks share prefixes */
			m = 16 + (m - 16 + 1 + rnd() % (j < 3 ? 4 : 64)) % (nmethods - 16 - nsplit);
		}
		for (int j = 0; j < ndepth; j++)
			path[k++] = rnd() % 8;
		for (int j = 0; j < kdepth; j++)
			path[k++] = 8 + (j < 2 ? (uint32_t)j : 2 + (uint32_t)(rnd() % 6));
		for (int j = 0; j < d; j++)
			stacks[s][j] = path[d - 1 - j];
	}
	/* kernel frames only: entry_SYSCALL_64 -> do_syscall_64 -> schedule (no random draw) */
	for (int s = kernel_only - 1; kernel_only > 0 && s < nstacks; s += kernel_only) {
		static const uint32_t kpath[] = { 14, 9, 8 }; /* leaf first */
		depths[s] = 3;
		memcpy(stacks[s], kpath, sizeof(kpath));
	}
	/* a known split: stack s ends in a method of its own, one of the last ones, which the walks
	 * above never reach */
	for (int s = 0; s < nsplit; s++) {
		struct method *m = &methods[nmethods - 1 - s];
		m->kind = FT_JIT;
		stacks[s][0] = nmethods - 1 - s;
		char cls[256];
		snprintf(cls, sizeof(cls), "%s", symbols[class_sym[m->cls] - 1]);
		for (char *p = cls; *p; p++)
			if (*p == '/')
				*p = '.';
		printf("split %s.%s %d\n", cls, symbols[m->name - 1], split[s]);
	}
	/* skewed weights: stack s gets weight ~ 1/(s+1) */
	double *cum = calloc(nstacks, sizeof(double));
	double acc = 0;
	for (int s = 0; s < nstacks; s++)
		cum[s] = acc += 1.0 / (s + 1);

	uint64_t *per_thread = calloc(nthreads, sizeof(uint64_t));
	uint64_t per_chunk = (nsamples + nchunks - 1) / nchunks;
	uint64_t done = 0, ticks = 1000000000ull, lost_total = 0;
	int64_t start_nanos = 1700000000000000000ll;
	struct buf b = { 0 };
	uint64_t weight_total = 0, kernel_only_samples = 0;

	for (int ch = 0; ch < nchunks; ch++) {
		b.len = 0;
		need(&b, 68);
		memset(b.p, 0, 68);
		b.len = 68;
		uint64_t chunk_start_ticks = ticks;
		uint64_t n = nsamples - done < per_chunk ? nsamples - done : per_chunk;
		for (uint64_t i = 0; i < n; i++) {
			double x = (double)(rnd() >> 11) / (double)(1ull << 53) * acc;
			int lo = 0, hi = nsplit ? 0 : nstacks - 1;
			for (int s = 0, r = (done + i) % 100, at = 0; s < nsplit; s++) {
				at += split[s];
				if (r < at) {
					lo = s;
					break;
				}
			}
			while (lo < hi) {
				int mid = (lo + hi) / 2;
				if (cum[mid] < x)
					lo = mid + 1;
				else
					hi = mid;
			}
			/* threads form pools of up to 8 that run the same code: a stack is sampled
			 * on the threads of one pool */
			int pool = nthreads > 8 ? lo % (nthreads / 8) : 0;
			int psize = nthreads > 8 ? 8 : nthreads;
			int thread = pool * psize + (int)(rnd() % psize);
			ticks += 10000 + rnd() % 1000;
			size_t at = b.len;
			need(&b, 40);
			b.len++;
			put_varint(&b, T_SAMPLE);
			put_varint(&b, ticks);
			put_varint(&b, thread + 1);
			put_varint(&b, lo + 1);
			put_varint(&b, 1 + (lo & 1));
			uint64_t w = 1;
			if (lfr) {
				w = 1 + (i % 3 == 0);
				put_varint(&b, w);
			}
			b.p[at] = b.len - at; /* < 128 */
			per_thread[thread] += w;
			kernel_only_samples += kernel_only > 0 && lo % kernel_only == kernel_only - 1;
			weight_total += w;
		}
		done += n;
		for (int i = 0; i < nlost; i++) {
			if (ch != nchunks - 1)
				break;
			size_t at = b.len;
			b.len++;
			put_varint(&b, T_LOST);
			put_varint(&b, ticks + i);
			put_str(&b, i % 2 ? "ring full" : "stack walk fault");
			put_varint(&b, 10 + i);
			b.p[at] = b.len - at;
			lost_total += 10 + i;
			at = b.len;
			b.len++;
			put_varint(&b, T_DATALOSS);
			put_varint(&b, ticks + i);
			put_varint(&b, 4096);
			put_varint(&b, 4096 * (i + 1));
			b.p[at] = b.len - at;
		}
		/* checkpoint with every pool */
		size_t cp = b.len;
		need(&b, 5);
		b.len += 5;
		put_varint(&b, 1);
		put_varint(&b, ticks);
		put_varint(&b, 0);
		put_varint(&b, 0); /* delta: end of chain */
		put_u8(&b, 0);
		put_varint(&b, 7);
		put_varint(&b, T_THREAD);
		put_varint(&b, nthreads);
		for (int t = 0; t < nthreads; t++) {
			put_varint(&b, t + 1);
			snprintf(tmp, sizeof(tmp), "worker%s-%d", ctl, t);
			put_str(&b, tmp);
			put_varint(&b, 1000 + t);
			if (t % 2)
				put_u8(&b, 0); /* a native thread: javaName null */
			else
				put_str(&b, tmp);
			put_varint(&b, t % 2 ? 0 : t + 1);
		}
		put_varint(&b, T_STACKTRACE);
		put_varint(&b, nstacks);
		for (int s = 0; s < nstacks; s++) {
			put_varint(&b, s + 1);
			put_u8(&b, 0);
			put_varint(&b, depths[s]);
			for (int j = 0; j < depths[s]; j++) {
				struct method *m = &methods[stacks[s][j]];
				put_varint(&b, stacks[s][j] + 1);
				put_varint(&b, m->kind <= FT_JIT ? 10 + j : 0);
				put_varint(&b, m->kind <= FT_JIT ? j : 0);
				put_varint(&b, m->kind);
			}
		}
		put_varint(&b, T_METHOD);
		put_varint(&b, nmethods);
		for (int i = 0; i < nmethods; i++) {
			put_varint(&b, i + 1);
			put_varint(&b, methods[i].cls + 1);
			put_varint(&b, methods[i].name);
			put_varint(&b, desc_sym);
			put_varint(&b, methods[i].kind == FT_NATIVE ? 0x100 : 1);
			put_u8(&b, 0);
		}
		put_varint(&b, T_CLASS);
		put_varint(&b, nclasses);
		for (int i = 0; i < nclasses; i++) {
			put_varint(&b, i + 1);
			put_varint(&b, class_sym[i]);
			put_varint(&b, 1);
			put_u8(&b, 0);
		}
		put_varint(&b, T_SYMBOL);
		put_varint(&b, nsym);
		for (int i = 0; i < nsym; i++) {
			put_varint(&b, i + 1);
			put_str(&b, symbols[i]);
		}
		static const char *const ft[] = { "", "Interpreted", "JIT compiled", "Native",
						   "Kernel" };
		put_varint(&b, T_FRAMETYPE);
		put_varint(&b, 4);
		for (int i = 1; i <= 4; i++) {
			put_varint(&b, i);
			put_str(&b, ft[i]);
		}
		put_varint(&b, T_THREADSTATE);
		put_varint(&b, 2);
		put_varint(&b, 1);
		put_str(&b, "STATE_RUNNABLE");
		put_varint(&b, 2);
		put_str(&b, "STATE_SLEEPING");
		put_varint5_at(b.p + cp, b.len - cp);
		size_t meta = b.len;
		write_metadata(&b, event, lfr);
		/* header */
		uint8_t *h = b.p;
		struct buf hb = { 0 };
		memcpy(h, "FLR\0", 4);
		put_be(&hb, 2, 2);
		put_be(&hb, 1, 2);
		put_be(&hb, b.len, 8);
		put_be(&hb, cp, 8);
		put_be(&hb, meta, 8);
		put_be(&hb, start_nanos + (chunk_start_ticks - 1000000000ull), 8);
		put_be(&hb, ticks - chunk_start_ticks + 1, 8);
		put_be(&hb, chunk_start_ticks, 8);
		put_be(&hb, 1000000000, 8);
		put_u8(&hb, 0);
		put_u8(&hb, 0);
		put_be(&hb, 1 | (ch == nchunks - 1 ? 2 : 0), 2);
		memcpy(h + 4, hb.p, 64);
		free(hb.p);
		if (fwrite(b.p, 1, b.len, out) != b.len) {
			perror(outpath);
			return 1;
		}
		ticks += 1000;
	}
	if (fclose(out)) {
		perror(outpath);
		return 1;
	}
	printf("samples %llu\n", (unsigned long long)nsamples);
	printf("weight %llu\n", (unsigned long long)weight_total);
	printf("lost %llu\n", (unsigned long long)lost_total);
	if (kernel_only > 0)
		printf("kernel_only %llu\n", (unsigned long long)kernel_only_samples);
	for (int t = 0; t < nthreads; t++)
		printf("thread worker-%d %d %llu\n", t, 1000 + t, (unsigned long long)per_thread[t]);
	return 0;
}

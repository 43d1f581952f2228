// SPDX-License-Identifier: GPL-2.0
/*
 * genhostile: writes JFR files made to cost a reader more than linear work, each of about SIZE
 * bytes, and their benign twins, for the work bounds of tests/report/bounds.
 *
 *   genhostile KIND OUT.jfr SIZE [OBJECT BUILD-ID ADDR...]
 *
 * KIND is one of:
 *   chain       two checkpoints whose deltas point at each other: the constant-pool chain loops
 *   chained     the same checkpoints chained as they should be (chain's twin)
 *   collide     one pool whose keys all land in one slot of the unkeyed hash of lib/hashtab.h
 *   random      the same pool with random keys (collide's twin)
 *   types       tens of thousands of event types, each with a stack trace field
 *   zerofields  a sample event of tens of thousands of fields of a type that takes no bytes,
 *               and samples of it
 *   frames      distinct native frames "0x...", one stack trace of 64 of them per sample: those
 *               at the hex ADDRs given are of OBJECT, whose lfr.ObjectFile event gives its path
 *               and BUILD-ID, and lfr report names them, after which it merges frames of equal
 *               names; the rest are of an object the recording does not describe
 *   objects     distinct lfr.ObjectFile events
 *   lost        lfr.LostSamples events of distinct reasons
 *
 * Every file is one chunk that `jfr summary` reads, but for chain's loop.  Prints what it wrote.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfrbuf.h"

enum {
	T_LONG = 1, T_INT, T_BOOLEAN, T_STRING, T_THREAD, T_STACKTRACE, T_STACKFRAME, T_METHOD,
	T_CLASS, T_FRAMETYPE, T_SYMBOL, T_EMPTY, T_SAMPLE = 100, T_OBJECT, T_LOST,
	T_MANY = 1000 /* the types of kind types */
};

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* ---- metadata: a string table and elements, as reader.c parses them ---- */

struct meta {
	char **s;
	size_t n, cap;
	struct buf body;
	uint64_t nclasses;
};

/* The index of s in the string table; fixed names are looked up, numbers and names of many
 * types appended (unique). */
static size_t str(struct meta *m, const char *s, bool unique)
{
	for (size_t i = 0; !unique && i < m->n && i < 64; i++)
		if (!strcmp(m->s[i], s))
			return i;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->s = realloc(m->s, m->cap * sizeof(*m->s));
		if (!m->s)
			exit(1);
	}
	m->s[m->n] = strdup(s);
	return m->n++;
}

static void elem(struct meta *m, const char *name, int nattr)
{
	put_varint(&m->body, str(m, name, false));
	put_varint(&m->body, nattr);
}

static void attr(struct meta *m, const char *k, const char *v)
{
	put_varint(&m->body, str(m, k, false));
	put_varint(&m->body, str(m, v, false));
}

static const char *num(uint64_t v)
{
	static char b[8][24];
	static int i;

	snprintf(b[++i % 8], sizeof(b[0]), "%" PRIu64, v);
	return b[i % 8];
}

/* A class element with nfields children to follow (field()). */
static void class(struct meta *m, uint64_t id, const char *name, const char *super, int nfields)
{
	m->nclasses++;
	elem(m, "class", 2 + !!super);
	attr(m, "id", num(id));
	attr(m, "name", name);
	if (super)
		attr(m, "superType", super);
	put_varint(&m->body, nfields);
}

static void field(struct meta *m, const char *name, uint64_t type, bool cp, bool array)
{
	elem(m, "field", 2 + cp + array);
	attr(m, "name", name);
	attr(m, "class", num(type));
	if (cp)
		attr(m, "constantPool", "true");
	if (array)
		attr(m, "dimension", "1");
	put_varint(&m->body, 0);
}

/* The classes every kind declares; nzero fields of the empty class in the sample event. */
static void classes(struct meta *m, int nzero)
{
	static const char *const prim[] = {"long", "int", "boolean", "java.lang.String"};

	for (int i = 0; i < 4; i++)
		class(m, T_LONG + i, prim[i], NULL, 0);
	class(m, T_THREAD, "java.lang.Thread", NULL, 2);
	field(m, "osName", T_STRING, false, false);
	field(m, "osThreadId", T_LONG, false, false);
	class(m, T_STACKTRACE, "jdk.types.StackTrace", NULL, 2);
	field(m, "truncated", T_BOOLEAN, false, false);
	field(m, "frames", T_STACKFRAME, false, true);
	class(m, T_STACKFRAME, "jdk.types.StackFrame", NULL, 2);
	field(m, "method", T_METHOD, true, false);
	field(m, "type", T_FRAMETYPE, true, false);
	class(m, T_METHOD, "jdk.types.Method", NULL, 2);
	field(m, "type", T_CLASS, true, false);
	field(m, "name", T_STRING, false, false);
	class(m, T_CLASS, "java.lang.Class", NULL, 1);
	field(m, "name", T_STRING, false, false);
	class(m, T_FRAMETYPE, "jdk.types.FrameType", NULL, 1);
	field(m, "description", T_STRING, false, false);
	class(m, T_SYMBOL, "jdk.types.Symbol", NULL, 1);
	field(m, "string", T_STRING, false, false);
	class(m, T_EMPTY, "lfr.test.Empty", NULL, 0);
	class(m, T_SAMPLE, "jdk.ExecutionSample", "jdk.jfr.Event", 3 + nzero);
	field(m, "startTime", T_LONG, false, false);
	for (int i = 0; i < nzero; i++)
		field(m, "nothing", T_EMPTY, false, false);
	field(m, "sampledThread", T_THREAD, true, false);
	field(m, "stackTrace", T_STACKTRACE, true, false);
	class(m, T_OBJECT, "lfr.ObjectFile", "jdk.jfr.Event", 4);
	field(m, "startTime", T_LONG, false, false);
	field(m, "name", T_STRING, false, false);
	field(m, "path", T_STRING, false, false);
	field(m, "buildId", T_STRING, false, false);
	class(m, T_LOST, "lfr.LostSamples", "jdk.jfr.Event", 3);
	field(m, "startTime", T_LONG, false, false);
	field(m, "reason", T_STRING, false, false);
	field(m, "lostSamples", T_LONG, false, false);
}

/* The metadata event: root { metadata { classes... } region }, the classes already in m->body. */
static void put_metadata(struct buf *out, struct meta *m)
{
	struct meta root = {0};
	size_t at = out->len;

	/* the string table is m's: root's elements name strings m has, or add them */
	root.s = m->s, root.n = m->n, root.cap = m->cap;
	elem(&root, "root", 0);
	put_varint(&root.body, 2);
	elem(&root, "metadata", 0);
	put_varint(&root.body, m->nclasses);
	put_bytes(&root.body, m->body.p, m->body.len);
	elem(&root, "region", 2);
	attr(&root, "locale", "en_US");
	attr(&root, "gmtOffset", "0");
	put_varint(&root.body, 0);
	need(out, 5);
	out->len += 5;
	put_varint(out, 0); /* metadata */
	put_varint(out, 0);
	put_varint(out, 0);
	put_varint(out, 1); /* id */
	put_varint(out, root.n);
	for (size_t i = 0; i < root.n; i++)
		put_str(out, root.s[i]);
	put_bytes(out, root.body.p, root.body.len);
	put_varint5_at(out->p + at, out->len - at);
	m->s = root.s, m->n = root.n, m->cap = root.cap;
	free(root.body.p);
}

/*
 * A checkpoint event's start (its size patched by end_checkpoint()): delta to the previous one,
 * npools; with delta_at, the delta is 5 bytes at *delta_at, to be patched.
 */
static size_t begin_checkpoint(struct buf *b, int64_t delta, int npools, size_t *delta_at)
{
	size_t at = b->len;

	need(b, 5);
	b->len += 5;
	put_varint(b, 1);
	put_varint(b, 1000);
	put_varint(b, 0);
	if (delta_at) {
		*delta_at = b->len;
		need(b, 5);
		b->len += 5;
	} else {
		put_varint(b, (uint64_t)delta);
	}
	put_u8(b, 0);
	put_varint(b, npools);
	return at;
}

static void end_checkpoint(struct buf *b, size_t at)
{
	put_varint5_at(b->p + at, b->len - at);
}

/* An event: size (5 bytes, patched), type, startTime. */
static size_t begin_event(struct buf *b, uint64_t type)
{
	size_t at = b->len;

	need(b, 5);
	b->len += 5;
	put_varint(b, type);
	put_varint(b, 1000);
	return at;
}

/* The pools of one thread, classes (keys 1...) and one frame type "Native". */
static void small_pools(struct buf *b, const char *const *cls, int ncls)
{
	put_varint(b, T_THREAD);
	put_varint(b, 1);
	put_varint(b, 1);
	put_str(b, "worker");
	put_varint(b, 4242);
	put_varint(b, T_CLASS);
	put_varint(b, ncls);
	for (int i = 0; i < ncls; i++) {
		put_varint(b, i + 1);
		put_str(b, cls[i]);
	}
	put_varint(b, T_FRAMETYPE);
	put_varint(b, 1);
	put_varint(b, 1);
	put_str(b, "Native");
}

/* ---- the unkeyed hash of user/lib/hashtab.h, inverted ---- */

static uint64_t inverse(uint64_t c) /* of an odd c, mod 2^64 */
{
	uint64_t x = c;

	for (int i = 0; i < 6; i++)
		x *= 2 - c * x;
	return x;
}

static uint64_t unxorshift(uint64_t y, int s) /* x with x ^ x >> s == y */
{
	uint64_t x = y;

	for (int i = 0; i < 64 / s + 1; i++)
		x = y ^ x >> s;
	return x;
}

/* A b whose hashtab_hash(a, b) is h. */
static uint64_t hash_preimage(uint64_t a, uint64_t h)
{
	h = unxorshift(h, 29);
	h *= inverse(0xff51afd7ed558ccdull);
	h = unxorshift(h, 31);
	h ^= a * 0x9e3779b97f4a7c15ull;
	return h * inverse(0xc2b2ae3d27d4eb4full) - 0x632be59bd9b4e019ull;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: genhostile KIND OUT.jfr SIZE [OBJECT BUILD-ID ADDR...]\n");
		return 2;
	}
	const char *kind = argv[1];
	size_t size = strtoull(argv[3], NULL, 10);
	struct meta m = {0};
	struct buf b = {0};
	int nzero = 0;
	size_t cp = 0;
	uint64_t count = 0;

	need(&b, 68);
	b.len = 68;
	if (!strcmp(kind, "chain") || !strcmp(kind, "chained")) {
		/* two checkpoints of half the file each, B then A; the header points at A, A back
		 * at B, and B forward at A */
		size_t half = size / 2, at_b, at_a, delta_b, n = half / 9;

		at_b = begin_checkpoint(&b, 0, 1, &delta_b);
		put_varint(&b, T_SYMBOL);
		put_varint(&b, n);
		for (size_t i = 0; i < n; i++) {
			put_varint(&b, i + 1);
			put_str(&b, "sym");
		}
		end_checkpoint(&b, at_b);
		at_a = begin_checkpoint(&b, (int64_t)at_b - (int64_t)b.len, 1, NULL);
		put_varint(&b, T_SYMBOL);
		put_varint(&b, n);
		for (size_t i = 0; i < n; i++) {
			put_varint(&b, n + i + 1);
			put_str(&b, "sym");
		}
		end_checkpoint(&b, at_a);
		put_varint5_at(b.p + delta_b, strcmp(kind, "chain") ? 0 : at_a - at_b);
		cp = at_a;
		count = 2 * n;
	} else if (!strcmp(kind, "collide") || !strcmp(kind, "random")) {
		bool collide = !strcmp(kind, "collide");

		count = size / 11;
		cp = begin_checkpoint(&b, 0, 1, NULL);
		put_varint(&b, T_SYMBOL);
		put_varint(&b, count);
		for (uint64_t i = 0; i < count; i++) {
			/* every key's hash ends in 24 zero bits: one slot in any table up to 2^24 */
			uint64_t h = rnd() << 24;
			put_varint(&b, collide ? hash_preimage(T_SYMBOL, h) : rnd());
			put_u8(&b, 1); /* the empty string */
		}
		end_checkpoint(&b, cp);
	} else if (!strcmp(kind, "types")) {
		count = size / 33;
		for (uint64_t i = 0; i < count; i++) {
			char name[32];

			snprintf(name, sizeof(name), "e%" PRIu64, i);
			m.nclasses++;
			elem(&m, "class", 3);
			put_varint(&m.body, str(&m, "id", false));
			put_varint(&m.body, str(&m, num(T_MANY + i), true));
			put_varint(&m.body, str(&m, "name", false));
			put_varint(&m.body, str(&m, name, true));
			attr(&m, "superType", "jdk.jfr.Event");
			put_varint(&m.body, 1);
			field(&m, "stackTrace", T_STACKTRACE, true, false);
		}
		cp = begin_checkpoint(&b, 0, 0, NULL);
		end_checkpoint(&b, cp);
	} else if (!strcmp(kind, "zerofields")) {
		nzero = size / 2 / 7;
		count = size / 2 / 8;
		for (uint64_t i = 0; i < count; i++) {
			size_t at = begin_event(&b, T_SAMPLE);
			put_varint(&b, 1);
			put_varint(&b, 1);
			put_varint5_at(b.p + at, b.len - at);
		}
		cp = begin_checkpoint(&b, 0, 5, NULL);
		small_pools(&b, (const char *const[]){"libc.so.6"}, 1);
		put_varint(&b, T_METHOD);
		put_varint(&b, 1);
		put_varint(&b, 1);
		put_varint(&b, 1);
		put_str(&b, "memcpy");
		put_varint(&b, T_STACKTRACE);
		put_varint(&b, 1);
		put_varint(&b, 1);
		put_u8(&b, 0);
		put_varint(&b, 1);
		put_varint(&b, 1);
		put_varint(&b, 1);
		end_checkpoint(&b, cp);
	} else if (!strcmp(kind, "frames")) {
		const char *path = argc > 4 ? argv[4] : "/nonexistent/app";
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		int named = argc > 6 ? argc - 6 : 0;
		char name[32];

		/* per frame: its method (key, class, "0x" and 6 hex digits) and its place in a stack */
		count = size / 17 / 64 * 64;
		size_t at = begin_event(&b, T_OBJECT);
		put_str(&b, base);
		put_str(&b, path);
		put_str(&b, argc > 5 ? argv[5] : "");
		put_varint5_at(b.p + at, b.len - at);
		for (uint64_t s = 0; s < count / 64; s++) {
			at = begin_event(&b, T_SAMPLE);
			put_varint(&b, 1);
			put_varint(&b, s + 1);
			put_varint5_at(b.p + at, b.len - at);
		}
		cp = begin_checkpoint(&b, 0, 5, NULL);
		small_pools(&b, (const char *const[]){base, "libother.so"}, 2);
		put_varint(&b, T_METHOD);
		put_varint(&b, count);
		for (uint64_t i = 0; i < count; i++) {
			/* the named ones spread among the rest */
			bool mine = named && i % (count / named) == 0 &&
			            i / (count / named) < (uint64_t)named;

			if (mine)
				snprintf(name, sizeof(name), "0x%s", argv[6 + i / (count / named)]);
			else
				snprintf(name, sizeof(name), "0x%" PRIx64, 0x100000 + i);
			put_varint(&b, i + 1);
			put_varint(&b, mine ? 1 : 2);
			put_str(&b, name);
		}
		put_varint(&b, T_STACKTRACE);
		put_varint(&b, count / 64);
		for (uint64_t s = 0; s < count / 64; s++) {
			put_varint(&b, s + 1);
			put_u8(&b, 0);
			put_varint(&b, 64);
			for (uint64_t i = 0; i < 64; i++) {
				put_varint(&b, s * 64 + i + 1);
				put_varint(&b, 1);
			}
		}
		end_checkpoint(&b, cp);
	} else if (!strcmp(kind, "objects") || !strcmp(kind, "lost")) {
		bool objects = !strcmp(kind, "objects");
		char text[48];

		count = size / (objects ? 36 : 20);
		for (uint64_t i = 0; i < count; i++) {
			size_t at = begin_event(&b, objects ? T_OBJECT : T_LOST);

			snprintf(text, sizeof(text), "%s%" PRIu64, objects ? "o" : "reason ", i);
			put_str(&b, text);
			if (objects) {
				snprintf(text, sizeof(text), "/nonexistent/o%" PRIu64, i);
				put_str(&b, text);
				put_str(&b, "");
			} else {
				put_varint(&b, 1);
			}
			put_varint5_at(b.p + at, b.len - at);
		}
		cp = begin_checkpoint(&b, 0, 0, NULL);
		end_checkpoint(&b, cp);
	} else {
		fprintf(stderr, "genhostile: unknown kind %s\n", kind);
		return 2;
	}
	classes(&m, nzero);
	size_t meta = b.len;
	put_metadata(&b, &m);

	/* the header */
	struct buf h = {0};
	memcpy(b.p, "FLR\0", 4);
	put_be(&h, 2, 2);
	put_be(&h, 1, 2);
	put_be(&h, b.len, 8);
	put_be(&h, cp, 8);
	put_be(&h, meta, 8);
	put_be(&h, 1700000000000000000ull, 8);
	put_be(&h, 1000000, 8);
	put_be(&h, 1000, 8);
	put_be(&h, 1000000000, 8);
	put_u8(&h, 0);
	put_u8(&h, 0);
	put_be(&h, 1 | 2, 2);
	memcpy(b.p + 4, h.p, 64);
	free(h.p);

	FILE *out = fopen(argv[2], "w");
	if (!out || fwrite(b.p, 1, b.len, out) != b.len || fclose(out)) {
		perror(argv[2]);
		return 1;
	}
	printf("%s %s: %zu bytes, %" PRIu64 " %s\n", kind, argv[2], b.len, count,
	       !strcmp(kind, "types")        ? "types"
	       : !strcmp(kind, "zerofields") ? "samples"
	       : !strcmp(kind, "frames")     ? "frames"
	       : !strcmp(kind, "objects")    ? "objects"
	       : !strcmp(kind, "lost")       ? "reasons"
	                                     : "pool entries");
	return 0;
}

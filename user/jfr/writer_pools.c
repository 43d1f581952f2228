// SPDX-License-Identifier: GPL-2.0
/*
 * The JFR writer's constant pools: interning (lfr_jfr_method(), lfr_jfr_stack(), lfr_jfr_thread(),
 * lfr_jfr_context()), and the checkpoints that carry, once per chunk, the entries a flush's events
 * reference.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/encode.h"
#include "jfr/pool.h"
#include "jfr/schema.h"
#include "jfr/writer_internal.h"

static const char *const frame_type_names[LFR_JFR_FRAME_TYPE_COUNT] = {
    "Interpreted", "JIT compiled", "Inlined", "Native", "C++", "Kernel",
};
/*
 * Thread states: the JDK's names under HotSpot's keys (its JVMTI state bits), so that a file that
 * joins a JVM's chunks and lfr's names each key one way; async-profiler's STATE_DEFAULT under a key
 * no JVM state has.
 */
const struct jfr_writer_state jfr_writer_states[LFR_JFR_STATE_COUNT + 1] = {
    [LFR_JFR_STATE_CPU] = {"STATE_DEFAULT", 1},
    [LFR_JFR_STATE_RUNNABLE] = {"STATE_RUNNABLE", 5},
    [LFR_JFR_STATE_SLEEPING] = {"STATE_SLEEPING", 225},
    [LFR_JFR_STATE_PARKED] = {"STATE_PARKED", 657},
    [LFR_JFR_STATE_IN_OBJECT_WAIT] = {"STATE_IN_OBJECT_WAIT", 401},
    [LFR_JFR_STATE_BLOCKED] = {"STATE_BLOCKED_ON_MONITOR_ENTER", 1025},
    [LFR_JFR_STATE_NEW] = {"STATE_NEW", 0},
    [LFR_JFR_STATE_TERMINATED] = {"STATE_TERMINATED", 2},
};

/* Bytes to add before a filler at off so that its size field does not cross a page. */
static unsigned filler_shift(uint64_t off)
{
	unsigned in_page = (unsigned)(off % PAGE);

	return in_page > PAGE - FILLER_SIZE_WIDTH ? PAGE - in_page : 0;
}

/* ---- constant pools ---- */

struct method_blob {
	uint64_t class_key, name_key, type;
};

static void mark(struct lfr_jfr_writer *w, int pool, uint64_t key);

static void mark_symbol(struct lfr_jfr_writer *w, uint64_t key)
{
	mark(w, P_SYMBOL, key);
}

/* Adds key and everything its value references to the checkpoint being built, once per chunk. */
static void mark(struct lfr_jfr_writer *w, int pool, uint64_t key)
{
	struct pool_entry *e = pool_get(&w->pools[pool], key);

	if (!e || !e->blob || e->emitted_chunk == w->chunk_seq)
		return;
	e->emitted_chunk = e->used_chunk = w->chunk_seq;
	if (keyvec_push(&w->emit[pool], key))
		w->cp.oom = true;
	switch (pool) {
	case P_CLASS: {
		uint64_t sym;

		memcpy(&sym, e->blob, 8);
		mark_symbol(w, sym);
		break;
	}
	case P_METHOD: {
		struct method_blob m;

		memcpy(&m, e->blob, sizeof(m));
		mark(w, P_CLASS, m.class_key);
		mark_symbol(w, m.name_key);
		mark_symbol(w, w->desc_symbol);
		break;
	}
	case P_STACK:
		for (uint32_t off = 1; off + 8 <= e->len; off += 8) {
			uint64_t mk;

			memcpy(&mk, e->blob + off, 8);
			mark(w, P_METHOD, mk);
		}
		break;
	case P_THREAD: {
		uint64_t group;

		memcpy(&group, e->blob + 8, 8);
		mark(w, P_GROUP, group);
		break;
	}
	}
}

/*
 * A trace context's blob (lfr_jfr_context()): trace id (16 bytes), span id (8), flags (1), then
 * each attribute as a key and a value, each a 2-byte length and its bytes.
 */
#define CTX_HEAD 25

static void put_hex(struct jfr_buf *b, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char hex[32];

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[p[i] >> 4];
		hex[2 * i + 1] = digits[p[i] & 15];
	}
	jfr_buf_string_n(b, hex, 2 * n);
}

/*
 * Whether byte c stands for itself in a W3C baggage key (a token character) or value (a
 * baggage-octet); '%' never does.
 */
static bool baggage_plain(unsigned char c, bool key)
{
	if (c == '%' || c <= 0x20 || c >= 0x7f)
		return false;
	if (key)
		return isalnum(c) || strchr("!#$&'*+-.^_`|~", c);
	return c != '"' && c != ',' && c != ';' && c != '\\';
}

/*
 * Appends (when b is not NULL) the bytes p[0..n) as a baggage key or value; returns their
 * encoded length.
 */
static size_t baggage_put(struct jfr_buf *b, const uint8_t *p, size_t n, bool key)
{
	static const char digits[] = "0123456789ABCDEF";
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char esc[3] = {'%', digits[p[i] >> 4], digits[p[i] & 15]};
		bool plain = baggage_plain(p[i], key);

		if (b)
			jfr_buf_put(b, plain ? (const char *)p + i : esc, plain ? 1 : 3);
		o += plain ? 1 : 3;
	}
	return o;
}

/* The attributes of a context's blob as a baggage string, appended when b is not NULL; its length.
 */
static size_t baggage(struct jfr_buf *b, const struct pool_entry *e)
{
	size_t o = 0;
	int i = 0;

	for (uint32_t off = CTX_HEAD; off + 2 <= e->len; i++) {
		uint16_t len;

		memcpy(&len, e->blob + off, 2);
		if (i) {
			if (b)
				jfr_buf_u8(b, (i & 1) ? '=' : ',');
			o++;
		}
		o += baggage_put(b, e->blob + off + 2, len, !(i & 1));
		off += 2 + len;
	}
	return o;
}

/*
 * The attributes are one W3C baggage string (key=value,key=value, percent-encoded): a string
 * field, which every reader prints (the JDK's jfr print cannot print an array of structs).
 */
static void put_context(struct jfr_buf *b, const struct pool_entry *e)
{
	size_t n = baggage(NULL, e);

	put_hex(b, e->blob, 16);
	put_hex(b, e->blob + 16, 8);
	jfr_buf_varint(b, e->blob[24]);
	if (!n) {
		jfr_buf_u8(b, JFR_STR_EMPTY);
		return;
	}
	jfr_buf_u8(b, JFR_STR_UTF8); /* ASCII */
	jfr_buf_varint(b, n);
	baggage(b, e);
}

static void put_pool_values(struct lfr_jfr_writer *w, struct jfr_buf *b, int pool)
{
	struct keyvec *v = &w->emit[pool];

	for (size_t i = 0; i < v->n; i++) {
		struct pool_entry *e = pool_get(&w->pools[pool], v->k[i]);

		jfr_buf_varint(b, v->k[i]);
		switch (pool) {
		case P_SYMBOL:
			jfr_buf_string_n(b, (const char *)e->blob, e->len);
			break;
		case P_CLASS: {
			uint64_t sym;

			memcpy(&sym, e->blob, 8);
			jfr_buf_varint(b, 0); /* classLoader */
			jfr_buf_varint(b, sym);
			jfr_buf_varint(b, 0); /* package */
			jfr_buf_varint(b, 1); /* modifiers: public */
			jfr_buf_u8(b, 0);     /* hidden */
			break;
		}
		case P_METHOD: {
			struct method_blob m;

			memcpy(&m, e->blob, sizeof(m));
			jfr_buf_varint(b, m.class_key);
			jfr_buf_varint(b, m.name_key);
			jfr_buf_varint(b, w->desc_symbol);
			jfr_buf_varint(b, 0x100 | 1); /* modifiers: native public */
			jfr_buf_u8(b, 0);             /* hidden */
			break;
		}
		case P_STACK: {
			uint32_t n = (e->len - 1) / 8;

			jfr_buf_u8(b, e->blob[0]); /* truncated */
			jfr_buf_varint(b, n);
			for (uint32_t j = 0; j < n; j++) {
				uint64_t mk;
				struct method_blob m;

				memcpy(&mk, e->blob + 1 + 8 * j, 8);
				memcpy(&m, pool_get(&w->pools[P_METHOD], mk)->blob, sizeof(m));
				jfr_buf_varint(b, mk);
				jfr_buf_varint(b, 0); /* lineNumber */
				jfr_buf_varint(b, 0); /* bytecodeIndex */
				jfr_buf_varint(b, m.type);
			}
			break;
		}
		case P_THREAD: {
			uint32_t tid;
			uint64_t group;

			memcpy(&tid, e->blob, 4);
			memcpy(&group, e->blob + 8, 8);
			/*
			 * JMC shows a thread as its javaThreadId (0 for every thread when lfr wrote
			 * HotSpot's value for a thread it does not know as a Java thread), and the
			 * JDK prints a thread with a javaThreadId by its javaName: both are the
			 * thread's own, its tid and name.
			 */
			jfr_buf_string_n(b, (const char *)e->blob + 16, e->len - 16); /* osName */
			jfr_buf_varint(b, tid);
			jfr_buf_string_n(b, (const char *)e->blob + 16, e->len - 16); /* javaName */
			jfr_buf_varint(b, tid); /* javaThreadId */
			jfr_buf_varint(b, group);
			break;
		}
		case P_GROUP:
			jfr_buf_varint(b, 0); /* parent */
			jfr_buf_string_n(b, (const char *)e->blob + 4, e->len - 4);
			break;
		case P_CONTEXT:
			put_context(b, e);
			break;
		}
	}
}

static const uint16_t pool_type[P_COUNT] = {
    [P_SYMBOL] = T_SYMBOL,           [P_CLASS] = T_CLASS,   [P_METHOD] = T_METHOD,
    [P_STACK] = T_STACK_TRACE,       [P_THREAD] = T_THREAD, [P_GROUP] = T_THREAD_GROUP,
    [P_CONTEXT] = T_TRACE_CONTEXT_T,
};

/*
 * Builds into w->cp a checkpoint at file offset at whose delta points back to prev (0: none), with
 * the static pools (statics) or with what the segment references.  The duration field is padded so
 * that the filler following the checkpoint and the terminator keeps its size field inside one page.
 */
int jfr_writer_build_checkpoint(struct lfr_jfr_writer *w, uint64_t at, uint64_t prev, bool statics,
                                uint64_t ticks)
{
	struct jfr_buf pools = {0};
	unsigned npools = 0;

	for (int p = 0; p < P_COUNT; p++)
		w->emit[p].n = 0;
	if (statics) {
		jfr_buf_varint(&pools, T_FRAME_TYPE);
		jfr_buf_varint(&pools, LFR_JFR_FRAME_TYPE_COUNT);
		for (unsigned i = 0; i < LFR_JFR_FRAME_TYPE_COUNT; i++) {
			jfr_buf_varint(&pools, i);
			jfr_buf_string(&pools, frame_type_names[i]);
		}
		jfr_buf_varint(&pools, T_THREAD_STATE);
		jfr_buf_varint(&pools, LFR_JFR_STATE_COUNT);
		for (unsigned i = 1; i <= LFR_JFR_STATE_COUNT; i++) {
			jfr_buf_varint(&pools, jfr_writer_states[i].key);
			jfr_buf_string(&pools, jfr_writer_states[i].name);
		}
		npools = 2;
	} else {
		w->cp.oom = false;
		for (size_t i = 0; i < w->seg_refs[P_STACK].n; i++)
			mark(w, P_STACK, w->seg_refs[P_STACK].k[i]);
		for (size_t i = 0; i < w->seg_refs[P_THREAD].n; i++)
			mark(w, P_THREAD, w->seg_refs[P_THREAD].k[i]);
		for (size_t i = 0; i < w->seg_refs[P_CONTEXT].n; i++)
			mark(w, P_CONTEXT, w->seg_refs[P_CONTEXT].k[i]);
		if (w->cp.oom) {
			jfr_buf_free(&pools);
			return jfr_writer_nomem(w, "collecting pool entries");
		}
		/* A pool with no entries makes the JDK fail: only non-empty pools are written. */
		for (int p = 0; p < P_COUNT; p++) {
			if (!w->emit[p].n)
				continue;
			jfr_buf_varint(&pools, pool_type[p]);
			jfr_buf_varint(&pools, w->emit[p].n);
			put_pool_values(w, &pools, p);
			npools++;
		}
	}
	if (pools.oom) {
		jfr_buf_free(&pools);
		return jfr_writer_nomem(w, "encoding a checkpoint");
	}

	unsigned dur_width = 1;
	for (int pass = 0; pass < 2; pass++) {
		jfr_buf_reset(&w->cp);
		size_t size_off = jfr_buf_varint_padded(&w->cp, 0, FILLER_SIZE_WIDTH);
		jfr_buf_varint(&w->cp, 1); /* checkpoint */
		jfr_buf_varint(&w->cp, ticks);
		jfr_buf_varint_padded(&w->cp, 0, dur_width);
		jfr_buf_varint(&w->cp, prev ? prev - at : 0); /* signed delta, two's complement */
		jfr_buf_u8(&w->cp, statics ? 0 : 1);          /* flags: FLUSH */
		jfr_buf_varint(&w->cp, npools);
		jfr_buf_put(&w->cp, pools.data, pools.len);
		jfr_patch_varint(&w->cp, size_off, w->cp.len, FILLER_SIZE_WIDTH);
		unsigned shift = filler_shift(at + w->cp.len + TERM_SIZE);
		if (!shift)
			break;
		dur_width += shift;
	}
	jfr_buf_free(&pools);
	if (w->cp.oom)
		return jfr_writer_nomem(w, "encoding a checkpoint");
	return 0;
}

/* ---- forgetting what no recent chunk used ---- */

/* Entries unused in the current chunk and the ones before it, to this many in all, are stale. */
#define SWEEP_CHUNKS 4
/* Stale entries are forgotten once there are this many, and at least as many as live ones. */
#define SWEEP_MIN 4096

/*
 * What a live entry refers to lives too: an entry that names others (a stack its methods, a
 * method its class and names, a class its name) marks them when it is written and touches them
 * when it is interned or found, so every chunk that uses an entry uses what it names.  The thread
 * and thread-group pools are not swept: their entries go when their threads do.  The sweep runs
 * after a flush, when no buffered event refers to anything; the recorder's caches of keys start
 * over when lfr_jfr_pool_sweeps() moves.  Forgetting only once the stale are most of the pools
 * keeps the caller's cost of naming again what it still meets below what the stale cost to make.
 */
void jfr_writer_sweep(struct lfr_jfr_writer *w)
{
	static const int swept[] = {P_CONTEXT, P_STACK, P_METHOD, P_CLASS, P_SYMBOL};
	size_t stale = 0, used = 0;

	if (w->chunk_seq == w->swept_chunk || w->chunk_seq <= SWEEP_CHUNKS)
		return; /* once per chunk */
	w->swept_chunk = w->chunk_seq;
	for (size_t i = 0; i < sizeof(swept) / sizeof(swept[0]); i++) {
		stale += pool_sweep(&w->pools[swept[i]], w->chunk_seq - SWEEP_CHUNKS, false);
		used += pool_used(&w->pools[swept[i]]);
	}
	if (stale < SWEEP_MIN || 2 * stale < used)
		return;
	for (size_t i = 0; i < sizeof(swept) / sizeof(swept[0]); i++)
		w->st.swept += pool_sweep(&w->pools[swept[i]], w->chunk_seq - SWEEP_CHUNKS, true);
	w->sweeps++;
}

/* ---- pools: public interning ---- */

static int intern_symbol(struct lfr_jfr_writer *w, const char *s, uint64_t *key)
{
	*key = pool_intern(&w->pools[P_SYMBOL], s, strlen(s));
	return *key ? 0 : jfr_writer_nomem(w, "interning a symbol");
}

int lfr_jfr_method(struct lfr_jfr_writer *w, const char *object, const char *symbol,
                   enum lfr_jfr_frame_type type, uint64_t *key)
{
	struct method_blob m = {.type = type};
	uint64_t osym;
	int err;

	*key = 0;
	if ((err = check_live(w)))
		return err;
	if (!object || !symbol || (unsigned)type >= LFR_JFR_FRAME_TYPE_COUNT)
		return jfr_writer_fail(
		    w, EINVAL, "invalid method (object %s, symbol %s, frame type %d)",
		    object ? object : "NULL", symbol ? symbol : "NULL", (int)type);
	/*
	 * JMC reads a class name that starts with '[' as an array descriptor and fails on it
	 * ("[kernel]"): such a name is written without its brackets ("kernel").
	 */
	size_t olen = strlen(object);
	if (object[0] == '[') {
		object++;
		olen--;
		if (olen && object[olen - 1] == ']')
			olen--;
		while (olen && object[0] == '[') {
			object++;
			olen--;
		}
		if (!olen) {
			object = "unknown";
			olen = strlen(object);
		}
	}
	osym = pool_intern(&w->pools[P_SYMBOL], object, olen);
	if (!osym)
		return jfr_writer_nomem(w, "interning a symbol");
	if ((err = intern_symbol(w, symbol, &m.name_key)))
		return err;
	m.class_key = pool_intern(&w->pools[P_CLASS], &osym, sizeof(osym));
	if (!m.class_key)
		return jfr_writer_nomem(w, "interning a class");
	*key = pool_intern(&w->pools[P_METHOD], &m, sizeof(m));
	return *key ? 0 : jfr_writer_nomem(w, "interning a method");
}

int lfr_jfr_stack(struct lfr_jfr_writer *w, const uint64_t *methods, size_t n, bool truncated,
                  uint64_t *key)
{
	uint8_t small[1 + 8 * 128];
	uint8_t *blob = small;
	int err;

	*key = 0;
	if ((err = check_live(w)))
		return err;
	for (size_t i = 0; i < n; i++) {
		struct pool_entry *m = pool_get(&w->pools[P_METHOD], methods[i]);

		if (!m)
			return jfr_writer_fail(w, EINVAL,
			                       "stack frame %zu: unknown method key %llu", i,
			                       (unsigned long long)methods[i]);
		/* what a live stack names lives as long (jfr_writer_sweep()) */
		m->used_chunk = w->chunk_seq;
	}
	if (n > 128) {
		blob = malloc(1 + 8 * n);
		if (!blob)
			return jfr_writer_nomem(w, "interning a stack trace");
	}
	blob[0] = truncated;
	memcpy(blob + 1, methods, 8 * n);
	*key = pool_intern(&w->pools[P_STACK], blob, 1 + 8 * n);
	if (blob != small)
		free(blob);
	return *key ? 0 : jfr_writer_nomem(w, "interning a stack trace");
}

int lfr_jfr_thread(struct lfr_jfr_writer *w, uint32_t tid, uint32_t tgid, const char *name,
                   const char *process, uint64_t *key)
{
	char gblob[4 + 300];
	char tblob[16 + 256];
	uint64_t group;
	bool fresh;
	int err;

	*key = 0;
	if ((err = check_live(w)))
		return err;
	if (!name)
		name = "";
	if (!process)
		process = "";
	int gn = snprintf(gblob + 4, sizeof(gblob) - 4, "%s [%u]", process, tgid);
	if (gn < 0)
		return jfr_writer_fail(w, EINVAL, "invalid process name");
	if ((size_t)gn >= sizeof(gblob) - 4)
		gn = (int)sizeof(gblob) - 5;
	memcpy(gblob, &tgid, 4);
	group = pool_intern(&w->pools[P_GROUP], gblob, 4 + (size_t)gn);
	if (!group)
		return jfr_writer_nomem(w, "interning a thread group");
	size_t nl = strnlen(name, 255);
	memset(tblob, 0, 16);
	memcpy(tblob, &tid, 4);
	memcpy(tblob + 4, &tgid, 4);
	memcpy(tblob + 8, &group, 8);
	memcpy(tblob + 16, name, nl);
	*key = pool_intern_new(&w->pools[P_THREAD], tblob, 16 + nl, &fresh);
	if (!*key)
		return jfr_writer_nomem(w, "interning a thread");
	if (fresh)
		pool_get(&w->pools[P_GROUP], group)->refs++;
	return 0;
}

int lfr_jfr_context(struct lfr_jfr_writer *w, const uint8_t trace_id[16], const uint8_t span_id[8],
                    uint8_t flags, const struct lfr_jfr_attr *attrs, size_t nattrs, uint64_t *key)
{
	uint8_t small[1024], *blob = small;
	size_t len = CTX_HEAD, need = CTX_HEAD;
	int err;

	*key = 0;
	if ((err = check_live(w)))
		return err;
	if (nattrs > LFR_JFR_CONTEXT_MAX_ATTRS)
		return jfr_writer_fail(w, EINVAL, "a trace context with %zu attributes", nattrs);
	for (size_t i = 0; i < nattrs; i++)
		need += 4 + (size_t)attrs[i].key_len + attrs[i].value_len;
	if (need > sizeof(small) && !(blob = malloc(need)))
		return jfr_writer_nomem(w, "interning a trace context");
	memcpy(blob, trace_id, 16);
	memcpy(blob + 16, span_id, 8);
	blob[24] = flags;
	for (size_t i = 0; i < nattrs; i++) {
		const char *kv[2] = {attrs[i].key, attrs[i].value};
		uint16_t kvlen[2] = {attrs[i].key_len, attrs[i].value_len};

		for (int j = 0; j < 2; j++) {
			memcpy(blob + len, &kvlen[j], 2);
			memcpy(blob + len + 2, kv[j], kvlen[j]);
			len += 2 + (size_t)kvlen[j];
		}
	}
	*key = pool_intern(&w->pools[P_CONTEXT], blob, len);
	if (blob != small)
		free(blob);
	return *key ? 0 : jfr_writer_nomem(w, "interning a trace context");
}

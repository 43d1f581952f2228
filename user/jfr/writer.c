// SPDX-License-Identifier: GPL-2.0
/*
 * lfr's JFR writer: chunks, flushes, rotation and constant pools.
 *
 * File layout while recording.  Every chunk is preallocated (the file is extended with ftruncate,
 * so the space is a hole, not written zeros) and always ends with a "filler": an event of type 1
 * whose padded 5-byte size covers the rest of the chunk.  Readers skip type-1 events while walking
 * events (checkpoints are reached only through the chunk header's constant-pool offset and the
 * delta chain), so whatever lies inside the filler is invisible.  JMC stops its walk at the first
 * type-0 event: the metadata is therefore wrapped in a type-1 event (the header points inside the
 * wrapper), and the events end with a 2-byte type-0 "terminator".
 *
 *   [header][wrapped metadata][cp 0][t][events][cp 1][t] ... [events][cp n][T][filler .........]
 *
 * A flush writes the new events, a new checkpoint (the pool entries they reference that this chunk
 * has not carried yet, delta pointing back to the previous checkpoint), a new terminator and a new
 * filler header *inside* the current filler, then publishes them with small writes, each leaving a
 * file every reader accepts:
 *   1. the header's constant-pool offset := the new checkpoint (pools grow, no new event is seen);
 *   2. the old filler's size := its minimum: the JDK sees the new events;
 *   3. the old terminator's type := 1: JMC sees the new events, up to the new terminator;
 *   4. the header's duration.
 * A process killed anywhere in this sequence leaves the previous flush's file, or the new one.  The
 * published fields are written with single pwrite()s of at most 8 bytes that never cross a page,
 * which the kernel performs entirely or not at all.
 *
 * Rotation builds the next chunk inside the current filler, shrinks the current chunk's size to end
 * where the new chunk starts (the old filler then reaches past its chunk's end: the JDK stops
 * walking at the chunk end, JMC at the terminator before it), then trims the old filler.  Growing
 * the last chunk (when the next flush needs more room than preallocated) extends the filler first,
 * then the file, then the chunk size; closing sets the final flag, then shrinks the chunk to its
 * content and the file to the chunk.  Those last two steps each leave one moment, between two
 * consecutive system calls, where the file is not readable; Documentation/jfr-writer.md says more.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "jfr/encode.h"
#include "jfr/pool.h"
#include "jfr/reader.h"
#include "jfr/labels.h"
#include "jfr/repository.h"
#include "jfr/schema.h"
#include "jfr/writer.h"
#include "lib/outfile.h"

#define TICKS_PER_SECOND 1000000000ULL
/* A filler: padded 5-byte size, type 1, then five zero varints so that a reader parsing it as a
 * checkpoint (the JDK's streaming parser does) finds an empty one. */
#define FILLER_MIN 11
/* The terminator: a 2-byte event of type 0 that ends the event walk of JMC, which stops reading a
 * chunk at the first type-0 event.  Retired by turning its type into 1 once a later one exists. */
#define TERM_SIZE 2
#define FILLER_SIZE_WIDTH 5
#define PAGE 4096

#define FLAG_COMPRESSED_INTS 1
#define FLAG_FINAL_CHUNK 2

enum { P_SYMBOL, P_CLASS, P_METHOD, P_STACK, P_THREAD, P_GROUP, P_CONTEXT, P_COUNT };

static const char *const frame_type_names[LFR_JFR_FRAME_TYPE_COUNT] = {
    "Interpreted", "JIT compiled", "Inlined", "Native", "C++", "Kernel",
};
/*
 * Thread states: the JDK's names under HotSpot's keys (its JVMTI state bits), so that a file that
 * joins a JVM's chunks and lfr's names each key one way; async-profiler's STATE_DEFAULT under a key
 * no JVM state has.
 */
static const struct {
	const char *name;
	uint16_t key;
} states[LFR_JFR_STATE_COUNT + 1] = {
    [LFR_JFR_STATE_CPU] = {"STATE_DEFAULT", 1},
    [LFR_JFR_STATE_RUNNABLE] = {"STATE_RUNNABLE", 5},
    [LFR_JFR_STATE_SLEEPING] = {"STATE_SLEEPING", 225},
    [LFR_JFR_STATE_PARKED] = {"STATE_PARKED", 657},
    [LFR_JFR_STATE_IN_OBJECT_WAIT] = {"STATE_IN_OBJECT_WAIT", 401},
    [LFR_JFR_STATE_BLOCKED] = {"STATE_BLOCKED_ON_MONITOR_ENTER", 1025},
    [LFR_JFR_STATE_NEW] = {"STATE_NEW", 0},
    [LFR_JFR_STATE_TERMINATED] = {"STATE_TERMINATED", 2},
};

struct lost_reason {
	char *reason;
	uint64_t total;
};

/* An information event repeated at the start of every chunk: its payload after the start time. */
struct sticky {
	uint16_t type, group; /* group: the public function that wrote it, which replaces it */
	struct jfr_buf body;
};

struct lfr_jfr_writer {
	char *path;             /* the file the recording replaces, or the repository directory */
	struct lfr_outfile out; /* not in a repository: the new file until it is closed */
	char *tmp_path;         /* in a repository: NAME.tmp until its first chunk is written */
	char *chunk_path;       /* in a repository: the file of the current chunk */
	struct lfr_jfr_repo repo;
	int fd; /* the file written: a duplicate of out.fd, which publishing needs */
	bool dead;
	bool published; /* a flush with events happened (and the file is at path) */
	char err[512];
	struct lfr_jfr_options opt;
	int64_t io_budget;             /* fault injection: bytes of I/O left, -1 = unlimited */
	int64_t fault_op, fault_bytes; /* fault injection: the I/O call to cut, -1 = none */

	/* clock base: one CLOCK_MONOTONIC and one CLOCK_REALTIME reading taken together */
	uint64_t mono0, real0;
	int64_t gmt_offset_ms;
	struct jfr_buf meta; /* metadata event (start ticks 0), identical in every chunk */

	/* current chunk: [start, end) in the file; the live terminator is at term, the filler at
	 * filler (right after it) */
	uint64_t start, end, term, filler, last_cp;
	uint64_t chunk_ticks, chunk_max_ticks; /* header start ticks; latest event or flush time */
	uint64_t chunk_born;                   /* when the chunk was started (for its age) */
	uint32_t chunk_seq;
	uint64_t chunk_events;

	/* current flush segment */
	struct jfr_buf ev, tmp, cp, seg;
	uint32_t seg_seq;
	uint64_t seg_events, seg_min_ticks, seg_max_ticks;

	struct pool pools[P_COUNT];
	struct keyvec
	    seg_refs[P_COUNT];       /* stacks and threads referenced by this segment's events */
	struct keyvec emit[P_COUNT]; /* entries the checkpoint being built carries */
	uint64_t desc_symbol;        /* "()V", the descriptor of every method */

	struct lost_reason *lost;
	size_t nlost;
	struct sticky *sticky;
	size_t nsticky;
	struct jfr_buf pre;       /* the sticky events that open a new chunk, written before ev */
	struct jfr_labels labels; /* the processes' lfr.Label events */
	struct lfr_jfr_stats st;
};

static int fail(struct lfr_jfr_writer *w, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct lfr_jfr_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return -err;
}

static int fail_io(struct lfr_jfr_writer *w, int err, const char *what, uint64_t off)
{
	w->dead = true;
	return fail(w, err, "%s: %s at offset %llu failed: %s", w->chunk_path ?: w->path, what,
	            (unsigned long long)off, strerror(err));
}

static int nomem(struct lfr_jfr_writer *w, const char *what)
{
	return fail(w, ENOMEM, "%s: out of memory while %s", w->path, what);
}

const char *lfr_jfr_strerror(const struct lfr_jfr_writer *w)
{
	return w && w->err[0] ? w->err : "no error";
}

uint64_t lfr_jfr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * TICKS_PER_SECOND + (uint64_t)ts.tv_nsec;
}

/* The writer's own clock: the system's, or the one its options name. */
static uint64_t now_ticks(const struct lfr_jfr_writer *w)
{
	return w->opt.clock ? w->opt.clock() : lfr_jfr_now();
}

void lfr_jfr_set_io_budget(struct lfr_jfr_writer *w, int64_t budget)
{
	w->io_budget = budget;
}

void lfr_jfr_set_io_fault(struct lfr_jfr_writer *w, int64_t op, int64_t bytes)
{
	w->fault_op = op;
	w->fault_bytes = bytes;
}

/* ---- file I/O: every call checked, short writes completed, injected faults honoured ---- */

/*
 * Fault injection (tests): decides whether this I/O call is the one the simulated kill interrupts,
 * and how many of its n bytes reach the file first.
 */
static bool injected_fault(struct lfr_jfr_writer *w, size_t *n, uint64_t off, bool is_write)
{
	size_t keep;

	if (w->fault_op > 0) {
		w->fault_op--;
		return false;
	}
	if (w->fault_op == 0) {
		keep = w->fault_bytes < (int64_t)*n ? (size_t)w->fault_bytes : *n;
	} else if (w->io_budget >= 0 && (int64_t)*n > w->io_budget) {
		keep = (size_t)w->io_budget;
	} else {
		if (w->io_budget >= 0)
			w->io_budget -= (int64_t)*n;
		return false;
	}
	/* the kernel completes a write within one page entirely or not at all when the writer is
	 * killed; only larger writes can be cut short */
	if (is_write && *n <= 8 && off / PAGE == (off + *n - 1) / PAGE && keep < *n)
		keep = 0;
	*n = keep;
	w->io_budget = 0;
	w->fault_op = 0;
	w->fault_bytes = 0;
	return true;
}

static int io_write(struct lfr_jfr_writer *w, const void *data, size_t n, uint64_t off,
                    const char *what)
{
	const uint8_t *p = data;
	bool cut;

	if (w->dead)
		return -EIO;
	cut = injected_fault(w, &n, off, true);
	while (n) {
		ssize_t r = pwrite(w->fd, p, n, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return fail_io(w, errno, what, off);
		}
		if (r == 0)
			return fail_io(w, EIO, what, off);
		p += r;
		off += (uint64_t)r;
		n -= (size_t)r;
	}
	if (cut)
		return fail_io(w, EIO, "(injected fault) write", off);
	return 0;
}

static int io_truncate(struct lfr_jfr_writer *w, uint64_t size, const char *what)
{
	size_t one = 1;
	bool cut;

	if (w->dead)
		return -EIO;
	cut = injected_fault(w, &one, 0, false);
	if (cut && !one)
		return fail_io(w, EIO, "(injected fault) ftruncate", size);
	while (ftruncate(w->fd, (off_t)size) < 0) {
		if (errno != EINTR)
			return fail_io(w, errno, what, size);
	}
	if (cut)
		return fail_io(w, EIO, "(injected fault) after ftruncate", size);
	return 0;
}

static int io_u64(struct lfr_jfr_writer *w, uint64_t off, uint64_t v, const char *what)
{
	uint8_t b[8];

	jfr_put_be64(b, v);
	return io_write(w, b, 8, off, what);
}

/* Rewrites the padded size of the filler at off: one write inside one page. */
static int io_filler_size(struct lfr_jfr_writer *w, uint64_t off, uint64_t size)
{
	uint8_t b[FILLER_SIZE_WIDTH];

	if (!jfr_varint_encode_padded(b, size, FILLER_SIZE_WIDTH))
		return fail(w, EFBIG, "%s: chunk larger than the writer supports", w->path);
	return io_write(w, b, FILLER_SIZE_WIDTH, off, "writing a filler size");
}

/* ---- chunk pieces ---- */

static uint64_t real_nanos(const struct lfr_jfr_writer *w, uint64_t ticks)
{
	return w->real0 + (ticks - w->mono0);
}

static void put_header(struct jfr_buf *b, const struct lfr_jfr_writer *w, uint64_t size,
                       uint64_t cp_off, uint64_t meta_off, uint64_t start_ticks)
{
	jfr_buf_put(b, "FLR", 4); /* with its NUL */
	jfr_buf_be16(b, 2);
	jfr_buf_be16(b, 1);
	jfr_buf_be64(b, size);
	jfr_buf_be64(b, cp_off);
	jfr_buf_be64(b, meta_off);
	jfr_buf_be64(b, real_nanos(w, start_ticks));
	jfr_buf_be64(b, 0); /* duration */
	jfr_buf_be64(b, start_ticks);
	jfr_buf_be64(b, TICKS_PER_SECOND);
	jfr_buf_u8(b, 0); /* state: finished */
	jfr_buf_u8(b, 0);
	jfr_buf_be16(b, FLAG_COMPRESSED_INTS);
}

static void put_filler(struct jfr_buf *b, uint64_t size)
{
	jfr_buf_varint_padded(b, size, FILLER_SIZE_WIDTH);
	jfr_buf_u8(b, 1);
	for (int i = 0; i < 5; i++)
		jfr_buf_u8(b, 0);
}

static void put_term(struct jfr_buf *b)
{
	jfr_buf_u8(b, TERM_SIZE);
	jfr_buf_u8(b, 0);
}

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

	if (!e || e->emitted_chunk == w->chunk_seq)
		return;
	e->emitted_chunk = w->chunk_seq;
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
static int build_checkpoint(struct lfr_jfr_writer *w, uint64_t at, uint64_t prev, bool statics,
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
			jfr_buf_varint(&pools, states[i].key);
			jfr_buf_string(&pools, states[i].name);
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
			return nomem(w, "collecting pool entries");
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
		return nomem(w, "encoding a checkpoint");
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
		return nomem(w, "encoding a checkpoint");
	return 0;
}

/* ---- chunks ---- */

/*
 * Builds a whole new chunk at file offset at, ending at end, into w->seg:
 *   header, metadata wrapped in a type-1 event (so that JMC's event walk does not stop at it; the
 *   header points into the wrapper), checkpoint 0 (the static pools), terminator, filler.
 */
static int build_chunk(struct lfr_jfr_writer *w, uint64_t at, uint64_t end, uint64_t ticks,
                       uint64_t *term, uint64_t *cp)
{
	uint64_t meta_off = JFR_CHUNK_HEADER_SIZE + FILLER_MIN;
	uint64_t cp_off = meta_off + w->meta.len;
	int err;

	w->chunk_seq++;
	err = build_checkpoint(w, at + cp_off, 0, true, ticks);
	if (err)
		return err;
	jfr_buf_reset(&w->seg);
	put_header(&w->seg, w, end - at, cp_off, meta_off, ticks);
	put_filler(&w->seg, FILLER_MIN + w->meta.len);
	jfr_buf_put(&w->seg, w->meta.data, w->meta.len);
	jfr_buf_put(&w->seg, w->cp.data, w->cp.len);
	*term = at + w->seg.len;
	*cp = at + cp_off;
	put_term(&w->seg);
	put_filler(&w->seg, end - (*term + TERM_SIZE));
	if (w->seg.oom)
		return nomem(w, "building a chunk");
	return 0;
}

static uint64_t chunk_duration(const struct lfr_jfr_writer *w, uint64_t now)
{
	uint64_t last = now > w->chunk_max_ticks ? now : w->chunk_max_ticks;

	return last > w->chunk_ticks ? last - w->chunk_ticks : 0;
}

/* Extends the current (last) chunk and the file to end. */
static int grow(struct lfr_jfr_writer *w, uint64_t end)
{
	int err;

	if (end <= w->end)
		return 0;
	err = io_filler_size(w, w->filler, end - w->filler);
	if (!err)
		err = io_truncate(w, end, "extending the file");
	if (!err)
		err = io_u64(w, w->start + JFR_H_SIZE, end - w->start, "writing the chunk size");
	if (!err)
		w->end = end;
	return err;
}

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~7ULL;
}

static int create_chunk_file(struct lfr_jfr_writer *w, uint64_t ticks);
static int first_chunk(struct lfr_jfr_writer *w, uint64_t ticks);
static int end_chunk_file(struct lfr_jfr_writer *w, uint64_t now, bool final);

/* In a repository: the current chunk ends with its file, the next starts in a file of its own. */
static int rotate_file(struct lfr_jfr_writer *w, uint64_t now, uint64_t ticks)
{
	int err = end_chunk_file(w, now, false);

	if (!err)
		err = create_chunk_file(w, ticks);
	if (!err)
		err = first_chunk(w, ticks);
	if (err)
		return err;
	w->chunk_born = now;
	w->chunk_events = 0;
	w->st.chunks++;
	return 0;
}

/* Ends the current chunk and starts the next one right after its content. */
static int rotate(struct lfr_jfr_writer *w, uint64_t now)
{
	uint64_t next = align8(w->filler + FILLER_MIN);
	uint64_t ticks = now, term, cp;
	int err;

	if (w->seg_events && w->seg_min_ticks < ticks)
		ticks = w->seg_min_ticks;
	if (ticks <= w->chunk_ticks)
		ticks =
		    w->chunk_ticks + 1; /* distinct start times: JMC loads only one of equal ones */
	if (w->opt.repository)
		return rotate_file(w, now, ticks);
	/* the new chunk's start lies inside the old filler; make room for it there first */
	uint64_t need = next + JFR_CHUNK_HEADER_SIZE + w->meta.len + 4096 + FILLER_MIN + 8;
	err = grow(w, need > w->end ? need + (w->opt.max_chunk_bytes / 4) : 0);
	if (err)
		return err;
	uint64_t old_start = w->start, old_filler = w->filler;
	uint64_t duration = chunk_duration(w, now);
	err = build_chunk(w, next, w->end, ticks, &term, &cp);
	if (!err)
		err = io_write(w, w->seg.data, w->seg.len, next, "writing a new chunk");
	if (!err)
		err = io_u64(w, old_start + JFR_H_SIZE, next - old_start, "ending a chunk");
	if (!err)
		err = io_filler_size(w, old_filler, next - old_filler);
	if (!err)
		err = io_u64(w, old_start + JFR_H_DURATION, duration, "writing a chunk duration");
	if (err)
		return err;
	w->start = next;
	w->term = term;
	w->filler = term + TERM_SIZE;
	w->last_cp = cp;
	w->chunk_ticks = ticks;
	w->chunk_max_ticks = ticks;
	w->chunk_born = now;
	w->chunk_events = 0;
	w->st.chunks++;
	return 0;
}

static int local_gmt_offset_ms(int64_t *out)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return -1;
	*out = (int64_t)tm.tm_gmtoff * 1000;
	return 0;
}

/*
 * The file appears at path only once the recording has something in it, complete: the writer
 * writes a new file (lib/outfile.h: unnamed, or under a unique temporary name beside path) until
 * the first flush with events puts it at path (a reader never sees a first chunk half written, an
 * existing file is replaced only then, and no file of another name is touched).  A path that
 * exists and is no regular file (a FIFO, a device, a link) is refused.
 */
static int create_file(struct lfr_jfr_writer *w)
{
	char err[384];

	/* 0640: a recording holds every command line and thread name */
	int ret = lfr_outfile_open(&w->out, w->path, 0, 0640, err, sizeof(err));

	if (!ret) {
		/* the writer closes its own descriptor when the file ends; publishing needs one */
		w->fd = fcntl(w->out.fd, F_DUPFD_CLOEXEC, 3);
		ret = w->fd < 0 ? -errno : 0;
		if (ret)
			snprintf(err, sizeof(err), "opening %s: %s", w->path, strerror(errno));
	}
	if (ret) {
		w->dead = true;
		return fail(w, -ret, "%s", err);
	}
	return 0;
}

/* Gives path the recording's data: the new file replaces the old file now. */
static int publish(struct lfr_jfr_writer *w)
{
	char err[384];
	int ret;

	if (w->published)
		return 0;
	if (!w->opt.repository && (ret = lfr_outfile_publish(&w->out, err, sizeof(err)))) {
		w->dead = true;
		return fail(w, -ret, "%s", err);
	}
	w->published = true;
	return 0;
}

/*
 * In a repository: the file of a chunk that starts at ticks, created as NAME.tmp (renamed once
 * its first chunk is written, so that it appears whole) and listed as the repository's newest.
 */
static int create_chunk_file(struct lfr_jfr_writer *w, uint64_t ticks)
{
	char name[LFR_JFR_REPO_NAME_MAX];
	int64_t start = (int64_t)real_nanos(w, ticks);

	lfr_jfr_repo_name(name, start);
	free(w->chunk_path);
	free(w->tmp_path);
	w->tmp_path = NULL;
	if (asprintf(&w->chunk_path, "%s/%s", w->path, name) < 0) {
		w->chunk_path = NULL;
		return nomem(w, "naming a chunk file");
	}
	if (asprintf(&w->tmp_path, "%s.tmp", w->chunk_path) < 0) {
		w->tmp_path = NULL;
		return nomem(w, "naming a chunk file");
	}
	w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (w->fd < 0) {
		w->dead = true;
		return fail(w, errno, "cannot create %s: %s", w->tmp_path, strerror(errno));
	}
	if (lfr_jfr_repo_add(&w->repo, name, start))
		return nomem(w, "listing a chunk file");
	return 0;
}

/* In a repository: the current chunk file, its first chunk written, appears under its name. */
static int publish_chunk_file(struct lfr_jfr_writer *w)
{
	if (rename(w->tmp_path, w->chunk_path) < 0) {
		w->dead = true;
		return fail(w, errno, "cannot rename %s to %s: %s", w->tmp_path, w->chunk_path,
		            strerror(errno));
	}
	free(w->tmp_path);
	w->tmp_path = NULL;
	w->published = true;
	return 0;
}

/*
 * Ends the current chunk at its content (final: flagged as the recording's last), syncs and
 * closes its file; in a repository the file then counts at its final size.
 */
static int end_chunk_file(struct lfr_jfr_writer *w, uint64_t now, bool final)
{
	uint64_t duration = chunk_duration(w, now);
	uint8_t flags[2];
	int err = 0;

	jfr_put_be16(flags, FLAG_COMPRESSED_INTS | FLAG_FINAL_CHUNK);
	if (final)
		err = io_write(w, flags, 2, w->start + JFR_H_FLAGS, "flagging the final chunk");
	/* drop the filler: the chunk ends at its content, the file at the chunk */
	if (!err)
		err = io_u64(w, w->start + JFR_H_SIZE, w->filler - w->start,
		             "writing the chunk size");
	if (!err)
		err = io_truncate(w, w->filler, "trimming the file");
	if (!err && !final)
		err = io_u64(w, w->start + JFR_H_DURATION, duration, "writing a chunk duration");
	if (!err && (final || w->opt.sync) && fdatasync(w->fd) < 0)
		err = fail_io(w, errno, "fdatasync", 0);
	if (w->fd >= 0 && close(w->fd) < 0 && !err)
		err = fail_io(w, errno, "close", 0);
	w->fd = -1;
	if (!err && w->opt.repository)
		lfr_jfr_repo_update(&w->repo, w->filler - w->start,
		                    (int64_t)(real_nanos(w, w->chunk_ticks) + duration), true);
	return err;
}

/* In a repository, after a flush: the newest chunk's size and end, then the limits. */
static int repo_flushed(struct lfr_jfr_writer *w, uint64_t now)
{
	char msg[sizeof(w->err)];
	int err;

	if (!w->opt.repository)
		return 0;
	lfr_jfr_repo_update(&w->repo, w->end - w->start,
	                    (int64_t)(real_nanos(w, w->chunk_ticks) + chunk_duration(w, now)),
	                    false);
	err = lfr_jfr_repo_evict(&w->repo, (int64_t)real_nanos(w, now_ticks(w)), msg, sizeof(msg));
	return err ? fail(w, -err, "%s", msg) : 0;
}

/* Writes the first chunk at the start of the current (new) file, preallocated. */
static int first_chunk(struct lfr_jfr_writer *w, uint64_t ticks)
{
	uint64_t term, cp;
	int err;

	w->start = 0;
	w->end = w->opt.max_chunk_bytes;
	w->chunk_ticks = w->chunk_max_ticks = ticks;
	err = build_chunk(w, 0, w->end, ticks, &term, &cp);
	if (!err)
		err = io_truncate(w, w->end, "preallocating the first chunk");
	if (!err)
		err = io_write(w, w->seg.data, w->seg.len, 0, "writing the first chunk");
	if (err)
		return err;
	w->term = term;
	w->filler = term + TERM_SIZE;
	w->last_cp = cp;
	if (w->opt.repository)
		return publish_chunk_file(w);
	return 0;
}

/* Undoes create_file() when nothing was published: an old file at path stays as it was. */
static void unpublish(struct lfr_jfr_writer *w)
{
	if (w->opt.repository) {
		if (w->tmp_path) /* a chunk file not yet renamed: the others stay */
			unlink(w->tmp_path);
		else if (!w->st.flushes && w->chunk_path) /* the one file it made holds nothing */
			unlink(w->chunk_path);
		return;
	}
	/* removes the new file unless it was published; closes it either way */
	lfr_outfile_abort(&w->out);
}

int lfr_jfr_open(struct lfr_jfr_writer **out, const char *path, const struct lfr_jfr_options *opt)
{
	struct lfr_jfr_writer *w = calloc(1, sizeof(*w));
	struct timespec mono, real, mono2;
	int err;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	/*
	 * A stack trace's blob is the method keys this writer gave (each checked to exist): lfr's
	 * own bytes, interned for every new stack lfr record meets, hashed unkeyed.  The others
	 * hold names from files and processes (symbols, paths, thread names): keyed.
	 */
	for (int p = 0; p < P_COUNT; p++)
		pool_init(&w->pools[p], p == P_STACK);
	w->repo.lock_fd = -1;
	w->out = (struct lfr_outfile)LFR_OUTFILE_INIT;
	w->io_budget = -1;
	w->fault_op = -1;
	if (opt)
		w->opt = *opt;
	if (!w->opt.max_chunk_bytes)
		w->opt.max_chunk_bytes = 12 << 20;
	if (w->opt.max_chunk_bytes < 64 << 10)
		w->opt.max_chunk_bytes = 64 << 10;
	if (w->opt.max_chunk_bytes > (1ULL << 31) - (64 << 20))
		w->opt.max_chunk_bytes = (1ULL << 31) - (64 << 20); /* JMC: chunks under 2 GiB */
	if (!w->opt.auto_flush_bytes)
		w->opt.auto_flush_bytes = 4 << 20;
	if (w->opt.auto_flush_bytes > w->opt.max_chunk_bytes / 2)
		w->opt.auto_flush_bytes = w->opt.max_chunk_bytes / 2;
	w->path = strdup(path);
	*out = w;
	if (!w->path)
		return nomem(w, "opening");
	if (w->opt.sample_events & ~(unsigned)(LFR_JFR_SAMPLE_ALL | LFR_JFR_SAMPLE_WALL)) {
		w->dead = true;
		return fail(w, EINVAL, "unknown sample events 0x%x (LFR_JFR_SAMPLE_*)",
		            w->opt.sample_events);
	}

	/* the clock pair: realtime read between two monotonic reads, the closest pair kept */
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono2);
	uint64_t m1 = (uint64_t)mono.tv_sec * TICKS_PER_SECOND + (uint64_t)mono.tv_nsec;
	uint64_t m2 = (uint64_t)mono2.tv_sec * TICKS_PER_SECOND + (uint64_t)mono2.tv_nsec;
	w->mono0 = m1 + (m2 - m1) / 2;
	w->real0 = (uint64_t)real.tv_sec * TICKS_PER_SECOND + (uint64_t)real.tv_nsec;
	if (w->opt.clock) {
		m2 = w->opt.clock();
		w->mono0 = 0;
		w->real0 = (uint64_t)w->opt.clock_realtime0;
	}
	if (local_gmt_offset_ms(&w->gmt_offset_ms))
		w->gmt_offset_ms = 0;
	if (!jfr_metadata_build(&w->meta, 0, w->gmt_offset_ms))
		return nomem(w, "building the metadata");
	w->desc_symbol = pool_intern(&w->pools[P_SYMBOL], "()V", 3);
	if (!w->desc_symbol)
		return nomem(w, "interning a symbol");

	if (w->opt.repository) {
		char msg[sizeof(w->err)];

		err = lfr_jfr_repo_open(&w->repo, path, w->opt.repo_max_bytes,
		                        w->opt.repo_max_age_ns, msg, sizeof(msg));
		w->repo.on_evict = w->opt.on_evict;
		w->repo.on_evict_arg = w->opt.on_evict_arg;
		if (err) {
			w->dead = true;
			return fail(w, -err, "%s", msg);
		}
		err = create_chunk_file(w, m2);
	} else {
		err = create_file(w);
	}
	if (err)
		return err;
	w->chunk_born = m2;
	if ((err = first_chunk(w, m2)))
		return err;
	w->st.chunks = 1;
	w->seg_seq = 1;
	return 0;
}

/* ---- pools: public interning ---- */

static int check_live(struct lfr_jfr_writer *w)
{
	return w->dead ? -EIO : 0;
}

static int intern_symbol(struct lfr_jfr_writer *w, const char *s, uint64_t *key)
{
	*key = pool_intern(&w->pools[P_SYMBOL], s, strlen(s));
	return *key ? 0 : nomem(w, "interning a symbol");
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
		return fail(w, EINVAL, "invalid method (object %s, symbol %s, frame type %d)",
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
		return nomem(w, "interning a symbol");
	if ((err = intern_symbol(w, symbol, &m.name_key)))
		return err;
	m.class_key = pool_intern(&w->pools[P_CLASS], &osym, sizeof(osym));
	if (!m.class_key)
		return nomem(w, "interning a class");
	*key = pool_intern(&w->pools[P_METHOD], &m, sizeof(m));
	return *key ? 0 : nomem(w, "interning a method");
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
	for (size_t i = 0; i < n; i++)
		if (!pool_get(&w->pools[P_METHOD], methods[i]))
			return fail(w, EINVAL, "stack frame %zu: unknown method key %llu", i,
			            (unsigned long long)methods[i]);
	if (n > 128) {
		blob = malloc(1 + 8 * n);
		if (!blob)
			return nomem(w, "interning a stack trace");
	}
	blob[0] = truncated;
	memcpy(blob + 1, methods, 8 * n);
	*key = pool_intern(&w->pools[P_STACK], blob, 1 + 8 * n);
	if (blob != small)
		free(blob);
	return *key ? 0 : nomem(w, "interning a stack trace");
}

int lfr_jfr_thread(struct lfr_jfr_writer *w, uint32_t tid, uint32_t tgid, const char *name,
                   const char *process, uint64_t *key)
{
	char gblob[4 + 300];
	char tblob[16 + 256];
	uint64_t group;
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
		return fail(w, EINVAL, "invalid process name");
	if ((size_t)gn >= sizeof(gblob) - 4)
		gn = (int)sizeof(gblob) - 5;
	memcpy(gblob, &tgid, 4);
	group = pool_intern(&w->pools[P_GROUP], gblob, 4 + (size_t)gn);
	if (!group)
		return nomem(w, "interning a thread group");
	size_t nl = strnlen(name, 255);
	memset(tblob, 0, 16);
	memcpy(tblob, &tid, 4);
	memcpy(tblob + 4, &tgid, 4);
	memcpy(tblob + 8, &group, 8);
	memcpy(tblob + 16, name, nl);
	*key = pool_intern(&w->pools[P_THREAD], tblob, 16 + nl);
	return *key ? 0 : nomem(w, "interning a thread");
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
		return fail(w, EINVAL, "a trace context with %zu attributes", nattrs);
	for (size_t i = 0; i < nattrs; i++)
		need += 4 + (size_t)attrs[i].key_len + attrs[i].value_len;
	if (need > sizeof(small) && !(blob = malloc(need)))
		return nomem(w, "interning a trace context");
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
	return *key ? 0 : nomem(w, "interning a trace context");
}

/* ---- events ---- */

/* Forgets the repeated events an earlier call of the same function left. */
static void sticky_drop(struct lfr_jfr_writer *w, uint16_t group)
{
	size_t j = 0;

	for (size_t i = 0; i < w->nsticky; i++) {
		if (w->sticky[i].group == group)
			jfr_buf_free(&w->sticky[i].body);
		else
			w->sticky[j++] = w->sticky[i];
	}
	w->nsticky = j;
}

/* Keeps the event being built in tmp (its payload from body_off on) for the next chunks. */
static int sticky_keep(struct lfr_jfr_writer *w, uint16_t type, uint16_t group, size_t body_off)
{
	struct sticky *p = realloc(w->sticky, (w->nsticky + 1) * sizeof(*p));

	if (!p)
		return nomem(w, "keeping an information event");
	w->sticky = p;
	p = &w->sticky[w->nsticky];
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->group = group;
	jfr_buf_put(&p->body, w->tmp.data + body_off, w->tmp.len - body_off);
	if (p->body.oom) {
		jfr_buf_free(&p->body);
		return nomem(w, "keeping an information event");
	}
	w->nsticky++;
	return 0;
}

/* The repeated events at the new chunk's start time, into pre. */
static int sticky_restate(struct lfr_jfr_writer *w)
{
	jfr_buf_reset(&w->pre);
	for (size_t i = 0; i < w->nsticky; i++) {
		jfr_buf_reset(&w->tmp);
		jfr_buf_varint(&w->tmp, w->sticky[i].type);
		jfr_buf_varint(&w->tmp, w->chunk_ticks);
		jfr_buf_put(&w->tmp, w->sticky[i].body.data, w->sticky[i].body.len);
		jfr_buf_varint(&w->pre, jfr_event_size(w->tmp.len));
		jfr_buf_put(&w->pre, w->tmp.data, w->tmp.len);
	}
	if (w->tmp.oom || w->pre.oom)
		return nomem(w, "repeating the information events");
	w->st.events += w->nsticky;
	return 0;
}

static int commit(struct lfr_jfr_writer *w);

/* Commits an information event and keeps it for the next chunks. */
static int commit_sticky(struct lfr_jfr_writer *w, uint16_t type, uint16_t group, size_t body_off)
{
	int err = sticky_keep(w, type, group, body_off);

	return err ? err : commit(w);
}

/* A reference to an entry that the current segment has not referenced yet. */
static int ref_new(struct lfr_jfr_writer *w, int pool, uint64_t key, struct pool_entry *e)
{
	e->seg = w->seg_seq;
	if (keyvec_push(&w->seg_refs[pool], key))
		return nomem(w, "recording a reference");
	return 0;
}

/* Inline: every event refers to its thread and stack, mostly ones already referenced. */
static inline int ref(struct lfr_jfr_writer *w, int pool, uint64_t key, const char *what)
{
	struct pool_entry *e;

	if (!key)
		return 0;
	e = pool_get(&w->pools[pool], key);
	if (!e)
		return fail(w, EINVAL, "unknown %s key %llu", what, (unsigned long long)key);
	return e->seg == w->seg_seq ? 0 : ref_new(w, pool, key, e);
}

static void seg_ticks(struct lfr_jfr_writer *w, uint64_t ticks)
{
	if (!w->seg_events || ticks < w->seg_min_ticks)
		w->seg_min_ticks = ticks;
	if (!w->seg_events || ticks > w->seg_max_ticks)
		w->seg_max_ticks = ticks;
}

static void begin(struct lfr_jfr_writer *w, uint16_t type, uint64_t ticks)
{
	jfr_buf_reset(&w->tmp);
	jfr_buf_varint(&w->tmp, type);
	jfr_buf_varint(&w->tmp, ticks);
	seg_ticks(w, ticks);
}

/* The event counted, and the events flushed once they fill the buffer. */
static int committed(struct lfr_jfr_writer *w)
{
	w->seg_events++;
	w->st.events++;
	if (w->ev.len >= w->opt.auto_flush_bytes)
		return lfr_jfr_flush(w);
	return 0;
}

static int commit(struct lfr_jfr_writer *w)
{
	jfr_buf_varint(&w->ev, jfr_event_size(w->tmp.len));
	jfr_buf_put(&w->ev, w->tmp.data, w->tmp.len);
	if (w->tmp.oom || w->ev.oom)
		return nomem(w, "buffering an event");
	return committed(w);
}

/* An event of a few varints, less than 128 bytes in all: its size is one byte. */
#define SMALL_EVENT_MAX 127

/*
 * The bytes of a thread's sample of TYPE at the end of the events, after the checks: at most 1 + 2
 * + 4 x 9 + 2 bytes, encoded through one pointer after one check for room (by the caller): this
 * runs once per sample, and a buffer call per field was most of its cost.
 */
static inline void put_thread_sample(struct lfr_jfr_writer *w, uint16_t type, uint64_t ticks,
                                     uint64_t thread, uint64_t stack,
                                     enum lfr_jfr_thread_state state)
{
	uint8_t *at = w->ev.data + w->ev.len, *p;

	p = jfr_put_varint(at + 1, type);
	p = jfr_put_varint(p, ticks);
	p = jfr_put_varint(p, thread);
	p = jfr_put_varint(p, stack);
	p = jfr_put_varint(p, states[state].key);
	if (type == T_WALL_CLOCK_SAMPLE) {
		*p++ = 1; /* samples: one period */
		*p++ = 0; /* timeSpan */
	}
	*at = (uint8_t)(p - at);
	w->ev.len += (size_t)(p - at);
	seg_ticks(w, ticks);
	w->st.samples += type == T_EXECUTION_SAMPLE;
}

/* thread_sample() when any check may fail or a reference is new to the segment. */
static __attribute__((noinline)) int thread_sample_checked(struct lfr_jfr_writer *w, uint16_t type,
                                                           uint64_t ticks, uint64_t thread,
                                                           uint64_t stack,
                                                           enum lfr_jfr_thread_state state)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if (state < 1 || state > LFR_JFR_STATE_COUNT)
		return fail(w, EINVAL, "invalid thread state %d", (int)state);
	if ((err = ref(w, P_THREAD, thread, "thread")) || (err = ref(w, P_STACK, stack, "stack")))
		return err;
	if (w->ev.oom ||
	    (w->ev.len + SMALL_EVENT_MAX > w->ev.cap && !jfr_buf_reserve(&w->ev, SMALL_EVENT_MAX)))
		return nomem(w, "buffering an event");
	put_thread_sample(w, type, ticks, thread, stack, state);
	return committed(w);
}

/* Whether KEY (0: none) is referenced by the current segment already. */
static inline bool ref_current(struct lfr_jfr_writer *w, int pool, uint64_t key)
{
	const struct pool_entry *e;

	return !key || ((e = pool_get(&w->pools[pool], key)) && e->seg == w->seg_seq);
}

/*
 * A thread's sample of TYPE (jdk.ExecutionSample; profiler.WallClockSample, which adds one period
 * and no time span): thread, stack, state.
 * Mostly every check passes and both references are known to the segment: that way has no call
 * but the flush, at the end, and saves only the registers the encoding needs.
 */
static int thread_sample(struct lfr_jfr_writer *w, uint16_t type, uint64_t ticks, uint64_t thread,
                         uint64_t stack, enum lfr_jfr_thread_state state)
{
	if (w->dead || state < 1 || state > LFR_JFR_STATE_COUNT ||
	    !ref_current(w, P_THREAD, thread) || !ref_current(w, P_STACK, stack) || w->ev.oom ||
	    w->ev.len + SMALL_EVENT_MAX > w->ev.cap)
		return thread_sample_checked(w, type, ticks, thread, stack, state);
	put_thread_sample(w, type, ticks, thread, stack, state);
	return committed(w);
}

int lfr_jfr_execution_sample(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                             uint64_t stack, enum lfr_jfr_thread_state state)
{
	return thread_sample(w, T_EXECUTION_SAMPLE, ticks, thread, stack, state);
}

int lfr_jfr_wall_sample(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread, uint64_t stack,
                        enum lfr_jfr_thread_state state)
{
	return thread_sample(w, T_WALL_CLOCK_SAMPLE, ticks, thread, stack, state);
}

/*
 * Begins a duration event of TYPE with a thread and a stack (lfr.OffCpu, lfr.SamplingLatency):
 * start, duration, eventThread, stackTrace; the caller adds its other fields and commits.
 */
static int begin_thread_span(struct lfr_jfr_writer *w, uint16_t type, uint64_t start,
                             uint64_t duration, uint64_t thread, uint64_t stack)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if ((err = ref(w, P_THREAD, thread, "thread")) || (err = ref(w, P_STACK, stack, "stack")))
		return err;
	begin(w, type, start);
	if (start + duration > w->seg_max_ticks)
		w->seg_max_ticks = start + duration;
	jfr_buf_varint(&w->tmp, duration);
	jfr_buf_varint(&w->tmp, thread);
	jfr_buf_varint(&w->tmp, stack);
	return 0;
}

int lfr_jfr_off_cpu(struct lfr_jfr_writer *w, uint64_t start, uint64_t duration, uint64_t thread,
                    uint64_t stack, const char *state, uint64_t short_count, uint64_t short_ns)
{
	int err = begin_thread_span(w, T_OFF_CPU, start, duration, thread, stack);

	if (err)
		return err;
	jfr_buf_string(&w->tmp, state ? state : "other");
	jfr_buf_varint(&w->tmp, short_count);
	jfr_buf_varint(&w->tmp, short_ns);
	return commit(w);
}

int lfr_jfr_sampling_latency(struct lfr_jfr_writer *w, uint64_t start, uint64_t duration,
                             uint64_t thread, uint64_t stack)
{
	return begin_thread_span(w, T_SAMPLING_LATENCY, start, duration, thread, stack)
	           ?: commit(w);
}

int lfr_jfr_trace_context(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                          uint64_t context)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if ((err = ref(w, P_THREAD, thread, "thread")) ||
	    (err = ref(w, P_CONTEXT, context, "trace context")))
		return err;
	begin(w, T_TRACE_CONTEXT, ticks);
	jfr_buf_varint(&w->tmp, thread);
	jfr_buf_varint(&w->tmp, context);
	w->st.contexts++;
	return commit(w);
}

/* The sample event set: jdk.ExecutionSample when it names no CPU sample event. */
static unsigned sample_events(const struct lfr_jfr_writer *w)
{
	unsigned set = w->opt.sample_events;

	return set & LFR_JFR_SAMPLE_ALL ? set : set | LFR_JFR_SAMPLE_DEFAULT;
}

/* Out of line: inlined, its registers were saved for every sample of the default. */
static __attribute__((noinline)) int
sample_events_of(struct lfr_jfr_writer *w, unsigned set, uint64_t ticks, uint64_t thread,
                 uint64_t stack, enum lfr_jfr_thread_state state, uint64_t period_ns);

int lfr_jfr_sample(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread, uint64_t stack,
                   enum lfr_jfr_thread_state state, uint64_t period_ns)
{
	unsigned set = sample_events(w);

	/* the default: one event, a call of its own (no registers saved for the other) */
	if (set == LFR_JFR_SAMPLE_EXECUTION)
		return thread_sample(w, T_EXECUTION_SAMPLE, ticks, thread, stack, state);
	return sample_events_of(w, set, ticks, thread, stack, state, period_ns);
}

/* lfr_jfr_sample() with the events of SET, the CPU-time or the wall-clock sample among them. */
static int sample_events_of(struct lfr_jfr_writer *w, unsigned set, uint64_t ticks, uint64_t thread,
                            uint64_t stack, enum lfr_jfr_thread_state state, uint64_t period_ns)
{
	int err;

	if (set & LFR_JFR_SAMPLE_EXECUTION) {
		if ((err = lfr_jfr_execution_sample(w, ticks, thread, stack, state)))
			return err;
	} else if ((err = check_live(w))) {
		return err;
	}
	if (set & LFR_JFR_SAMPLE_CPU_TIME) {
		/* the execution sample just written referenced the same thread and stack */
		if (!(set & LFR_JFR_SAMPLE_EXECUTION) &&
		    ((err = ref(w, P_THREAD, thread, "thread")) ||
		     (err = ref(w, P_STACK, stack, "stack"))))
			return err;
		/* startTime, stackTrace, eventThread, failed, samplingPeriod (ticks are ns), biased
		 */
		begin(w, T_CPU_TIME_SAMPLE, ticks);
		jfr_buf_varint(&w->tmp, stack);
		jfr_buf_varint(&w->tmp, thread);
		jfr_buf_u8(&w->tmp, !stack);
		jfr_buf_varint(&w->tmp, period_ns);
		jfr_buf_u8(&w->tmp, 0); /* a timer interrupt, not a safepoint: never biased */
		if (!(set & LFR_JFR_SAMPLE_EXECUTION))
			w->st.samples++;
		if ((err = commit(w)))
			return err;
	}
	/* a thread sampled on the CPU is a runnable thread's wall-clock sample too */
	if (set & LFR_JFR_SAMPLE_WALL)
		return thread_sample(w, T_WALL_CLOCK_SAMPLE, ticks, thread, stack,
		                     LFR_JFR_STATE_RUNNABLE);
	return 0;
}

int lfr_jfr_thread_samples_lost(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                                uint32_t count)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if (!(sample_events(w) & LFR_JFR_SAMPLE_CPU_TIME) || !count)
		return 0;
	if ((err = ref(w, P_THREAD, thread, "thread")))
		return err;
	begin(w, T_CPU_TIME_SAMPLES_LOST, ticks);
	jfr_buf_varint(&w->tmp, count);
	jfr_buf_varint(&w->tmp, thread);
	return commit(w);
}

int lfr_jfr_lost_samples(struct lfr_jfr_writer *w, uint64_t ticks, const char *reason,
                         uint64_t count)
{
	struct lost_reason *r = NULL;
	int err;

	if ((err = check_live(w)))
		return err;
	if (!reason || !*reason)
		return fail(w, EINVAL, "lost samples need a reason");
	for (size_t i = 0; i < w->nlost; i++)
		if (!strcmp(w->lost[i].reason, reason))
			r = &w->lost[i];
	if (!r) {
		struct lost_reason *p = realloc(w->lost, (w->nlost + 1) * sizeof(*p));

		if (!p)
			return nomem(w, "recording a loss reason");
		w->lost = p;
		r = &w->lost[w->nlost];
		r->reason = strdup(reason);
		r->total = 0;
		if (!r->reason)
			return nomem(w, "recording a loss reason");
		w->nlost++;
	}
	r->total += count;
	begin(w, T_LOST_SAMPLES, ticks);
	jfr_buf_string(&w->tmp, reason);
	jfr_buf_varint(&w->tmp, count);
	jfr_buf_varint(&w->tmp, r->total);
	return commit(w);
}

int lfr_jfr_thread_start(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread, uint64_t parent)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if ((err = ref(w, P_THREAD, thread, "thread")) ||
	    (err = ref(w, P_THREAD, parent, "parent thread")))
		return err;
	begin(w, T_THREAD_START, ticks);
	jfr_buf_varint(&w->tmp, thread); /* eventThread */
	jfr_buf_varint(&w->tmp, 0);      /* stackTrace */
	jfr_buf_varint(&w->tmp, thread);
	jfr_buf_varint(&w->tmp, parent);
	return commit(w);
}

int lfr_jfr_thread_end(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if ((err = ref(w, P_THREAD, thread, "thread")))
		return err;
	begin(w, T_THREAD_END, ticks);
	jfr_buf_varint(&w->tmp, thread); /* eventThread */
	jfr_buf_varint(&w->tmp, thread);
	return commit(w);
}

int lfr_jfr_active_recording(struct lfr_jfr_writer *w, uint64_t ticks,
                             const struct lfr_jfr_recording *r)
{
	int err;

	if ((err = check_live(w)))
		return err;
	sticky_drop(w, T_ACTIVE_RECORDING);
	begin(w, T_ACTIVE_RECORDING, ticks);
	size_t off = w->tmp.len;
	jfr_buf_varint(&w->tmp, 0); /* duration */
	jfr_buf_varint(&w->tmp, 0); /* eventThread */
	jfr_buf_varint(&w->tmp, 0); /* stackTrace */
	jfr_buf_varint(&w->tmp, r->id);
	jfr_buf_string(&w->tmp, r->name);
	jfr_buf_string(&w->tmp, r->destination ? r->destination : w->path);
	jfr_buf_varint(&w->tmp, r->max_age_ms);
	jfr_buf_varint(&w->tmp, r->flush_interval_ms);
	jfr_buf_varint(&w->tmp, r->max_size_bytes);
	jfr_buf_varint(&w->tmp, real_nanos(w, r->start_ticks) / 1000000);
	jfr_buf_varint(&w->tmp, r->duration_ticks / 1000000);
	return commit_sticky(w, T_ACTIVE_RECORDING, T_ACTIVE_RECORDING, off);
}

int lfr_jfr_os_information(struct lfr_jfr_writer *w, uint64_t ticks, const char *os_version)
{
	char buf[4 * 65 + 8];
	struct utsname u;
	int err;

	if ((err = check_live(w)))
		return err;
	if (!os_version) {
		if (uname(&u) < 0)
			return fail(w, errno, "uname: %s", strerror(errno));
		snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.release, u.version,
		         u.machine);
		os_version = buf;
	}
	sticky_drop(w, T_OS_INFORMATION);
	begin(w, T_OS_INFORMATION, ticks);
	size_t off = w->tmp.len;
	jfr_buf_string(&w->tmp, os_version);
	return commit_sticky(w, T_OS_INFORMATION, T_OS_INFORMATION, off);
}

int lfr_jfr_system_process(struct lfr_jfr_writer *w, uint64_t ticks, uint32_t pid,
                           const char *command_line)
{
	char id[16];
	int err;

	if ((err = check_live(w)))
		return err;
	snprintf(id, sizeof(id), "%u", pid);
	begin(w, T_SYSTEM_PROCESS, ticks);
	jfr_buf_string(&w->tmp, id);
	jfr_buf_string(&w->tmp, command_line ? command_line : "");
	return commit(w);
}

int lfr_jfr_object_file(struct lfr_jfr_writer *w, uint64_t ticks, const char *name,
                        const char *path, const uint8_t *build_id, size_t build_id_len)
{
	char hex[2 * 64 + 1];
	int err;

	if ((err = check_live(w)))
		return err;
	if (build_id_len > 64)
		return fail(w, EINVAL, "build-id of %zu bytes", build_id_len);
	for (size_t i = 0; i < build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
	hex[2 * build_id_len] = '\0';
	begin(w, T_OBJECT_FILE, ticks);
	size_t off = w->tmp.len;
	jfr_buf_string(&w->tmp, name ? name : "");
	jfr_buf_string(&w->tmp, path ? path : "");
	jfr_buf_string(&w->tmp, hex);
	return commit_sticky(w, T_OBJECT_FILE, T_OBJECT_FILE, off);
}

int lfr_jfr_labels(struct lfr_jfr_writer *w, uint64_t ticks, uint32_t pid, const char *const *kv,
                   size_t n)
{
	int err;

	if ((err = check_live(w)))
		return err;
	for (size_t i = 0; i < 2 * n; i++)
		if (!kv[i] || !kv[i][0] || !jfr_utf8_valid(kv[i], strlen(kv[i])))
			return fail(w, EINVAL, "invalid label %s", i % 2 ? "value" : "name");
	if (pid)
		return jfr_labels_set(&w->labels, pid, kv, n) ? nomem(w, "keeping labels") : 0;
	sticky_drop(w, T_LABEL);
	for (size_t i = 0; i < n; i++) {
		begin(w, T_LABEL, ticks);
		size_t off = w->tmp.len;

		jfr_buf_varint(&w->tmp, 0);
		jfr_buf_string(&w->tmp, kv[2 * i]);
		jfr_buf_string(&w->tmp, kv[2 * i + 1]);
		if ((err = commit_sticky(w, T_LABEL, T_LABEL, off)))
			return err;
	}
	return 0;
}

/*
 * The lfr.Label events of the processes whose threads this segment's events name, for those
 * not told in this chunk yet (jfr/labels.h): appended to the events, without a flush.
 */
static int tell_labels(struct lfr_jfr_writer *w, uint64_t ticks)
{
	const struct keyvec *threads = &w->seg_refs[P_THREAD];

	if (!w->labels.n)
		return 0;
	for (size_t i = 0; i < threads->n; i++) {
		const struct pool_entry *e = pool_get(&w->pools[P_THREAD], threads->k[i]);
		uint32_t tgid;
		size_t n;

		memcpy(&tgid, e->blob + 4, 4);
		n = jfr_labels_tell(&w->labels, tgid, w->chunk_seq, ticks, &w->ev);
		w->seg_events += n;
		w->st.events += n;
	}
	return w->ev.oom ? nomem(w, "buffering labels") : 0;
}

/* Fills what the caller left out from /proc/cpuinfo and sysconf. */
static void cpu_defaults(struct lfr_jfr_cpu_info *ci, char *model, size_t msz)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	unsigned sockets_seen = 0, cores_per_socket = 0;
	long phys_max = -1;

	snprintf(model, msz, "unknown");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (!colon)
				continue;
			char *val = colon + 1 + (colon[1] == ' ');
			val[strcspn(val, "\n")] = 0;
			if (!strncmp(line, "model name", 10) && !sockets_seen++)
				snprintf(model, msz, "%s", val);
			else if (!strncmp(line, "physical id", 11) && atol(val) > phys_max)
				phys_max = atol(val);
			else if (!strncmp(line, "cpu cores", 9))
				cores_per_socket = (unsigned)atoi(val);
		}
		fclose(f);
	}
	long n = sysconf(_SC_NPROCESSORS_CONF);
	if (!ci->cpu)
		ci->cpu = model;
	if (!ci->description)
		ci->description = model;
	if (!ci->sockets)
		ci->sockets = phys_max >= 0 ? (uint32_t)phys_max + 1 : 1;
	if (!ci->hw_threads)
		ci->hw_threads = n > 0 ? (uint32_t)n : 1;
	if (!ci->cores)
		ci->cores = cores_per_socket ? cores_per_socket * ci->sockets : ci->hw_threads;
}

int lfr_jfr_cpu_information(struct lfr_jfr_writer *w, uint64_t ticks,
                            const struct lfr_jfr_cpu_info *info)
{
	struct lfr_jfr_cpu_info ci = {0};
	char model[256];
	int err;

	if ((err = check_live(w)))
		return err;
	if (info)
		ci = *info;
	cpu_defaults(&ci, model, sizeof(model));
	sticky_drop(w, T_CPU_INFORMATION);
	begin(w, T_CPU_INFORMATION, ticks);
	size_t off = w->tmp.len;
	jfr_buf_string(&w->tmp, ci.cpu);
	jfr_buf_string(&w->tmp, ci.description);
	jfr_buf_varint(&w->tmp, ci.sockets);
	jfr_buf_varint(&w->tmp, ci.cores);
	jfr_buf_varint(&w->tmp, ci.hw_threads);
	return commit_sticky(w, T_CPU_INFORMATION, T_CPU_INFORMATION, off);
}

/* One jdk.ActiveSetting of the sampler, repeated in every chunk with lfr.SamplerSettings. */
static int active_setting(struct lfr_jfr_writer *w, uint64_t ticks, uint16_t event,
                          const char *name, const char *value)
{
	begin(w, T_ACTIVE_SETTING, ticks);
	size_t off = w->tmp.len;
	jfr_buf_varint(&w->tmp, 0);     /* duration */
	jfr_buf_varint(&w->tmp, 0);     /* eventThread */
	jfr_buf_varint(&w->tmp, 0);     /* stackTrace */
	jfr_buf_varint(&w->tmp, event); /* id: the event type the setting belongs to */
	jfr_buf_string(&w->tmp, name);
	jfr_buf_string(&w->tmp, value);
	return commit_sticky(w, T_ACTIVE_SETTING, T_SAMPLER_SETTINGS, off);
}

/* A period as the JDK writes settings: "20 ms" for a period, "20ms" for a throttle. */
static void format_period(char *buf, size_t n, uint64_t ns, const char *sep)
{
	if (ns && ns % 1000000 == 0)
		snprintf(buf, n, "%llu%sms", (unsigned long long)(ns / 1000000), sep);
	else if (ns && ns % 1000 == 0)
		snprintf(buf, n, "%llu%sus", (unsigned long long)(ns / 1000), sep);
	else
		snprintf(buf, n, "%llu%sns", (unsigned long long)ns, sep);
}

int lfr_jfr_sampler_settings(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t period_ns,
                             uint32_t max_depth, bool kernel_stacks, const char *target)
{
	static const uint16_t types[] = {T_EXECUTION_SAMPLE, T_CPU_TIME_SAMPLE,
	                                 T_WALL_CLOCK_SAMPLE};
	static const unsigned bits[] = {LFR_JFR_SAMPLE_EXECUTION, LFR_JFR_SAMPLE_CPU_TIME,
	                                LFR_JFR_SAMPLE_WALL};
	char period[32], throttle[32], depth[16], ns[24];
	int err;

	if ((err = check_live(w)))
		return err;
	sticky_drop(w, T_SAMPLER_SETTINGS);
	begin(w, T_SAMPLER_SETTINGS, ticks);
	size_t off = w->tmp.len;
	jfr_buf_varint(&w->tmp, period_ns);
	jfr_buf_varint(&w->tmp, max_depth);
	jfr_buf_u8(&w->tmp, kernel_stacks);
	jfr_buf_string(&w->tmp, target);
	if ((err = commit_sticky(w, T_SAMPLER_SETTINGS, T_SAMPLER_SETTINGS, off)))
		return err;
	format_period(period, sizeof(period), period_ns, " ");
	format_period(throttle, sizeof(throttle), period_ns, "");
	snprintf(depth, sizeof(depth), "%u", max_depth);
	snprintf(ns, sizeof(ns), "%llu", (unsigned long long)period_ns);
	/*
	 * async-profiler's settings, as it writes them: the recording's "event" (Pyroscope labels
	 * the profiles with it; "wall" would make it take every jdk.ExecutionSample for a
	 * wall-clock sample too), the CPU and wall-clock periods in ns ("interval", "wall": its
	 * converter's OTLP profiles give them as their period).
	 */
	if ((err = active_setting(w, ticks, T_ACTIVE_RECORDING, "event", "cpu")))
		return err;
	for (unsigned i = 0; i < 3; i++) {
		uint16_t t = types[i];

		if (!(sample_events(w) & bits[i]))
			continue;
		if ((t != T_CPU_TIME_SAMPLE &&
		     (err = active_setting(w, ticks, t,
		                           t == T_WALL_CLOCK_SAMPLE ? "wall" : "interval", ns))) ||
		    (err = active_setting(w, ticks, t, "enabled", "true")) ||
		    (err =
		         active_setting(w, ticks, t, t == T_CPU_TIME_SAMPLE ? "throttle" : "period",
		                        t == T_CPU_TIME_SAMPLE ? throttle : period)) ||
		    (err = active_setting(w, ticks, t, "stackTrace", "true")) ||
		    (err = active_setting(w, ticks, t, "stackDepth", depth)) ||
		    (err = active_setting(w, ticks, t, "kernelStacks",
		                          kernel_stacks ? "true" : "false")) ||
		    (err = active_setting(w, ticks, t, "targets", target ? target : "")))
			return err;
	}
	return 0;
}

/* ---- flush, close ---- */

bool lfr_jfr_published(const struct lfr_jfr_writer *w)
{
	return w && w->published;
}

int lfr_jfr_flush(struct lfr_jfr_writer *w)
{
	uint64_t now = now_ticks(w);
	int err;

	if ((err = check_live(w)))
		return err;
	if (!w->seg_events)
		return io_u64(w, w->start + JFR_H_DURATION, chunk_duration(w, now),
		              "writing a chunk duration")
		           ?: repo_flushed(w, now);

	uint64_t used = w->filler - w->start;
	uint64_t approx = w->ev.len + FILLER_MIN + 64;
	bool too_old = w->opt.max_chunk_age_ns && now - w->chunk_born >= w->opt.max_chunk_age_ns;
	if (w->chunk_events && (too_old || used + approx > w->opt.max_chunk_bytes)) {
		if ((err = rotate(w, now)) || (err = sticky_restate(w)))
			return err;
	}
	if ((err = tell_labels(w, now)))
		return err;
	uint64_t ev_at = w->filler + FILLER_MIN;
	uint64_t cp_at = ev_at + w->pre.len + w->ev.len;
	if ((err = build_checkpoint(w, cp_at, w->last_cp, false, now)))
		return err;
	/* a chunk that would pass the size limit after a rotation anyway is grown as needed */
	uint64_t new_term = cp_at + w->cp.len;
	uint64_t new_filler = new_term + TERM_SIZE;
	uint64_t need = new_filler + FILLER_MIN;
	if (need > w->end) {
		uint64_t target = w->start + w->opt.max_chunk_bytes;

		if ((err = grow(w, need > target ? need + w->opt.max_chunk_bytes / 4 : target)))
			return err;
	}
	jfr_buf_reset(&w->seg);
	jfr_buf_put(&w->seg, w->pre.data, w->pre.len);
	jfr_buf_put(&w->seg, w->ev.data, w->ev.len);
	jfr_buf_put(&w->seg, w->cp.data, w->cp.len);
	put_term(&w->seg);
	put_filler(&w->seg, w->end - new_filler);
	if (w->seg.oom)
		return nomem(w, "assembling a flush");

	if (w->seg_max_ticks > w->chunk_max_ticks)
		w->chunk_max_ticks = w->seg_max_ticks;
	/*
	 * Written inside the current filler, then published step by step, each step leaving a file
	 * both readers accept: the new pools (through the header), the new events for the JDK (the
	 * filler shrinks), the new events for JMC (the old terminator retires), the duration.
	 */
	static const uint8_t retired = 1;
	if ((err = io_write(w, w->seg.data, w->seg.len, ev_at, "writing events")) ||
	    (err = io_u64(w, w->start + JFR_H_CP_OFFSET, cp_at - w->start,
	                  "publishing a checkpoint")) ||
	    (err = io_filler_size(w, w->filler, FILLER_MIN)) ||
	    (err = io_write(w, &retired, 1, w->term + 1, "retiring a terminator")) ||
	    (err = io_u64(w, w->start + JFR_H_DURATION, chunk_duration(w, now),
	                  "writing a chunk duration")))
		return err;
	if (w->opt.sync && fdatasync(w->fd) < 0)
		return fail_io(w, errno, "fdatasync", 0);

	w->term = new_term;
	w->filler = new_filler;
	w->last_cp = cp_at;
	w->chunk_events += w->seg_events + (w->pre.len ? w->nsticky : 0);
	w->seg_events = 0;
	w->seg_seq++;
	jfr_buf_reset(&w->ev);
	jfr_buf_reset(&w->pre);
	for (int p = 0; p < P_COUNT; p++)
		w->seg_refs[p].n = 0;
	w->st.flushes++;
	return publish(w) ?: repo_flushed(w, now);
}

static void free_writer(struct lfr_jfr_writer *w)
{
	for (int p = 0; p < P_COUNT; p++) {
		pool_free(&w->pools[p]);
		keyvec_free(&w->seg_refs[p]);
		keyvec_free(&w->emit[p]);
	}
	for (size_t i = 0; i < w->nlost; i++)
		free(w->lost[i].reason);
	free(w->lost);
	jfr_labels_free(&w->labels);
	for (size_t i = 0; i < w->nsticky; i++)
		jfr_buf_free(&w->sticky[i].body);
	free(w->sticky);
	jfr_buf_free(&w->pre);
	jfr_buf_free(&w->meta);
	jfr_buf_free(&w->ev);
	jfr_buf_free(&w->tmp);
	jfr_buf_free(&w->cp);
	jfr_buf_free(&w->seg);
	lfr_jfr_repo_close(&w->repo);
	lfr_outfile_abort(&w->out); /* published or abandoned by now: only closes it */
	free(w->path);
	free(w->tmp_path);
	free(w->chunk_path);
	free(w);
}

void lfr_jfr_abandon(struct lfr_jfr_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	unpublish(w);
	free_writer(w);
}

int lfr_jfr_close(struct lfr_jfr_writer *w, char *errbuf, size_t errlen)
{
	return lfr_jfr_close_repo_stats(w, NULL, errbuf, errlen);
}

int lfr_jfr_close_repo_stats(struct lfr_jfr_writer *w, struct lfr_jfr_stats *st, char *errbuf,
                             size_t errlen)
{
	int err;

	if (!w)
		return 0;
	err = lfr_jfr_flush(w);
	if (!err)
		err = end_chunk_file(w, now_ticks(w), true);
	if (!err)
		err = publish(w);
	if (err)
		unpublish(w);
	if (err && errlen)
		snprintf(errbuf, errlen, "%s", lfr_jfr_strerror(w));
	if (st) {
		st->repo_bytes = lfr_jfr_repo_bytes(&w->repo);
		st->repo_chunks = w->repo.n;
		st->evicted = w->repo.evicted;
	}
	free_writer(w);
	return err;
}

void lfr_jfr_get_stats(const struct lfr_jfr_writer *w, struct lfr_jfr_stats *st)
{
	*st = w->st;
	st->bytes = w->filler;
	st->symbols = w->pools[P_SYMBOL].n;
	st->classes = w->pools[P_CLASS].n;
	st->methods = w->pools[P_METHOD].n;
	st->stack_traces = w->pools[P_STACK].n;
	st->threads = w->pools[P_THREAD].n;
	st->repo_bytes = lfr_jfr_repo_bytes(&w->repo);
	st->repo_chunks = w->repo.n;
	st->evicted = w->repo.evicted;
}

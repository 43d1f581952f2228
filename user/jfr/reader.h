/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A generic reader for Java Flight Recorder files (format 2.x, as written by JDK 11..25,
 * async-profiler and lfr).  It maps the whole file, walks the chunks one by one and, for each
 * chunk, parses the header, the metadata event (the type system) and the constant pools (by
 * following the checkpoint chain), without materializing events: callers iterate the events of a
 * chunk and decode only the fields they need with the cursor helpers below.
 *
 * Malformed input never crashes the reader and never makes it loop without consuming bytes: every
 * read is bounds-checked, recursion is depth-limited, every count is checked against the bytes
 * left.  The first error is kept in jfr_reader.err as "FILE: offset N: what" (N is the absolute
 * file offset).
 */
#ifndef LFR_JFR_READER_H
#define LFR_JFR_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hashtab.h"

#define JFR_CHUNK_HEADER_SIZE 68
/* The chunk header's fields, big-endian, at these offsets: read by jfr_chunk_header() alone, and
 * written by the writer, rebasing and the repository's dump. */
#define JFR_H_MAJOR 4
#define JFR_H_MINOR 6
#define JFR_H_SIZE 8
#define JFR_H_CP_OFFSET 16
#define JFR_H_META_OFFSET 24
#define JFR_H_START_NANOS 32
#define JFR_H_DURATION 40
#define JFR_H_START_TICKS 48
#define JFR_H_TPS 56
#define JFR_H_STATE 64
#define JFR_H_FLAGS 66
#define JFR_EVENT_METADATA 0
#define JFR_EVENT_CHECKPOINT 1

enum jfr_kind {
	JFR_K_COMPLEX, /* a class with fields (or a field-less class nobody stores inline) */
	JFR_K_BOOLEAN,
	JFR_K_BYTE,
	JFR_K_CHAR,
	JFR_K_SHORT,
	JFR_K_INT,
	JFR_K_LONG,
	JFR_K_FLOAT,
	JFR_K_DOUBLE,
	JFR_K_STRING,
};

struct jfr_type;

struct jfr_field {
	const char *name;
	uint64_t type_id;
	struct jfr_type *type;
	bool cp;    /* stored as a constant-pool key */
	bool array; /* dimension 1: a varint count, then the elements */
};

struct jfr_type {
	uint64_t id;
	const char *name;
	const char *super; /* superType, or NULL */
	bool simple;       /* simpleType="true" */
	bool zero_size;    /* an inline value of this type takes no bytes */
	enum jfr_kind kind;
	uint32_t name_idx; /* index of the name in jfr_reader's type-name table */
	/*
	 * The fields whose values take bytes: a field of a type of zero size (neither an array nor
	 * a constant-pool key) reads nothing and names nothing, and is left out, so that a value is
	 * never read in more steps than it has bytes (the checker's "startTime first" is so too).
	 */
	int nfields;
	struct jfr_field *fields;
};

/* Whether a value of field f is one varint: a constant-pool key, a char, short, int or long. */
static inline bool jfr_field_is_varint(const struct jfr_field *f)
{
	enum jfr_kind k = f->type ? f->type->kind : JFR_K_COMPLEX;

	return !f->array && (f->cp || (k >= JFR_K_CHAR && k <= JFR_K_LONG));
}

/* One chunk's type system; chunks that repeat the previous metadata id share it. */
struct jfr_meta {
	uint64_t id;
	const uint8_t *raw; /* the metadata event from its id to its end, to recognize a repeat */
	uint64_t raw_len;
	int ntypes;
	struct jfr_type *types; /* sorted by id */
	struct jfr_type *string_type;
};

struct jfr_chunk {
	uint64_t off;  /* absolute offset of the chunk in the file */
	uint64_t size; /* chunkSize */
	uint16_t major, minor;
	int64_t cp_off, meta_off;
	int64_t start_nanos, duration_nanos, start_ticks, ticks_per_second;
	uint8_t state;
	uint16_t flags;
	const struct jfr_meta *meta;
	struct hashtab
	    pool; /* constant-pool index: (type id, key) -> absolute offset of the value */
	uint64_t ncheckpoints;
};

struct jfr_arena_block;
struct jfr_meta_cache;

/*
 * Optional hooks of a strict reading (the checker, check.c), set in jfr_reader.hooks before the
 * first chunk is loaded; lfr report leaves them NULL and pays one test per pool entry.  A hook
 * returning nonzero has recorded its error with jfr_fail(), and jfr_chunk_load() fails.
 */
struct jfr_hooks {
	/*
	 * Also reject the metadata JMC rejects: an element outside its tree (root > metadata >
	 * class > field|setting|annotation, root > region), no region element (the JDK requires
	 * it), bytes left after the root element, constantPool or dimension other than "true", "1".
	 */
	bool strict_metadata;
	/* Each pool of each checkpoint on the chain, at off (its first entry), before its entries.
	 */
	int (*pool)(void *arg, const struct jfr_chunk *ch, uint64_t off, const struct jfr_type *t,
	            uint64_t count);
	/* Each pool entry, its value [voff, vend) parsed as type t (the pool index is still
	 * partial). */
	int (*entry)(void *arg, const struct jfr_chunk *ch, const struct jfr_type *t, uint64_t key,
	             uint64_t voff, uint64_t vend);
	void *arg;
};

struct jfr_reader {
	const char *name; /* for error messages */
	const uint8_t *data;
	uint64_t size;
	uint8_t *owned; /* the file's bytes, read at open (freed by jfr_close) */
	int fd;
	char err[512];
	bool failed;
	struct jfr_arena_block *arena;
	/* every type name seen in any chunk, so that per-type counts can be kept across chunks */
	const char **type_names;
	uint32_t ntype_names, type_names_cap;
	struct hashtab type_name_index; /* byte keys: the names -> their index */
	/* the metadata of the previous chunk, reused when the next chunk has the same metadata id
	 */
	struct jfr_meta *last_meta;
	struct jfr_meta **metas;
	size_t nmetas, metas_cap;
	const struct jfr_hooks *hooks; /* NULL but for strict readings */
	/* parsed metadata shared with the other readers of its owner (see below); NULL: none */
	struct jfr_meta_cache *meta_cache;
};

/*
 * A cache of parsed metadata, for a caller that reads many chunks of one recorder (the exports):
 * each chunk repeats the same metadata event, parsed once per cache instead of once per reader.
 * Set jfr_reader.meta_cache after opening, before the first chunk is loaded.  An entry is found by
 * the metadata's id and bytes (a hash, then the bytes compared in full) and by the reading's
 * strictness; it owns its memory (a copy of the bytes, its own arena), and is used by one open
 * reader at a time (the type-name indices are that reader's), which holds it until jfr_close().
 * At most a few entries and a byte cap, the least recently used unheld one evicted.  Not
 * thread-safe: one cache per thread; it must outlive the readers that use it.
 */
struct jfr_meta_cache *jfr_meta_cache_new(void);
void jfr_meta_cache_free(struct jfr_meta_cache *c);
/* The metadata events parsed for the cache, the ones found in it, its entries (for tests). */
struct jfr_meta_cache_stats {
	uint64_t parses, hits;
	unsigned entries;
	size_t bytes;
};
void jfr_meta_cache_stats(const struct jfr_meta_cache *c, struct jfr_meta_cache_stats *st);

/* A bounds-checked cursor over part of the file.  Errors are sticky: after the first one every read
 * returns 0 and the cursor stays at its end, so loops terminate. */
struct jfr_cur {
	const uint8_t *p, *end;
	struct jfr_reader *r;
	bool bad;
};

/*
 * Opening: the file's bytes as of open are read into memory (a file cut meanwhile is an error,
 * never a signal).  Returns NULL with a message in err on failure.
 */
struct jfr_reader *jfr_open_file(const char *path, char *err, size_t errlen);
/* The same for an open fd whose size was size (taken over on success, not closed on failure). */
struct jfr_reader *jfr_open_fd(int fd, uint64_t size, const char *path, char *err, size_t errlen);
/* Reads from a caller-owned buffer (the fuzzer, tests). */
struct jfr_reader *jfr_open_mem(const void *data, size_t size, const char *name);
void jfr_close(struct jfr_reader *r);

/* Records the first error (printf-style message) at absolute file offset off; returns -1. */
int jfr_fail(struct jfr_reader *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int jfr_cur_fail(struct jfr_cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Chunks: jfr_chunk_load() parses the chunk header at absolute offset off, its metadata and its
 * constant pools.  Returns 0, or -1 with r->err set.  jfr_chunk_release() frees the pool index.
 * The next chunk starts at ch->off + ch->size; a file ends exactly after its last chunk.
 */
int jfr_chunk_load(struct jfr_reader *r, uint64_t off, struct jfr_chunk *ch);
/*
 * Parses and validates only the 68-byte chunk header at h, the first of the `left` bytes from the
 * chunk to the end of the file: magic, version, chunk size within those bytes, metadata and
 * constant-pool offsets inside the chunk, ticks per second > 0.  Sets ch's header fields (not
 * ch->off).  Returns 0, or -1 with a message in why (n bytes) and the offset from h of the field at
 * fault in *at.  jfr_chunk_load() starts with it; repair uses it on headers read from a file.
 */
int jfr_chunk_header(struct jfr_chunk *ch, const uint8_t *h, uint64_t left, char *why, size_t n,
                     unsigned *at);
void jfr_chunk_release(struct jfr_chunk *ch);

/*
 * Walks every event of a loaded chunk as a reader that copies it must: each event's size inside
 * the chunk and non-zero (a zeroed block reads as size 0, on which the JDK's reader spins), and
 * each event of a declared type parsed field by field within its size.  Returns 0, or -1 with
 * r->err set.  lfr dump and lfr merge leave out the chunks it rejects (jfr/verify.c).
 */
int jfr_chunk_verify(struct jfr_reader *r, const struct jfr_chunk *ch);

/* Looks up a type of the chunk's metadata by id or by name (NULL when absent). */
const struct jfr_type *jfr_type_by_id(const struct jfr_meta *m, uint64_t id);
const struct jfr_type *jfr_type_by_name(const struct jfr_meta *m, const char *name);
int jfr_field_index(const struct jfr_type *t, const char *name);

/* The absolute offset of a constant-pool value, or 0 when the key is not in the chunk's pools. */
uint64_t jfr_pool_lookup(const struct jfr_chunk *ch, uint64_t type_id, uint64_t key);

/* Event iteration inside a chunk.  jfr_event_next() stops at the chunk end (returns 0) or on a
 * malformed event header (-1); on 1, *type is the event type id and ev covers the event's fields.
 */
struct jfr_event_iter {
	struct jfr_reader *r;
	const uint8_t *p, *end;
};
void jfr_event_iter_init(struct jfr_event_iter *it, struct jfr_reader *r,
                         const struct jfr_chunk *ch);
int jfr_event_next(struct jfr_event_iter *it, uint64_t *type, uint64_t *size, struct jfr_cur *ev);

/* Value decoding. */
static inline void jfr_cur_init(struct jfr_cur *c, struct jfr_reader *r, uint64_t off, uint64_t end)
{
	c->r = r;
	c->p = r->data + (off < r->size ? off : r->size);
	c->end = r->data + (end < r->size ? end : r->size);
	c->bad = c->p > c->end;
	if (c->bad)
		c->p = c->end;
}

static inline uint64_t jfr_cur_off(const struct jfr_cur *c)
{
	return (uint64_t)(c->p - c->r->data);
}

static inline uint64_t jfr_varint(struct jfr_cur *c)
{
	const uint8_t *p = c->p;
	uint64_t v = 0;

	/* fast path: the whole (at most 9-byte) varint is in bounds */
	if (c->end - p >= 9) {
		for (int i = 0; i < 8; i++) {
			uint8_t b = p[i];
			v |= (uint64_t)(b & 0x7f) << (7 * i);
			if (!(b & 0x80)) {
				c->p = p + i + 1;
				return v;
			}
		}
		c->p = p + 9;
		return v | (uint64_t)p[8] << 56;
	}
	for (int i = 0; i < 9; i++) {
		if (p + i >= c->end) {
			jfr_cur_fail(c, "truncated varint");
			return 0;
		}
		uint8_t b = p[i];
		if (i == 8) {
			c->p = p + 9;
			return v | (uint64_t)b << 56;
		}
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			c->p = p + i + 1;
			return v;
		}
	}
	return v; /* not reached */
}

static inline uint8_t jfr_u8(struct jfr_cur *c)
{
	if (c->p >= c->end) {
		jfr_cur_fail(c, "truncated value");
		return 0;
	}
	return *c->p++;
}

/* Skips one value of field f (array, constant-pool key or inline value). */
void jfr_skip_field(struct jfr_cur *c, const struct jfr_field *f);
/* Skips one inline value of type t. */
void jfr_skip_value(struct jfr_cur *c, const struct jfr_type *t, int depth);
/*
 * A constant-pool reference met by jfr_visit_value(): key (never 0, the null reference) of the pool
 * of type_id, read at absolute offset off.  Nonzero stops the walk (the callback records why).
 */
typedef int jfr_ref_fn(void *arg, uint64_t type_id, uint64_t key, uint64_t off);
/*
 * Skips one inline value of type t as jfr_skip_value() does, calling ref for every constant-pool
 * reference in it (constantPool fields, strings of encoding 2).  For the checker; jfr_skip_value()
 * stays the fast path.
 */
void jfr_visit_value(struct jfr_cur *c, const struct jfr_type *t, int depth, jfr_ref_fn *ref,
                     void *arg);
/* Reads an integer-like value of field f (booleans, integers, cp keys, float bits); skips others
 * and returns 0 for them. */
uint64_t jfr_read_scalar(struct jfr_cur *c, const struct jfr_field *f);
/*
 * Reads a string at the cursor (any of the five encodings; encoding 2 is resolved through the
 * chunk's java.lang.String pool).  Writes at most n-1 bytes and a NUL to buf (UTF-8); returns the
 * length written, or -1 for a null string.
 */
int jfr_read_string(struct jfr_cur *c, const struct jfr_chunk *ch, char *buf, size_t n);

/*
 * Positions a cursor on field `name` of an inline value of type t that starts at absolute offset
 * off. Returns the field (and the cursor at its value) or NULL when t has no such field or the
 * value is malformed.
 */
const struct jfr_field *jfr_value_field(struct jfr_reader *r, const struct jfr_chunk *ch,
                                        const struct jfr_type *t, uint64_t off, const char *name,
                                        struct jfr_cur *c);

/*
 * Follows a field value to the value it denotes: for a constant-pool field reads the key and
 * positions c on the pool value (returns false when the key is 0 or missing); for an inline field
 * leaves c where it is.  The value's type is f->type.
 */
bool jfr_deref(struct jfr_cur *c, const struct jfr_chunk *ch, const struct jfr_field *f);

/* Inline: a report converts the time of every event it keeps. */
static inline int64_t jfr_clamp128(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* Converts chunk ticks to nanoseconds since the epoch. */
static inline int64_t jfr_ticks_to_nanos(const struct jfr_chunk *ch, int64_t ticks)
{
	__int128 d = (__int128)ticks - ch->start_ticks;

	/* lfr's own ticks are ns: no 128-bit division (a library call) per event */
	if (ch->ticks_per_second != 1000000000)
		d = d * 1000000000 / ch->ticks_per_second;
	return jfr_clamp128(ch->start_nanos + d);
}

static inline int64_t jfr_nanos_to_ticks(const struct jfr_chunk *ch, int64_t nanos)
{
	__int128 d = (__int128)nanos - ch->start_nanos;

	if (ch->ticks_per_second != 1000000000)
		d = d * ch->ticks_per_second / 1000000000;
	return jfr_clamp128(ch->start_ticks + d);
}

/* a + b and a - b saturated to the int64_t range (header fields come from untrusted input) */
static inline int64_t jfr_sat_add(int64_t a, int64_t b)
{
	return jfr_clamp128((__int128)a + b);
}

static inline int64_t jfr_sat_sub(int64_t a, int64_t b)
{
	return jfr_clamp128((__int128)a - b);
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The reader on small hand-built chunks: the constant-pool chain (backwards, as written; one that
 * points forward, loops, overlaps or leaves the chunk is refused with its reason, the deltas at
 * the ends of their range without overflow), fields of a type that takes no bytes left out, type
 * names interned once across chunks; the metadata cache (one parse for the same bytes, never
 * shared otherwise nor with an open reader, the oldest evicted, strictness kept); strings outside
 * the BMP (surrogate pairs of a char array and of a JVM's modified UTF-8 decoded into one
 * character, a lone half into U+FFFD), and JSON strings that stay UTF-8 whatever bytes the names
 * hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jfr/encode.h"
#include "jfr/reader.h"
#include "report/report.h"

enum { T_LONG = 20, T_STRING = 21, T_THING = 22, T_EVENT = 23, T_EMPTY = 24 };

static const char *const strs[] = {
    "root", "metadata", "region",    "class",      "field",        "id",
    "name", "class",    "20",        "long",       "21",           "java.lang.String",
    "22",   "Thing",    "23",        "test.Event", "superType",    "jdk.jfr.Event",
    "24",   "Empty",    "startTime", "nothing",    "constantPool", "true",
    "thing"};
enum {
	S_ROOT,
	S_METADATA,
	S_REGION,
	S_CLASS,
	S_FIELD,
	S_ID,
	S_NAME,
	S_FCLASS,
	S_20,
	S_LONG,
	S_21,
	S_STRING,
	S_22,
	S_THING,
	S_23,
	S_EVENT,
	S_SUPER,
	S_JDK_EVENT,
	S_24,
	S_EMPTY,
	S_START,
	S_NOTHING,
	S_CP,
	S_TRUE,
	S_THINGF,
};

static void element(struct jfr_buf *b, unsigned name, unsigned nattr, const unsigned *kv,
                    unsigned nchildren)
{
	jfr_buf_varint(b, name);
	jfr_buf_varint(b, nattr);
	for (unsigned i = 0; i < 2 * nattr; i++)
		jfr_buf_varint(b, kv[i]);
	jfr_buf_varint(b, nchildren);
}

static size_t begin_event(struct jfr_buf *b, uint64_t type)
{
	size_t at = jfr_buf_varint_padded(b, 0, 5);

	jfr_buf_varint(b, type);
	return at;
}

static void end_event(struct jfr_buf *b, size_t at)
{
	jfr_patch_varint(b, at, b->len - at, 5);
}

/* Metadata: long, String, Thing {name}, Empty {}, test.Event {startTime, NZERO x nothing: Empty,
 * thing: Thing (cp)}; id tells chunks' metadata apart. */
static void metadata(struct jfr_buf *b, unsigned nzero, uint64_t id)
{
	size_t at = begin_event(b, 0);

	jfr_buf_varint(b, 0);
	jfr_buf_varint(b, 0);
	jfr_buf_varint(b, id);
	jfr_buf_varint(b, sizeof(strs) / sizeof(strs[0]));
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		jfr_buf_string(b, strs[i]);
	element(b, S_ROOT, 0, NULL, 2);
	element(b, S_METADATA, 0, NULL, 5);
	element(b, S_CLASS, 2, (const unsigned[]){S_ID, S_20, S_NAME, S_LONG}, 0);
	element(b, S_CLASS, 2, (const unsigned[]){S_ID, S_21, S_NAME, S_STRING}, 0);
	element(b, S_CLASS, 2, (const unsigned[]){S_ID, S_22, S_NAME, S_THING}, 1);
	element(b, S_FIELD, 2, (const unsigned[]){S_NAME, S_NAME, S_FCLASS, S_21}, 0);
	element(b, S_CLASS, 2, (const unsigned[]){S_ID, S_24, S_NAME, S_EMPTY}, 0);
	element(b, S_CLASS, 3,
	        (const unsigned[]){S_ID, S_23, S_NAME, S_EVENT, S_SUPER, S_JDK_EVENT}, 2 + nzero);
	element(b, S_FIELD, 2, (const unsigned[]){S_NAME, S_START, S_FCLASS, S_20}, 0);
	for (unsigned i = 0; i < nzero; i++)
		element(b, S_FIELD, 2, (const unsigned[]){S_NAME, S_NOTHING, S_FCLASS, S_24}, 0);
	element(b, S_FIELD, 3, (const unsigned[]){S_NAME, S_THINGF, S_FCLASS, S_22, S_CP, S_TRUE},
	        0);
	element(b, S_REGION, 0, NULL, 0);
	end_event(b, at);
}

/* A checkpoint of one Thing pool entry (key, name) whose delta is delta; its offset in b. */
static size_t checkpoint(struct jfr_buf *b, int64_t delta, uint64_t key, const char *name)
{
	size_t at = begin_event(b, 1);

	jfr_buf_varint(b, 0);
	jfr_buf_varint(b, 0);
	jfr_buf_varint_padded(b, (uint64_t)delta, 9); /* patched by the tests */
	jfr_buf_u8(b, 0);
	jfr_buf_varint(b, 1);
	jfr_buf_varint(b, T_THING);
	jfr_buf_varint(b, 1);
	jfr_buf_varint(b, key);
	jfr_buf_string(b, name);
	end_event(b, at);
	return at;
}

/* The offset of the delta of the checkpoint at at (see checkpoint()). */
static size_t delta_at(size_t at)
{
	return at + 5 + 1 + 1 + 1;
}

struct chunk {
	struct jfr_buf b;
	size_t cp0, cp1, event; /* offsets in the chunk */
};

/*
 * [header][cp0: delta 0, key 1][event: startTime, thing 2][cp1: back to cp0, key 2][metadata]; the
 * header's constant-pool offset is cp1.
 */
static void build(struct chunk *c, unsigned nzero, uint64_t meta_id)
{
	struct jfr_buf *b = &c->b;
	uint8_t h[68] = {'F', 'L', 'R', 0, 0, 2, 0, 1};

	memset(c, 0, sizeof(*c));
	jfr_put_be64(h + 56, 1000000000);
	jfr_put_be16(h + 66, 2);
	jfr_buf_put(b, h, sizeof(h));
	c->cp0 = checkpoint(b, 0, 1, "one");
	c->event = begin_event(b, T_EVENT);
	jfr_buf_varint(b, 100);
	jfr_buf_varint(b, 2);
	end_event(b, c->event);
	c->cp1 = checkpoint(b, 0, 2, "two");
	jfr_patch_varint(b, delta_at(c->cp1), (uint64_t)((int64_t)c->cp0 - (int64_t)c->cp1), 9);
	size_t meta = b->len;
	metadata(b, nzero, meta_id);
	assert_false(b->oom);
	jfr_put_be64(b->data + 8, b->len);
	jfr_put_be64(b->data + 16, c->cp1);
	jfr_put_be64(b->data + 24, meta);
}

/* Loads the one chunk of c: 0, or -1 with the reader's error in err. */
static int load(struct chunk *c, char *err, size_t n)
{
	struct jfr_reader *r = jfr_open_mem(c->b.data, c->b.len, "test");
	struct jfr_chunk ch;
	int rc;

	assert_non_null(r);
	rc = jfr_chunk_load(r, 0, &ch);
	snprintf(err, n, "%s", r->err);
	if (!rc) {
		assert_int_equal(ch.ncheckpoints, 2);
		assert_true(jfr_pool_lookup(&ch, T_THING, 1));
		assert_true(jfr_pool_lookup(&ch, T_THING, 2));
		jfr_chunk_release(&ch);
	}
	jfr_close(r);
	return rc;
}

static void expect_refused(struct chunk *c, const char *why)
{
	char err[512];

	if (!load(c, err, sizeof(err)))
		fail_msg("loaded, expected \"%s\"", why);
	if (!strstr(err, why))
		fail_msg("refused with \"%s\", expected \"%s\"", err, why);
	jfr_buf_free(&c->b);
}

static void chain_backwards_loads(void **state)
{
	struct chunk c;
	char err[512];

	(void)state;
	build(&c, 0, 1);
	if (load(&c, err, sizeof(err)))
		fail_msg("%s", err);
	jfr_buf_free(&c.b);
}

/* cp0 points forward at cp1, which points back at it: the chain loops. */
static void chain_forward_refused(void **state)
{
	struct chunk c;

	(void)state;
	build(&c, 0, 1);
	jfr_patch_varint(&c.b, delta_at(c.cp0), c.cp1 - c.cp0, 9);
	expect_refused(&c, "constant-pool chain points forward");
}

/* A delta that would leave the chunk before its events. */
static void chain_outside_refused(void **state)
{
	struct chunk c;

	(void)state;
	build(&c, 0, 1);
	jfr_patch_varint(&c.b, delta_at(c.cp1), 0 - (uint64_t)c.cp1, 9);
	expect_refused(&c, "points before the chunk's events");
}

/* The deltas at the ends of their range: offset + INT64_MAX overflowed, -INT64_MIN would. */
static void chain_delta_extremes_refused(void **state)
{
	struct chunk c;

	(void)state;
	build(&c, 0, 1);
	jfr_patch_varint(&c.b, delta_at(c.cp1), (uint64_t)INT64_MAX, 9);
	expect_refused(&c, "constant-pool chain points forward");
	build(&c, 0, 1);
	jfr_patch_varint(&c.b, delta_at(c.cp1), (uint64_t)INT64_MIN, 9);
	expect_refused(&c, "points before the chunk's events");
}

/*
 * cp1 points back into the middle of cp0 at a checkpoint of its own (the name of cp0's entry
 * holds one): read once as a string, it must not be read again as a checkpoint, and the chain
 * after it cannot end before what points at it.
 */
static void chain_overlap_refused(void **state)
{
	struct chunk c;
	struct jfr_buf inner = {0};
	size_t inner_at;

	(void)state;
	checkpoint(&inner, 0, 3, "three");
	build(&c, 0, 1);
	/* from cp0 on again: cp0's entry's name the inner checkpoint's bytes */
	struct jfr_buf *b = &c.b;
	b->len = c.cp0;
	size_t at = begin_event(b, 1);
	jfr_buf_varint(b, 0);
	jfr_buf_varint(b, 0);
	jfr_buf_varint_padded(b, 0, 9);
	jfr_buf_u8(b, 0);
	jfr_buf_varint(b, 1);
	jfr_buf_varint(b, T_THING);
	jfr_buf_varint(b, 1);
	jfr_buf_varint(b, 1);
	jfr_buf_u8(b, 3);
	jfr_buf_varint(b, inner.len);
	inner_at = b->len;
	jfr_buf_put(b, inner.data, inner.len);
	end_event(b, at);
	jfr_buf_free(&inner);
	/* the rest again after the longer cp0: the event, cp1 back at the inner checkpoint */
	c.event = begin_event(b, T_EVENT);
	jfr_buf_varint(b, 100);
	jfr_buf_varint(b, 2);
	end_event(b, c.event);
	c.cp1 = checkpoint(b, 0, 2, "two");
	jfr_patch_varint(b, delta_at(c.cp1), (uint64_t)((int64_t)inner_at - (int64_t)c.cp1), 9);
	/* the inner one's delta back at cp0, which contains it */
	jfr_patch_varint(b, delta_at(inner_at), (uint64_t)((int64_t)c.cp0 - (int64_t)inner_at), 9);
	size_t meta = b->len;
	metadata(b, 0, 1);
	jfr_put_be64(b->data + 8, b->len);
	jfr_put_be64(b->data + 16, c.cp1);
	jfr_put_be64(b->data + 24, meta);
	expect_refused(&c, "does not fit before the checkpoint that points at it");
}

/* Fields of a type that takes no bytes are left out; the event reads the same. */
static void zero_size_fields_left_out(void **state)
{
	struct chunk c;
	struct jfr_chunk ch;

	(void)state;
	build(&c, 1000, 1);
	struct jfr_reader *r = jfr_open_mem(c.b.data, c.b.len, "test");
	assert_non_null(r);
	if (jfr_chunk_load(r, 0, &ch))
		fail_msg("%s", r->err);
	const struct jfr_type *t = jfr_type_by_name(ch.meta, "test.Event");
	assert_non_null(t);
	assert_int_equal(t->nfields, 2);
	assert_string_equal(t->fields[0].name, "startTime");
	assert_string_equal(t->fields[1].name, "thing");
	assert_true(jfr_type_by_name(ch.meta, "Empty")->zero_size);

	struct jfr_cur cur;
	const struct jfr_field *f = jfr_value_field(r, &ch, t, c.event + 5 + 1, "thing", &cur);
	assert_non_null(f);
	assert_int_equal(jfr_read_scalar(&cur, f), 2);
	assert_int_equal(jfr_chunk_verify(r, &ch), 0);
	jfr_chunk_release(&ch);
	jfr_close(r);
	jfr_buf_free(&c.b);
}

/* Two chunks of different metadata ids: each type name has one index, the same in both. */
static void type_names_interned_once(void **state)
{
	struct chunk a, b;
	struct jfr_chunk ca, cb;

	(void)state;
	build(&a, 0, 1);
	build(&b, 0, 2);
	jfr_put_be16(a.b.data + 66, 0);
	jfr_buf_put(&a.b, b.b.data, b.b.len);
	struct jfr_reader *r = jfr_open_mem(a.b.data, a.b.len, "test");
	assert_non_null(r);
	assert_int_equal(jfr_chunk_load(r, 0, &ca), 0);
	assert_int_equal(jfr_chunk_load(r, ca.size, &cb), 0);
	assert_ptr_not_equal(ca.meta, cb.meta);
	assert_int_equal(r->ntype_names, 5);
	for (const char *const *n = (const char *const[]){"long", "java.lang.String", "Thing",
	                                                  "test.Event", "Empty", NULL};
	     *n; n++) {
		const struct jfr_type *x = jfr_type_by_name(ca.meta, *n),
		                      *y = jfr_type_by_name(cb.meta, *n);

		assert_int_equal(x->name_idx, y->name_idx);
		assert_string_equal(r->type_names[x->name_idx], *n);
	}
	jfr_chunk_release(&ca);
	jfr_chunk_release(&cb);
	jfr_close(r);
	jfr_buf_free(&a.b);
	jfr_buf_free(&b.b);
}

/* ---- the metadata cache ---- */

/* Loads the one chunk of c through cache (strict: as the checker does): its metadata, or NULL with
 * the reader's error in err.  The reader is closed, so that the cache's entry is free again. */
static const struct jfr_meta *load_cached(struct chunk *c, struct jfr_meta_cache *cache,
                                          bool strict, char *err, size_t n)
{
	static const struct jfr_hooks strict_hooks = {.strict_metadata = true};
	struct jfr_reader *r = jfr_open_mem(c->b.data, c->b.len, "test");
	const struct jfr_meta *m = NULL;
	struct jfr_chunk ch;

	assert_non_null(r);
	r->meta_cache = cache;
	r->hooks = strict ? &strict_hooks : NULL;
	if (!jfr_chunk_load(r, 0, &ch)) {
		m = ch.meta;
		/* the name indices are this reader's, whoever parsed the metadata */
		assert_int_equal(r->ntype_names, 5);
		for (int i = 0; i < m->ntypes; i++)
			assert_string_equal(r->type_names[m->types[i].name_idx], m->types[i].name);
		assert_int_equal(jfr_chunk_verify(r, &ch), 0);
		jfr_chunk_release(&ch);
	}
	snprintf(err, n, "%s", r->err);
	jfr_close(r);
	return m;
}

static void expect_cache(struct jfr_meta_cache *cache, uint64_t parses, uint64_t hits)
{
	struct jfr_meta_cache_stats st;

	jfr_meta_cache_stats(cache, &st);
	assert_int_equal(st.parses, parses);
	assert_int_equal(st.hits, hits);
}

/* Two files of the same metadata: one parse, one metadata; other bytes or ids: never shared. */
static void meta_cache_shares_same_bytes_only(void **state)
{
	struct jfr_meta_cache *cache = jfr_meta_cache_new();
	struct chunk a, b, other_bytes, other_id;
	char err[512];

	(void)state;
	assert_non_null(cache);
	build(&a, 0, 1);
	build(&b, 0, 1);
	build(&other_bytes, 1, 1); /* the same id, another field */
	build(&other_id, 0, 2);
	const struct jfr_meta *ma = load_cached(&a, cache, false, err, sizeof(err));
	assert_non_null(ma);
	assert_ptr_equal(load_cached(&b, cache, false, err, sizeof(err)), ma);
	expect_cache(cache, 1, 1);
	const struct jfr_meta *mo = load_cached(&other_bytes, cache, false, err, sizeof(err));
	assert_non_null(mo);
	assert_ptr_not_equal(mo, ma);
	assert_int_equal(jfr_type_by_name(mo, "test.Event")->nfields, 2);
	const struct jfr_meta *mi = load_cached(&other_id, cache, false, err, sizeof(err));
	assert_non_null(mi);
	assert_ptr_not_equal(mi, ma);
	assert_ptr_not_equal(mi, mo);
	expect_cache(cache, 3, 1);
	assert_ptr_equal(load_cached(&b, cache, false, err, sizeof(err)), ma);
	expect_cache(cache, 3, 2);
	jfr_meta_cache_free(cache);
	jfr_buf_free(&a.b);
	jfr_buf_free(&b.b);
	jfr_buf_free(&other_bytes.b);
	jfr_buf_free(&other_id.b);
}

/* An entry an open reader uses is not another's: the second reader parses its own. */
static void meta_cache_held_entry_not_shared(void **state)
{
	struct jfr_meta_cache *cache = jfr_meta_cache_new();
	struct chunk a;
	struct jfr_chunk c1, c2;

	(void)state;
	build(&a, 0, 1);
	struct jfr_reader *r1 = jfr_open_mem(a.b.data, a.b.len, "one"),
	                  *r2 = jfr_open_mem(a.b.data, a.b.len, "two");
	r1->meta_cache = r2->meta_cache = cache;
	assert_int_equal(jfr_chunk_load(r1, 0, &c1), 0);
	assert_int_equal(jfr_chunk_load(r2, 0, &c2), 0);
	assert_ptr_not_equal(c1.meta, c2.meta);
	expect_cache(cache, 2, 0);
	jfr_chunk_release(&c1);
	jfr_chunk_release(&c2);
	jfr_close(r2);
	jfr_close(r1);
	jfr_meta_cache_free(cache);
	jfr_buf_free(&a.b);
}

/* More metadata than the cache holds: the least recently used is parsed again. */
static void meta_cache_evicts_oldest(void **state)
{
	struct jfr_meta_cache *cache = jfr_meta_cache_new();
	struct jfr_meta_cache_stats st;
	struct chunk c[12];
	char err[512];

	(void)state;
	for (int i = 0; i < 12; i++) {
		build(&c[i], 0, 100 + i);
		assert_non_null(load_cached(&c[i], cache, false, err, sizeof(err)));
	}
	jfr_meta_cache_stats(cache, &st);
	assert_int_equal(st.parses, 12);
	assert_true(st.entries > 0 && st.entries < 12);
	assert_true(st.bytes > 0 && st.bytes <= 4u << 20);
	assert_non_null(load_cached(&c[11], cache, false, err, sizeof(err))); /* the newest: kept */
	expect_cache(cache, 12, 1);
	assert_non_null(load_cached(&c[0], cache, false, err, sizeof(err))); /* the oldest: gone */
	expect_cache(cache, 13, 1);
	jfr_meta_cache_free(cache);
	for (int i = 0; i < 12; i++)
		jfr_buf_free(&c[i].b);
}

/* Metadata a lenient reading accepted is checked again by a strict one, which rejects it. */
static void meta_cache_strict_checks_again(void **state)
{
	struct jfr_meta_cache *cache = jfr_meta_cache_new();
	struct chunk a;
	char err[512];

	(void)state;
	build(&a, 0, 1);
	/* a byte after the root element, within the metadata event: JMC rejects it */
	uint64_t meta = 0;
	for (int i = 0; i < 8; i++)
		meta = meta << 8 | a.b.data[24 + i];
	jfr_buf_u8(&a.b, 0);
	jfr_patch_varint(&a.b, meta, a.b.len - meta, 5);
	jfr_put_be64(a.b.data + 8, a.b.len);
	assert_non_null(load_cached(&a, cache, false, err, sizeof(err)));
	assert_null(load_cached(&a, cache, true, err, sizeof(err)));
	assert_non_null(strstr(err, "metadata content ends 1 bytes before its size says"));
	assert_non_null(load_cached(&a, cache, false, err, sizeof(err)));
	expect_cache(cache, 1, 1);
	jfr_meta_cache_free(cache);
	jfr_buf_free(&a.b);
}

/* The string of encoding enc whose body is the n bytes at p (a count, then them), as read. */
static void read_as(uint8_t enc, uint64_t count, const uint8_t *body, size_t n, char *out,
                    size_t outn)
{
	struct jfr_buf b = {0};
	struct jfr_cur c;

	jfr_buf_u8(&b, enc);
	jfr_buf_varint(&b, count);
	jfr_buf_put(&b, body, n);
	struct jfr_reader *r = jfr_open_mem(b.data, b.len, "test");
	assert_non_null(r);
	jfr_cur_init(&c, r, 0, b.len);
	assert_true(jfr_read_string(&c, NULL, out, outn) >= 0);
	assert_false(c.bad);
	assert_ptr_equal(c.p, b.data + b.len);
	jfr_close(r);
	jfr_buf_free(&b);
}

/* UTF-16 code units, as a char array (encoding 4) holds them. */
static void read_chars(const uint16_t *u, size_t n, char *out, size_t outn)
{
	struct jfr_buf body = {0};

	for (size_t i = 0; i < n; i++)
		jfr_buf_varint(&body, u[i]);
	read_as(4, n, body.data, body.len, out, outn);
	jfr_buf_free(&body);
}

static void strings_outside_the_bmp(void **state)
{
	char s[64];

	(void)state;
	/* "w-" and U+1F600 as a surrogate pair: one 4-byte character */
	read_chars((const uint16_t[]){'w', '-', 0xd83d, 0xde00}, 4, s, sizeof(s));
	assert_string_equal(s, "w-\xf0\x9f\x98\x80");
	/* a lone half, at the end, before another high half, reversed: U+FFFD each */
	read_chars((const uint16_t[]){'a', 0xd83d}, 2, s, sizeof(s));
	assert_string_equal(s, "a\xef\xbf\xbd");
	read_chars((const uint16_t[]){0xde00, 'b'}, 2, s, sizeof(s));
	assert_string_equal(s, "\xef\xbf\xbd"
	                       "b");
	read_chars((const uint16_t[]){0xd83d, 0xd83d, 0xde00}, 3, s, sizeof(s));
	assert_string_equal(s, "\xef\xbf\xbd\xf0\x9f\x98\x80");
	read_chars((const uint16_t[]){0xde00, 0xd83d, 'c'}, 3, s, sizeof(s));
	assert_string_equal(s, "\xef\xbf\xbd\xef\xbf\xbd"
	                       "c");
	/* the pair as a JVM's modified UTF-8 writes it (each half in 3 bytes): one character */
	const uint8_t cesu[] = {'w', '-', 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80};
	read_as(3, sizeof(cesu), cesu, sizeof(cesu), s, sizeof(s));
	assert_string_equal(s, "w-\xf0\x9f\x98\x80");
	/* UTF-8 as it should be stays; a half alone is U+FFFD */
	read_as(3, 6, (const uint8_t *)"w-\xf0\x9f\x98\x80", 6, s, sizeof(s));
	assert_string_equal(s, "w-\xf0\x9f\x98\x80");
	read_as(3, 4, (const uint8_t[]){0xed, 0xa0, 0xbd, 'x'}, 4, s, sizeof(s));
	assert_string_equal(s, "\xef\xbf\xbd"
	                       "x");
	read_as(3, 3, (const uint8_t[]){0xed, 0xb8, 0x80}, 3, s, sizeof(s));
	assert_string_equal(s, "\xef\xbf\xbd");
	/* a character cut by the buffer is left out whole */
	read_chars((const uint16_t[]){'a', 'b', 0xd83d, 0xde00}, 4, s, 5);
	assert_string_equal(s, "ab");
}

/* report_json_string: valid UTF-8 whatever the bytes; U+FFFD for those that are not. */
static void json_strings_are_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"w-\xf0\x9f\x98\x80", "\"w-\xf0\x9f\x98\x80\""},
	    {"\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\""},
	    {"cut \xf0\x9f\x98", "\"cut \\ufffd\\ufffd\\ufffd\""},
	    {"\xed\xa0\xbd\xed\xb8\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""},
	    {"latin \xe9!", "\"latin \\ufffd!\""},
	    {"<a href=\"x\">\x01", "\"\\u003ca href=\\\"x\\\"\\u003e\\u0001\""},
	};
	char *buf;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		report_json_string(f, cases[i].in);
		assert_int_equal(fclose(f), 0);
		assert_string_equal(buf, cases[i].out);
		assert_true(jfr_utf8_valid(buf, len));
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(chain_backwards_loads),
	    cmocka_unit_test(chain_forward_refused),
	    cmocka_unit_test(chain_outside_refused),
	    cmocka_unit_test(chain_delta_extremes_refused),
	    cmocka_unit_test(chain_overlap_refused),
	    cmocka_unit_test(zero_size_fields_left_out),
	    cmocka_unit_test(type_names_interned_once),
	    cmocka_unit_test(meta_cache_shares_same_bytes_only),
	    cmocka_unit_test(meta_cache_held_entry_not_shared),
	    cmocka_unit_test(meta_cache_evicts_oldest),
	    cmocka_unit_test(meta_cache_strict_checks_again),
	    cmocka_unit_test(strings_outside_the_bmp),
	    cmocka_unit_test(json_strings_are_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

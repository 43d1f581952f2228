// SPDX-License-Identifier: GPL-2.0
/* JFR reader's values: strings, skipping and visiting values, scalars, dereferences, types. */
#include <string.h>

#include "jfr/reader_internal.h"

/* ---- strings ---- */

/*
 * Appends code point cp as UTF-8 to buf (capacity n, length *len), truncating silently; what is
 * not a character (a surrogate, past U+10FFFF) as U+FFFD.
 */
static void put_utf8(char *buf, size_t n, size_t *len, uint64_t cp)
{
	char tmp[4];
	size_t k;

	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		cp = 0xfffd;
	if (cp < 0x80) {
		tmp[0] = cp;
		k = 1;
	} else if (cp < 0x800) {
		tmp[0] = 0xc0 | cp >> 6;
		tmp[1] = 0x80 | (cp & 0x3f);
		k = 2;
	} else if (cp < 0x10000) {
		tmp[0] = 0xe0 | cp >> 12;
		tmp[1] = 0x80 | (cp >> 6 & 0x3f);
		tmp[2] = 0x80 | (cp & 0x3f);
		k = 3;
	} else {
		tmp[0] = 0xf0 | cp >> 18;
		tmp[1] = 0x80 | (cp >> 12 & 0x3f);
		tmp[2] = 0x80 | (cp >> 6 & 0x3f);
		tmp[3] = 0x80 | (cp & 0x3f);
		k = 4;
	}
	if (*len + k < n) {
		memcpy(buf + *len, tmp, k);
		*len += k;
	}
}

/* A UTF-16 surrogate pair's code point (hi, lo: the two halves). */
static uint64_t surrogate_pair(uint64_t hi, uint64_t lo)
{
	return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
}

/*
 * The surrogate encoded as UTF-8 at p (3 bytes ED A0..BF xx, as Java's modified UTF-8 and CESU-8
 * write each half of a pair), or 0.
 */
static uint32_t utf8_surrogate(const uint8_t *p, uint64_t left)
{
	if (left < 3 || p[0] != 0xed || (p[1] & 0xe0) != 0xa0 || (p[2] & 0xc0) != 0x80)
		return 0;
	return 0xd000 | (p[1] & 0x3f) << 6 | (p[2] & 0x3f);
}

/* Decodes count bytes of encoding 3 (UTF-8) or 5 (Latin-1) into buf (capacity n), at *len. */
static void string_bytes(struct jfr_cur *c, uint8_t enc, uint64_t count, char *buf, size_t n,
                         size_t *len)
{
	for (uint64_t i = 0; i < count && *len + 1 < n; i++) {
		uint8_t b = c->p[i];
		uint32_t hi = enc == 3 ? utf8_surrogate(c->p + i, count - i) : 0;

		if (enc == 5 && b >= 0x80) {
			put_utf8(buf, n, len, b);
		} else if (hi) {
			/* a pair as a JVM writes it: one character; a half alone is none */
			uint32_t lo = utf8_surrogate(c->p + i + 3, count - i - 3);

			if (hi < 0xdc00 && lo >= 0xdc00) {
				put_utf8(buf, n, len, surrogate_pair(hi, lo));
				i += 3;
			} else {
				put_utf8(buf, n, len, 0xfffd);
			}
			i += 2;
		} else {
			buf[(*len)++] = b ? b : '?';
		}
	}
	c->p += count;
}

/* Decodes count UTF-16 code units (encoding 4): a surrogate pair is one character, a half none. */
static void string_chars(struct jfr_cur *c, uint64_t count, char *buf, size_t n, size_t *len)
{
	for (uint64_t i = 0, hi = 0; i < count && !c->bad; i++) {
		uint64_t u = jfr_varint(c);

		if (hi && u >= 0xdc00 && u <= 0xdfff) {
			put_utf8(buf, n, len, surrogate_pair(hi, u));
			hi = 0;
			continue;
		}
		if (hi)
			put_utf8(buf, n, len, 0xfffd);
		hi = u >= 0xd800 && u <= 0xdbff ? u : 0;
		if (!hi)
			put_utf8(buf, n, len, u ? u : '?');
		else if (i + 1 == count)
			put_utf8(buf, n, len, 0xfffd);
	}
}

static int read_string(struct jfr_cur *c, const struct jfr_chunk *ch, char *buf, size_t n,
                       int depth);

/* The string constant (encoding 2) whose key follows, into buf. */
static int pool_string(struct jfr_cur *c, const struct jfr_chunk *ch, char *buf, size_t n,
                       int depth)
{
	uint64_t key = jfr_varint(c);
	if (c->bad)
		return -1;
	if (!ch) {
		jfr_cur_fail(c, "constant-pool string in the metadata string table");
		return -1;
	}
	if (depth > 2) {
		jfr_cur_fail(c, "string constant refers to another string constant");
		return -1;
	}
	const struct jfr_type *st = ch->meta->string_type;
	uint64_t off = st ? jfr_pool_lookup(ch, st->id, key) : 0;
	if (!off)
		return -1; /* a missing constant reads as null, like the JDK's reader */
	struct jfr_cur sc;
	jfr_cur_init(&sc, c->r, off, ch->off + ch->size);
	int rc = read_string(&sc, ch, buf, n, depth + 1);
	if (sc.bad)
		jfr_cur_fail(c, "bad string constant %llu", (unsigned long long)key);
	return rc;
}

/*
 * Reads a string into buf (capacity n; with n 0 it only moves past it); when ch is NULL
 * (metadata), encoding 2 is an error.
 */
static int read_string(struct jfr_cur *c, const struct jfr_chunk *ch, char *buf, size_t n,
                       int depth)
{
	size_t len = 0;
	uint8_t enc = jfr_u8(c);
	uint64_t count;

	if (n)
		buf[0] = 0;
	switch (enc) {
	case 0:
		return -1;
	case 1:
		return 0;
	case 2:
		return pool_string(c, ch, buf, n, depth);
	case 3:
	case 4:
	case 5:
		count = jfr_varint(c);
		if (c->bad)
			return -1;
		if (count > (uint64_t)(c->end - c->p)) {
			jfr_cur_fail(c, "string length %llu runs past the end",
			             (unsigned long long)count);
			return -1;
		}
		if (enc == 4)
			string_chars(c, count, buf, n, &len);
		else
			string_bytes(c, enc, count, buf, n, &len);
		break;
	default:
		c->p--;
		jfr_cur_fail(c, "unknown string encoding %u", enc);
		return -1;
	}
	if (n)
		buf[len < n ? len : n - 1] = 0;
	return c->bad ? -1 : (int)len;
}

int jfr_read_string(struct jfr_cur *c, const struct jfr_chunk *ch, char *buf, size_t n)
{
	return read_string(c, ch, buf, n, 0);
}

/* Moves past a string: a constant's key unread, another one decoded into nothing. */
static void skip_string(struct jfr_cur *c)
{
	if (c->p < c->end && *c->p == 2) {
		c->p++;
		jfr_varint(c);
		return;
	}
	read_string(c, NULL, NULL, 0, 0);
}

/* ---- values ---- */

static void visit_ref(struct jfr_cur *c, uint64_t type_id, jfr_ref_fn *ref, void *arg);

/*
 * One value of field f (an array, a constant-pool key or an inline value) at nesting depth:
 * skipped, or with ref visited (jfr_visit_value), which checks the count of every field.
 */
static void walk_field(struct jfr_cur *c, const struct jfr_field *f, int depth, jfr_ref_fn *ref,
                       void *arg)
{
	uint64_t n = f->array ? jfr_varint(c) : 1;

	if ((f->array || ref) && n > (uint64_t)(c->end - c->p)) {
		jfr_cur_fail(c, "array of %llu elements runs past the end", (unsigned long long)n);
		return;
	}
	if (!f->cp && f->type->zero_size)
		return;
	for (uint64_t k = 0; k < n && !c->bad; k++) {
		if (f->cp && ref)
			visit_ref(c, f->type_id, ref, arg);
		else if (f->cp)
			jfr_varint(c);
		else if (ref)
			jfr_visit_value(c, f->type, depth, ref, arg);
		else
			jfr_skip_value(c, f->type, depth);
	}
}

void jfr_skip_value(struct jfr_cur *c, const struct jfr_type *t, int depth)
{
	switch (t->kind) {
	case JFR_K_BOOLEAN:
	case JFR_K_BYTE:
		jfr_u8(c);
		return;
	case JFR_K_CHAR:
	case JFR_K_SHORT:
	case JFR_K_INT:
	case JFR_K_LONG:
		jfr_varint(c);
		return;
	case JFR_K_FLOAT:
	case JFR_K_DOUBLE: {
		long k = t->kind == JFR_K_FLOAT ? 4 : 8;
		if (c->end - c->p < k)
			jfr_cur_fail(c, "truncated %s", t->name);
		else
			c->p += k;
		return;
	}
	case JFR_K_STRING:
		skip_string(c);
		return;
	case JFR_K_COMPLEX:
		break;
	}
	if (t->zero_size)
		return;
	if (depth > JFR_MAX_DEPTH) {
		jfr_cur_fail(c, "values of type %s nest too deeply", t->name);
		return;
	}
	for (int i = 0; i < t->nfields && !c->bad; i++)
		walk_field(c, &t->fields[i], depth + 1, NULL, NULL);
}

void jfr_skip_field(struct jfr_cur *c, const struct jfr_field *f)
{
	walk_field(c, f, 1, NULL, NULL);
}

static void visit_ref(struct jfr_cur *c, uint64_t type_id, jfr_ref_fn *ref, void *arg)
{
	uint64_t off = jfr_cur_off(c), key = jfr_varint(c);

	if (!c->bad && key && ref(arg, type_id, key, off)) {
		c->bad = true; /* the callback has recorded why */
		c->p = c->end;
	}
}

void jfr_visit_value(struct jfr_cur *c, const struct jfr_type *t, int depth, jfr_ref_fn *ref,
                     void *arg)
{
	if (t->kind == JFR_K_STRING && c->p < c->end && *c->p == 2) {
		c->p++;
		visit_ref(c, t->id, ref, arg);
		return;
	}
	if (t->kind != JFR_K_COMPLEX || t->zero_size) {
		jfr_skip_value(c, t, depth);
		return;
	}
	if (depth > JFR_MAX_DEPTH) {
		jfr_cur_fail(c, "values of type %s nest too deeply", t->name);
		return;
	}
	for (int i = 0; i < t->nfields && !c->bad; i++)
		walk_field(c, &t->fields[i], depth + 1, ref, arg);
}

uint64_t jfr_read_scalar(struct jfr_cur *c, const struct jfr_field *f)
{
	if (f->array) {
		jfr_skip_field(c, f);
		return 0;
	}
	if (f->cp)
		return jfr_varint(c);
	switch (f->type->kind) {
	case JFR_K_BOOLEAN:
	case JFR_K_BYTE:
		return jfr_u8(c);
	case JFR_K_CHAR:
	case JFR_K_SHORT:
	case JFR_K_INT:
	case JFR_K_LONG:
		return jfr_varint(c);
	case JFR_K_FLOAT:
	case JFR_K_DOUBLE: {
		int k = f->type->kind == JFR_K_FLOAT ? 4 : 8;
		if (c->end - c->p < k) {
			jfr_cur_fail(c, "truncated %s", f->type->name);
			return 0;
		}
		uint64_t v = jfr_be(c->p, k);
		c->p += k;
		return v;
	}
	default:
		jfr_skip_value(c, f->type, 1);
		return 0;
	}
}

const struct jfr_field *jfr_value_field(struct jfr_reader *r, const struct jfr_chunk *ch,
                                        const struct jfr_type *t, uint64_t off, const char *name,
                                        struct jfr_cur *c)
{
	int idx = jfr_field_index(t, name);

	if (idx < 0)
		return NULL;
	jfr_cur_init(c, r, off, ch->off + ch->size);
	for (int i = 0; i < idx && !c->bad; i++)
		jfr_skip_field(c, &t->fields[i]);
	return c->bad ? NULL : &t->fields[idx];
}

bool jfr_deref(struct jfr_cur *c, const struct jfr_chunk *ch, const struct jfr_field *f)
{
	if (f->array)
		return false;
	if (!f->cp)
		return !c->bad;
	uint64_t key = jfr_varint(c);
	if (c->bad || !key)
		return false;
	uint64_t off = jfr_pool_lookup(ch, f->type_id, key);
	if (!off)
		return false;
	jfr_cur_init(c, c->r, off, ch->off + ch->size);
	return true;
}

/* ---- types ---- */

const struct jfr_type *jfr_type_by_id(const struct jfr_meta *m, uint64_t id)
{
	int lo = 0, hi = m->ntypes - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (m->types[mid].id == id)
			return &m->types[mid];
		if (m->types[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

const struct jfr_type *jfr_type_by_name(const struct jfr_meta *m, const char *name)
{
	for (int i = 0; i < m->ntypes; i++)
		if (m->types[i].name && !strcmp(m->types[i].name, name))
			return &m->types[i];
	return NULL;
}

int jfr_field_index(const struct jfr_type *t, const char *name)
{
	for (int i = 0; i < t->nfields; i++)
		if (t->fields[i].name && !strcmp(t->fields[i].name, name))
			return i;
	return -1;
}

uint64_t jfr_pool_lookup(const struct jfr_chunk *ch, uint64_t type_id, uint64_t key)
{
	const struct hashtab_slot *s = hashtab_get(&ch->pool, type_id, key);

	return s ? s->v : 0;
}

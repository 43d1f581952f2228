// SPDX-License-Identifier: GPL-2.0
/*
 * The metadata event, written from the schema (schema.c).
 *
 * Reader compatibility facts encoded here:
 * - the root element has exactly the children "metadata" and "region" (JMC rejects unknown
 * elements, the JDK requires region);
 * - boolean attributes are written only when true: the JDK treats their mere presence as true.
 *
 * One walk of the schema writes the element tree with each string's index into the string table,
 * assigned at its first use; the table then goes before the tree.  Every recording pays for this at
 * its start, so the walk finds a string by its address first (the tree's strings are the schema's
 * own literals, met again and again) and by its content only the first time it meets an address.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/encode.h"
#include "jfr/schema.h"
#include "lib/hashtab.h"

/* Numbers below this (every type id) are formatted once and kept. */
#define SMALL_NUMBERS 512

struct address_slot {
	const char *s;  /* NULL: empty */
	unsigned index; /* into the string table */
};

struct meta_ctx {
	struct jfr_buf tree;
	const char **strings; /* the string table, in order of first use */
	unsigned nstrings, cap;
	/* The table's index by content, open addressing: slot = index + 1, 0 empty; at most half
	 * full. */
	unsigned *slots;
	unsigned nslots;
	/* The same by address, at most half full. */
	struct address_slot *addresses;
	unsigned naddresses, naddress_slots;
	const char *small[SMALL_NUMBERS];
	char **owned; /* formatted numbers */
	unsigned nowned;
	bool oom;
};

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a: the strings are lfr's own, not an attacker's */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* The slot of s: its string's, or the empty one where it goes. */
static unsigned *slot_of(const struct meta_ctx *c, const char *s)
{
	unsigned mask = c->nslots - 1, i = str_hash(s) & mask;

	while (c->slots[i] && strcmp(c->strings[c->slots[i] - 1], s))
		i = (i + 1) & mask;
	return &c->slots[i];
}

static struct address_slot *address_slot_of(const struct meta_ctx *c, const char *s)
{
	unsigned mask = c->naddress_slots - 1;
	unsigned i = (unsigned)(((uintptr_t)s * 0x9e3779b97f4a7c15ULL) >> 40) & mask;

	while (c->addresses[i].s && c->addresses[i].s != s)
		i = (i + 1) & mask;
	return &c->addresses[i];
}

static bool grow_slots(struct meta_ctx *c)
{
	unsigned n = c->nslots ? 2 * c->nslots : 1024;
	unsigned *old = c->slots, nold = c->nslots;

	c->slots = calloc(n, sizeof(*c->slots));
	if (!c->slots) {
		c->slots = old;
		return false;
	}
	c->nslots = n;
	for (unsigned i = 0; i < nold; i++)
		if (old[i])
			*slot_of(c, c->strings[old[i] - 1]) = old[i];
	free(old);
	return true;
}

static bool grow_addresses(struct meta_ctx *c)
{
	unsigned n = c->naddress_slots ? 2 * c->naddress_slots : 1024;
	struct address_slot *old = c->addresses;
	unsigned nold = c->naddress_slots;

	c->addresses = calloc(n, sizeof(*c->addresses));
	if (!c->addresses) {
		c->addresses = old;
		return false;
	}
	c->naddress_slots = n;
	for (unsigned i = 0; i < nold; i++)
		if (old[i].s)
			*address_slot_of(c, old[i].s) = old[i];
	free(old);
	return true;
}

/* The index of a string not met at this address before: its content's, or a new one. */
static unsigned intern_content(struct meta_ctx *c, const char *s)
{
	unsigned *slot;

	if (2 * (c->nstrings + 1) > c->nslots && !grow_slots(c))
		goto oom;
	slot = slot_of(c, s);
	if (*slot)
		return *slot - 1;
	if (c->nstrings == c->cap) {
		unsigned cap = c->cap ? c->cap * 2 : 256;
		const char **p = realloc(c->strings, cap * sizeof(*p));

		if (!p)
			goto oom;
		c->strings = p;
		c->cap = cap;
	}
	c->strings[c->nstrings] = s;
	*slot = ++c->nstrings;
	return c->nstrings - 1;
oom:
	c->oom = true;
	return 0;
}

static unsigned intern(struct meta_ctx *c, const char *s)
{
	struct address_slot *a;

	if (2 * (c->naddresses + 1) > c->naddress_slots && !grow_addresses(c)) {
		c->oom = true;
		return 0;
	}
	a = address_slot_of(c, s);
	if (!a->s) {
		a->index = intern_content(c, s);
		a->s = s;
		c->naddresses++;
	}
	return a->index;
}

static const char *format(struct meta_ctx *c, int64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp), **owned;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	owned = realloc(c->owned, (c->nowned + 1) * sizeof(*owned));
	if (!owned) {
		c->oom = true;
		return "0";
	}
	c->owned = owned;
	c->owned[c->nowned] = strdup(p);
	if (!c->owned[c->nowned]) {
		c->oom = true;
		return "0";
	}
	return c->owned[c->nowned++];
}

static const char *num(struct meta_ctx *c, int64_t v)
{
	if (v < 0 || v >= SMALL_NUMBERS)
		return format(c, v);
	if (!c->small[v])
		c->small[v] = format(c, v);
	return c->small[v];
}

static void str(struct meta_ctx *c, const char *s)
{
	jfr_buf_varint(&c->tree, intern(c, s));
}

static void count(struct meta_ctx *c, uint64_t n)
{
	jfr_buf_varint(&c->tree, n);
}

/* element header: name, attributes as key/value pairs, then the number of children that follow */
static void element(struct meta_ctx *c, const char *name, const char *const *kv, unsigned nattr,
                    unsigned nchildren)
{
	str(c, name);
	count(c, nattr);
	for (unsigned i = 0; i < nattr; i++) {
		str(c, kv[2 * i]);
		str(c, kv[2 * i + 1]);
	}
	count(c, nchildren);
}

static void annotation(struct meta_ctx *c, uint16_t type, const char *value)
{
	const char *kv[] = {"class", num(c, type), "value", value};

	element(c, "annotation", kv, value ? 2 : 1, 0);
}

static void category(struct meta_ctx *c, const char *const *path)
{
	const char *kv[8] = {"class", num(c, T_ANN_CATEGORY)};
	unsigned n = 1;

	for (unsigned i = 0; i < 3 && path[i]; i++) {
		kv[2 * n] = i == 0 ? "value-0" : i == 1 ? "value-1" : "value-2";
		kv[2 * n + 1] = path[i];
		n++;
	}
	element(c, "annotation", kv, n, 0);
}

static unsigned unit_annotations(enum jfr_unit u)
{
	return u == U_NONE ? 0 : u == U_UNSIGNED_TICKS_SPAN ? 2 : 1;
}

static void unit_annotation(struct meta_ctx *c, enum jfr_unit u)
{
	switch (u) {
	case U_NONE:
		break;
	case U_TICKS_TIMESTAMP:
		annotation(c, T_ANN_TIMESTAMP, "TICKS");
		break;
	case U_TICKS_TIMESPAN:
		annotation(c, T_ANN_TIMESPAN, "TICKS");
		break;
	case U_MILLIS_SINCE_EPOCH:
		annotation(c, T_ANN_TIMESTAMP, "MILLISECONDS_SINCE_EPOCH");
		break;
	case U_MILLIS_SPAN:
		annotation(c, T_ANN_TIMESPAN, "MILLISECONDS");
		break;
	case U_NANOS_SPAN:
		annotation(c, T_ANN_TIMESPAN, "NANOSECONDS");
		break;
	case U_BYTES:
		annotation(c, T_ANN_DATA_AMOUNT, "BYTES");
		break;
	case U_UNSIGNED:
		annotation(c, T_ANN_UNSIGNED, NULL);
		break;
	case U_UNSIGNED_TICKS_SPAN:
		annotation(c, T_ANN_UNSIGNED, NULL);
		annotation(c, T_ANN_TIMESPAN, "TICKS");
		break;
	}
}

static void field(struct meta_ctx *c, const struct jfr_field_def *f)
{
	const char *kv[8];
	unsigned n = 0;

	kv[2 * n] = "name";
	kv[2 * n++ + 1] = f->name;
	kv[2 * n] = "class";
	kv[2 * n++ + 1] = num(c, f->type);
	if (f->flags & F_CP) {
		kv[2 * n] = "constantPool";
		kv[2 * n++ + 1] = "true";
	}
	if (f->flags & F_ARRAY) {
		kv[2 * n] = "dimension";
		kv[2 * n++ + 1] = "1";
	}
	unsigned nchildren = !!f->label + !!f->description + unit_annotations(f->unit);
	element(c, "field", kv, n, nchildren);
	if (f->label)
		annotation(c, T_ANN_LABEL, f->label);
	if (f->description)
		annotation(c, T_ANN_DESCRIPTION, f->description);
	unit_annotation(c, f->unit);
}

static void class_element(struct meta_ctx *c, const struct jfr_type_def *t)
{
	const char *kv[8];
	unsigned n = 0;

	kv[2 * n] = "id";
	kv[2 * n++ + 1] = num(c, t->id);
	kv[2 * n] = "name";
	kv[2 * n++ + 1] = t->name;
	if (t->super_type) {
		kv[2 * n] = "superType";
		kv[2 * n++ + 1] = t->super_type;
	}
	if (t->simple) {
		kv[2 * n] = "simpleType";
		kv[2 * n++ + 1] = "true";
	}
	unsigned nchildren = t->nsettings + t->nfields + !!t->label + !!t->description +
	                     !!t->category[0] + t->experimental;
	element(c, "class", kv, n, nchildren);
	for (unsigned i = 0; i < t->nsettings; i++) {
		const struct jfr_setting_def *s = &t->settings[i];
		const char *skv[] = {"name",          s->name,        "class",
		                     num(c, s->type), "defaultValue", s->default_value};

		element(c, "setting", skv, 3, 0);
	}
	if (t->label)
		annotation(c, T_ANN_LABEL, t->label);
	if (t->description)
		annotation(c, T_ANN_DESCRIPTION, t->description);
	if (t->category[0])
		category(c, t->category);
	if (t->experimental)
		annotation(c, T_ANN_EXPERIMENTAL, NULL);
	for (unsigned i = 0; i < t->nfields; i++)
		field(c, &t->fields[i]);
}

static void tree(struct meta_ctx *c, int64_t gmt_offset_ms)
{
	element(c, "root", NULL, 0, 2);
	element(c, "metadata", NULL, 0, jfr_schema_len);
	for (unsigned i = 0; i < jfr_schema_len; i++)
		class_element(c, &jfr_schema[i]);
	const char *region[] = {"locale", "en_US", "gmtOffset", num(c, gmt_offset_ms), "dst", "0"};
	element(c, "region", region, 3, 0);
}

uint64_t jfr_metadata_build(struct jfr_buf *out, uint64_t start_ticks, int64_t gmt_offset_ms)
{
	struct meta_ctx c = {0};
	struct jfr_buf body = {0};
	uint64_t id = 0;

	tree(&c, gmt_offset_ms);
	if (c.oom || c.tree.oom)
		goto out;
	jfr_buf_varint(&body, c.nstrings);
	for (unsigned i = 0; i < c.nstrings; i++)
		jfr_buf_string(&body, c.strings[i]);
	jfr_buf_put(&body, c.tree.data, c.tree.len);
	if (body.oom)
		goto out;

	/* A stable id derived from the content, kept positive and far from the small ids a JVM
	 * uses. */
	id = (hashtab_hash_bytes(body.data, body.len) & 0x3fffffffffffffffULL) |
	     0x4000000000000000ULL;
	size_t start = out->len;
	size_t size_off = jfr_buf_varint_padded(out, 0, 5);
	jfr_buf_varint(out, 0); /* type: metadata */
	jfr_buf_varint(out, start_ticks);
	jfr_buf_varint(out, 0); /* duration */
	jfr_buf_varint(out, id);
	jfr_buf_put(out, body.data, body.len);
	jfr_patch_varint(out, size_off, out->len - start, 5);
	if (out->oom)
		id = 0;
out:
	jfr_buf_free(&c.tree);
	jfr_buf_free(&body);
	for (unsigned i = 0; i < c.nowned; i++)
		free(c.owned[i]);
	free(c.owned);
	free(c.strings);
	free(c.slots);
	free(c.addresses);
	return id;
}

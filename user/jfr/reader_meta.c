// SPDX-License-Identifier: GPL-2.0
/* JFR reader's metadata (the type system of a chunk) and constant pools (the checkpoint chain). */
#include <stdlib.h>
#include <string.h>

#include "jfr/reader_internal.h"

/* The index of a type's name in the reader's table (name lives as long as the reader). */
static uint32_t intern_type_name(struct jfr_reader *r, const char *name)
{
	bool fresh;
	struct hashtab_slot *s;

	if (!r->type_name_index.bytes)
		hashtab_init_bytes(&r->type_name_index);
	s = hashtab_put_bytes(&r->type_name_index, name, strlen(name), &fresh);
	if (!s)
		return UINT32_MAX;
	if (!fresh)
		return (uint32_t)s->v;
	if (r->ntype_names == r->type_names_cap) {
		uint32_t cap = r->type_names_cap ? r->type_names_cap * 2 : 256;
		const char **v = realloc(r->type_names, cap * sizeof(*v));
		if (!v) {
			hashtab_del(&r->type_name_index, s);
			return UINT32_MAX;
		}
		r->type_names = v;
		r->type_names_cap = cap;
	}
	s->v = r->ntype_names;
	r->type_names[r->ntype_names] = name;
	return r->ntype_names++;
}

/* ---- metadata ---- */

struct meta_builder {
	struct jfr_reader *r;
	const char **strings;
	uint64_t nstrings;
	struct jfr_type *types;
	int ntypes, cap;
	/* fields of the class being parsed */
	struct jfr_field *fields;
	int nfields, fcap;
	/* strict metadata (jfr_hooks.strict_metadata): the parent element's name, a region seen */
	bool strict, region;
	const char *parent_name;
};

/* The element tree JMC accepts: it rejects any other child. */
static bool jmc_element(const char *parent, const char *name)
{
	static const char *const allowed[][2] = {
	    {"", "root"},
	    {"root", "metadata"},
	    {"root", "region"},
	    {"metadata", "class"},
	    {"class", "field"},
	    {"class", "setting"},
	    {"class", "annotation"},
	    {"field", "annotation"},
	    {"setting", "annotation"},
	};

	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (!strcmp(parent, allowed[i][0]) && !strcmp(name, allowed[i][1]))
			return true;
	return false;
}

static const char *mstr(struct jfr_cur *c, struct meta_builder *b)
{
	uint64_t idx = jfr_varint(c);

	if (c->bad)
		return NULL;
	if (idx >= b->nstrings) {
		jfr_cur_fail(c, "metadata string index %llu out of range (%llu strings)",
		             (unsigned long long)idx, (unsigned long long)b->nstrings);
		return NULL;
	}
	return b->strings[idx] ? b->strings[idx] : "";
}

static bool truthy(const char *v)
{
	return v && (!strcmp(v, "true") || !strcmp(v, "1"));
}

/* The attributes of a metadata element that the reader uses. */
struct meta_attrs {
	const char *id, *name, *super, *simple, *fclass, *cp, *dim;
};

static int element_attrs(struct jfr_cur *c, struct meta_builder *b, uint64_t nattr,
                         struct meta_attrs *at)
{
	for (uint64_t i = 0; i < nattr && !c->bad; i++) {
		const char *k = mstr(c, b), *v = mstr(c, b);
		if (c->bad)
			return -1;
		if (!strcmp(k, "id"))
			at->id = v;
		else if (!strcmp(k, "name"))
			at->name = v;
		else if (!strcmp(k, "superType"))
			at->super = v;
		else if (!strcmp(k, "simpleType"))
			at->simple = v;
		else if (!strcmp(k, "class"))
			at->fclass = v;
		else if (!strcmp(k, "constantPool"))
			at->cp = v;
		else if (!strcmp(k, "dimension"))
			at->dim = v;
	}
	return 0;
}

/* A field element of a class: appended to the builder's fields. */
static int element_field(struct jfr_cur *c, struct meta_builder *b, const struct meta_attrs *at)
{
	const char *cname = at->name, *cp = at->cp, *dim = at->dim;

	if (!cname || !at->fclass)
		return jfr_cur_fail(c, "metadata field without name or class");
	if (b->strict && ((cp && strcmp(cp, "true")) || (dim && strcmp(dim, "1"))))
		return jfr_cur_fail(c, "field %s: constantPool/dimension other than true/1", cname);
	if (b->nfields == b->fcap) {
		int cap = b->fcap ? b->fcap * 2 : 16;
		struct jfr_field *v = realloc(b->fields, cap * sizeof(*v));
		if (!v)
			return jfr_cur_fail(c, "out of memory");
		b->fields = v;
		b->fcap = cap;
	}
	struct jfr_field *f = &b->fields[b->nfields++];
	memset(f, 0, sizeof(*f));
	f->name = cname;
	f->type_id = strtoull(at->fclass, NULL, 10);
	f->cp = truthy(cp);
	if (dim && strcmp(dim, "0")) {
		if (strcmp(dim, "1"))
			return jfr_cur_fail(c, "field %s has unsupported dimension %s", cname, dim);
		f->array = true;
	}
	return 0;
}

/* A class element, its fields parsed from first_field on: appended to the builder's types. */
static int element_class(struct jfr_cur *c, struct meta_builder *b, const struct meta_attrs *at,
                         int first_field)
{
	if (!at->id || !at->name)
		return jfr_cur_fail(c, "metadata class without id or name");
	if (b->ntypes == b->cap) {
		int cap = b->cap ? b->cap * 2 : 256;
		struct jfr_type *v = realloc(b->types, cap * sizeof(*v));
		if (!v)
			return jfr_cur_fail(c, "out of memory");
		b->types = v;
		b->cap = cap;
	}
	struct jfr_type *t = &b->types[b->ntypes++];
	memset(t, 0, sizeof(*t));
	t->id = strtoull(at->id, NULL, 10);
	t->name = at->name;
	t->super = at->super;
	t->simple = truthy(at->simple);
	t->nfields = b->nfields - first_field;
	if (t->nfields) {
		t->fields = jfr_arena_alloc(b->r, t->nfields * sizeof(*t->fields));
		if (!t->fields)
			return jfr_cur_fail(c, "out of memory");
		memcpy(t->fields, b->fields + first_field, t->nfields * sizeof(*t->fields));
	}
	b->nfields = first_field;
	return 0;
}

static int parse_element(struct jfr_cur *c, struct meta_builder *b, int depth, int parent)
{
	enum { E_OTHER, E_CLASS, E_FIELD };
	const char *name = mstr(c, b);
	uint64_t nattr = jfr_varint(c);
	struct meta_attrs at = {0};
	int kind = E_OTHER;

	if (c->bad)
		return -1;
	if (depth > JFR_MAX_DEPTH)
		return jfr_cur_fail(c, "metadata elements nest too deeply");
	if (nattr > (uint64_t)(c->end - c->p))
		return jfr_cur_fail(c, "metadata element with %llu attributes runs past the end",
		                    (unsigned long long)nattr);
	if (b->strict) {
		const char *pname = b->parent_name ? b->parent_name : "";

		if (!jmc_element(pname, name))
			return jfr_cur_fail(
			    c, "metadata element \"%s\" inside \"%s\" (JMC rejects it)", name,
			    pname);
		b->region |= !strcmp(name, "region");
	}
	if (!strcmp(name, "class"))
		kind = E_CLASS;
	else if (!strcmp(name, "field") && parent == E_CLASS)
		kind = E_FIELD;
	if (element_attrs(c, b, nattr, &at) < 0)
		return -1;
	if (kind == E_FIELD && element_field(c, b, &at) < 0)
		return -1;
	int first_field = b->nfields;
	uint64_t nchildren = jfr_varint(c);
	if (nchildren > (uint64_t)(c->end - c->p))
		return jfr_cur_fail(c, "metadata element with %llu children runs past the end",
		                    (unsigned long long)nchildren);
	if (kind == E_CLASS && depth > 8)
		kind = E_OTHER;
	const char *saved_parent = b->parent_name;
	b->parent_name = name;
	for (uint64_t i = 0; i < nchildren && !c->bad; i++)
		if (parse_element(c, b, depth + 1, kind) < 0)
			return -1;
	b->parent_name = saved_parent;
	if (kind != E_CLASS)
		return c->bad ? -1 : 0;
	return element_class(c, b, &at, first_field);
}

static int cmp_type(const void *a, const void *b)
{
	const struct jfr_type *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static enum jfr_kind kind_of(const char *name)
{
	static const struct {
		const char *name;
		enum jfr_kind kind;
	} prims[] = {
	    {"boolean", JFR_K_BOOLEAN},
	    {"byte", JFR_K_BYTE},
	    {"char", JFR_K_CHAR},
	    {"short", JFR_K_SHORT},
	    {"int", JFR_K_INT},
	    {"long", JFR_K_LONG},
	    {"float", JFR_K_FLOAT},
	    {"double", JFR_K_DOUBLE},
	    {"java.lang.String", JFR_K_STRING},
	};
	for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
		if (!strcmp(prims[i].name, name))
			return prims[i].kind;
	return JFR_K_COMPLEX;
}

/* Whether an inline value of t takes no bytes; -1 when t contains itself inline (infinite size). */
static int compute_zero_size(struct jfr_type *t, uint8_t *state, const struct jfr_meta *m,
                             int depth)
{
	size_t idx = t - m->types;

	if (depth > JFR_MAX_DEPTH)
		return -1;
	if (state[idx] == 2)
		return t->zero_size;
	if (state[idx] == 1)
		return -1;
	if (t->kind != JFR_K_COMPLEX) {
		state[idx] = 2;
		t->zero_size = false;
		return 0;
	}
	state[idx] = 1;
	bool zero = true;
	for (int i = 0; i < t->nfields; i++) {
		struct jfr_field *f = &t->fields[i];
		if (f->array || f->cp) {
			zero = false;
			continue;
		}
		int z = compute_zero_size(f->type, state, m, depth + 1);
		if (z < 0)
			return -1;
		if (!z)
			zero = false;
	}
	t->zero_size = zero;
	state[idx] = 2;
	return zero;
}

/* The metadata's string table, b->nstrings of them at c, into b->strings (in r's arena). */
static int meta_strings(struct jfr_cur *c, struct meta_builder *b, struct jfr_reader *r)
{
	if (b->nstrings > (uint64_t)(c->end - c->p))
		return jfr_cur_fail(c, "metadata string count %llu runs past the end",
		                    (unsigned long long)b->nstrings);
	b->strings = calloc(b->nstrings ? b->nstrings : 1, sizeof(*b->strings));
	if (!b->strings)
		return jfr_cur_fail(c, "out of memory");
	for (uint64_t i = 0; i < b->nstrings && !c->bad; i++) {
		const uint8_t *start = c->p;
		char tmp[4096];
		int n = jfr_read_string(c, NULL, tmp, sizeof(tmp));
		if (c->bad)
			break;
		if (n < 0) {
			b->strings[i] = NULL;
			continue;
		}
		/* strings longer than tmp are rare (descriptions); re-read them at full size */
		size_t cap = (size_t)(c->p - start) * 3 + 1;
		if ((size_t)n + 1 < sizeof(tmp) || cap <= sizeof(tmp)) {
			char *s = jfr_arena_alloc(r, n + 1);
			if (!s)
				return -1;
			memcpy(s, tmp, n + 1);
			b->strings[i] = s;
		} else {
			char *s = jfr_arena_alloc(r, cap);
			struct jfr_cur again = *c;
			again.p = start;
			if (!s)
				return -1;
			jfr_read_string(&again, NULL, s, cap);
			b->strings[i] = s;
		}
	}
	return c->bad ? -1 : 0;
}

/* The types of m sorted by id, each with its kind and interned name, each field with its type. */
static int meta_resolve(struct jfr_reader *r, struct jfr_meta *m, uint64_t off)
{
	qsort(m->types, m->ntypes, sizeof(*m->types), cmp_type);
	for (int i = 0; i + 1 < m->ntypes; i++)
		if (m->types[i].id == m->types[i + 1].id)
			return jfr_fail(r, off, "metadata declares type id %llu twice (%s and %s)",
			                (unsigned long long)m->types[i].id, m->types[i].name,
			                m->types[i + 1].name);
	for (int i = 0; i < m->ntypes; i++) {
		struct jfr_type *t = &m->types[i];
		t->kind = kind_of(t->name);
		t->name_idx = intern_type_name(r, t->name);
		if (t->name_idx == UINT32_MAX)
			return jfr_fail(r, off, "out of memory");
		if (t->kind == JFR_K_STRING)
			m->string_type = t;
		for (int k = 0; k < t->nfields; k++) {
			struct jfr_field *f = &t->fields[k];
			f->type = (struct jfr_type *)jfr_type_by_id(m, f->type_id);
			if (!f->type)
				return jfr_fail(r, off,
				                "field %s of %s has undeclared type id %llu",
				                f->name, t->name, (unsigned long long)f->type_id);
		}
	}
	return 0;
}

/* Which types' inline values take no bytes; the fields of those left out of their classes. */
static int meta_zero_sizes(struct jfr_reader *r, struct jfr_meta *m, uint64_t off)
{
	uint8_t *state = calloc(m->ntypes ? m->ntypes : 1, 1);
	if (!state)
		return jfr_fail(r, off, "out of memory");
	for (int i = 0; i < m->ntypes; i++)
		if (compute_zero_size(&m->types[i], state, m, 0) < 0) {
			jfr_fail(r, off, "type %s contains itself inline or nests too deeply",
			         m->types[i].name);
			free(state);
			return -1;
		}
	free(state);
	/* fields that take no bytes are left out (see struct jfr_type): in place, order kept */
	for (int i = 0; i < m->ntypes; i++) {
		struct jfr_type *t = &m->types[i];
		int n = 0;

		for (int k = 0; k < t->nfields; k++) {
			const struct jfr_field *f = &t->fields[k];

			if (f->array || f->cp || !f->type->zero_size)
				t->fields[n++] = *f;
		}
		t->nfields = n;
	}
	return 0;
}

/* m as r's newest metadata, in *out. */
static int meta_take(struct jfr_reader *r, struct jfr_meta *m, uint64_t off, struct jfr_meta **out)
{
	if (r->nmetas == r->metas_cap) {
		size_t cap = r->metas_cap ? 2 * r->metas_cap : 8;
		struct jfr_meta **v = realloc(r->metas, cap * sizeof(*v));

		if (!v)
			return jfr_fail(r, off, "out of memory");
		r->metas = v;
		r->metas_cap = cap;
	}
	r->metas[r->nmetas++] = m;
	r->last_meta = m;
	*out = m;
	return 0;
}

/* The metadata of builder b (id, raw bytes) as r's newest, in *out. */
static int meta_finish(struct jfr_reader *r, const struct meta_builder *b, uint64_t off,
                       uint64_t id, const uint8_t *raw, uint64_t raw_len, struct jfr_meta **out)
{
	struct jfr_meta *m = jfr_arena_alloc(r, sizeof(*m));
	if (!m)
		return -1;
	memset(m, 0, sizeof(*m));
	m->id = id;
	m->raw = raw;
	m->raw_len = raw_len;
	m->ntypes = b->ntypes;
	m->types = jfr_arena_alloc(r, (b->ntypes ? b->ntypes : 1) * sizeof(*m->types));
	if (!m->types)
		return -1;
	if (b->ntypes)
		memcpy(m->types, b->types, b->ntypes * sizeof(*m->types));
	if (meta_resolve(r, m, off) < 0 || meta_zero_sizes(r, m, off) < 0)
		return -1;
	return meta_take(r, m, off, out);
}

/* The type names of m, interned in r in the order meta_resolve() does, as m's name indices. */
static int meta_intern(struct jfr_reader *r, struct jfr_meta *m, uint64_t off)
{
	for (int i = 0; i < m->ntypes; i++) {
		m->types[i].name_idx = intern_type_name(r, m->types[i].name);
		if (m->types[i].name_idx == UINT32_MAX)
			return jfr_fail(r, off, "out of memory");
	}
	return 0;
}

/* The metadata from its string table on (c there, b set up), id and bytes raw, into *out. */
static int meta_parse_body(struct jfr_reader *r, struct jfr_cur *c, struct meta_builder *b,
                           uint64_t off, uint64_t id, const uint8_t *raw, uint64_t raw_len,
                           struct jfr_meta **out)
{
	int rc = -1;

	b->nstrings = jfr_varint(c);
	if (meta_strings(c, b, r) < 0 || parse_element(c, b, 0, 0) < 0)
		goto out;
	if (b->strict && !b->region) {
		jfr_fail(r, off, "metadata without the region element (the JDK requires it)");
		goto out;
	}
	if (b->strict && c->p != c->end) {
		jfr_cur_fail(c, "metadata content ends %lld bytes before its size says",
		             (long long)(c->end - c->p));
		goto out;
	}
	rc = meta_finish(r, b, off, id, raw, raw_len, out);
out:
	free(b->strings);
	free(b->types);
	free(b->fields);
	return rc;
}

/*
 * As meta_parse_body(), through r's metadata cache: the cached metadata of the same bytes and
 * strictness, or a parse into an arena of its own (a copy of the bytes with it) for the cache.
 */
static int meta_parse_cached(struct jfr_reader *r, struct jfr_cur *c, struct meta_builder *b,
                             uint64_t off, uint64_t id, struct jfr_meta **out)
{
	struct jfr_meta_key k = {.id = id, .len = c->end - c->p, .raw = c->p, .strict = b->strict};
	struct jfr_meta *m = jfr_meta_cache_find(r, &k);
	struct jfr_arena_block *saved = r->arena, *blocks;
	uint8_t *copy;
	int rc = -1;

	if (m)
		return meta_intern(r, m, off) < 0 ? -1 : meta_take(r, m, off, out);
	r->arena = NULL; /* what the parse allocates is the cache's if it keeps it */
	copy = jfr_arena_alloc(r, k.len ? k.len : 1);
	if (copy) {
		memcpy(copy, k.raw, k.len);
		rc = meta_parse_body(r, c, b, off, id, copy, k.len, &m);
	} else {
		jfr_fail(r, off, "out of memory");
	}
	blocks = r->arena;
	r->arena = saved;
	jfr_meta_cache_keep(r, &k, rc < 0 ? NULL : m, blocks);
	if (rc == 0)
		*out = m;
	return rc;
}

int jfr_meta_parse(struct jfr_reader *r, const struct jfr_chunk *ch, struct jfr_meta **out)
{
	uint64_t off = ch->off + ch->meta_off;
	struct jfr_cur c;
	struct meta_builder b = {.r = r, .strict = r->hooks && r->hooks->strict_metadata};

	jfr_cur_init(&c, r, off, ch->off + ch->size);
	uint64_t size = jfr_varint(&c);
	if (c.bad)
		return -1;
	if (size < 2 || size > ch->off + ch->size - off)
		return jfr_fail(r, off, "metadata event size %llu does not fit in the chunk",
		                (unsigned long long)size);
	c.end = r->data + off + size;
	uint64_t type = jfr_varint(&c);
	if (!c.bad && type != JFR_EVENT_METADATA)
		return jfr_fail(r, off,
		                "metadataOffset points to an event of type %llu, not metadata",
		                (unsigned long long)type);
	jfr_varint(&c); /* startTicks */
	jfr_varint(&c); /* duration */
	uint64_t id = jfr_varint(&c);
	if (c.bad)
		return -1;
	/* The JDK reuses the previous chunk's metadata when the id repeats; files concatenated from
	 * different JVMs repeat ids with other content, so the bytes are compared too. */
	const uint8_t *raw = c.p;
	uint64_t raw_len = c.end - c.p;
	struct jfr_meta *last = r->last_meta;
	if (last && last->id == id && last->raw_len == raw_len &&
	    !memcmp(last->raw, raw, raw_len)) {
		*out = last;
		return 0;
	}
	if (jfr_meta_cache_fits(r->meta_cache, raw_len))
		return meta_parse_cached(r, &c, &b, off, id, out);
	return meta_parse_body(r, &c, &b, off, id, raw, raw_len, out);
}

/* ---- constant pools ---- */

static int pool_insert(struct jfr_chunk *ch, uint64_t type_id, uint64_t key, uint64_t off)
{
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&ch->pool, type_id, key, &fresh);

	if (!s)
		return -1;
	s->v = off; /* a later definition wins */
	return 0;
}

int jfr_checkpoint_parse(struct jfr_reader *r, struct jfr_chunk *ch, uint64_t off, uint64_t limit,
                         int64_t *delta)
{
	struct jfr_cur c;

	jfr_cur_init(&c, r, off, limit);
	uint64_t size = jfr_varint(&c);
	if (c.bad)
		return -1;
	if (size < 2 || size > limit - off)
		return jfr_fail(
		    r, off, "checkpoint size %llu does not fit %s", (unsigned long long)size,
		    limit == ch->off + ch->size ? "in the chunk"
		                                : "before the checkpoint that points at it");
	c.end = r->data + off + size;
	uint64_t type = jfr_varint(&c);
	if (!c.bad && type != JFR_EVENT_CHECKPOINT)
		return jfr_fail(r, off, "constant-pool chain points to an event of type %llu",
		                (unsigned long long)type);
	jfr_varint(&c); /* startTicks */
	jfr_varint(&c); /* duration */
	*delta = (int64_t)jfr_varint(&c);
	jfr_u8(&c); /* typeFlags */
	uint64_t npools = jfr_varint(&c);
	for (uint64_t i = 0; i < npools && !c.bad; i++) {
		uint64_t tid = jfr_varint(&c);
		uint64_t count = jfr_varint(&c);
		if (c.bad)
			break;
		const struct jfr_type *t = jfr_type_by_id(ch->meta, tid);
		if (!t)
			return jfr_cur_fail(&c, "constant pool of undeclared type id %llu",
			                    (unsigned long long)tid);
		if (r->hooks && r->hooks->pool &&
		    r->hooks->pool(r->hooks->arg, ch, jfr_cur_off(&c), t, count))
			return -1;
		if (count > (uint64_t)(c.end - c.p))
			return jfr_cur_fail(&c,
			                    "constant pool %s with %llu entries runs past the end",
			                    t->name, (unsigned long long)count);
		for (uint64_t k = 0; k < count && !c.bad; k++) {
			uint64_t key = jfr_varint(&c);
			uint64_t voff = jfr_cur_off(&c);
			jfr_skip_value(&c, t, 0);
			if (!c.bad && r->hooks && r->hooks->entry &&
			    r->hooks->entry(r->hooks->arg, ch, t, key, voff, jfr_cur_off(&c)))
				return -1;
			if (!c.bad && pool_insert(ch, tid, key, voff) < 0)
				return jfr_cur_fail(&c, "out of memory");
		}
	}
	if (c.bad)
		return -1;
	if (c.p != c.end)
		return jfr_fail(r, jfr_cur_off(&c),
		                "checkpoint at offset %llu has %lld bytes left after its pools",
		                (unsigned long long)off, (long long)(c.end - c.p));
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* A strict structural checker for JFR files (see check.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jfr/check.h"
#include "jfr/encode.h"

#define HEADER_SIZE 68
#define MAX_DEPTH 16

struct mfield {
	char *name;
	uint64_t type;
	bool cp, array;
};

struct mclass {
	uint64_t id;
	char *name;
	bool event, simple;
	unsigned kind; /* K_* for primitives and String, K_CLASS otherwise */
	struct mfield *fields;
	unsigned nfields;
};

enum { K_CLASS, K_BYTE1, K_VARINT, K_FLOAT, K_DOUBLE, K_STRING };

/* open-addressing map from a 64-bit key (never 0) to a 64-bit value */
struct map {
	uint64_t *k, *v;
	size_t n, cap;
};

struct ctx {
	const uint8_t *d;
	size_t len;
	char *err;
	size_t errlen;
	struct lfr_jfr_check_result *r;

	/* per chunk */
	uint64_t cstart, cend;
	struct mclass *classes;
	unsigned nclasses;
	char **strings;
	uint64_t nstrings;
	struct map entries; /* (type, key) of the chunk's pool entries */
	uint64_t *refs;     /* (type, key) pairs referenced, checked at chunk end */
	size_t nrefs, refcap;
	/* whole file */
	struct map values; /* (type, key) -> hash of the value's bytes */
	uint64_t last_ticks_seen;
};

static int bad(struct ctx *c, uint64_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(struct ctx *c, uint64_t pos, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, c->errlen, "offset %llu: ", (unsigned long long)pos);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < c->errlen)
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t mix(uint64_t type, uint64_t key)
{
	uint64_t h = (type * 0x9e3779b97f4a7c15ULL) ^ (key + 0x632be59bd9b4e019ULL);

	h ^= h >> 31;
	return h ? h : 1;
}

static int map_put(struct map *m, uint64_t k, uint64_t v, uint64_t *old)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		uint64_t *nk = calloc(cap, 8), *nv = calloc(cap, 8);

		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->k[i])
				continue;
			size_t s = m->k[i] & (cap - 1);
			while (nk[s])
				s = (s + 1) & (cap - 1);
			nk[s] = m->k[i];
			nv[s] = m->v[i];
		}
		free(m->k);
		free(m->v);
		m->k = nk;
		m->v = nv;
		m->cap = cap;
	}
	size_t s = k & (m->cap - 1);
	while (m->k[s] && m->k[s] != k)
		s = (s + 1) & (m->cap - 1);
	if (m->k[s]) {
		*old = m->v[s];
		return 1;
	}
	m->k[s] = k;
	m->v[s] = v;
	m->n++;
	return 0;
}

static bool map_has(const struct map *m, uint64_t k)
{
	if (!m->cap)
		return false;
	for (size_t s = k & (m->cap - 1); m->k[s]; s = (s + 1) & (m->cap - 1))
		if (m->k[s] == k)
			return true;
	return false;
}

static void map_free(struct map *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* ---- primitive reads; all bounded by end ---- */

static int rd_varint(struct ctx *c, uint64_t *pos, uint64_t end, uint64_t *v)
{
	unsigned n = *pos < end ? jfr_varint_decode(c->d + *pos, end - *pos, v) : 0;

	if (!n)
		return bad(c, *pos, "truncated number");
	*pos += n;
	return 0;
}

static int rd_string(struct ctx *c, uint64_t *pos, uint64_t end, bool in_metadata, const char **s,
                     size_t *slen)
{
	uint64_t n, v;

	if (*pos >= end)
		return bad(c, *pos, "truncated string");
	uint8_t enc = c->d[(*pos)++];
	*s = NULL;
	*slen = 0;
	switch (enc) {
	case JFR_STR_NULL:
	case JFR_STR_EMPTY:
		return 0;
	case JFR_STR_POOL:
		if (in_metadata)
			return bad(c, *pos, "constant-pool string in the metadata string table");
		return rd_varint(c, pos, end, &v);
	case JFR_STR_UTF8:
	case JFR_STR_LATIN1:
		if (rd_varint(c, pos, end, &n))
			return -1;
		if (n > end - *pos)
			return bad(c, *pos, "string of %llu bytes runs past its event",
			           (unsigned long long)n);
		*s = (const char *)c->d + *pos;
		*slen = n;
		*pos += n;
		return 0;
	case JFR_STR_CHARS:
		if (rd_varint(c, pos, end, &n))
			return -1;
		for (uint64_t i = 0; i < n; i++)
			if (rd_varint(c, pos, end, &v))
				return -1;
		return 0;
	default:
		return bad(c, *pos - 1, "unknown string encoding %u", enc);
	}
}

/* ---- metadata ---- */

static void free_chunk(struct ctx *c)
{
	for (unsigned i = 0; i < c->nclasses; i++) {
		for (unsigned j = 0; j < c->classes[i].nfields; j++)
			free(c->classes[i].fields[j].name);
		free(c->classes[i].fields);
		free(c->classes[i].name);
	}
	free(c->classes);
	c->classes = NULL;
	c->nclasses = 0;
	for (uint64_t i = 0; i < c->nstrings; i++)
		free(c->strings[i]);
	free(c->strings);
	c->strings = NULL;
	c->nstrings = 0;
	map_free(&c->entries);
	c->nrefs = 0;
}

static const char *str_at(struct ctx *c, uint64_t i)
{
	return i < c->nstrings ? c->strings[i] : NULL;
}

static struct mclass *find_class(struct ctx *c, uint64_t id)
{
	for (unsigned i = 0; i < c->nclasses; i++)
		if (c->classes[i].id == id)
			return &c->classes[i];
	return NULL;
}

struct attrs {
	const char *k[16], *v[16];
	unsigned n;
};

static const char *attr(const struct attrs *a, const char *k)
{
	for (unsigned i = 0; i < a->n; i++)
		if (!strcmp(a->k[i], k))
			return a->v[i];
	return NULL;
}

static int element(struct ctx *c, uint64_t *pos, uint64_t end, int depth, const char *parent,
                   struct mclass *cls, bool *region)
{
	uint64_t name_i, nattr, nchild;
	struct attrs a = {0};

	if (depth > MAX_DEPTH)
		return bad(c, *pos, "metadata nested too deeply");
	if (rd_varint(c, pos, end, &name_i) || rd_varint(c, pos, end, &nattr))
		return -1;
	const char *name = str_at(c, name_i);
	if (!name)
		return bad(c, *pos, "metadata element name index %llu out of range",
		           (unsigned long long)name_i);
	for (uint64_t i = 0; i < nattr; i++) {
		uint64_t k, v;

		if (rd_varint(c, pos, end, &k) || rd_varint(c, pos, end, &v))
			return -1;
		if (!str_at(c, k) || !str_at(c, v))
			return bad(c, *pos, "metadata attribute index out of range");
		if (a.n < 16) {
			a.k[a.n] = str_at(c, k);
			a.v[a.n++] = str_at(c, v);
		}
	}
	/* the element tree JMC accepts: it rejects any other child */
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
	bool ok = false;
	for (unsigned i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		ok |= !strcmp(parent, allowed[i][0]) && !strcmp(name, allowed[i][1]);
	if (!ok)
		return bad(c, *pos, "metadata element \"%s\" inside \"%s\" (JMC rejects it)", name,
		           parent);
	if (!strcmp(name, "region")) {
		if (strcmp(parent, "root"))
			return bad(c, *pos, "region element outside root");
		*region = true;
	}
	struct mclass *self = cls;
	if (!strcmp(name, "class")) {
		const char *id = attr(&a, "id"), *cname = attr(&a, "name");

		if (!id || !cname)
			return bad(c, *pos, "class element without id or name");
		struct mclass *p = realloc(c->classes, (c->nclasses + 1) * sizeof(*p));
		if (!p)
			return bad(c, *pos, "out of memory");
		c->classes = p;
		self = &c->classes[c->nclasses++];
		memset(self, 0, sizeof(*self));
		self->id = strtoull(id, NULL, 10);
		self->name = strdup(cname);
		const char *super = attr(&a, "superType");
		self->event = super && !strcmp(super, "jdk.jfr.Event");
		self->simple = attr(&a, "simpleType") != NULL;
		static const struct {
			const char *n;
			unsigned k;
		} prim[] = {
		    {"boolean", K_BYTE1}, {"byte", K_BYTE1},    {"char", K_VARINT},
		    {"short", K_VARINT},  {"int", K_VARINT},    {"long", K_VARINT},
		    {"float", K_FLOAT},   {"double", K_DOUBLE}, {"java.lang.String", K_STRING}};
		for (unsigned i = 0; i < sizeof(prim) / sizeof(prim[0]); i++)
			if (!strcmp(cname, prim[i].n))
				self->kind = prim[i].k;
		if (!self->name)
			return bad(c, *pos, "out of memory");
	} else if (!strcmp(name, "field") && cls) {
		const char *fname = attr(&a, "name"), *ftype = attr(&a, "class");

		if (!fname || !ftype)
			return bad(c, *pos, "field element without name or class");
		struct mfield *f = realloc(cls->fields, (cls->nfields + 1) * sizeof(*f));
		if (!f)
			return bad(c, *pos, "out of memory");
		cls->fields = f;
		f = &cls->fields[cls->nfields++];
		f->name = strdup(fname);
		f->type = strtoull(ftype, NULL, 10);
		const char *cp = attr(&a, "constantPool"), *dim = attr(&a, "dimension");
		if ((cp && strcmp(cp, "true")) || (dim && strcmp(dim, "1")))
			return bad(c, *pos, "field %s: constantPool/dimension other than true/1",
			           fname);
		f->cp = cp != NULL;
		f->array = dim != NULL;
	}
	if (rd_varint(c, pos, end, &nchild))
		return -1;
	/* fields attach to the class being described; no class is nested in another, so the
	 * array does not move while its children are read */
	struct mclass *owner = self && !strcmp(name, "class") ? &c->classes[c->nclasses - 1] : NULL;
	for (uint64_t i = 0; i < nchild; i++)
		if (element(c, pos, end, depth + 1, name, owner, region))
			return -1;
	return 0;
}

static int read_metadata(struct ctx *c, uint64_t pos)
{
	uint64_t size, type, v, start = pos;

	if (rd_varint(c, &pos, c->cend, &size))
		return -1;
	uint64_t end = start + size;
	if (!size || end > c->cend)
		return bad(c, start, "metadata event size %llu out of its chunk",
		           (unsigned long long)size);
	if (rd_varint(c, &pos, end, &type) || type != 0)
		return bad(c, start, "metadataOffset does not point at a metadata event");
	for (int i = 0; i < 3; i++) /* start ticks, duration, metadata id */
		if (rd_varint(c, &pos, end, &v))
			return -1;
	if (rd_varint(c, &pos, end, &c->nstrings))
		return -1;
	if (c->nstrings > size)
		return bad(c, pos, "metadata string count %llu too large",
		           (unsigned long long)c->nstrings);
	c->strings = calloc(c->nstrings ? c->nstrings : 1, sizeof(char *));
	if (!c->strings)
		return bad(c, pos, "out of memory");
	for (uint64_t i = 0; i < c->nstrings; i++) {
		const char *s;
		size_t n;

		if (rd_string(c, &pos, end, true, &s, &n))
			return -1;
		c->strings[i] = s ? strndup(s, n) : strdup("");
		if (!c->strings[i])
			return bad(c, pos, "out of memory");
	}
	bool region = false;
	if (element(c, &pos, end, 0, "", NULL, &region))
		return -1;
	if (!region)
		return bad(c, start, "metadata without the region element (the JDK requires it)");
	if (pos != end)
		return bad(c, pos, "metadata content ends %lld bytes before its size says",
		           (long long)(end - pos));
	for (unsigned i = 0; i < c->nclasses; i++)
		for (unsigned j = 0; j < c->classes[i].nfields; j++)
			if (!find_class(c, c->classes[i].fields[j].type))
				return bad(c, start, "field %s.%s refers to undeclared type %llu",
				           c->classes[i].name, c->classes[i].fields[j].name,
				           (unsigned long long)c->classes[i].fields[j].type);
	return 0;
}

/* ---- values ---- */

static int add_ref(struct ctx *c, uint64_t type, uint64_t key)
{
	if (!key)
		return 0;
	if (c->nrefs == c->refcap) {
		size_t cap = c->refcap ? c->refcap * 2 : 1024;
		uint64_t *p = realloc(c->refs, cap * 2 * sizeof(*p));

		if (!p)
			return -1;
		c->refs = p;
		c->refcap = cap;
	}
	c->refs[2 * c->nrefs] = type;
	c->refs[2 * c->nrefs + 1] = key;
	c->nrefs++;
	return 0;
}

static int value(struct ctx *c, uint64_t *pos, uint64_t end, uint64_t type, int depth)
{
	struct mclass *cls = find_class(c, type);
	uint64_t v;

	if (!cls)
		return bad(c, *pos, "value of undeclared type %llu", (unsigned long long)type);
	if (depth > MAX_DEPTH)
		return bad(c, *pos, "values nested too deeply");
	switch (cls->kind) {
	case K_BYTE1:
		if (*pos + 1 > end)
			return bad(c, *pos, "truncated %s", cls->name);
		*pos += 1;
		return 0;
	case K_FLOAT:
	case K_DOUBLE: {
		unsigned n = cls->kind == K_FLOAT ? 4 : 8;
		if (*pos + n > end)
			return bad(c, *pos, "truncated %s", cls->name);
		*pos += n;
		return 0;
	}
	case K_VARINT:
		return rd_varint(c, pos, end, &v);
	case K_STRING: {
		const char *s;
		size_t n;
		uint64_t before = *pos;

		if (rd_string(c, pos, end, false, &s, &n))
			return -1;
		if (c->d[before] == JFR_STR_POOL) {
			uint64_t p2 = before + 1;
			rd_varint(c, &p2, end, &v);
			return add_ref(c, type, v);
		}
		return 0;
	}
	}
	for (unsigned i = 0; i < cls->nfields; i++) {
		struct mfield *f = &cls->fields[i];
		uint64_t n = 1;

		if (f->array && rd_varint(c, pos, end, &n))
			return -1;
		if (n > end - *pos)
			return bad(c, *pos, "array %s.%s of %llu elements runs past its event",
			           cls->name, f->name, (unsigned long long)n);
		for (uint64_t j = 0; j < n; j++) {
			if (f->cp) {
				if (rd_varint(c, pos, end, &v) || add_ref(c, f->type, v))
					return -1;
			} else if (value(c, pos, end, f->type, depth + 1)) {
				return -1;
			}
		}
	}
	return 0;
}

static uint64_t bytes_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static int read_checkpoint(struct ctx *c, uint64_t start, int64_t *delta)
{
	uint64_t pos = start, size, type, v, npools;

	if (rd_varint(c, &pos, c->cend, &size))
		return -1;
	uint64_t end = start + size;
	if (!size || end > c->cend)
		return bad(c, start, "checkpoint size %llu out of its chunk",
		           (unsigned long long)size);
	if (rd_varint(c, &pos, end, &type) || type != 1)
		return bad(c, start, "constant-pool chain points at an event of type %llu, not 1",
		           (unsigned long long)type);
	if (rd_varint(c, &pos, end, &v) || rd_varint(c, &pos, end, &v) ||
	    rd_varint(c, &pos, end, &v))
		return -1;
	*delta = (int64_t)v;
	if (pos >= end)
		return bad(c, pos, "truncated checkpoint");
	pos++; /* type flags */
	if (rd_varint(c, &pos, end, &npools))
		return -1;
	for (uint64_t p = 0; p < npools; p++) {
		uint64_t ptype, count;

		if (rd_varint(c, &pos, end, &ptype) || rd_varint(c, &pos, end, &count))
			return -1;
		if (!find_class(c, ptype))
			return bad(c, pos, "pool of undeclared type %llu",
			           (unsigned long long)ptype);
		if (!count)
			return bad(c, pos, "empty pool of type %llu (crashes the JDK)",
			           (unsigned long long)ptype);
		for (uint64_t i = 0; i < count; i++) {
			uint64_t key, old;

			if (rd_varint(c, &pos, end, &key))
				return -1;
			uint64_t vstart = pos;
			if (value(c, &pos, end, ptype, 0))
				return -1;
			uint64_t h = bytes_hash(c->d + vstart, pos - vstart);
			int r = map_put(&c->values, mix(ptype, key), h, &old);
			if (r < 0)
				return bad(c, pos, "out of memory");
			if (r > 0 && old != h)
				return bad(c, vstart,
				           "pool %llu key %llu reused with a different value "
				           "(readers keep the first one)",
				           (unsigned long long)ptype, (unsigned long long)key);
			if (map_put(&c->entries, mix(ptype, key), 1, &old) < 0)
				return bad(c, pos, "out of memory");
			c->r->pool_entries++;
		}
	}
	if (pos != end)
		return bad(c, pos, "checkpoint content and size differ by %lld bytes",
		           (long long)(end - pos));
	c->r->checkpoints++;
	return 0;
}

static void count_type(struct ctx *c, const char *name)
{
	struct lfr_jfr_check_result *r = c->r;

	for (unsigned i = 0; i < r->ntypes; i++) {
		if (!strcmp(r->types[i].name, name)) {
			r->types[i].count++;
			return;
		}
	}
	if (r->ntypes < LFR_JFR_CHECK_MAX_TYPES) {
		snprintf(r->types[r->ntypes].name, sizeof(r->types[0].name), "%s", name);
		r->types[r->ntypes++].count = 1;
	}
}

/*
 * Walks the events as the JDK does (to the chunk end, skipping types 0 and 1) and checks what JMC
 * needs as well: JMC stops at the first type-0 event, so one must exist, and the events after it
 * are invisible to JMC (counted apart: a complete file has none).
 */
static int read_events(struct ctx *c)
{
	uint64_t pos = c->cstart + HEADER_SIZE;
	bool stopped = false; /* JMC's walk has ended */

	while (pos < c->cend) {
		uint64_t start = pos, size, type;

		if (rd_varint(c, &pos, c->cend, &size))
			return -1;
		if (!size)
			return bad(c, start, "event of size 0 (readers fail or hang)");
		if (rd_varint(c, &pos, c->cend, &type))
			return -1;
		if (type == 0 || type == 1) {
			/* a filler may reach past the chunk end while the writer grows or ends a
			 * chunk: the JDK stops at the chunk end, as this loop does; JMC must have
			 * stopped before */
			if (start + size > c->cend && !stopped)
				return bad(c, start, "event of size %llu runs past its chunk",
				           (unsigned long long)size);
			stopped |= type == 0;
			pos = start + size;
			continue;
		}

		if (start + size > c->cend)
			return bad(c, start, "event of size %llu runs past its chunk",
			           (unsigned long long)size);
		struct mclass *cls = find_class(c, type);
		if (!cls || !cls->event)
			return bad(c, start, "event of undeclared type %llu",
			           (unsigned long long)type);
		if (!cls->nfields || strcmp(cls->fields[0].name, "startTime"))
			return bad(c, start, "event type %s does not start with startTime",
			           cls->name);
		uint64_t tpos = pos, ticks;
		if (rd_varint(c, &tpos, start + size, &ticks))
			return -1;
		if (!c->r->events || ticks < c->r->first_ticks)
			c->r->first_ticks = ticks;
		if (ticks > c->r->last_ticks)
			c->r->last_ticks = ticks;
		if (c->r->events && ticks < c->last_ticks_seen)
			c->r->time_ordered = false;
		c->last_ticks_seen = ticks;
		if (value(c, &pos, start + size, type, 0))
			return -1;
		if (pos != start + size)
			return bad(c, start, "%s event: fields end %lld bytes before its size",
			           cls->name, (long long)(start + size - pos));
		count_type(c, cls->name);
		c->r->events++;
		c->r->jmc_events += !stopped;
	}
	if (!stopped)
		return bad(c, c->cstart,
		           "no metadata event in the event walk: JMC reads past the chunk");
	return 0;
}

static int read_chunk(struct ctx *c, uint64_t off, bool *final)
{
	const uint8_t *h = c->d + off;

	if (c->len - off < HEADER_SIZE)
		return bad(c, off, "%llu bytes after the last chunk, too few for a chunk header",
		           (unsigned long long)(c->len - off));
	if (memcmp(h, "FLR", 4))
		return bad(c, off, "bad chunk magic");
	uint16_t major = jfr_get_be16(h + 4);
	if (major != 1 && major != 2)
		return bad(c, off, "unsupported version %u", major);
	uint64_t size = jfr_get_be64(h + 8), cp = jfr_get_be64(h + 16), meta = jfr_get_be64(h + 24);
	if (size <= HEADER_SIZE || size > c->len - off)
		return bad(c, off, "chunk size %llu beyond the end of the file (%llu bytes left)",
		           (unsigned long long)size, (unsigned long long)(c->len - off));
	if (!meta || meta < HEADER_SIZE || meta >= size)
		return bad(c, off, "metadata offset %llu outside the chunk",
		           (unsigned long long)meta);
	if (!cp || cp < HEADER_SIZE || cp >= size)
		return bad(c, off, "constant-pool offset %llu outside the chunk",
		           (unsigned long long)cp);
	if ((int64_t)jfr_get_be64(h + 56) <= 0)
		return bad(c, off, "ticksPerSecond must be positive");
	if (h[64] != 0)
		return bad(c, off, "chunk state %u: not finished (JDK 25 rejects it)", h[64]);
	uint16_t flags = jfr_get_be16(h + 66);
	*final = flags & 2;
	c->cstart = off;
	c->cend = off + size;
	if (read_metadata(c, off + meta))
		return -1;
	uint64_t at = off + cp;
	for (unsigned n = 0;; n++) {
		int64_t delta = 0;

		if (n > 1000000)
			return bad(c, at, "constant-pool chain does not end");
		if (read_checkpoint(c, at, &delta))
			return -1;
		if (!delta)
			break;
		if ((delta < 0 && (uint64_t)-delta > at - off) ||
		    (delta > 0 && at + delta >= c->cend))
			return bad(c, at, "checkpoint delta %lld leaves the chunk",
			           (long long)delta);
		at += (uint64_t)delta;
	}
	if (read_events(c))
		return -1;
	for (size_t i = 0; i < c->nrefs; i++) {
		uint64_t t = c->refs[2 * i], k = c->refs[2 * i + 1];
		if (!map_has(&c->entries, mix(t, k)))
			return bad(c, off,
			           "reference to key %llu of type %llu not in this chunk's pools",
			           (unsigned long long)k, (unsigned long long)t);
	}
	c->r->references += c->nrefs;
	return 0;
}

int lfr_jfr_check_buffer(const uint8_t *data, size_t len, struct lfr_jfr_check_result *r, char *err,
                         size_t errlen)
{
	struct ctx c = {.d = data, .len = len, .err = err, .errlen = errlen, .r = r};
	uint64_t off = 0;
	bool final = false;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->time_ordered = true;
	if (errlen)
		err[0] = 0;
	if (!len) {
		bad(&c, 0, "empty file");
		return -1;
	}
	while (off < len) {
		if (final) {
			ret = bad(&c, off, "chunk after the chunk flagged final");
			break;
		}
		ret = read_chunk(&c, off, &final);
		free_chunk(&c);
		if (ret)
			break;
		r->chunks++;
		off = c.cend;
	}
	r->last_chunk_final = final;
	free(c.refs);
	map_free(&c.values);
	free_chunk(&c);
	return ret;
}

int lfr_jfr_check_file(const char *path, struct lfr_jfr_check_result *r, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!st.st_size) {
		close(fd);
		memset(r, 0, sizeof(*r));
		snprintf(err, errlen, "%s: empty file", path);
		return -1;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
		return -1;
	}
	int ret = lfr_jfr_check_buffer(p, (size_t)st.st_size, r, err, errlen);
	munmap(p, (size_t)st.st_size);
	return ret;
}

uint64_t lfr_jfr_check_count(const struct lfr_jfr_check_result *r, const char *type_name)
{
	for (unsigned i = 0; i < r->ntypes; i++)
		if (!strcmp(r->types[i].name, type_name))
			return r->types[i].count;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* The trace contexts of a recording's samples (contexts.h). */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/contexts.h"

bool report_ctx_filtering(const struct report_opts *o)
{
	return o->nspans || o->ntraces;
}

bool report_ctx_wanted(const struct report_opts *o)
{
	return o->contexts || o->sort_ctx || report_ctx_filtering(o);
}

/* One context's pool value, decoded. */
struct decoded {
	char trace[33], span[17];
	uint8_t flags;
	unsigned int nattrs;
	char attrs[4096];
	size_t attrs_len;
};

static int read_field_string(struct jfr_reader *r, const struct jfr_chunk *ch,
                             const struct jfr_type *t, uint64_t off, const char *name, char *buf,
                             size_t n)
{
	struct jfr_cur c;
	const struct jfr_field *f = jfr_value_field(r, ch, t, off, name, &c);

	buf[0] = 0;
	if (!f || f->array || f->type->kind != JFR_K_STRING)
		return -1;
	return jfr_read_string(&c, ch, buf, n);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

/* Percent-decodes s[0..n) into out (room for n + 1), trimmed of blanks; its length. */
static size_t unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] == '%' && i + 2 < n && (hi = hexval(s[i + 1])) >= 0 &&
		    (lo = hexval(s[i + 2])) >= 0) {
			out[o++] = (char)(hi << 4 | lo);
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = 0;
	return o;
}

/*
 * The attributes, a W3C baggage string (key=value,key=value, percent-encoded; a member's
 * ";properties" ignored): each key and value, NUL-terminated, appended to d->attrs.
 */
static void read_attrs(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
                       uint64_t off, struct decoded *d)
{
	char s[8192];
	const char *p = s;

	if (read_field_string(r, ch, t, off, "attributes", s, sizeof(s)) < 0)
		return;
	while (*p) {
		size_t n = strcspn(p, ","), klen = strcspn(p, "=;"), vlen;
		char key[1024], value[1024];

		if (klen < n && p[klen] == '=' && klen < sizeof(key) &&
		    n - klen - 1 < sizeof(value)) {
			vlen = strcspn(p + klen + 1, ";,");
			unescape(p, klen, key);
			unescape(p + klen + 1, vlen, value);
			size_t kl = strlen(key) + 1, vl = strlen(value) + 1;

			if (key[0] && d->attrs_len + kl + vl <= sizeof(d->attrs)) {
				memcpy(d->attrs + d->attrs_len, key, kl);
				memcpy(d->attrs + d->attrs_len + kl, value, vl);
				d->attrs_len += kl + vl;
				d->nattrs++;
			}
		}
		p += n + (p[n] == ',');
	}
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* The context of pool key key; false when the chunk's pools do not have it. */
static bool decode(struct ctx_chunk *c, struct jfr_reader *r, const struct jfr_chunk *ch,
                   uint64_t key, bool attrs, struct decoded *d)
{
	uint64_t off = jfr_pool_lookup(ch, c->ctx_type->id, key);
	struct jfr_cur cur;
	const struct jfr_field *f;

	memset(d, 0, offsetof(struct decoded, attrs));
	d->attrs_len = 0;
	if (!off ||
	    read_field_string(r, ch, c->ctx_type, off, "traceId", d->trace, sizeof(d->trace)) < 0 ||
	    read_field_string(r, ch, c->ctx_type, off, "spanId", d->span, sizeof(d->span)) < 0)
		return false;
	lower(d->trace);
	lower(d->span);
	f = jfr_value_field(r, ch, c->ctx_type, off, "traceFlags", &cur);
	if (f && !f->cp && !f->array && (f->type->kind == JFR_K_INT || f->type->kind == JFR_K_BYTE))
		d->flags = (uint8_t)jfr_read_scalar(&cur, f);
	if (attrs)
		read_attrs(r, ch, c->ctx_type, off, d);
	return true;
}

static bool any_equal(const char *const *v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcasecmp(v[i], s))
			return true;
	return false;
}

int ctx_chunk_prepare(struct ctx_chunk *c, struct jfr_reader *r, const struct jfr_chunk *ch,
                      const struct report_opts *o)
{
	const struct jfr_meta *m = ch->meta;
	struct decoded d;

	memset(c, 0, sizeof(*c));
	c->filter = report_ctx_filtering(o);
	if (!report_ctx_wanted(o))
		return 0;
	c->ev = jfr_type_by_name(m, "lfr.TraceContext");
	c->ctx_type = jfr_type_by_name(m, "lfr.types.TraceContext");
	if (!c->ev || !c->ctx_type)
		return 0;
	c->f_time = jfr_field_index(c->ev, "startTime");
	c->f_thread = jfr_field_index(c->ev, "sampledThread");
	c->f_ctx = jfr_field_index(c->ev, "context");
	if (c->f_time < 0 || c->f_thread < 0 || c->f_ctx < 0 || !c->ev->fields[c->f_ctx].cp ||
	    !c->ev->fields[c->f_thread].cp || c->ev->fields[c->f_time].cp)
		return 0;
	c->nread = 1 + (c->f_time > c->f_thread ? c->f_time : c->f_thread);
	if (c->f_ctx + 1 > c->nread)
		c->nread = c->f_ctx + 1;
	/* the chunk's contexts: its pool entries of the type, each given an index */
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&ch->pool, s));) {
		struct hashtab_slot *k;
		bool fresh;

		if (s->a != c->ctx_type->id)
			continue;
		k = hashtab_put(&c->keys, s->b, 0, &fresh);
		if (!k)
			return -1;
		if (!fresh)
			continue;
		if (!(c->n % 64)) {
			size_t cap = c->n + 65;
			uint64_t *pk = realloc(c->pool_keys, cap * sizeof(*pk));
			uint8_t *pass = pk ? realloc(c->pass, cap) : NULL;

			if (pk)
				c->pool_keys = pk;
			if (!pass)
				return -1;
			c->pass = pass;
		}
		k->v = ++c->n;
		c->pool_keys[c->n] = s->b;
		c->pass[c->n] = !c->filter || (decode(c, r, ch, s->b, false, &d) &&
		                               (any_equal(o->spans, o->nspans, d.span) ||
		                                any_equal(o->traces, o->ntraces, d.trace)));
	}
	if (!c->n)
		return 0; /* no context to find: the chunk's events are not scanned for them */
	c->global = calloc(c->n + 1, sizeof(*c->global));
	if (!c->global)
		return -1;
	c->on = true;
	return 0;
}

int ctx_chunk_scan(struct ctx_chunk *c, struct jfr_reader *r, const struct jfr_chunk *ch)
{
	const uint8_t *p = r->data + ch->off + JFR_CHUNK_HEADER_SIZE;
	const uint8_t *end = r->data + ch->off + ch->size;

	if (!c->on)
		return 0;
	while (p < end) {
		struct jfr_cur cur = {.p = p, .end = end, .r = r};
		uint64_t size = jfr_varint(&cur), v[3] = {0, 0, 0};

		if (cur.bad || !size || size > (uint64_t)(end - p))
			return 1; /* the sample scan says what is wrong */
		cur.end = p + size;
		p += size;
		if (jfr_varint(&cur) != c->ev->id)
			continue;
		for (int i = 0; i < c->nread && !cur.bad; i++) {
			const struct jfr_field *f = &c->ev->fields[i];

			if (i == c->f_time || i == c->f_thread || i == c->f_ctx)
				v[i == c->f_time ? 0 : i == c->f_thread ? 1 : 2] = jfr_varint(&cur);
			else
				jfr_skip_field(&cur, f);
		}
		if (cur.bad)
			return 1;
		const struct hashtab_slot *k = hashtab_get(&c->keys, v[2], 0);
		bool fresh;
		struct hashtab_slot *s;

		if (!k)
			continue; /* a context the chunk's pools lack: none */
		s = hashtab_put(&c->of, v[1], v[0], &fresh);
		if (!s)
			return -1;
		s->v = k->v;
	}
	return 0;
}

uint32_t ctx_chunk_global(struct ctx_chunk *c, struct report *rep, struct hashtab *ids,
                          struct jfr_reader *r, const struct jfr_chunk *ch, uint32_t i)
{
	struct report_context *x;
	struct hashtab_slot *s;
	struct decoded d;
	char *key;
	size_t len;
	bool fresh;

	if (!i || i > c->n)
		return 0;
	if (c->global[i])
		return c->global[i];
	if (!decode(c, r, ch, c->pool_keys[i], true, &d))
		return 0;
	if (!rep->ncontexts) {
		/* [0]: no context */
		rep->contexts = calloc(64, sizeof(*rep->contexts));
		if (!rep->contexts)
			return UINT32_MAX;
		rep->contexts_cap = 64;
		rep->ncontexts = 1;
	}
	/* interned by its whole content: ids, flags, attributes */
	len = sizeof(d.trace) + sizeof(d.span) + 1 + d.attrs_len;
	key = malloc(len);
	if (!key)
		return UINT32_MAX;
	memcpy(key, d.trace, sizeof(d.trace));
	memcpy(key + sizeof(d.trace), d.span, sizeof(d.span));
	key[sizeof(d.trace) + sizeof(d.span)] = (char)d.flags;
	memcpy(key + sizeof(d.trace) + sizeof(d.span) + 1, d.attrs, d.attrs_len);
	s = hashtab_put_bytes(ids, key, len, &fresh);
	if (!s) {
		free(key);
		return UINT32_MAX;
	}
	if (!fresh) {
		free(key);
		return c->global[i] = (uint32_t)s->v;
	}
	if (rep->ncontexts == rep->contexts_cap) {
		struct report_context *g =
		    realloc(rep->contexts, 2 * rep->contexts_cap * sizeof(*rep->contexts));

		if (!g) {
			hashtab_del(ids, s);
			free(key);
			return UINT32_MAX;
		}
		rep->contexts = g;
		rep->contexts_cap *= 2;
	}
	x = &rep->contexts[rep->ncontexts];
	memset(x, 0, sizeof(*x));
	memcpy(x->trace_id, d.trace, sizeof(x->trace_id));
	memcpy(x->span_id, d.span, sizeof(x->span_id));
	x->flags = d.flags;
	x->nattrs = d.nattrs;
	x->attrs_len = d.attrs_len;
	x->attrs = d.attrs_len ? key + sizeof(d.trace) + sizeof(d.span) + 1 : NULL;
	x->key = key;
	x->key_len = len;
	s->b = (uint64_t)(uintptr_t)key;
	s->v = rep->ncontexts++;
	return c->global[i] = (uint32_t)s->v;
}

void ctx_chunk_free(struct ctx_chunk *c)
{
	hashtab_free(&c->keys);
	hashtab_free(&c->of);
	free(c->pool_keys);
	free(c->pass);
	free(c->global);
	memset(c, 0, sizeof(*c));
}

void report_contexts_free(struct report *rep)
{
	for (size_t i = 1; i < rep->ncontexts; i++)
		free(rep->contexts[i].key);
	free(rep->contexts);
	rep->contexts = NULL;
	rep->ncontexts = rep->contexts_cap = 0;
}

// SPDX-License-Identifier: GPL-2.0
/* JFR reader: file mapping, chunk headers, metadata, constant pools, generic value decoding. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jfr/reader.h"
#include "lib/regular_file.h"

#define MAX_DEPTH 32 /* nesting of metadata elements and of inline values */

/* ---- arena: everything the metadata owns lives here and is freed with the reader ---- */

struct jfr_arena_block {
	struct jfr_arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

static void *arena_alloc(struct jfr_reader *r, size_t n)
{
	struct jfr_arena_block *b = r->arena;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->next = r->arena;
		r->arena = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

/* ---- errors ---- */

int jfr_fail(struct jfr_reader *r, uint64_t off, const char *fmt, ...)
{
	if (r->failed)
		return -1;
	r->failed = true;
	int n =
	    snprintf(r->err, sizeof(r->err), "%s: offset %llu: ", r->name, (unsigned long long)off);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

int jfr_cur_fail(struct jfr_cur *c, const char *fmt, ...)
{
	if (!c->bad && !c->r->failed) {
		char msg[256];
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		jfr_fail(c->r, jfr_cur_off(c), "%s", msg);
	}
	c->bad = true;
	c->p = c->end;
	return -1;
}

/* ---- open / close ---- */

struct jfr_reader *jfr_open_mem(const void *data, size_t size, const char *name)
{
	struct jfr_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->name = name ? name : "(memory)";
	r->data = data;
	r->size = size;
	r->fd = -1;
	return r;
}

static uint64_t be(const uint8_t *p, int n);

/* Reads LEN bytes of FD at OFF into DATA.  0, or -1 with a message in ERR. */
static int read_at(int fd, uint8_t *data, uint64_t off, uint64_t len, const char *path, char *err,
                   size_t errlen)
{
	uint64_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, data + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: read error at offset %llu: %s", path,
			         (unsigned long long)(off + got), strerror(errno));
			return -1;
		}
		if (n == 0) {
			snprintf(
			    err, errlen,
			    "%s: the file was cut short while being read (at %llu of %llu bytes): "
			    "something truncated or rewrote it; read it again",
			    path, (unsigned long long)(off + got), (unsigned long long)(off + len));
			return -1;
		}
		got += (uint64_t)n;
	}
	return 0;
}

/*
 * How many bytes from OFF to copy, given the first bytes H there: a whole chunk when H is a chunk
 * header (it may have grown past SIZE, the size seen at open: a writer extends the file before a
 * chunk says it is that long, so a file shorter than its chunk was cut, and what it holds is for
 * the parser), else the rest of the file as seen at open.
 */
static uint64_t copy_length(int fd, const uint8_t *h, uint64_t off, uint64_t size)
{
	uint64_t csize = be(h + JFR_H_SIZE, 8);
	struct stat st;

	if (memcmp(h, "FLR\0", 4) || csize < JFR_CHUNK_HEADER_SIZE || csize > (1ULL << 40))
		return size - off;
	if (csize <= size - off)
		return csize;
	if (!fstat(fd, &st) && (uint64_t)st.st_size < off + csize)
		return (uint64_t)st.st_size > size ? (uint64_t)st.st_size - off : size - off;
	return csize;
}

/*
 * Copies the chunk at OFF into DATA + OFF (CAP bytes allocated, grown as needed), one state of it:
 * a recorder writing the file publishes every step of a flush or a rotation through the chunk's
 * header (constant-pool offset, duration, size), so a copy during which the header did not change
 * is a state it meant to be read; a copy that saw the header change is taken again.  A chunk that
 * is complete never changes.  Returns the bytes copied (copy_length()), or -1.
 */
static int64_t read_chunk_state(int fd, uint8_t **data, uint64_t *cap, uint64_t off, uint64_t size,
                                const char *path, char *err, size_t errlen)
{
	uint8_t h[JFR_CHUNK_HEADER_SIZE];

	for (int attempt = 0;; attempt++) {
		uint64_t len = size - off, hl = len < sizeof(h) ? len : sizeof(h);

		/* a header cut by the size seen at open may be whole by now */
		if (pread(fd, h, sizeof(h), (off_t)off) == (ssize_t)sizeof(h))
			len = copy_length(fd, h, off, size), hl = len < sizeof(h) ? len : sizeof(h);
		else if (read_at(fd, h, off, hl, path, err, errlen))
			return -1;
		if (off + len > *cap) {
			uint64_t ncap = (off + len) + (off + len) / 4;
			uint8_t *nd = realloc(*data, ncap);

			if (!nd) {
				snprintf(err, errlen, "%s: out of memory reading %llu bytes", path,
				         (unsigned long long)(off + len));
				return -1;
			}
			*data = nd;
			*cap = ncap;
		}
		if (read_at(fd, *data + off, off, len, path, err, errlen))
			return -1;
		/* the header before, during and after the copy: one state */
		bool same = !memcmp(h, *data + off, hl);

		if (attempt == 50 || (same && !read_at(fd, h, off, hl, path, err, errlen) &&
		                      !memcmp(h, *data + off, hl)))
			return (int64_t)len;
	}
}

/* The offset of the first chunk of the copy whose header reads differently now, or SIZE. */
static uint64_t changed_chunk(int fd, const uint8_t *data, uint64_t size)
{
	uint8_t h[JFR_CHUNK_HEADER_SIZE];
	uint64_t off = 0;

	while (size - off >= sizeof(h) && !memcmp(data + off, "FLR\0", 4)) {
		uint64_t csize = be(data + off + JFR_H_SIZE, 8);

		if (pread(fd, h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h) ||
		    memcmp(h, data + off, sizeof(h)))
			return off;
		if (csize < sizeof(h) || csize > size - off)
			break;
		off += csize;
	}
	return size;
}

static bool all_zero(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

struct jfr_reader *jfr_open_fd(int fd, uint64_t size, const char *path, char *err, size_t errlen)
{
	/*
	 * Read, not mapped: a file cut while mapped kills the reader with SIGBUS, a short read is
	 * an error the user can be told about.  The chunks that start within the size seen at open
	 * are read, each as one state of it (read_chunk_state()): a file that a recorder is
	 * writing is read as a valid prefix of it.
	 */
	uint8_t *data = NULL;
	uint64_t cap = 0, off = 0, from = 0;

	for (int attempt = 0;; attempt++) {
		for (off = from; off < size;) {
			int64_t n = read_chunk_state(fd, &data, &cap, off, size, path, err, errlen);

			if (n < 0) {
				free(data);
				return NULL;
			}
			/*
			 * Zeros after a chunk: the file was extended for the last chunk to grow
			 * into, and its header does not say so yet.  What precedes is the file.
			 */
			if (off && n && memcmp(data + off, "FLR\0", 4) &&
			    all_zero(data + off, (uint64_t)n))
				break;
			off += (uint64_t)n;
		}
		/* a chunk whose header changed since it was copied is copied again, and all after
		 * it */
		from = changed_chunk(fd, data, off);
		if (from == off || attempt == 50)
			break;
	}
	size = off;
	struct jfr_reader *r = jfr_open_mem(data, size, NULL);
	if (!r || !(r->name = strdup(path))) {
		snprintf(err, errlen, "out of memory");
		if (r) {
			r->name = NULL;
			jfr_close(r);
		}
		free(data);
		return NULL;
	}
	r->owned = data;
	r->fd = fd;
	return r;
}

struct jfr_reader *jfr_open_file(const char *path, char *err, size_t errlen)
{
	struct stat st;
	/* a regular file only, never opened otherwise: a FIFO would wait for a writer, a device
	 * act on its open (a link another user planted at lfr.jfr may name either) */
	int fd = lfr_open_regular(path, O_RDONLY, &st);

	if (fd == -ENODEV) {
		snprintf(
		    err, errlen,
		    "%s: not a regular file (a FIFO, a device or a directory): name a recording "
		    "file",
		    path);
		return NULL;
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-fd));
		return NULL;
	}
	struct jfr_reader *r = jfr_open_fd(fd, (uint64_t)st.st_size, path, err, errlen);
	if (!r)
		close(fd);
	return r;
}

void jfr_close(struct jfr_reader *r)
{
	if (!r)
		return;
	free(r->owned);
	if (r->fd >= 0) {
		close(r->fd);
		free((char *)r->name);
	}
	while (r->arena) {
		struct jfr_arena_block *b = r->arena;
		r->arena = b->next;
		free(b);
	}
	free(r->type_names);
	hashtab_free(&r->type_name_index);
	free(r->metas);
	free(r);
}

/* ---- big-endian header fields ---- */

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

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

/* Reads a string; when ch is NULL (metadata), encoding 2 is an error. */
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
	case 2: {
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
	case 3:
	case 5:
		count = jfr_varint(c);
		if (c->bad)
			return -1;
		if (count > (uint64_t)(c->end - c->p)) {
			jfr_cur_fail(c, "string length %llu runs past the end",
			             (unsigned long long)count);
			return -1;
		}
		for (uint64_t i = 0; i < count && len + 1 < n; i++) {
			uint8_t b = c->p[i];
			uint32_t hi = enc == 3 ? utf8_surrogate(c->p + i, count - i) : 0;

			if (enc == 5 && b >= 0x80) {
				put_utf8(buf, n, &len, b);
			} else if (hi) {
				/* a pair as a JVM writes it: one character; a half alone is none */
				uint32_t lo = utf8_surrogate(c->p + i + 3, count - i - 3);

				if (hi < 0xdc00 && lo >= 0xdc00) {
					put_utf8(buf, n, &len, surrogate_pair(hi, lo));
					i += 3;
				} else {
					put_utf8(buf, n, &len, 0xfffd);
				}
				i += 2;
			} else {
				buf[len++] = b ? b : '?';
			}
		}
		c->p += count;
		break;
	case 4:
		count = jfr_varint(c);
		if (c->bad)
			return -1;
		if (count > (uint64_t)(c->end - c->p)) {
			jfr_cur_fail(c, "string length %llu runs past the end",
			             (unsigned long long)count);
			return -1;
		}
		/* UTF-16 code units: a surrogate pair is one character, a half alone none */
		for (uint64_t i = 0, hi = 0; i < count && !c->bad; i++) {
			uint64_t u = jfr_varint(c);

			if (hi && u >= 0xdc00 && u <= 0xdfff) {
				put_utf8(buf, n, &len, surrogate_pair(hi, u));
				hi = 0;
				continue;
			}
			if (hi)
				put_utf8(buf, n, &len, 0xfffd);
			hi = u >= 0xd800 && u <= 0xdbff ? u : 0;
			if (!hi)
				put_utf8(buf, n, &len, u ? u : '?');
			else if (i + 1 == count)
				put_utf8(buf, n, &len, 0xfffd);
		}
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

static void skip_string(struct jfr_cur *c)
{
	uint8_t enc = jfr_u8(c);
	uint64_t count;

	switch (enc) {
	case 0:
	case 1:
		return;
	case 2:
		jfr_varint(c);
		return;
	case 3:
	case 5:
		count = jfr_varint(c);
		if (count > (uint64_t)(c->end - c->p))
			jfr_cur_fail(c, "string length %llu runs past the end",
			             (unsigned long long)count);
		else
			c->p += count;
		return;
	case 4:
		count = jfr_varint(c);
		if (count > (uint64_t)(c->end - c->p)) {
			jfr_cur_fail(c, "string length %llu runs past the end",
			             (unsigned long long)count);
			return;
		}
		for (uint64_t i = 0; i < count && !c->bad; i++)
			jfr_varint(c);
		return;
	default:
		if (!c->bad) {
			c->p--;
			jfr_cur_fail(c, "unknown string encoding %u", enc);
		}
	}
}

/* ---- values ---- */

/* One value of field f (an array, a constant-pool key or an inline value) at nesting depth. */
static void skip_field(struct jfr_cur *c, const struct jfr_field *f, int depth)
{
	uint64_t n = f->array ? jfr_varint(c) : 1;

	if (f->array && n > (uint64_t)(c->end - c->p)) {
		jfr_cur_fail(c, "array of %llu elements runs past the end", (unsigned long long)n);
		return;
	}
	if (!f->cp && f->type->zero_size)
		return;
	for (uint64_t k = 0; k < n && !c->bad; k++) {
		if (f->cp)
			jfr_varint(c);
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
	if (depth > MAX_DEPTH) {
		jfr_cur_fail(c, "values of type %s nest too deeply", t->name);
		return;
	}
	for (int i = 0; i < t->nfields && !c->bad; i++)
		skip_field(c, &t->fields[i], depth + 1);
}

void jfr_skip_field(struct jfr_cur *c, const struct jfr_field *f)
{
	skip_field(c, f, 1);
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
	if (depth > MAX_DEPTH) {
		jfr_cur_fail(c, "values of type %s nest too deeply", t->name);
		return;
	}
	for (int i = 0; i < t->nfields && !c->bad; i++) {
		const struct jfr_field *f = &t->fields[i];
		uint64_t n = f->array ? jfr_varint(c) : 1;

		if (n > (uint64_t)(c->end - c->p)) {
			jfr_cur_fail(c, "array of %llu elements runs past the end",
			             (unsigned long long)n);
			return;
		}
		if (!f->cp && f->type->zero_size)
			continue;
		for (uint64_t k = 0; k < n && !c->bad; k++) {
			if (f->cp)
				visit_ref(c, f->type_id, ref, arg);
			else
				jfr_visit_value(c, f->type, depth + 1, ref, arg);
		}
	}
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
		uint64_t v = be(c->p, k);
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

static int parse_element(struct jfr_cur *c, struct meta_builder *b, int depth, int parent)
{
	enum { E_OTHER, E_CLASS, E_FIELD };
	const char *name = mstr(c, b);
	uint64_t nattr = jfr_varint(c);
	const char *id = NULL, *cname = NULL, *super = NULL, *simple = NULL, *fclass = NULL,
	           *cp = NULL, *dim = NULL;
	int kind = E_OTHER;

	if (c->bad)
		return -1;
	if (depth > MAX_DEPTH)
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
	for (uint64_t i = 0; i < nattr && !c->bad; i++) {
		const char *k = mstr(c, b), *v = mstr(c, b);
		if (c->bad)
			return -1;
		if (!strcmp(k, "id"))
			id = v;
		else if (!strcmp(k, "name"))
			cname = v;
		else if (!strcmp(k, "superType"))
			super = v;
		else if (!strcmp(k, "simpleType"))
			simple = v;
		else if (!strcmp(k, "class"))
			fclass = v;
		else if (!strcmp(k, "constantPool"))
			cp = v;
		else if (!strcmp(k, "dimension"))
			dim = v;
	}
	if (kind == E_FIELD) {
		if (!cname || !fclass)
			return jfr_cur_fail(c, "metadata field without name or class");
		if (b->strict && ((cp && strcmp(cp, "true")) || (dim && strcmp(dim, "1"))))
			return jfr_cur_fail(c, "field %s: constantPool/dimension other than true/1",
			                    cname);
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
		f->type_id = strtoull(fclass, NULL, 10);
		f->cp = truthy(cp);
		if (dim && strcmp(dim, "0")) {
			if (strcmp(dim, "1"))
				return jfr_cur_fail(c, "field %s has unsupported dimension %s",
				                    cname, dim);
			f->array = true;
		}
	}
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
	if (!id || !cname)
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
	t->id = strtoull(id, NULL, 10);
	t->name = cname;
	t->super = super;
	t->simple = truthy(simple);
	t->nfields = b->nfields - first_field;
	if (t->nfields) {
		t->fields = arena_alloc(b->r, t->nfields * sizeof(*t->fields));
		if (!t->fields)
			return jfr_cur_fail(c, "out of memory");
		memcpy(t->fields, b->fields + first_field, t->nfields * sizeof(*t->fields));
	}
	b->nfields = first_field;
	return 0;
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

	if (depth > MAX_DEPTH)
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

static int parse_metadata(struct jfr_reader *r, const struct jfr_chunk *ch, struct jfr_meta **out)
{
	uint64_t off = ch->off + ch->meta_off;
	struct jfr_cur c;
	struct meta_builder b = {.r = r, .strict = r->hooks && r->hooks->strict_metadata};
	int rc = -1;

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
	b.nstrings = jfr_varint(&c);
	if (b.nstrings > (uint64_t)(c.end - c.p))
		return jfr_cur_fail(&c, "metadata string count %llu runs past the end",
		                    (unsigned long long)b.nstrings);
	b.strings = calloc(b.nstrings ? b.nstrings : 1, sizeof(*b.strings));
	if (!b.strings)
		return jfr_cur_fail(&c, "out of memory");
	for (uint64_t i = 0; i < b.nstrings && !c.bad; i++) {
		const uint8_t *start = c.p;
		char tmp[4096];
		int n = read_string(&c, NULL, tmp, sizeof(tmp), 0);
		if (c.bad)
			break;
		if (n < 0) {
			b.strings[i] = NULL;
			continue;
		}
		/* strings longer than tmp are rare (descriptions); re-read them at full size */
		size_t cap = (size_t)(c.p - start) * 3 + 1;
		if ((size_t)n + 1 < sizeof(tmp) || cap <= sizeof(tmp)) {
			char *s = arena_alloc(r, n + 1);
			if (!s)
				goto out;
			memcpy(s, tmp, n + 1);
			b.strings[i] = s;
		} else {
			char *s = arena_alloc(r, cap);
			struct jfr_cur again = c;
			again.p = start;
			if (!s)
				goto out;
			read_string(&again, NULL, s, cap, 0);
			b.strings[i] = s;
		}
	}
	if (c.bad)
		goto out;
	if (parse_element(&c, &b, 0, 0) < 0)
		goto out;
	if (b.strict && !b.region) {
		jfr_fail(r, off, "metadata without the region element (the JDK requires it)");
		goto out;
	}
	if (b.strict && c.p != c.end) {
		jfr_cur_fail(&c, "metadata content ends %lld bytes before its size says",
		             (long long)(c.end - c.p));
		goto out;
	}

	struct jfr_meta *m = arena_alloc(r, sizeof(*m));
	if (!m)
		goto out;
	memset(m, 0, sizeof(*m));
	m->id = id;
	m->raw = raw;
	m->raw_len = raw_len;
	m->ntypes = b.ntypes;
	m->types = arena_alloc(r, (b.ntypes ? b.ntypes : 1) * sizeof(*m->types));
	if (!m->types)
		goto out;
	if (b.ntypes)
		memcpy(m->types, b.types, b.ntypes * sizeof(*m->types));
	qsort(m->types, m->ntypes, sizeof(*m->types), cmp_type);
	for (int i = 0; i + 1 < m->ntypes; i++)
		if (m->types[i].id == m->types[i + 1].id) {
			jfr_fail(r, off, "metadata declares type id %llu twice (%s and %s)",
			         (unsigned long long)m->types[i].id, m->types[i].name,
			         m->types[i + 1].name);
			goto out;
		}
	for (int i = 0; i < m->ntypes; i++) {
		struct jfr_type *t = &m->types[i];
		t->kind = kind_of(t->name);
		t->name_idx = intern_type_name(r, t->name);
		if (t->name_idx == UINT32_MAX) {
			jfr_fail(r, off, "out of memory");
			goto out;
		}
		if (t->kind == JFR_K_STRING)
			m->string_type = t;
		for (int k = 0; k < t->nfields; k++) {
			struct jfr_field *f = &t->fields[k];
			f->type = (struct jfr_type *)jfr_type_by_id(m, f->type_id);
			if (!f->type) {
				jfr_fail(r, off, "field %s of %s has undeclared type id %llu",
				         f->name, t->name, (unsigned long long)f->type_id);
				goto out;
			}
		}
	}
	uint8_t *state = calloc(m->ntypes ? m->ntypes : 1, 1);
	if (!state) {
		jfr_fail(r, off, "out of memory");
		goto out;
	}
	for (int i = 0; i < m->ntypes; i++)
		if (compute_zero_size(&m->types[i], state, m, 0) < 0) {
			jfr_fail(r, off, "type %s contains itself inline or nests too deeply",
			         m->types[i].name);
			free(state);
			goto out;
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
	if (r->nmetas == r->metas_cap) {
		size_t cap = r->metas_cap ? 2 * r->metas_cap : 8;
		struct jfr_meta **v = realloc(r->metas, cap * sizeof(*v));

		if (!v) {
			jfr_fail(r, off, "out of memory");
			goto out;
		}
		r->metas = v;
		r->metas_cap = cap;
	}
	r->metas[r->nmetas++] = m;
	r->last_meta = m;
	*out = m;
	rc = 0;
out:
	free(b.strings);
	free(b.types);
	free(b.fields);
	return rc;
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

uint64_t jfr_pool_lookup(const struct jfr_chunk *ch, uint64_t type_id, uint64_t key)
{
	const struct hashtab_slot *s = hashtab_get(&ch->pool, type_id, key);

	return s ? s->v : 0;
}

/* The checkpoint at off, which must end by limit (the chunk's end, or the checkpoint after it). */
static int parse_checkpoint(struct jfr_reader *r, struct jfr_chunk *ch, uint64_t off,
                            uint64_t limit, int64_t *delta)
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

int jfr_chunk_header(struct jfr_chunk *ch, const uint8_t *h, uint64_t left, char *why, size_t n,
                     unsigned *at)
{
	*at = 0;
	if (left < JFR_CHUNK_HEADER_SIZE) {
		snprintf(why, n, "truncated chunk header (%llu bytes left, a header is %d)",
		         (unsigned long long)left, JFR_CHUNK_HEADER_SIZE);
		return -1;
	}
	if (memcmp(h, "FLR\0", 4)) {
		snprintf(why, n, "no chunk magic \"FLR\\0\": not a JFR file or a corrupt chunk");
		return -1;
	}
	ch->major = be(h + JFR_H_MAJOR, 2);
	ch->minor = be(h + JFR_H_MINOR, 2);
	ch->size = be(h + JFR_H_SIZE, 8);
	ch->cp_off = be(h + JFR_H_CP_OFFSET, 8);
	ch->meta_off = be(h + JFR_H_META_OFFSET, 8);
	ch->start_nanos = be(h + JFR_H_START_NANOS, 8);
	ch->duration_nanos = be(h + JFR_H_DURATION, 8);
	ch->start_ticks = be(h + JFR_H_START_TICKS, 8);
	ch->ticks_per_second = be(h + JFR_H_TPS, 8);
	ch->state = h[JFR_H_STATE];
	ch->flags = be(h + JFR_H_FLAGS, 2);
	if (ch->major != 2 && ch->major != 1) {
		*at = 4;
		snprintf(why, n, "unsupported JFR version %u.%u (2.x is read)", ch->major,
		         ch->minor);
		return -1;
	}
	if (ch->size < JFR_CHUNK_HEADER_SIZE || ch->size > left) {
		*at = 8;
		snprintf(why, n,
		         "chunk size %llu does not fit in the file (%llu bytes from here)%s",
		         (unsigned long long)ch->size, (unsigned long long)left,
		         ch->size == 0 || ch->state ? ": the chunk is still being written" : "");
		return -1;
	}
	if (ch->meta_off < JFR_CHUNK_HEADER_SIZE || (uint64_t)ch->meta_off >= ch->size) {
		*at = 24;
		snprintf(why, n, "metadata offset %lld is outside the chunk",
		         (long long)ch->meta_off);
		return -1;
	}
	if (ch->cp_off < JFR_CHUNK_HEADER_SIZE || (uint64_t)ch->cp_off >= ch->size) {
		*at = 16;
		snprintf(why, n, "constant-pool offset %lld is outside the chunk",
		         (long long)ch->cp_off);
		return -1;
	}
	if (ch->ticks_per_second <= 0) {
		*at = 56;
		snprintf(why, n, "ticks per second is %lld", (long long)ch->ticks_per_second);
		return -1;
	}
	return 0;
}

int jfr_chunk_load(struct jfr_reader *r, uint64_t off, struct jfr_chunk *ch)
{
	char why[256];
	unsigned at;

	memset(ch, 0, sizeof(*ch));
	ch->off = off;
	if (jfr_chunk_header(ch, r->data + off, r->size - off, why, sizeof(why), &at))
		return jfr_fail(r, off + at, "%s", why);
	if (parse_metadata(r, ch, (struct jfr_meta **)&ch->meta) < 0)
		return -1;
	/*
	 * The chain runs backwards, from the header's last checkpoint to the first (delta 0), as
	 * the JDK and lfr write it: each delta leads to a checkpoint that ends before the one that
	 * points at it, so the chain ends and no byte is read twice, whatever the deltas say.
	 */
	uint64_t cp = ch->off + ch->cp_off, limit = ch->off + ch->size;
	for (;;) {
		int64_t delta = 0;
		if (parse_checkpoint(r, ch, cp, limit, &delta) < 0)
			goto fail;
		ch->ncheckpoints++;
		if (!delta)
			break;
		/* unsigned: no delta overflows, INT64_MIN included */
		uint64_t back = -(uint64_t)delta, here = cp - ch->off;
		if (delta > 0) {
			jfr_fail(r, cp,
			         "constant-pool chain points forward (delta %lld): a checkpoint's "
			         "delta leads back to an earlier one",
			         (long long)delta);
			goto fail;
		}
		if (back > here - JFR_CHUNK_HEADER_SIZE) {
			jfr_fail(
			    r, cp,
			    "constant-pool chain points before the chunk's events (delta %lld)",
			    (long long)delta);
			goto fail;
		}
		limit = cp;
		cp -= back;
	}
	return 0;
fail:
	jfr_chunk_release(ch);
	return -1;
}

void jfr_chunk_release(struct jfr_chunk *ch)
{
	hashtab_free(&ch->pool);
}

/* ---- events ---- */

void jfr_event_iter_init(struct jfr_event_iter *it, struct jfr_reader *r,
                         const struct jfr_chunk *ch)
{
	it->r = r;
	it->p = r->data + ch->off + JFR_CHUNK_HEADER_SIZE;
	it->end = r->data + ch->off + ch->size;
}

int jfr_event_next(struct jfr_event_iter *it, uint64_t *type, uint64_t *size, struct jfr_cur *ev)
{
	if (it->p >= it->end)
		return 0;
	struct jfr_cur c = {.p = it->p, .end = it->end, .r = it->r};
	uint64_t sz = jfr_varint(&c);
	if (c.bad)
		return -1;
	if (sz == 0 || sz > (uint64_t)(it->end - it->p)) {
		jfr_fail(it->r, it->p - it->r->data, "event size %llu %s", (unsigned long long)sz,
		         sz ? "runs past the end of the chunk" : "is zero (zero-filled tail?)");
		return -1;
	}
	c.end = it->p + sz;
	*type = jfr_varint(&c);
	if (c.bad)
		return -1;
	*size = sz;
	*ev = c;
	it->p += sz;
	return 1;
}

/* ---- time ---- */

static int64_t clamp128(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

int64_t jfr_ticks_to_nanos(const struct jfr_chunk *ch, int64_t ticks)
{
	__int128 d = ((__int128)ticks - ch->start_ticks) * 1000000000 / ch->ticks_per_second;
	return clamp128(ch->start_nanos + d);
}

int64_t jfr_nanos_to_ticks(const struct jfr_chunk *ch, int64_t nanos)
{
	__int128 d = ((__int128)nanos - ch->start_nanos) * ch->ticks_per_second / 1000000000;
	return clamp128(ch->start_ticks + d);
}

int64_t jfr_sat_add(int64_t a, int64_t b)
{
	return clamp128((__int128)a + b);
}

int64_t jfr_sat_sub(int64_t a, int64_t b)
{
	return clamp128((__int128)a - b);
}

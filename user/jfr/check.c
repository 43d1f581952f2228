// SPDX-License-Identifier: GPL-2.0
/*
 * A strict structural checker for JFR files (see check.h), built on the reader (reader.h): the
 * reader parses the headers, the metadata (strictly, as JMC reads it), the checkpoint chain and
 * every pool value; the checker adds what the JDK and JMC reject and the reader tolerates (a chunk
 * in progress, empty pools, bytes after the last chunk, a chunk after the final one), walks the
 * events as both readers do, and resolves every constant-pool reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jfr/check.h"
#include "jfr/class_names.h"
#include "jfr/reader.h"
#include "lib/hashtab.h"
#include "lib/regular_file.h"

struct ctx {
	struct jfr_reader *rd;
	struct lfr_jfr_check_result *r;
	/* references met in the pool values of the chunk being loaded, resolved once it is */
	uint64_t *refs; /* (type id, key, offset) triples */
	size_t nrefs, refcap;
	/* whole file: (type id, key) -> hash of the value's bytes */
	struct hashtab values;
	int64_t last_ticks_seen;
	/* the java.lang.Class and jdk.types.Package values of the chunk being loaded, whose names
	 * are checked once it is: (type, value offset) */
	struct named {
		const struct jfr_type *t;
		uint64_t off;
	} * named;
	size_t nnamed, namedcap;
};

static int add_ref(void *arg, uint64_t type_id, uint64_t key, uint64_t off)
{
	struct ctx *c = arg;

	if (c->nrefs == c->refcap) {
		size_t cap = c->refcap ? c->refcap * 2 : 1024;
		uint64_t *p = realloc(c->refs, cap * 3 * sizeof(*p));

		if (!p)
			return jfr_fail(c->rd, off, "out of memory");
		c->refs = p;
		c->refcap = cap;
	}
	c->refs[3 * c->nrefs] = type_id;
	c->refs[3 * c->nrefs + 1] = key;
	c->refs[3 * c->nrefs + 2] = off;
	c->nrefs++;
	return 0;
}

static int pool_hook(void *arg, const struct jfr_chunk *ch, uint64_t off, const struct jfr_type *t,
                     uint64_t count)
{
	struct ctx *c = arg;

	(void)ch;
	if (!count)
		return jfr_fail(c->rd, off, "empty pool of type %llu (crashes the JDK)",
		                (unsigned long long)t->id);
	return 0;
}

/*
 * A pool entry: its references are resolved after the chunk's pools are all read, and a key
 * defined twice (in any chunk) must carry the same value bytes, as readers keep one of them.  The
 * names of classes and packages are checked once the chunk's pools are read.
 */
static int entry_hook(void *arg, const struct jfr_chunk *ch, const struct jfr_type *t, uint64_t key,
                      uint64_t voff, uint64_t vend)
{
	struct ctx *c = arg;
	struct jfr_cur cur;
	bool fresh;

	if (!strcmp(t->name, "java.lang.Class") || !strcmp(t->name, "jdk.types.Package")) {
		if (c->nnamed == c->namedcap) {
			size_t cap = c->namedcap ? 2 * c->namedcap : 256;
			struct named *n = realloc(c->named, cap * sizeof(*n));

			if (!n)
				return jfr_fail(c->rd, voff, "out of memory");
			c->named = n;
			c->namedcap = cap;
		}
		c->named[c->nnamed++] = (struct named){t, voff};
	}

	jfr_cur_init(&cur, c->rd, voff, vend);
	jfr_visit_value(&cur, t, 0, add_ref, c);
	if (cur.bad)
		return -1;
	(void)ch;
	uint64_t h = hashtab_keyed_bytes(c->rd->data + voff, vend - voff);
	struct hashtab_slot *s = hashtab_put(&c->values, t->id, key, &fresh);
	if (!s)
		return jfr_fail(c->rd, voff, "out of memory");
	if (fresh)
		s->v = h;
	else if (s->v != h)
		return jfr_fail(c->rd, voff,
		                "pool %llu key %llu reused with a different value "
		                "(readers keep the first one)",
		                (unsigned long long)t->id, (unsigned long long)key);
	c->r->pool_entries++;
	return 0;
}

struct event_refs {
	struct ctx *c;
	const struct jfr_chunk *ch;
};

static int event_ref(void *arg, uint64_t type_id, uint64_t key, uint64_t off)
{
	struct event_refs *e = arg;

	if (!jfr_pool_lookup(e->ch, type_id, key))
		return jfr_fail(e->c->rd, off,
		                "reference to key %llu of type %llu not in this chunk's pools",
		                (unsigned long long)key, (unsigned long long)type_id);
	e->c->r->references++;
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

/* One event of a declared event type: its start time, then every field against the metadata. */
static int check_event(struct ctx *c, const struct jfr_chunk *ch, uint64_t start, uint64_t type,
                       struct jfr_cur *ev)
{
	const struct jfr_type *t = jfr_type_by_id(ch->meta, type);
	struct event_refs e = {c, ch};

	if (!t || !t->super || strcmp(t->super, "jdk.jfr.Event"))
		return jfr_fail(c->rd, start, "event of undeclared type %llu",
		                (unsigned long long)type);
	if (!t->nfields || strcmp(t->fields[0].name, "startTime"))
		return jfr_fail(c->rd, start, "event type %s does not start with startTime",
		                t->name);
	struct jfr_cur tc = *ev;
	int64_t ticks = (int64_t)jfr_varint(&tc);
	if (tc.bad)
		return -1;
	if (!c->r->events || ticks < c->r->first_ticks)
		c->r->first_ticks = ticks;
	if (!c->r->events || ticks > c->r->last_ticks)
		c->r->last_ticks = ticks;
	if (c->r->events && ticks < c->last_ticks_seen)
		c->r->time_ordered = false;
	c->last_ticks_seen = ticks;
	jfr_visit_value(ev, t, 0, event_ref, &e);
	if (ev->bad)
		return -1;
	if (ev->p != ev->end)
		return jfr_fail(c->rd, start, "%s event: fields end %lld bytes before its size",
		                t->name, (long long)(ev->end - ev->p));
	count_type(c, t->name);
	c->r->events++;
	return 0;
}

/*
 * Walks the events as the JDK does (to the chunk end, skipping types 0 and 1) and checks what JMC
 * needs as well: JMC stops at the first type-0 event, so one must exist, and the events after it
 * are invisible to JMC (counted apart: a complete file has none).  Not jfr_event_next(): a filler
 * may reach past the chunk end once JMC has stopped.
 */
static int check_events(struct ctx *c, const struct jfr_chunk *ch)
{
	struct jfr_reader *rd = c->rd;
	uint64_t pos = ch->off + JFR_CHUNK_HEADER_SIZE, cend = ch->off + ch->size;
	bool stopped = false; /* JMC's walk has ended */

	while (pos < cend) {
		struct jfr_cur ev;
		uint64_t start = pos;

		jfr_cur_init(&ev, rd, pos, cend);
		uint64_t size = jfr_varint(&ev);
		if (!ev.bad && !size)
			return jfr_fail(rd, start, "event of size 0 (readers fail or hang)");
		uint64_t type = jfr_varint(&ev);
		if (ev.bad)
			return -1;
		if (size > cend - start && (type > JFR_EVENT_CHECKPOINT || !stopped))
			/* a filler may reach past the chunk end while the writer grows or ends a
			 * chunk: the JDK stops at the chunk end, as this loop does; JMC must have
			 * stopped before */
			return jfr_fail(rd, start, "event of size %llu runs past its chunk",
			                (unsigned long long)size);
		if (size > cend - start)
			break;
		pos = start + size;
		if (type == JFR_EVENT_METADATA || type == JFR_EVENT_CHECKPOINT) {
			stopped |= type == JFR_EVENT_METADATA;
			continue;
		}
		ev.end = rd->data + pos;
		if (check_event(c, ch, start, type, &ev))
			return -1;
		c->r->jmc_events += !stopped;
	}
	if (!stopped)
		return jfr_fail(rd, ch->off,
		                "no metadata event in the event walk: JMC reads past the chunk");
	return 0;
}

/* The names of the chunk's classes and packages, as JMC converts them. */
static int check_names(struct ctx *c, const struct jfr_chunk *ch)
{
	char name[4096];

	for (size_t i = 0; i < c->nnamed; i++) {
		const struct jfr_type *t = c->named[i].t;
		struct jfr_cur cur;

		if (!jfr_name_string(c->rd, ch, t, c->named[i].off, &cur))
			continue; /* no name, or null */
		int n = jfr_read_string(&cur, ch, name, sizeof(name));
		if (cur.bad)
			return -1;
		if (n >= 0 && (size_t)n < sizeof(name) - 1 && !jfr_jmc_reads_name(name))
			return jfr_fail(c->rd, c->named[i].off,
			                "%s name \"%s\": JMC reads a name that starts with '[' as "
			                "an array's descriptor and fails on it",
			                t->name, name);
	}
	return 0;
}

/* The checks on a chunk the reader accepts as being written, and its references. */
static int check_chunk(struct ctx *c, const struct jfr_chunk *ch)
{
	if (ch->state != 0)
		return jfr_fail(c->rd, ch->off + 64,
		                "chunk state %u: not finished (JDK 25 rejects it)", ch->state);
	for (size_t i = 0; i < c->nrefs; i++) {
		uint64_t t = c->refs[3 * i], k = c->refs[3 * i + 1];

		if (!jfr_pool_lookup(ch, t, k))
			return jfr_fail(
			    c->rd, c->refs[3 * i + 2],
			    "reference to key %llu of type %llu not in this chunk's pools",
			    (unsigned long long)k, (unsigned long long)t);
	}
	c->r->references += c->nrefs;
	c->r->checkpoints += ch->ncheckpoints;
	return check_names(c, ch) ?: check_events(c, ch);
}

/* The chunk header at off, with the checker's own words for a file that ends badly. */
static int check_header(struct ctx *c, uint64_t off)
{
	struct jfr_chunk ch;
	uint64_t left = c->rd->size - off;
	char why[256];
	unsigned at;

	if (left < JFR_CHUNK_HEADER_SIZE)
		return jfr_fail(c->rd, off,
		                "%llu bytes after the last chunk, too few for a chunk header",
		                (unsigned long long)left);
	if (jfr_chunk_header(&ch, c->rd->data + off, UINT64_MAX, why, sizeof(why), &at) == 0 &&
	    ch.size > left)
		return jfr_fail(c->rd, off,
		                "chunk size %llu beyond the end of the file (%llu bytes left)",
		                (unsigned long long)ch.size, (unsigned long long)left);
	return 0;
}

int lfr_jfr_check_buffer(const uint8_t *data, size_t len, struct lfr_jfr_check_result *r, char *err,
                         size_t errlen)
{
	struct ctx c = {.r = r};
	const struct jfr_hooks hooks = {
	    .strict_metadata = true, .pool = pool_hook, .entry = entry_hook, .arg = &c};
	uint64_t off = 0;
	bool final = false;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->time_ordered = true;
	if (errlen)
		err[0] = 0;
	if (!len) {
		snprintf(err, errlen, "offset 0: empty file");
		return -1;
	}
	c.rd = jfr_open_mem(data, len, "");
	if (!c.rd) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c.rd->hooks = &hooks;
	while (off < len) {
		struct jfr_chunk ch;

		if (final) {
			ret = jfr_fail(c.rd, off, "chunk after the chunk flagged final");
			break;
		}
		c.nrefs = c.nnamed = 0;
		ret = check_header(&c, off);
		if (!ret)
			ret = jfr_chunk_load(c.rd, off, &ch);
		if (ret)
			break;
		ret = check_chunk(&c, &ch);
		jfr_chunk_release(&ch);
		if (ret)
			break;
		final = ch.flags & 2;
		r->chunks++;
		off = ch.off + ch.size;
	}
	r->last_chunk_final = final;
	/* the reader's "NAME: offset N: what" without its name: "offset N: what" */
	if (ret)
		snprintf(err, errlen, "%s", c.rd->err + 2);
	jfr_close(c.rd);
	free(c.refs);
	free(c.named);
	hashtab_free(&c.values);
	return ret;
}

int lfr_jfr_check_file(const char *path, struct lfr_jfr_check_result *r, char *err, size_t errlen)
{
	/*
	 * Every byte as it is, read rather than mapped (a file cut meanwhile is an error, not
	 * SIGBUS), and not through jfr_open_file(), which reads a file being written as its valid
	 * prefix: the checker must see the bytes after the last chunk.
	 */
	struct stat st;
	uint8_t *data = NULL;
	int fd = lfr_open_regular(path, O_RDONLY, &st);
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path,
		         fd == -ENODEV ? "not a regular file" : strerror(-fd));
		goto out;
	}
	if (!st.st_size) {
		snprintf(err, errlen, "%s: empty file", path);
		goto out;
	}
	data = malloc((size_t)st.st_size);
	if (!data) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	for (off_t off = 0; off < st.st_size;) {
		ssize_t n = pread(fd, data + off, (size_t)(st.st_size - off), off);

		if (n <= 0) {
			snprintf(err, errlen, "%s: %s", path,
			         n < 0 ? strerror(errno) : "cut short while read");
			goto out;
		}
		off += n;
	}
	ret = lfr_jfr_check_buffer(data, (size_t)st.st_size, r, err, errlen);
out:
	free(data);
	if (fd >= 0)
		close(fd);
	return ret;
}

uint64_t lfr_jfr_check_count(const struct lfr_jfr_check_result *r, const char *type_name)
{
	for (unsigned i = 0; i < r->ntypes; i++)
		if (!strcmp(r->types[i].name, type_name))
			return r->types[i].count;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Rebasing a chunk's ticks (see rebase.h).  The chunk is rebuilt event by event: a varint that
 * grows or shrinks moves every later byte, so each event gets its new size, and the offsets that
 * point at events (the header's metadata and constant-pool offsets, each checkpoint's delta to the
 * previous one) are mapped from the old positions to the new.  lfr wraps its metadata event in a
 * type-1 event (writer.c): the wrapped event is rebuilt inside its wrapper.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/rebase.h"

/* Old chunk offset -> new chunk offset of every event start (a wrapped event's too), in increasing
 * old order: events are rebuilt in file order. */
struct offmap {
	uint64_t *from, *to;
	size_t n, cap;
};

struct rebase {
	const uint8_t *chunk; /* the old chunk's first byte */
	uint64_t meta_off;    /* old offset of the metadata event */
	int64_t delta;
	struct offmap map;
	char *err;
	size_t errlen;
	bool failed;
};

static int fail(struct rebase *rb, uint64_t off, const char *what)
{
	if (!rb->failed)
		snprintf(rb->err, rb->errlen, "chunk offset %llu: %s", (unsigned long long)off,
		         what);
	rb->failed = true;
	return -1;
}

static int map_add(struct rebase *rb, uint64_t from, uint64_t to)
{
	struct offmap *m = &rb->map;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint64_t *f = realloc(m->from, cap * sizeof(*f));

		if (f)
			m->from = f;
		uint64_t *t = f ? realloc(m->to, cap * sizeof(*t)) : NULL;

		if (!t)
			return fail(rb, from, "out of memory");
		m->to = t;
		m->cap = cap;
	}
	m->from[m->n] = from;
	m->to[m->n++] = to;
	return 0;
}

/* The new offset of the event that started at old offset off, or 0 when no event started there. */
static uint64_t map_get(const struct offmap *m, uint64_t off)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->from[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->from[lo] == off ? m->to[lo] : 0;
}

static int get_varint(struct rebase *rb, const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned n = jfr_varint_decode(*p, (size_t)(end - *p), v);

	if (!n)
		return fail(rb, (uint64_t)(*p - rb->chunk), "truncated varint");
	*p += n;
	return 0;
}

/*
 * Appends the event at old chunk offset off (its bytes [p, end)) to out, which the new chunk starts
 * at out_start: the same type, startTime + delta, a checkpoint's delta mapped, the rest copied.
 */
static int put_event(struct rebase *rb, uint64_t off, const uint8_t *end, struct jfr_buf *out,
                     size_t out_start)
{
	const uint8_t *p = rb->chunk + off;
	uint64_t size, type, ticks, at = out->len - out_start;
	struct jfr_buf pl = {0};
	int ret = -1;

	if (map_add(rb, off, at) || get_varint(rb, &p, end, &size) ||
	    get_varint(rb, &p, end, &type))
		return -1;
	jfr_buf_varint(&pl, type);
	if (p < end) {
		int64_t moved;

		if (get_varint(rb, &p, end, &ticks))
			goto out;
		/* ticks are signed (both JDKs read a long): a time before the clock's origin is
		 * legal, one past either end of the range is not */
		if (__builtin_add_overflow((int64_t)ticks, rb->delta, &moved)) {
			fail(rb, off, "the event's start time moved past the range of ticks");
			goto out;
		}
		jfr_buf_varint(&pl, (uint64_t)moved);
	}
	if (type == JFR_EVENT_CHECKPOINT && p < end) {
		const uint8_t *dur = p;
		uint64_t v, back;

		if (get_varint(rb, &p, end, &v))
			goto out;
		jfr_buf_put(&pl, dur, (size_t)(p - dur)); /* the writer's padding stays */
		if (p < end) {
			if (get_varint(rb, &p, end, &back))
				goto out;
			/* 0: the first checkpoint (or a filler); else back to an earlier event */
			if (back) {
				int64_t d = (int64_t)back;
				uint64_t to = d < 0 && d != INT64_MIN && (uint64_t)-d <= off
				                  ? map_get(&rb->map, off - (uint64_t)-d)
				                  : 0;

				if (!to) {
					fail(rb, off,
					     "a checkpoint's delta points at no earlier event");
					goto out;
				}
				back = to - at;
			}
			jfr_buf_varint(&pl, back);
		}
	}
	/* lfr's metadata event inside its wrapper */
	const uint8_t *meta = rb->chunk + rb->meta_off;
	size_t inner_at = 0, inner_idx = 0;

	if (meta >= p && meta < end && rb->meta_off != off) {
		const uint8_t *q = meta;
		struct jfr_buf inner = {0};
		uint64_t msize;

		if (get_varint(rb, &q, end, &msize))
			goto out;
		if (msize < 2 || msize > (uint64_t)(end - meta)) {
			fail(rb, rb->meta_off,
			     "the metadata event does not fit in the event around it");
			goto out;
		}
		jfr_buf_put(&pl, p, (size_t)(meta - p));
		inner_at = pl.len;
		inner_idx = rb->map.n;
		if (put_event(rb, rb->meta_off, meta + msize, &inner, 0)) {
			jfr_buf_free(&inner);
			goto out;
		}
		jfr_buf_put(&pl, inner.data, inner.len);
		jfr_buf_free(&inner);
		p = meta + msize;
	}
	jfr_buf_put(&pl, p, (size_t)(end - p));
	if (pl.oom) {
		fail(rb, off, "out of memory");
		goto out;
	}
	uint64_t nsize = jfr_event_size(pl.len);

	/* the wrapped event's new offset follows the wrapper's size, known only now */
	if (inner_at)
		rb->map.to[inner_idx] = at + jfr_varint_len(nsize) + inner_at;
	jfr_buf_varint(out, nsize);
	jfr_buf_put(out, pl.data, pl.len);
	ret = out->oom ? fail(rb, off, "out of memory") : 0;
out:
	jfr_buf_free(&pl);
	return ret;
}

bool jfr_chunk_is_lfr(const struct jfr_chunk *ch)
{
	return ch->meta && jfr_type_by_name(ch->meta, "lfr.SamplerSettings");
}

int64_t jfr_rebase_delta(const struct jfr_chunk *first, const struct jfr_chunk *c)
{
	return jfr_sat_sub(jfr_sat_sub(c->start_nanos, c->start_ticks),
	                   jfr_sat_sub(first->start_nanos, first->start_ticks));
}

int jfr_rebase_chunk(struct jfr_reader *r, const struct jfr_chunk *ch, int64_t delta,
                     struct jfr_buf *out, char *err, size_t errlen)
{
	return jfr_rebase_chunk_keep(r, ch, delta, NULL, NULL, out, err, errlen);
}

int jfr_rebase_chunk_keep(struct jfr_reader *r, const struct jfr_chunk *ch, int64_t delta,
                          jfr_keep_fn *keep, void *arg, struct jfr_buf *out, char *err,
                          size_t errlen)
{
	struct rebase rb = {
	    .chunk = r->data + ch->off,
	    .meta_off = (uint64_t)ch->meta_off,
	    .delta = delta,
	    .err = err,
	    .errlen = errlen,
	};
	size_t start = out->len;
	uint64_t off = JFR_CHUNK_HEADER_SIZE;
	int ret = -1;

	jfr_buf_put(out, rb.chunk, JFR_CHUNK_HEADER_SIZE);
	while (off < ch->size) {
		const uint8_t *p = rb.chunk + off, *end = rb.chunk + ch->size;
		uint64_t size, type;

		if (get_varint(&rb, &p, end, &size) || get_varint(&rb, &p, end, &type))
			goto out;
		/* a live recording's filler may reach past its chunk while the writer ends the
		 * chunk: readers stop at the chunk end, and so does its copy */
		if (type == JFR_EVENT_CHECKPOINT && size > ch->size - off)
			size = ch->size - off;
		if (size < 2 || size > ch->size - off) {
			fail(&rb, off, "an event's size does not fit in the chunk");
			goto out;
		}
		/* an event left out moves the later ones; no offset points at it */
		if (keep && type != JFR_EVENT_METADATA && type != JFR_EVENT_CHECKPOINT &&
		    !keep(arg, ch->off + off, type)) {
			off += size;
			continue;
		}
		/* with no ticks to move, an event that is neither a checkpoint nor wraps the
		 * metadata stays as it is, and no offset points at it: copied, not rebuilt */
		if (!delta && type > JFR_EVENT_CHECKPOINT &&
		    (rb.meta_off < off || rb.meta_off >= off + size)) {
			jfr_buf_put(out, rb.chunk + off, size);
			off += size;
			continue;
		}
		if (put_event(&rb, off, rb.chunk + off + size, out, start))
			goto out;
		off += size;
	}
	uint64_t meta = map_get(&rb.map, (uint64_t)ch->meta_off);
	uint64_t cp = map_get(&rb.map, (uint64_t)ch->cp_off);

	if (!meta || !cp) {
		fail(&rb, !meta ? (uint64_t)ch->meta_off : (uint64_t)ch->cp_off,
		     !meta ? "the metadata offset is not where an event starts"
		           : "the constant-pool offset is not where an event starts");
		goto out;
	}
	if (out->oom) {
		fail(&rb, 0, "out of memory");
		goto out;
	}
	uint8_t *h = out->data + start;

	jfr_put_be64(h + JFR_H_SIZE, out->len - start);
	jfr_put_be64(h + JFR_H_CP_OFFSET, cp);
	jfr_put_be64(h + JFR_H_META_OFFSET, meta);
	int64_t start_ticks;

	if (__builtin_add_overflow(ch->start_ticks, delta, &start_ticks)) {
		fail(&rb, JFR_H_START_TICKS,
		     "the chunk's start ticks moved past the range of ticks");
		goto out;
	}
	jfr_put_be64(h + JFR_H_START_TICKS, (uint64_t)start_ticks);
	ret = 0;
out:
	if (ret)
		out->len = start;
	free(rb.map.from);
	free(rb.map.to);
	return ret;
}

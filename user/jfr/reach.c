// SPDX-License-Identifier: GPL-2.0
/* The constants some events of a chunk reach, and a checkpoint of them (see reach.h). */
#include <stdio.h>
#include <stdlib.h>

#include "jfr/reach.h"

void jfr_reach_begin(struct jfr_reach *rc, struct jfr_reader *r, const struct jfr_chunk *ch)
{
	rc->r = r;
	rc->ch = ch;
	rc->stamp++;
	rc->n = rc->walked = 0;
}

/* jfr_visit_value()'s: a reference met, added to the set once. */
static int note_ref(void *arg, uint64_t type_id, uint64_t key, uint64_t off)
{
	struct jfr_reach *rc = arg;
	bool fresh = false;
	struct hashtab_slot *s = hashtab_put(&rc->stamps, type_id, key, &fresh);

	(void)off;
	if (!s) {
		rc->oom = true;
		return -1;
	}
	if (s->v == rc->stamp)
		return 0;
	s->v = rc->stamp;
	if (rc->n == rc->cap) {
		size_t cap = rc->cap ? 2 * rc->cap : 256;
		struct jfr_reached *set = realloc(rc->set, cap * sizeof(*set));

		if (!set) {
			rc->oom = true;
			return -1;
		}
		rc->set = set;
		rc->cap = cap;
	}
	rc->set[rc->n++] = (struct jfr_reached){.type_id = type_id, .key = key};
	return 0;
}

/* The constants added and not walked yet, walked for those they reach: 0, or -1. */
static int walk_constants(struct jfr_reach *rc)
{
	for (; rc->walked < rc->n; rc->walked++) {
		struct jfr_reached *e = &rc->set[rc->walked];
		const struct jfr_type *t = jfr_type_by_id(rc->ch->meta, e->type_id);
		uint64_t off = jfr_pool_lookup(rc->ch, e->type_id, e->key);
		struct jfr_cur c;

		/* not in the chunk: the copy leaves it unresolved, as the chunk does */
		if (!t || !off)
			continue;
		jfr_cur_init(&c, rc->r, off, rc->ch->off + rc->ch->size);
		jfr_visit_value(&c, t, 0, note_ref, rc);
		if (c.bad)
			return -1;
		e = &rc->set[rc->walked]; /* the set may have moved */
		e->off = off;
		e->len = jfr_cur_off(&c) - off;
	}
	return 0;
}

int jfr_reach_event(struct jfr_reach *rc, uint64_t off, char *err, size_t errlen)
{
	struct jfr_cur c;
	uint64_t size, type;
	const struct jfr_type *t;

	jfr_cur_init(&c, rc->r, off, rc->ch->off + rc->ch->size);
	size = jfr_varint(&c);
	if (!c.bad && size <= rc->ch->off + rc->ch->size - off)
		jfr_cur_init(&c, rc->r, jfr_cur_off(&c), off + size);
	type = jfr_varint(&c);
	t = c.bad ? NULL : jfr_type_by_id(rc->ch->meta, type);
	if (t)
		jfr_visit_value(&c, t, 0, note_ref, rc);
	if (!c.bad && t && !walk_constants(rc))
		return 0;
	if (rc->oom)
		snprintf(err, errlen, "out of memory");
	else
		snprintf(err, errlen, "offset %llu: %s", (unsigned long long)off,
		         t ? rc->r->err : "an event of a type the metadata does not declare");
	return -1;
}

static int cmp_reached(const void *a, const void *b)
{
	const struct jfr_reached *x = a, *y = b;

	if (x->type_id != y->type_id)
		return x->type_id < y->type_id ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

void jfr_reach_checkpoint(struct jfr_reach *rc, uint64_t ticks, struct jfr_buf *out)
{
	struct jfr_buf body = {0};
	uint64_t npools = 0;
	size_t n = 0;

	/* those in the chunk, by type then key: a copy's content alone decides its bytes */
	for (size_t i = 0; i < rc->n; i++)
		if (rc->set[i].off)
			rc->set[n++] = rc->set[i];
	rc->n = rc->walked = n;
	qsort(rc->set, n, sizeof(*rc->set), cmp_reached);
	for (size_t i = 0; i < n; i++)
		npools += !i || rc->set[i].type_id != rc->set[i - 1].type_id;
	jfr_buf_varint(&body, JFR_EVENT_CHECKPOINT);
	jfr_buf_varint(&body, ticks);
	jfr_buf_varint(&body, 0); /* duration */
	jfr_buf_varint(&body, 0); /* delta: no other checkpoint */
	jfr_buf_u8(&body, 0);     /* flags */
	jfr_buf_varint(&body, npools);
	/* each pool holds at least one value: an empty one makes the JDK fail */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && rc->set[j].type_id == rc->set[i].type_id; j++)
			;
		jfr_buf_varint(&body, rc->set[i].type_id);
		jfr_buf_varint(&body, j - i);
		for (size_t k = i; k < j; k++) {
			jfr_buf_varint(&body, rc->set[k].key);
			jfr_buf_put(&body, rc->r->data + rc->set[k].off, rc->set[k].len);
		}
	}
	jfr_buf_varint(out, jfr_event_size(body.len));
	jfr_buf_put(out, body.data, body.len);
	out->oom |= body.oom;
	jfr_buf_free(&body);
}

void jfr_reach_free(struct jfr_reach *rc)
{
	hashtab_free(&rc->stamps);
	free(rc->set);
	*rc = (struct jfr_reach){0};
}

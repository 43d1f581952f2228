// SPDX-License-Identifier: GPL-2.0
/* The constants some events of a chunk reach, and a checkpoint of them (see reach.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/reach.h"

/* *p with room for need elements of size sz (doubling): 0, or -1 (rc->oom set). */
static int room(struct jfr_reach *rc, void *p, size_t *cap, size_t need, size_t sz)
{
	void **pp = p;
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (!(q = realloc(*pp, c * sz))) {
		rc->oom = true;
		return -1;
	}
	*pp = q;
	*cap = c;
	return 0;
}

/* The constants known of another chunk forgotten. */
static void forget_chunk(struct jfr_reach *rc)
{
	hashtab_free(&rc->ids);
	hashtab_free(&rc->type_ids);
	rc->nnodes = rc->nedges = rc->ntypes = 0;
}

void jfr_reach_begin(struct jfr_reach *rc, struct jfr_reader *r, const struct jfr_chunk *ch)
{
	if (rc->r != r || rc->ch != ch)
		forget_chunk(rc);
	rc->r = r;
	rc->ch = ch;
	rc->stamp++;
	rc->n = rc->walked = rc->nset_types = 0;
	rc->last_type = NULL;
	memset(rc->last_key, 0, sizeof(rc->last_key));
}

/* The index of type id in rc->types, or SIZE_MAX (out of memory). */
static size_t type_index(struct jfr_reach *rc, uint64_t id)
{
	bool fresh = false;
	struct hashtab_slot *s = hashtab_put(&rc->type_ids, id, 0, &fresh);

	if (!s ||
	    (fresh && room(rc, &rc->types, &rc->types_cap, rc->ntypes + 1, sizeof(*rc->types)))) {
		rc->oom = true;
		return SIZE_MAX;
	}
	if (fresh) {
		rc->types[rc->ntypes] = (struct jfr_reach_type){.id = id};
		s->v = ++rc->ntypes;
	}
	return s->v - 1;
}

/* The node of (type id, key), made when new: its index, or SIZE_MAX (out of memory). */
static size_t node_of(struct jfr_reach *rc, uint64_t type_id, uint64_t key)
{
	bool fresh = false;
	struct hashtab_slot *s = hashtab_put(&rc->ids, type_id, key, &fresh);
	size_t t;

	if (!s) {
		rc->oom = true;
		return SIZE_MAX;
	}
	if (!fresh)
		return s->v - 1;
	if ((t = type_index(rc, type_id)) == SIZE_MAX ||
	    room(rc, &rc->nodes, &rc->nodes_cap, rc->nnodes + 1, sizeof(*rc->nodes)))
		return SIZE_MAX;
	rc->nodes[rc->nnodes] =
	    (struct jfr_reach_node){.type_id = type_id, .key = key, .type = (uint32_t)t};
	s->v = ++rc->nnodes;
	return rc->nnodes - 1;
}

/* Node id into the set, once: 0, or -1 (out of memory). */
static int mark(struct jfr_reach *rc, size_t id)
{
	struct jfr_reach_node *nd = &rc->nodes[id];
	struct jfr_reach_type *t = &rc->types[nd->type];

	if (nd->stamp == rc->stamp)
		return 0;
	if (room(rc, &rc->set, &rc->set_cap, rc->n + 1, sizeof(*rc->set)))
		return -1;
	if (t->stamp != rc->stamp) {
		if (room(rc, &rc->set_types, &rc->set_types_cap, rc->nset_types + 1,
		         sizeof(*rc->set_types)))
			return -1;
		t->stamp = rc->stamp;
		rc->set_types[rc->nset_types++] = nd->type;
	}
	nd->stamp = rc->stamp;
	rc->set[rc->n++] = id;
	return 0;
}

/* jfr_visit_value()'s for an event: a reference met, into the set. */
static int mark_ref(void *arg, uint64_t type_id, uint64_t key, uint64_t off)
{
	struct jfr_reach *rc = arg;
	size_t id = node_of(rc, type_id, key);

	(void)off;
	return id == SIZE_MAX ? -1 : mark(rc, id);
}

/* jfr_visit_value()'s for a constant: a reference met, one more of its edges. */
static int add_edge(void *arg, uint64_t type_id, uint64_t key, uint64_t off)
{
	struct jfr_reach *rc = arg;
	size_t id = node_of(rc, type_id, key);

	(void)off;
	if (id == SIZE_MAX ||
	    room(rc, &rc->edge, &rc->edges_cap, rc->nedges + 1, sizeof(*rc->edge)))
		return -1;
	rc->edge[rc->nedges++] = id;
	return 0;
}

/* Node id's value found and parsed for its edges, once per chunk: 0, or -1. */
static int walk_node(struct jfr_reach *rc, size_t id)
{
	struct jfr_reach_node *nd = &rc->nodes[id];
	const struct jfr_type *t = jfr_type_by_id(rc->ch->meta, nd->type_id);
	uint64_t off = jfr_pool_lookup(rc->ch, nd->type_id, nd->key);
	size_t first = rc->nedges;
	struct jfr_cur c;

	nd->walked = true;
	/* not in the chunk: the copy leaves it unresolved, as the chunk does */
	if (!t || !off)
		return 0;
	jfr_cur_init(&c, rc->r, off, rc->ch->off + rc->ch->size);
	jfr_visit_value(&c, t, 0, add_edge, rc);
	if (c.bad)
		return -1;
	nd = &rc->nodes[id]; /* the nodes may have moved */
	nd->off = off;
	nd->len = jfr_cur_off(&c) - off;
	nd->edges = first;
	nd->nedges = rc->nedges - first;
	return 0;
}

/* The set's nodes not followed yet, followed to those they refer to: 0, or -1. */
static int follow(struct jfr_reach *rc)
{
	for (; rc->walked < rc->n; rc->walked++) {
		size_t id = rc->set[rc->walked];

		if (!rc->nodes[id].walked && walk_node(rc, id))
			return -1;
		for (size_t i = 0; i < rc->nodes[id].nedges; i++)
			if (mark(rc, rc->edge[rc->nodes[id].edges + i]))
				return -1;
	}
	return 0;
}

/* The fields of flat event type t at c, each reference marked unless it repeats the last one. */
static void visit_flat(struct jfr_reach *rc, const struct jfr_type *t, struct jfr_cur *c)
{
	for (int i = 0; i < t->nfields && !c->bad; i++) {
		const struct jfr_field *f = &t->fields[i];
		uint64_t v = jfr_varint(c);

		if (!f->cp || !v || c->bad)
			continue;
		if (i < JFR_REACH_MEMO) {
			if (rc->last_key[i] == v && rc->last_type_id[i] == f->type_id)
				continue;
			rc->last_key[i] = v;
			rc->last_type_id[i] = f->type_id;
		}
		if (mark_ref(rc, f->type_id, v, 0)) {
			c->bad = true;
			return;
		}
	}
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
	/* events come in runs of a type: it is looked up once per run */
	if (c.bad)
		t = NULL;
	else if (rc->last_type && rc->last_type->id == type)
		t = rc->last_type;
	else if ((t = jfr_type_by_id(rc->ch->meta, type))) {
		rc->last_type = t;
		rc->last_flat = true;
		for (int i = 0; i < t->nfields; i++)
			rc->last_flat &= jfr_field_is_varint(&t->fields[i]);
	}
	if (t && rc->last_flat)
		visit_flat(rc, t, &c);
	else if (t)
		jfr_visit_value(&c, t, 0, mark_ref, rc);
	if (!c.bad && t && !follow(rc))
		return 0;
	if (rc->oom)
		snprintf(err, errlen, "out of memory");
	else
		snprintf(err, errlen, "offset %llu: %s", (unsigned long long)off,
		         t ? rc->r->err : "an event of a type the metadata does not declare");
	return -1;
}

static int cmp_type(const void *a, const void *b, void *arg)
{
	const struct jfr_reach_type *types = arg;
	uint64_t x = types[*(const uint32_t *)a].id, y = types[*(const uint32_t *)b].id;

	return x < y ? -1 : x > y;
}

void jfr_reach_checkpoint(struct jfr_reach *rc, uint64_t ticks, struct jfr_buf *out)
{
	struct jfr_buf body = {0};
	uint64_t npools = 0;
	size_t at = 0, in_chunk = 0;

	if (room(rc, &rc->order, &rc->order_cap, rc->n, sizeof(*rc->order))) {
		out->oom = true;
		return;
	}
	/* the set's types by id, each with where its constants go: a counting sort of the set */
	if (rc->nset_types) /* (none: an empty set, whose array may be none yet) */
		qsort_r(rc->set_types, rc->nset_types, sizeof(*rc->set_types), cmp_type, rc->types);
	for (size_t i = 0; i < rc->nset_types; i++)
		rc->types[rc->set_types[i]].count = 0;
	for (size_t i = 0; i < rc->n; i++)
		if (rc->nodes[rc->set[i]].off)
			rc->types[rc->nodes[rc->set[i]].type].count++;
	for (size_t i = 0; i < rc->nset_types; i++) {
		struct jfr_reach_type *t = &rc->types[rc->set_types[i]];
		size_t count = t->count;

		npools += count > 0;
		t->count = at;
		at += count;
	}
	for (size_t i = 0; i < rc->n; i++) {
		const struct jfr_reach_node *nd = &rc->nodes[rc->set[i]];

		if (nd->off)
			rc->order[rc->types[nd->type].count++] = rc->set[i];
	}
	in_chunk = at;
	jfr_buf_varint(&body, JFR_EVENT_CHECKPOINT);
	jfr_buf_varint(&body, ticks);
	jfr_buf_varint(&body, 0); /* duration */
	jfr_buf_varint(&body, 0); /* delta: no other checkpoint */
	jfr_buf_u8(&body, 0);     /* flags */
	jfr_buf_varint(&body, npools);
	/* each pool holds at least one value: an empty one makes the JDK fail */
	for (size_t i = 0, j; i < in_chunk; i = j) {
		uint64_t type_id = rc->nodes[rc->order[i]].type_id;

		for (j = i; j < in_chunk && rc->nodes[rc->order[j]].type_id == type_id; j++)
			;
		jfr_buf_varint(&body, type_id);
		jfr_buf_varint(&body, j - i);
		for (size_t k = i; k < j; k++) {
			const struct jfr_reach_node *nd = &rc->nodes[rc->order[k]];

			jfr_buf_varint(&body, nd->key);
			jfr_buf_put(&body, rc->r->data + nd->off, nd->len);
		}
	}
	jfr_buf_varint(out, jfr_event_size(body.len));
	jfr_buf_put(out, body.data, body.len);
	out->oom |= body.oom;
	jfr_buf_free(&body);
}

void jfr_reach_free(struct jfr_reach *rc)
{
	hashtab_free(&rc->ids);
	hashtab_free(&rc->type_ids);
	free(rc->nodes);
	free(rc->edge);
	free(rc->types);
	free(rc->set);
	free(rc->order);
	free(rc->set_types);
	*rc = (struct jfr_reach){0};
}

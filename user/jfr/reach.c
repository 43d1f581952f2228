// SPDX-License-Identifier: GPL-2.0
/* The constants a chunk's kept events reach (see reach.h): a walk of values, breadth first. */
#include <stdio.h>
#include <stdlib.h>

#include "jfr/reach.h"

/* A constant reached but not yet walked. */
struct pending {
	uint64_t type_id, key;
};

struct walk {
	struct hashtab *reached;
	struct pending *todo;
	size_t n, cap;
	bool oom;
};

/* jfr_visit_value()'s: a reference met; a new one is walked later. */
static int note_ref(void *arg, uint64_t type_id, uint64_t key, uint64_t off)
{
	struct walk *w = arg;
	bool fresh = false;

	(void)off;
	if (!hashtab_put(w->reached, type_id, key, &fresh)) {
		w->oom = true;
		return -1;
	}
	if (!fresh)
		return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		struct pending *p = realloc(w->todo, cap * sizeof(*p));

		if (!p) {
			w->oom = true;
			return -1;
		}
		w->todo = p;
		w->cap = cap;
	}
	w->todo[w->n++] = (struct pending){type_id, key};
	return 0;
}

/* The values of the constants reached so far, each walked once for the ones they reach. */
static int walk_constants(struct jfr_reader *r, const struct jfr_chunk *ch, struct walk *w)
{
	while (w->n && !w->oom) {
		struct pending p = w->todo[--w->n];
		const struct jfr_type *t = jfr_type_by_id(ch->meta, p.type_id);
		uint64_t off = jfr_pool_lookup(ch, p.type_id, p.key);
		struct jfr_cur c;

		if (!t || !off)
			continue;
		jfr_cur_init(&c, r, off, ch->off + ch->size);
		jfr_visit_value(&c, t, 0, note_ref, w);
		if (c.bad && !w->oom)
			return -1;
	}
	return w->oom ? -1 : 0;
}

int jfr_reach(struct jfr_reader *r, const struct jfr_chunk *ch, jfr_keep_fn *keep, void *arg,
              struct hashtab *reached, char *err, size_t errlen)
{
	struct walk w = {.reached = reached};
	struct jfr_event_iter it;
	struct jfr_cur ev;
	uint64_t type, size;
	int rc;

	jfr_event_iter_init(&it, r, ch);
	for (;;) {
		uint64_t start = (uint64_t)(it.p - r->data);
		const struct jfr_type *t;

		if ((rc = jfr_event_next(&it, &type, &size, &ev)) != 1)
			break;
		if (type <= JFR_EVENT_CHECKPOINT || (keep && !keep(arg, start, type)))
			continue;
		if (!(t = jfr_type_by_id(ch->meta, type)))
			continue;
		jfr_visit_value(&ev, t, 0, note_ref, &w);
		if ((ev.bad && !w.oom) || walk_constants(r, ch, &w)) {
			rc = -1;
			break;
		}
	}
	free(w.todo);
	if (w.oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s", r->err);
		return -1;
	}
	return 0;
}

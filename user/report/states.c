// SPDX-License-Identifier: GPL-2.0
/*
 * The by-state sums of a report.  A chunk's scan keys a state by the bytes of its field, whatever
 * their encoding (a constant-pool key, an inline string): no string is decoded per event, and
 * equal bytes of one field are one state exactly.  The merge decodes each distinct one once per
 * thread and adds by name, so that encodings that differ but name the same state are one row.
 */
#include <stdlib.h>
#include <string.h>

#include "report/states.h"

int states_job_add(struct states_job *s, const struct jfr_field *f, const uint8_t *p, size_t len,
                   uint64_t thread, uint64_t value)
{
	/* keyed: the bytes are a file's */
	uint64_t h = hashtab_keyed_bytes(p, len), id;
	bool fresh;

	/* two byte strings of one hash probe again under another salt, as the interning does */
	for (uint64_t salt = 0;; salt++) {
		struct hashtab_slot *e =
		    hashtab_put(&s->ids, h + salt, (uint64_t)(uintptr_t)f, &fresh);
		if (!e)
			return -1;
		if (!fresh) {
			const struct states_raw *r = &s->raw[e->v - 1];
			if (r->len == len && !memcmp(r->p, p, len)) {
				id = e->v - 1;
				break;
			}
			continue;
		}
		if (s->nraw == s->raw_cap) {
			size_t cap = s->raw_cap ? 2 * s->raw_cap : 8;
			struct states_raw *n = realloc(s->raw, cap * sizeof(*n));
			if (!n) {
				hashtab_del(&s->ids, e); /* no entry without its bytes */
				return -1;
			}
			s->raw = n;
			s->raw_cap = cap;
		}
		s->raw[s->nraw] = (struct states_raw){p, len, f};
		id = s->nraw++;
		e->v = s->nraw;
		break;
	}
	struct hashtab_slot *sum = hashtab_put(&s->sums, thread, id, &fresh);
	if (!sum)
		return -1;
	sum->v += value;
	return 0;
}

void states_job_free(struct states_job *s)
{
	hashtab_free(&s->ids);
	hashtab_free(&s->sums);
	free(s->raw);
	memset(s, 0, sizeof(*s));
}

int states_add(struct report *rep, struct hashtab *ids, const char *name, uint64_t value)
{
	size_t len = strlen(name);
	struct hashtab_slot *e = hashtab_get_bytes(ids, name, len);

	if (!e) {
		if (rep->nstates == rep->states_cap) {
			size_t cap = rep->states_cap ? 2 * rep->states_cap : 8;
			struct report_state *n = realloc(rep->states, cap * sizeof(*n));
			if (!n)
				return -1;
			rep->states = n;
			rep->states_cap = cap;
		}
		char *copy = strdup(name);
		bool fresh;
		if (!copy)
			return -1;
		e = hashtab_put_bytes(ids, copy, len, &fresh);
		if (!e) {
			free(copy);
			return -1;
		}
		rep->states[rep->nstates] = (struct report_state){copy, 0};
		e->v = ++rep->nstates;
	}
	rep->states[e->v - 1].value += value;
	return 0;
}

static int cmp_state(const void *a, const void *b)
{
	const struct report_state *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return strcmp(x->name, y->name);
}

int states_finish(struct report *rep, struct hashtab *ids)
{
	uint64_t sum = 0;

	if (!rep->nstates)
		return 0; /* no selected event gave a state: no table */
	for (size_t i = 0; i < rep->nstates; i++)
		sum += rep->states[i].value;
	/* the filters passed the same events to both sums: the rest had no state field */
	if (sum != rep->total && states_add(rep, ids, STATES_NONE, rep->total - sum) < 0)
		return -1;
	qsort(rep->states, rep->nstates, sizeof(*rep->states), cmp_state);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* The plans: per event type of a chunk, its role and which of its fields a scan decodes. */
#include <string.h>

#include "report/report_internal.h"

/* ---- plans ---- */

static bool selected_type(const struct report_opts *o, const struct jfr_type *t)
{
	if (!o->nevents)
		return !strcmp(t->name, "jdk.ExecutionSample");
	for (int i = 0; i < o->nevents; i++)
		if (!strcmp(o->events[i], "all") || !strcmp(o->events[i], t->name))
			return true;
	return false;
}

static bool is_event_type(const struct jfr_type *t)
{
	return t->super && !strcmp(t->super, "jdk.jfr.Event");
}

/* Adds a type with stacks to the hint, once (each chunk declares its types again). */
static void note_stack_type(struct priv *pv, const struct jfr_type *t)
{
	size_t n = strlen(t->name), need = pv->stack_types_len + n + 3;
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&pv->stack_type_ids, t->name_idx, 0, &fresh);

	if (!s || !fresh)
		return;
	if (need > pv->stack_types_cap) {
		size_t cap = pv->stack_types_cap ? 2 * pv->stack_types_cap : 256;
		char *list;

		while (cap < need)
			cap *= 2;
		list = realloc(pv->stack_types, cap);
		if (!list) {
			hashtab_del(&pv->stack_type_ids, s);
			return;
		}
		pv->stack_types = list;
		pv->stack_types_cap = cap;
	}
	pv->stack_types_len += (size_t)snprintf(pv->stack_types + pv->stack_types_len, n + 3,
	                                        "%s%s", pv->stack_types_len ? ", " : "", t->name);
}

/* The role of the rare types a chunk's merge decodes (rare_events.c); false for the others. */
static bool rare_role(const struct jfr_type *t, enum role *role)
{
	if (!strcmp(t->name, "jdk.JVMInformation"))
		*role = ROLE_JVMINFO;
	else if (!strcmp(t->name, "lfr.SamplerSettings"))
		*role = ROLE_SETTINGS;
	else if (!strcmp(t->name, "lfr.ObjectFile"))
		*role = ROLE_OBJECT;
	else if (!strcmp(t->name, "lfr.Label"))
		*role = ROLE_LABEL;
	else if (is_event_type(t) && is_lost_type(t))
		*role = ROLE_LOST;
	else
		return false;
	return true;
}

/* The plan of a selected sample type t whose stackTrace is field `stack`: the fields to decode. */
static int plan_sample(struct priv *pv, const struct jfr_type *t, int stack, struct plan *p)
{
	const struct report_opts *o = pv->o;

	int thread = jfr_field_index(t, "sampledThread");
	if (thread < 0)
		thread = jfr_field_index(t, "eventThread");
	if (thread >= 0 && (t->fields[thread].array || !t->fields[thread].cp))
		thread = -1;
	int time = jfr_field_index(t, "startTime");
	int value = o->value_field ? jfr_field_index(t, o->value_field) : -1;
	if (value >= 0)
		pv->value_found = true;
	p->slots = calloc(t->nfields, 2);
	if (!p->slots)
		return -1;
	p->fast = p->slots + t->nfields;
	p->role = ROLE_SAMPLE;
	p->stack_field = stack;
	p->thread_field = thread;
	int idx[4] = {time, stack, thread, value};
	for (int k = 0; k < 4; k++) {
		if (idx[k] < 0)
			continue;
		const struct jfr_field *f = &t->fields[idx[k]];
		bool integral =
		    !f->array &&
		    (f->cp || (f->type->kind >= JFR_K_CHAR && f->type->kind <= JFR_K_LONG));
		if (!integral && k != 3)
			continue;
		if (!integral)
			continue; /* a non-integer value field is ignored: every event counts 1 */
		p->slots[idx[k]] = SLOT_TIME + k;
		if (idx[k] + 1 > p->nread)
			p->nread = idx[k] + 1;
	}
	/* the state only when the view shows it: the common CPU samples decode no more fields */
	int state = o->states ? jfr_field_index(t, "state") : -1;
	if (state >= 0 && !t->fields[state].array) {
		p->role = ROLE_STATE_SAMPLE;
		p->state_field = state;
		p->slots[state] = SLOT_STATE;
		if (state + 1 > p->nread)
			p->nread = state + 1;
	}
	for (int i = 0; i < p->nread; i++)
		p->fast[i] = i != p->state_field && jfr_field_is_varint(&t->fields[i]);
	return 0;
}

/*
 * build_plan() of type t of a chunk whose metadata declares profiler.WallClockSample (wall_clock):
 * the wall-clock samples are those events then, and --wall leaves out the CPU samples of the chunk
 * (which are wall-clock samples in files of lfr before it, with jdk.NativeMethodSample off the
 * CPU).
 */
int build_plan(struct priv *pv, const struct jfr_type *t, bool wall_clock, struct plan *p)
{
	const struct report_opts *o = pv->o;

	memset(p, 0, sizeof(*p));
	p->t = t;
	p->evidx = t->name_idx;
	p->thread_field = p->stack_field = p->state_field = -1;
	if (rare_role(t, &p->role))
		return 0;
	int stack = jfr_field_index(t, "stackTrace");
	if (stack < 0 || t->fields[stack].array || !t->fields[stack].cp)
		return 0;
	note_stack_type(pv, t);
	if (!selected_type(o, t) ||
	    (o->wall && wall_clock && strcmp(t->name, "profiler.WallClockSample")))
		return 0;
	pv->any_selected_type = true;
	for (int i = 0; o->wall && i < 3; i++)
		if (!strcmp(t->name, wall_types[i]))
			pv->wall_used |= 1u << i;
	return plan_sample(pv, t, stack, p);
}

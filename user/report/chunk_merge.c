// SPDX-License-Identifier: GPL-2.0
/*
 * A chunk's merge, in file order: its counts, its rare events, and its samples' keys resolved and
 * added to the file-wide (stack, thread) table, the timeline and the sums by state.
 */
#include <string.h>

#include "report/report_internal.h"

static int grow_counts(struct priv *pv, size_t n)
{
	if (n <= pv->ncnt)
		return 0;
	size_t cap = pv->ncnt ? pv->ncnt : 256;
	while (cap < n)
		cap *= 2;
	uint64_t *c = realloc(pv->cnt, cap * sizeof(*c));
	if (!c)
		return -1;
	pv->cnt = c;
	uint64_t *b = realloc(pv->bytes, cap * sizeof(*b));
	if (!b)
		return -1;
	pv->bytes = b;
	memset(pv->cnt + pv->ncnt, 0, (cap - pv->ncnt) * sizeof(*c));
	memset(pv->bytes + pv->ncnt, 0, (cap - pv->ncnt) * sizeof(*b));
	pv->ncnt = cap;
	return 0;
}

/*
 * Every sample type of a chunk shares the thread and stack types (JDK and lfr do): the first sample
 * plan that has the field tells how to resolve the keys.
 */
static void sample_fields(const struct plan *plans, size_t nplans, const struct jfr_field **sf,
                          const struct jfr_field **tf)
{
	*sf = *tf = NULL;
	for (size_t i = 0; i < nplans; i++) {
		const struct plan *p = &plans[i];
		if (p->role != ROLE_SAMPLE && p->role != ROLE_STATE_SAMPLE)
			continue;
		if (!*sf)
			*sf = &p->t->fields[p->stack_field];
		if (!*tf && p->thread_field >= 0)
			*tf = &p->t->fields[p->thread_field];
	}
}

static inline uint64_t sample_thread_key(const struct ctx_chunk *cc, uint64_t b)
{
	return cc->on ? b & ((1ull << CTX_SHIFT) - 1) : b;
}

/* The report's context of a sample's second key B: 0 for none, UINT32_MAX out of memory. */
static uint32_t sample_ctx(struct report *rep, struct priv *pv, struct jfr_reader *r,
                           const struct jfr_chunk *ch, struct ctx_chunk *cc, uint64_t b)
{
	return cc->on ? ctx_chunk_global(cc, rep, &pv->ctx_ids, r, ch, (uint32_t)(b >> CTX_SHIFT))
	              : 0;
}

static int cmp_slot_keys(const void *x, const void *y)
{
	const struct hashtab_slot *a = *(const struct hashtab_slot *const *)x;
	const struct hashtab_slot *b = *(const struct hashtab_slot *const *)y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/*
 * The entries of t by their keys (*out malloc'ed, NULL when t is empty): the tables of file keys
 * hash them under a key drawn per process, so their slots' order differs from run to run, and
 * what is interned in that order (stacks, frames, threads) would number and tie differently.
 */
static int slots_by_key(const struct hashtab *t, struct hashtab_slot ***out, size_t *n)
{
	struct hashtab_slot **v = NULL;

	*n = 0;
	if (t->n && !(v = malloc(t->n * sizeof(*v))))
		return -1;
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(t, s));)
		v[(*n)++] = s;
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_slot_keys);
	*out = v;
	return 0;
}

static int merge_chunk(struct report *rep, struct priv *pv, struct jfr_reader *r,
                       const struct jfr_chunk *ch, const struct hashtab *agg, struct plan *plans,
                       size_t nplans, struct ctx_chunk *cc)
{
	const struct jfr_field *sf, *tf;
	struct hashtab_slot **v;
	size_t n;
	int rc = -1;

	sample_fields(plans, nplans, &sf, &tf);
	if (slots_by_key(agg, &v, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct hashtab_slot *s = v[i];
		uint64_t th = resolve_thread(rep, pv, r, ch, tf, sample_thread_key(cc, s->b));
		if (!th)
			goto out;
		if (th == UINT32_MAX)
			continue;
		uint32_t st = resolve_stack(rep, pv, r, ch, sf, s->a);
		if (st == UINT32_MAX)
			goto out;
		uint32_t cx = sample_ctx(rep, pv, r, ch, cc, s->b);
		if (cx == UINT32_MAX)
			goto out;
		bool fresh;
		struct hashtab_slot *g =
		    hashtab_put(&pv->sample_ids, st, (th - 1) | (uint64_t)cx << 32, &fresh);
		if (!g)
			goto out;
		if (fresh) {
			if (grow((void **)&rep->samples, &rep->samples_cap, rep->nsamples + 1,
			         sizeof(*rep->samples)))
				goto out;
			rep->samples[rep->nsamples] =
			    (struct report_sample){st, (uint32_t)(th - 1), 0, cx};
			g->v = ++rep->nsamples;
		}
		if (cx)
			rep->contexts[cx].value += s->v;
		rep->samples[g->v - 1].value += s->v;
		rep->threads[th - 1].value += s->v;
		rep->matched_events += s->n;
		rep->total += s->v;
	}
	rc = 0;
out:
	free(v);
	return rc;
}

/* The chunk's by-state sums, their threads filtered as the samples are, added by state name. */
static int merge_states(struct report *rep, struct priv *pv, struct jfr_reader *r, struct job *j)
{
	const struct jfr_field *sf, *tf;
	const uint64_t end = j->ch.off + j->ch.size;
	struct hashtab_slot **v;
	size_t n;
	int rc = -1;

	sample_fields(j->plans, (size_t)j->nplans, &sf, &tf);
	if (slots_by_key(&j->states.sums, &v, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct hashtab_slot *s = v[i];
		uint64_t th = resolve_thread(rep, pv, r, &j->ch, tf, s->a);
		if (!th)
			goto out;
		if (th == UINT32_MAX)
			continue; /* filtered out */
		const struct states_raw *raw = &j->states.raw[s->b];
		struct jfr_cur c;
		char name[256];
		jfr_cur_init(&c, r, (uint64_t)(raw->p - r->data), end);
		/* null, empty or undecodable: no state */
		if (value_text(&c, &j->ch, raw->f, name, sizeof(name), 0) <= 0)
			snprintf(name, sizeof(name), "%s", STATES_NONE);
		if (states_add(rep, &pv->state_ids, name, s->v) < 0)
			goto out;
	}
	rc = 0;
out:
	free(v);
	return rc;
}

/* report.timed: the chunk's samples with their resolved stack and thread (cached by the merge). */
static int merge_timed(struct report *rep, struct priv *pv, struct jfr_reader *r, struct job *j)
{
	const struct jfr_field *sf, *tf;
	/* a thread's samples come in runs (a ring's, drained in order): its last key and id */
	uint64_t last_tkey = 0, th = 0, last_skey = 0;
	uint32_t st = UINT32_MAX;

	sample_fields(j->plans, (size_t)j->nplans, &sf, &tf);
	if (grow((void **)&rep->timed, &rep->timed_cap, rep->ntimed + j->ntimed + 1,
	         sizeof(*rep->timed)))
		return -1;
	for (size_t i = 0; i < j->ntimed; i++) {
		const struct timed_key *k = &j->timed[i];
		uint64_t tkey = sample_thread_key(&j->ctx, k->b);

		if (!th || tkey != last_tkey) {
			th = resolve_thread(rep, pv, r, &j->ch, tf, tkey);
			if (!th)
				return -1;
			last_tkey = tkey;
		}
		if (th == UINT32_MAX)
			continue; /* filtered out */
		if (st == UINT32_MAX || k->a != last_skey) {
			st = resolve_stack(rep, pv, r, &j->ch, sf, k->a);
			if (st == UINT32_MAX)
				return -1;
			last_skey = k->a;
		}
		uint32_t cx = sample_ctx(rep, pv, r, &j->ch, &j->ctx, k->b);
		if (cx == UINT32_MAX)
			return -1;
		rep->timed[rep->ntimed++] = (struct report_timed){
		    jfr_sat_sub(jfr_ticks_to_nanos(&j->ch, k->ticks), pv->rec_start), st,
		    (uint32_t)(th - 1), k->v, cx};
	}
	return 0;
}

int job_merge(struct report *rep, struct priv *pv, struct jfr_reader *r, struct job *j)
{
	if (j->rc < 0) {
		/* this chunk's error comes before any error of a later chunk's header */
		memcpy(r->err, j->rr.err, sizeof(r->err));
		r->failed = true;
		return -1;
	}
	if (grow_counts(pv, r->ntype_names) < 0)
		return jfr_fail(r, j->ch.off, "out of memory");
	for (int i = 0; i < j->nplans; i++) {
		pv->cnt[j->plans[i].evidx] += j->cnt[i];
		pv->bytes[j->plans[i].evidx] += j->bytes[i];
	}
	pv->meta_cnt += j->meta_cnt;
	pv->meta_bytes += j->meta_bytes;
	pv->cp_cnt += j->cp_cnt;
	pv->cp_bytes += j->cp_bytes;
	rep->sample_events += j->sample_events;

	hashtab_clear(&pv->chunk_threads);
	hashtab_clear(&pv->chunk_stacks);
	hashtab_clear(&pv->chunk_frames);
	pv->jvm_pid = -1;
	pv->jvm_process[0] = 0;
	for (size_t i = 0; i < j->nspecial; i++)
		if (j->special[i].pl->role == ROLE_JVMINFO)
			chunk_jvminfo(pv, r, &j->ch, j->special[i].pl->t, j->special[i].off);
	for (size_t i = 0; i < j->nspecial; i++)
		if (j->special[i].pl->role == ROLE_SETTINGS)
			note_period(rep, r, &j->ch, j->special[i].pl->t, j->special[i].off);
	for (size_t i = 0; i < j->nspecial; i++)
		if (j->special[i].pl->role == ROLE_OBJECT &&
		    note_object(rep, pv, r, &j->ch, j->special[i].pl->t, j->special[i].off) < 0)
			return jfr_fail(r, j->ch.off, "out of memory");
	for (size_t i = 0; i < j->nspecial; i++)
		if (j->special[i].pl->role == ROLE_LABEL &&
		    note_label(rep, r, &j->ch, j->special[i].pl->t, j->special[i].off) < 0)
			return jfr_fail(r, j->ch.off, "out of memory");
	for (size_t i = 0; i < j->nspecial; i++)
		if (j->special[i].pl->role == ROLE_LOST &&
		    record_lost(rep, pv, r, &j->ch, j->special[i].pl->t, j->special[i].off) < 0)
			return jfr_fail(r, j->ch.off, "out of memory");
	if (merge_chunk(rep, pv, r, &j->ch, &j->agg, j->plans, j->nplans, &j->ctx) < 0 ||
	    merge_timed(rep, pv, r, j) < 0 || merge_states(rep, pv, r, j) < 0)
		return jfr_fail(r, j->ch.off, "out of memory");
	return 0;
}

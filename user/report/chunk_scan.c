// SPDX-License-Identifier: GPL-2.0
/*
 * A chunk's scan, the hot loop: one pass over its events that counts every type and adds the
 * selected samples to the job's (stack key, thread key) table; chunks are scanned in parallel.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "report/report_internal.h"

#define DENSE_TYPES 65536 /* type ids below this are looked up in an array */
#define MAX_JOBS 16       /* chunks scanned in parallel */

/* ---- one chunk ---- */

static int flush_batch(struct hashtab *agg, struct pending *batch, int *n)
{
	for (int i = 0; i < *n; i++) {
		bool fresh;
		struct hashtab_slot *s =
		    hashtab_put_hashed(agg, batch[i].a, batch[i].b, batch[i].h, &fresh);
		if (!s)
			return -1;
		s->v += batch[i].v;
		if (!fresh)
			s->n++;
	}
	*n = 0;
	/* keep the table from growing inside the next batch, so prefetched slots stay valid */
	return hashtab_reserve(agg, BATCH);
}

void job_free(struct job *j)
{
	jfr_chunk_release(&j->ch);
	for (int i = 0; i < j->nplans; i++)
		free(j->plans[i].slots);
	free(j->plans);
	free(j->dense);
	hashtab_free(&j->agg);
	free(j->cnt);
	free(j->bytes);
	free(j->special);
	free(j->timed);
	states_job_free(&j->states);
	ctx_chunk_free(&j->ctx);
	memset(j, 0, sizeof(*j));
}

int job_prepare(struct priv *pv, struct jfr_reader *r, struct job *j)
{
	const struct jfr_meta *m = j->ch.meta;
	uint64_t max_id = 0;

	j->plans = calloc(m->ntypes ? m->ntypes : 1, sizeof(*j->plans));
	j->nplans = j->plans ? m->ntypes : 0; /* job_free frees as many */
	/* per type of this chunk (not of the file: a chunk costs what its own metadata holds) */
	j->ncnt = m->ntypes ? m->ntypes : 1;
	j->cnt = calloc(j->ncnt, sizeof(*j->cnt));
	j->bytes = calloc(j->ncnt, sizeof(*j->bytes));
	if (!j->plans || !j->cnt || !j->bytes)
		return -1;
	bool wall_clock = jfr_type_by_name(m, "profiler.WallClockSample") != NULL;

	for (int i = 0; i < m->ntypes; i++) {
		if (build_plan(pv, &m->types[i], wall_clock, &j->plans[i]) < 0)
			return -1;
		if (m->types[i].id > max_id)
			max_id = m->types[i].id;
	}
	j->ndense = max_id < DENSE_TYPES ? max_id + 1 : DENSE_TYPES;
	j->dense = calloc(j->ndense, sizeof(*j->dense));
	if (!j->dense)
		return -1;
	for (int i = 0; i < m->ntypes; i++)
		if (m->types[i].id < j->ndense)
			j->dense[m->types[i].id] = &j->plans[i];
	const struct report_opts *o = pv->o;
	j->lo = INT64_MIN;
	j->hi = INT64_MAX;
	if (o->from_ns >= 0)
		j->lo = jfr_nanos_to_ticks(&j->ch, jfr_sat_add(pv->rec_start, o->from_ns));
	if (o->to_ns >= 0)
		j->hi = jfr_nanos_to_ticks(&j->ch, jfr_sat_add(pv->rec_start, o->to_ns));
	j->keep_times = o->timeline;
	j->timed_only = o->timeline && o->timed_only;
	if (ctx_chunk_prepare(&j->ctx, r, &j->ch, o) < 0)
		return -1;
	j->rr = *r;
	j->rr.failed = false;
	j->rr.err[0] = 0;
	return hashtab_reserve(&j->agg, BATCH);
}

/* Rare events (losses, JVM information) are decoded at merge time.  0, or -1 when out of memory. */
static int note_special(struct job *j, const struct plan *pl, const struct jfr_cur *c)
{
	if (grow((void **)&j->special, &j->special_cap, j->nspecial + 1, sizeof(*j->special)))
		return -1;
	j->special[j->nspecial++] = (struct special){pl, jfr_cur_off(c)};
	return 0;
}

/*
 * A sample's decoded fields v (indexed by enum slot): counted, and when in the time range put in
 * the batch (and the timeline).  0, 1 when out of the range, or -1 when out of memory.
 */
static inline int add_sample(struct job *j, const uint64_t *v, struct pending *batch, int *nbatch)
{
	j->sample_events++;
	if ((int64_t)v[SLOT_TIME] < j->lo || (int64_t)v[SLOT_TIME] >= j->hi)
		return 1;
	/* Samples are added in batches: the slot of each is prefetched when it is decoded
	 * and updated BATCH events later, so the table's cache misses overlap. */
	uint64_t b = v[SLOT_THREAD];
	/* the context the sample ran in (lfr.TraceContext of its thread and instant) */
	if (j->ctx.on || j->ctx.filter) {
		uint32_t cx = j->ctx.on ? ctx_chunk_of(&j->ctx, b, v[SLOT_TIME]) : 0;

		if (j->ctx.filter && (!cx || !j->ctx.pass[cx]))
			return 1;
		if (j->ctx.on && !(b >> CTX_SHIFT))
			b |= (uint64_t)cx << CTX_SHIFT;
	}
	if (j->timed_only) {
		if (grow((void **)&j->timed, &j->timed_cap, j->ntimed + 1, sizeof(*j->timed)))
			return -1;
		j->timed[j->ntimed++] =
		    (struct timed_key){(int64_t)v[SLOT_TIME], v[SLOT_STACK], b, v[SLOT_VALUE]};
		return 0;
	}
	struct pending *e = &batch[(*nbatch)++];
	e->a = v[SLOT_STACK];
	e->b = b;
	e->v = v[SLOT_VALUE];
	e->h = hashtab_slot_hash(&j->agg, e->a, e->b);
	hashtab_prefetch(&j->agg, e->h);
	if (j->keep_times) {
		if (grow((void **)&j->timed, &j->timed_cap, j->ntimed + 1, sizeof(*j->timed)))
			return -1;
		j->timed[j->ntimed++] = (struct timed_key){(int64_t)v[SLOT_TIME], e->a, e->b, e->v};
	}
	if (*nbatch == BATCH && flush_batch(&j->agg, batch, nbatch) < 0)
		return -1;
	return 0;
}

/*
 * Decodes fields [from, to) of a sample plan pl at c: the fast ones into v (indexed by enum slot),
 * the others skipped.  Shared by both sample roles, per event.
 */
static inline void decode_fields(const struct plan *pl, struct jfr_cur *c, uint64_t *v, int from,
                                 int to)
{
	const struct jfr_field *fields = pl->t->fields;

	for (int i = from; i < to; i++) {
		if (pl->fast[i])
			v[pl->slots[i]] = jfr_varint(c);
		else
			jfr_skip_field(c, &fields[i]);
	}
}

/* ROLE_SAMPLE: the prefix of fields that holds what is needed, then add_sample(); returns as
 * scan_state_sample() does. */
static inline int scan_sample(struct job *j, const struct plan *pl, struct jfr_cur *c,
                              struct pending *batch, int *nbatch)
{
	uint64_t v[5] = {0, 0, 0, 0, 1};

	decode_fields(pl, c, v, 0, pl->nread);
	if (c->bad)
		return 1;
	return add_sample(j, v, batch, nbatch) < 0 ? -1 : 0;
}

/*
 * ROLE_STATE_SAMPLE: a sample as add_sample() takes it, and its value added to its thread's sum
 * in its state, whose key is the bytes of the field (decoded once per chunk, at the merge).  0,
 * 1 when a field is malformed (the error names its offset), or -1 when out of memory.
 */
static int scan_state_sample(struct job *j, const struct plan *pl, struct jfr_cur *c,
                             struct pending *batch, int *nbatch)
{
	uint64_t v[5] = {0, 0, 0, 0, 1};
	const struct jfr_field *fields = pl->t->fields;
	const uint8_t *state, *state_end;

	/* the state field is never fast: it is skipped, its bytes kept */
	decode_fields(pl, c, v, 0, pl->state_field);
	state = c->p;
	jfr_skip_field(c, &fields[pl->state_field]);
	state_end = c->p;
	decode_fields(pl, c, v, pl->state_field + 1, pl->nread);
	if (c->bad)
		return 1;
	int rc = add_sample(j, v, batch, nbatch);
	if (rc)
		return rc < 0 ? -1 : 0;
	return states_job_add(&j->states, &fields[pl->state_field], state,
	                      (size_t)(state_end - state), v[SLOT_THREAD], v[SLOT_VALUE]);
}

/* The hot loop: one pass over the chunk's events. */
static void job_scan(struct job *j)
{
	struct jfr_reader *r = &j->rr;
	const struct jfr_meta *m = j->ch.meta;
	const uint8_t *p = r->data + j->ch.off + JFR_CHUNK_HEADER_SIZE;
	const uint8_t *end = r->data + j->ch.off + j->ch.size;
	struct pending batch[BATCH];
	int nbatch = 0;

	j->rc = -1;
	/* the contexts first: a sample's lfr.TraceContext may come after it; a malformed event is
	 * reported by the pass below */
	if (ctx_chunk_scan(&j->ctx, r, &j->ch) < 0)
		goto oom;
	while (p < end) {
		struct jfr_cur c = {.p = p, .end = end, .r = r};
		uint64_t size = jfr_varint(&c);
		if (c.bad)
			return;
		if (size == 0 || size > (uint64_t)(end - p)) {
			jfr_fail(r, p - r->data, "event size %llu %s", (unsigned long long)size,
			         size ? "runs past the end of the chunk"
			              : "is zero (a zero-filled tail of an unfinished file?)");
			return;
		}
		c.end = p + size;
		uint64_t type = jfr_varint(&c);
		if (c.bad)
			return;
		uint64_t ev_off = p - r->data;
		p += size;
		if (type == JFR_EVENT_METADATA) {
			j->meta_cnt++;
			j->meta_bytes += size;
			continue;
		}
		if (type == JFR_EVENT_CHECKPOINT) {
			j->cp_cnt++;
			j->cp_bytes += size;
			continue;
		}
		struct plan *pl = NULL;
		if (type < j->ndense) {
			pl = j->dense[type];
		} else {
			const struct jfr_type *t = jfr_type_by_id(m, type);
			pl = t ? &j->plans[t - m->types] : NULL;
		}
		if (!pl) {
			jfr_fail(r, ev_off, "event of undeclared type id %llu",
			         (unsigned long long)type);
			return;
		}
		j->cnt[pl - j->plans]++;
		j->bytes[pl - j->plans] += size;
		if (pl->role == ROLE_COUNT)
			continue;
		int rc = pl->role == ROLE_SAMPLE ? scan_sample(j, pl, &c, batch, &nbatch)
		         : pl->role == ROLE_STATE_SAMPLE
		             ? scan_state_sample(j, pl, &c, batch, &nbatch)
		             : note_special(j, pl, &c);
		if (rc == -1)
			goto oom;
		if (rc)
			return; /* the error names the offset of the bad field */
	}
	if (flush_batch(&j->agg, batch, &nbatch) < 0)
		goto oom;
	j->rc = 0;
	return;
oom:
	jfr_fail(r, j->ch.off, "out of memory");
}

struct scan_pool {
	struct job *jobs;
	int njobs;
	int next; /* atomically claimed job index */
};

static void *scan_worker(void *arg)
{
	struct scan_pool *sp = arg;

	for (;;) {
		int i = __atomic_fetch_add(&sp->next, 1, __ATOMIC_RELAXED);
		if (i >= sp->njobs)
			return NULL;
		job_scan(&sp->jobs[i]);
	}
}

void scan_jobs(struct job *jobs, int n, int threads)
{
	struct scan_pool sp = {jobs, n, 0};
	pthread_t tids[MAX_JOBS];
	int started = 0;

	for (int i = 1; i < threads && i < n; i++) {
		if (pthread_create(&tids[started], NULL, scan_worker, &sp))
			break;
		started++;
	}
	scan_worker(&sp);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
}

int scan_threads(const struct report_opts *o)
{
	long n = o->jobs > 0 ? o->jobs : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (int)n;
}

// SPDX-License-Identifier: GPL-2.0
/* `lfr top`'s table: a sliding window of a report's timed samples, per function and thread. */
#include <stdlib.h>
#include <string.h>

#include "report/labels.h"
#include "report/top.h"

void top_opts_init(struct top_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->window_ns = 0;
	o->sort = TOP_SORT_SELF;
	o->tid = -1;
	o->pid = -1;
	o->zoom = TOP_ALL;
}

/* With a label filter: per thread, whether its process lacks the label's value (else NULL). */
static uint8_t *label_skips(const struct report *rep, const struct top_opts *o)
{
	uint8_t *skip;
	char buf[32];

	if (!o->label_name || !(skip = calloc(rep->nthreads + 1, 1)))
		return NULL;
	for (size_t i = 0; i < rep->nthreads; i++) {
		const char *v = report_thread_label(
		    rep, &rep->threads[i], report_label_name(o->label_name), buf, sizeof(buf));

		skip[i] = !v || strcmp(v, o->label_value);
	}
	return skip;
}

/* Rows by (frame, thread): open addressing over row indexes + 1 (0 = empty). */
struct rowmap {
	uint32_t *slot;
	size_t cap;
	struct top_row *rows;
	size_t n, rcap;
};

static size_t mix(uint32_t frame, uint32_t thread)
{
	uint64_t k = ((uint64_t)frame << 32 | thread) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> 17);
}

static struct top_row *row_of(struct rowmap *m, uint32_t frame, uint32_t thread)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint32_t *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return NULL;
		for (size_t i = 0; i < m->n; i++) {
			size_t h = mix(m->rows[i].frame, m->rows[i].thread) & (cap - 1);
			while (slot[h])
				h = (h + 1) & (cap - 1);
			slot[h] = (uint32_t)i + 1;
		}
		free(m->slot);
		m->slot = slot;
		m->cap = cap;
	}
	size_t h = mix(frame, thread) & (m->cap - 1);
	for (; m->slot[h]; h = (h + 1) & (m->cap - 1)) {
		struct top_row *r = &m->rows[m->slot[h] - 1];
		if (r->frame == frame && r->thread == thread)
			return r;
	}
	if (m->n == m->rcap) {
		size_t rcap = m->rcap ? m->rcap * 2 : 256;
		struct top_row *rows = realloc(m->rows, rcap * sizeof(*rows));

		if (!rows)
			return NULL;
		m->rows = rows;
		m->rcap = rcap;
	}
	m->rows[m->n] = (struct top_row){.frame = frame, .thread = thread};
	m->slot[h] = (uint32_t)++m->n;
	return &m->rows[m->n - 1];
}

static int cmp_row(const struct top_row *x, const struct top_row *y, enum top_sort s)
{
	uint64_t a1 = s == TOP_SORT_SELF ? x->self : x->total,
	         b1 = s == TOP_SORT_SELF ? y->self : y->total;
	uint64_t a2 = s == TOP_SORT_SELF ? x->total : x->self,
	         b2 = s == TOP_SORT_SELF ? y->total : y->self;

	if (a1 != b1)
		return a1 < b1 ? 1 : -1;
	if (a2 != b2)
		return a2 < b2 ? 1 : -1;
	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_self(const void *a, const void *b)
{
	return cmp_row(a, b, TOP_SORT_SELF);
}

static int cmp_total(const void *a, const void *b)
{
	return cmp_row(a, b, TOP_SORT_TOTAL);
}

/* The frames with a nonzero value in v as rows of every thread, by total. */
static int frame_rows(const uint64_t *v, size_t nframes, struct top_row **out, size_t *n)
{
	size_t cnt = 0;

	for (size_t f = 0; f < nframes; f++)
		cnt += v[f] != 0;
	*out = calloc(cnt ? cnt : 1, sizeof(**out));
	if (!*out)
		return -1;
	for (size_t f = 0; f < nframes; f++)
		if (v[f])
			(*out)[(*n)++] = (struct top_row){
			    .frame = (uint32_t)f, .thread = TOP_ALL, .total = v[f]};
	qsort(*out, *n, sizeof(**out), cmp_total);
	return 0;
}

/*
 * The window ends at the newest sample and begins window_ns before it, or where the
 * recording read begins when it is shorter (0: its first chunk's start, or an earlier
 * sample's time): the time its samples cover, not the first sample's (that would leave out
 * the period before it, and make one sample a rate of 1e9 per second).
 */
static void top_window(const struct report *rep, const struct top_opts *o, struct top_table *t)
{
	t->to_ns = rep->timed[0].nanos;
	t->from_ns = 0;
	for (size_t i = 0; i < rep->ntimed; i++) {
		if (rep->timed[i].nanos > t->to_ns)
			t->to_ns = rep->timed[i].nanos;
		if (rep->timed[i].nanos < t->from_ns)
			t->from_ns = rep->timed[i].nanos;
	}
	if (o->window_ns > 0 && t->to_ns - t->from_ns >= o->window_ns)
		t->from_ns = t->to_ns - o->window_ns + 1;
}

/*
 * A sample's frames fr[0..n) (leaf first) through the zoomed frame: its callers (rootward, d + 1)
 * and callees (leafward, d - 1), each once per sample (the marks hold the sample's stamp).
 */
static void zoom_neighbours(const uint32_t *fr, uint32_t n, uint32_t zoom, uint64_t value,
                            uint64_t stamp, uint64_t *cmark, uint64_t *emark, uint64_t *callers,
                            uint64_t *callees)
{
	for (uint32_t d = 0; d < n; d++) {
		if (fr[d] != zoom)
			continue;
		if (d + 1 < n && fr[d + 1] != zoom && cmark[fr[d + 1]] != stamp) {
			cmark[fr[d + 1]] = stamp;
			callers[fr[d + 1]] += value;
		}
		if (d > 0 && fr[d - 1] != zoom && emark[fr[d - 1]] != stamp) {
			emark[fr[d - 1]] = stamp;
			callees[fr[d - 1]] += value;
		}
	}
}

int top_build(const struct report *rep, const struct top_opts *o, struct top_table *t)
{
	memset(t, 0, sizeof(*t));
	t->zoom = (struct top_row){.frame = o->zoom, .thread = TOP_ALL};
	if (!rep->ntimed)
		return 0;
	top_window(rep, o, t);

	size_t nf = rep->nframes ? rep->nframes : 1;
	uint32_t maxdepth = 1;
	for (size_t s = 0; s < rep->nstacks; s++)
		if (rep->stacks[s].depth > maxdepth)
			maxdepth = rep->stacks[s].depth;
	uint64_t *mark = calloc(nf, sizeof(*mark)), *cmark = calloc(nf, sizeof(*cmark)),
	         *emark = calloc(nf, sizeof(*emark));
	uint64_t *callers = calloc(nf, sizeof(*callers)), *callees = calloc(nf, sizeof(*callees));
	uint32_t *fr = malloc(maxdepth * sizeof(*fr));
	uint8_t *skip = label_skips(rep, o);
	struct rowmap m = {0};
	int rc = -1;

	if (!mark || !cmark || !emark || !callers || !callees || !fr || (o->label_name && !skip))
		goto out;
	uint64_t stamp = 0;
	for (size_t i = 0; i < rep->ntimed; i++) {
		const struct report_timed *ts = &rep->timed[i];
		if (ts->nanos < t->from_ns || ts->nanos > t->to_ns)
			continue;
		const struct report_thread *th = &rep->threads[ts->thread];
		if ((o->tid >= 0 && th->tid != o->tid) || (o->pid >= 0 && th->pid != o->pid) ||
		    (skip && skip[ts->thread]))
			continue;
		const struct report_stack *st = &rep->stacks[ts->stack];
		const uint32_t *sf = rep->stack_frames + st->first;
		uint32_t n = 0;
		for (uint32_t d = 0; d < st->depth; d++)
			if (o->kernel || rep->frames[sf[d]].kind != RF_KERNEL)
				fr[n++] = sf[d];
		t->events++;
		if (!n) {
			t->kernel_only++;
			continue;
		}
		t->samples += ts->value;
		stamp++;
		struct top_row *r = row_of(&m, fr[0], ts->thread);
		if (!r)
			goto out;
		r->self += ts->value;
		bool zoomed = false;
		for (uint32_t d = 0; d < n; d++) {
			if (mark[fr[d]] == stamp)
				continue; /* recursion: a function counts once per sample */
			mark[fr[d]] = stamp;
			if (!(r = row_of(&m, fr[d], ts->thread)))
				goto out;
			r->total += ts->value;
			zoomed |= fr[d] == o->zoom;
		}
		if (!zoomed)
			continue;
		t->zoom.total += ts->value;
		if (fr[0] == o->zoom)
			t->zoom.self += ts->value;
		zoom_neighbours(fr, n, o->zoom, ts->value, stamp, cmark, emark, callers, callees);
	}
	t->rows = m.rows;
	t->nrows = m.n;
	m.rows = NULL;
	if (t->nrows) /* none: rows is NULL, which qsort may not take */
		qsort(t->rows, t->nrows, sizeof(*t->rows),
		      o->sort == TOP_SORT_TOTAL ? cmp_total : cmp_self);
	if (o->zoom != TOP_ALL && (frame_rows(callers, rep->nframes, &t->callers, &t->ncallers) ||
	                           frame_rows(callees, rep->nframes, &t->callees, &t->ncallees)))
		goto out;
	rc = 0;
out:
	free(m.slot);
	free(m.rows);
	free(mark);
	free(cmark);
	free(emark);
	free(callers);
	free(callees);
	free(fr);
	free(skip);
	return rc;
}

void top_free(struct top_table *t)
{
	free(t->rows);
	free(t->callers);
	free(t->callees);
	memset(t, 0, sizeof(*t));
}

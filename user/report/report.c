// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation pass of `lfr report`.  Per chunk: one linear scan of the events that counts every
 * type and, for the selected sample types, decodes only startTime, stackTrace, the thread and the
 * optional value field and adds the value to a (stackTrace key, thread key) bucket.  At the chunk's
 * end each distinct thread key and stack key is resolved once through the constant pools into
 * interned threads, frames and stacks, and the buckets are merged into the file-wide (stack,
 * thread) table. No event is ever materialized, so the cost per sample is a few varint reads and
 * one hash probe.
 *
 * This file reads the file chunk by chunk and owns the report; the steps of a chunk are in
 * chunk_scan.c and chunk_merge.c (report_internal.h lists the others).
 */
#include <stdlib.h>
#include <string.h>

#include "report/labels.h"
#include "report/report_internal.h"
#include "report/timed_order.h"

/* ---- the whole file ---- */

static int cmp_evtype(const void *a, const void *b)
{
	const struct report_evtype *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* An event type's count, its name copied; false when out of memory. */
static bool add_evtype(struct report *rep, const char *name, uint64_t count, uint64_t bytes)
{
	char *copy = strdup(name);

	if (!copy)
		return false;
	rep->evtypes[rep->nevtypes++] = (struct report_evtype){copy, count, bytes};
	return true;
}

/* The event type counts and the selection's name; -1 when out of memory. */
static int finish(struct report *rep, struct priv *pv, struct jfr_reader *r)
{
	size_t n = 2;
	for (size_t i = 0; i < r->ntype_names && i < pv->ncnt; i++)
		n += pv->cnt[i] > 0;
	rep->evtypes = calloc(n, sizeof(*rep->evtypes));
	if (!rep->evtypes)
		return -1;
	for (size_t i = 0; i < r->ntype_names && i < pv->ncnt; i++)
		if (pv->cnt[i] && !add_evtype(rep, r->type_names[i], pv->cnt[i], pv->bytes[i]))
			return -1;
	if ((pv->meta_cnt && !add_evtype(rep, "jdk.Metadata", pv->meta_cnt, pv->meta_bytes)) ||
	    (pv->cp_cnt && !add_evtype(rep, "jdk.CheckPoint", pv->cp_cnt, pv->cp_bytes)))
		return -1;
	qsort(rep->evtypes, rep->nevtypes, sizeof(*rep->evtypes), cmp_evtype);
	const char *sel = "jdk.ExecutionSample";
	if (pv->o->wall) {
		/* the types read: of lfr's files, profiler.WallClockSample or the earlier pair */
		size_t len = 0;
		rep->selected[0] = 0;
		unsigned used = pv->wall_used ? pv->wall_used : 1; /* none: the one lfr writes */
		for (int i = 0; i < 3 && len < sizeof(rep->selected); i++)
			if (used & 1u << i)
				len += snprintf(rep->selected + len, sizeof(rep->selected) - len,
				                "%s%s", len ? "," : "", wall_types[i]);
	} else if (pv->o->nevents) {
		size_t len = 0;
		rep->selected[0] = 0;
		for (int i = 0; i < pv->o->nevents && len < sizeof(rep->selected); i++)
			len += snprintf(rep->selected + len, sizeof(rep->selected) - len, "%s%s",
			                i ? "," : "", pv->o->events[i]);
	} else {
		snprintf(rep->selected, sizeof(rep->selected), "%s", sel);
	}
	return 0;
}

/*
 * The earliest start of the file's chunks, by their headers alone (the origin of --from and --to:
 * a merged file may put a later recording's chunks first); false when the first header does not
 * parse.  A bad header later stops the walk: the chunk loop reports it.
 */
static bool earliest_start(const struct jfr_reader *r, int64_t *start)
{
	bool have = false;

	for (uint64_t off = 0; r->size - off >= JFR_CHUNK_HEADER_SIZE;) {
		struct jfr_chunk ch;
		char why[128];
		unsigned at;

		if (jfr_chunk_header(&ch, r->data + off, r->size - off, why, sizeof(why), &at))
			break;
		if (!have || ch.start_nanos < *start)
			*start = ch.start_nanos;
		have = true;
		off += ch.size;
	}
	return have;
}

/*
 * Loads and prepares the chunks at *off into jobs, up to `threads` of them, in file order: *n of
 * them, *off past them.  0, or -1 (the reader's error) when a chunk's header or metadata is bad or
 * memory runs out; the jobs loaded before it are scanned and merged all the same.
 */
static int load_jobs(struct report *rep, struct priv *pv, struct jfr_reader *r, struct job *jobs,
                     int threads, uint64_t *off, int *n)
{
	while (*n < threads && *off < r->size) {
		struct job *j = &jobs[*n];
		memset(j, 0, sizeof(*j));
		if (jfr_chunk_load(r, *off, &j->ch) < 0)
			return -1;
		const struct jfr_chunk *ch = &j->ch;
		int64_t end = jfr_sat_add(ch->start_nanos, ch->duration_nanos);
		if (!pv->have_start) {
			if (!earliest_start(r, &pv->rec_start))
				pv->rec_start = ch->start_nanos;
			rep->start_nanos = ch->start_nanos;
			rep->end_nanos = end;
			pv->have_start = true;
		}
		if (ch->start_nanos < rep->start_nanos)
			rep->start_nanos = ch->start_nanos;
		if (end > rep->end_nanos)
			rep->end_nanos = end;
		if (job_prepare(pv, r, j) < 0) {
			int rc = jfr_fail(r, ch->off, "out of memory");
			job_free(j);
			return rc;
		}
		*off += j->ch.size;
		(*n)++;
	}
	return 0;
}

int report_read(struct jfr_reader *r, const struct report_opts *o, struct report **out)
{
	struct report *rep = calloc(1, sizeof(*rep));
	struct priv *pv = calloc(1, sizeof(*pv));
	int threads = scan_threads(o);
	struct job *jobs = calloc(threads, sizeof(*jobs));
	int rc = 0;

	*out = rep;
	if (!rep || !pv || !jobs) {
		free(pv);
		free(jobs);
		if (rep)
			rep->priv = NULL;
		snprintf(r->err, sizeof(r->err), "out of memory");
		r->failed = true;
		return -1;
	}
	rep->priv = pv;
	hashtab_init_trusted(&pv->sample_ids, false);     /* the report's own ids */
	hashtab_init_trusted(&pv->stack_type_ids, false); /* and the reader's */
	rep->path = strdup(r->name);                      /* the report outlives its reader */
	rep->file_size = r->size;
	if (!rep->path)
		rc = jfr_fail(r, 0, "out of memory");
	pv->o = o;
	if (r->size == 0)
		rc = jfr_fail(r, 0, "empty file: not a JFR recording");
	/* up to `threads` chunks are prepared in order, scanned in parallel, merged in order */
	for (uint64_t off = 0; !rc && off < r->size;) {
		int n = 0, load_rc = load_jobs(rep, pv, r, jobs, threads, &off, &n);

		scan_jobs(jobs, n, threads);
		for (int i = 0; i < n; i++) {
			if (!rc) {
				rc = job_merge(rep, pv, r, &jobs[i]);
				if (!rc)
					rep->nchunks++;
			}
			job_free(&jobs[i]);
		}
		if (!rc)
			rc = load_rc;
	}
	free(jobs);
	if ((finish(rep, pv, r) < 0 || states_finish(rep, &pv->state_ids) < 0) && !rc)
		rc = jfr_fail(r, 0, "out of memory");
	if (rep->ntimed && report_sort_timed(rep->timed, rep->ntimed) && !rc)
		rc = jfr_fail(r, 0, "out of memory");
	return rc;
}

/* For the views: whether any chunk had a selected type, and which types carry stacks. */
int64_t report_span_nanos(const struct report *rep)
{
	int64_t d;

	if (rep->end_nanos <= rep->start_nanos)
		return 0;
	return __builtin_sub_overflow(rep->end_nanos, rep->start_nanos, &d) ? INT64_MAX : d;
}

bool report_value_field_found(const struct report *rep)
{
	const struct priv *pv = rep->priv;

	return pv && pv->value_found;
}

const char *report_stack_types(const struct report *rep, bool *any_selected)
{
	const struct priv *pv = rep->priv;

	*any_selected = pv->any_selected_type;
	return pv->stack_types ? pv->stack_types : "";
}

void report_free(struct report *rep)
{
	if (!rep)
		return;
	free(rep->path);
	report_labels_free(rep);
	struct priv *pv = rep->priv;
	if (pv) {
		free(pv->cnt);
		free(pv->bytes);
		hashtab_free(&pv->frame_ids);
		hashtab_free(&pv->stack_ids);
		hashtab_free(&pv->thread_ids);
		hashtab_free(&pv->sample_ids);
		hashtab_free(&pv->object_ids);
		hashtab_free(&pv->stack_type_ids);
		hashtab_free(&pv->lost_ids);
		hashtab_free(&pv->chunk_threads);
		hashtab_free(&pv->chunk_stacks);
		hashtab_free(&pv->chunk_frames);
		hashtab_free(&pv->state_ids);
		hashtab_free(&pv->ctx_ids);
		free(pv->tmp_frames);
		free(pv->stack_types);
		free(pv);
	}
	for (size_t i = 0; i < rep->nframes; i++)
		free(rep->frames[i].name), free(rep->frames[i].object);
	free(rep->frames);
	for (size_t i = 0; i < rep->nobjects; i++)
		free(rep->objects[i].name), free(rep->objects[i].path),
		    free(rep->objects[i].build_id);
	free(rep->objects);
	free(rep->unnamed);
	free(rep->stack_frames);
	free(rep->stacks);
	free(rep->timed);
	for (size_t i = 0; i < rep->nstates; i++)
		free(rep->states[i].name);
	free(rep->states);
	for (size_t i = 0; i < rep->nthreads; i++) {
		free(rep->threads[i].name);
		free(rep->threads[i].process);
	}
	free(rep->threads);
	free(rep->samples);
	report_contexts_free(rep);
	for (size_t i = 0; i < rep->nevtypes; i++)
		free((char *)rep->evtypes[i].name);
	free(rep->evtypes);
	for (size_t i = 0; i < rep->nlost; i++) {
		free(rep->lost[i].type);
		free(rep->lost[i].reason);
		free(rep->lost[i].field);
	}
	free(rep->lost);
	free(rep);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A chunk as Pyroscope ingest uploads, one per label set of its processes (see pyroscope.h): the
 * processes of the chunk's events and their series, then for each series the chunk without the
 * other processes' events, gzipped.  Every upload of a chunk is laid out as its header, the events
 * it keeps, then the chunk's checkpoints and metadata, the same bytes in each (readers find those
 * by the header's offsets, wherever they are): rebuilt and deflated once per chunk, not per upload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/gzip.h"
#include "export/labels.h"
#include "export/pyroscope.h"
#include "jfr/reach.h"
#include "jfr/rebase.h"
#include "jfr/reader.h"
#include "report/labels.h"
#include "report/report.h"

#define SERIES_MAX 2048
/*
 * While its series times its pools stay within this many times the chunk, each upload carries
 * the chunk's whole pools, deflated once per chunk; past it, each carries the constants its own
 * events reach (jfr/reach.h), found at about the cost of reading the pools once more per chunk.
 * Whole pools always would make the bytes a chunk sends its series times its pools, and a series
 * is a process name, which any user picks: a thousand processes of distinct names made one chunk a
 * thousand copies of every stack of the machine, each showing everybody's stacks to every series.
 */
#define WHOLE_POOLS_TIMES 4

/* A thread's process in the chunk's events, and the series (upload) it belongs to. */
struct proc {
	int64_t pid;
	char name[64];
	unsigned series;
};

/* An event but a checkpoint or metadata, found once (find_series) for every upload. */
struct event_proc {
	uint64_t off; /* absolute */
	uint64_t size;
	uint32_t proc : 30;  /* index into procs + 1; 0: of no thread, in every upload; PROC_NONE */
	uint32_t sample : 1; /* a CPU sample (counted in the upload) */
	/*
	 * lfr.ObjectFile (an object's path and build-id, for naming its frames later): one per
	 * object of the chunk, of no thread, which Pyroscope's parser does not read; any user can
	 * map objects by the thousand, so an upload cut to its own constants leaves them out
	 */
	uint32_t object : 1;
};

/*
 * An event of a process (jdk.SystemProcess, an lfr.Label of one) goes with its process's threads;
 * one of a process none of whose threads has an event in the chunk goes in no upload: in every
 * one, each upload of a chunk of many processes would carry every other's command line.
 */
#define PROC_NONE ((1u << 30) - 1)

/* An event of a process: evs[ev]'s pid, its process found once the chunk's threads are known. */
struct pid_event {
	size_t ev;
	int64_t pid;
};

struct split {
	struct jfr_reader *r;
	struct jfr_chunk ch;
	struct report *rep;     /* the chunk's labels, period and span (noted by the walk) */
	struct hashtab threads; /* thread key -> index into procs + 1 */
	struct hashtab types;   /* event type id -> its type_info() */
	uint64_t shared;        /* the bytes of the events in every upload (of no thread) */
	/* the last event's type and thread, looked up again for the next (events come in runs) */
	const struct jfr_type *last_type;
	uint64_t last_info;
	uint64_t last_key;
	size_t last_proc;
	struct proc *procs;
	size_t nprocs, cap;
	char **series; /* the series' names, sorted */
	size_t nseries;
	const struct jfr_type *sample_type;
	struct event_proc *evs; /* in file order */
	size_t nevs, evs_cap;
	struct pid_event *pid_evs;
	size_t npid_evs, pid_evs_cap;
	/*
	 * The events of series i: evs[of[at[i]]] to evs[of[at[i + 1] - 1]], in file order; at
	 * [nseries] those of no thread, in every upload.  So each upload is built in the time of
	 * its own events, not of the chunk's.
	 */
	size_t *of, *at;
	unsigned *processes;         /* per series, its processes */
	struct jfr_buf tail;         /* the chunk's header, checkpoints and metadata (skeleton()) */
	uint64_t meta_at, meta_size; /* the metadata event in the tail after its header */
	bool meta_found;
	bool prune;             /* each upload with its own constants (WHOLE_POOLS_TIMES) */
	struct jfr_reach reach; /* the constants of the upload being built */
	/* the tail's bytes before and after the metadata event deflated */
	struct lfr_gzip_piece pools[2];
	struct lfr_gzip_piece *meta; /* the metadata event deflated */
	bool oom;
	char *why;
	size_t whylen;
};

/*
 * What the walk needs of an event type, found once per type: its thread field (sampledThread,
 * eventThread) + 1 in the low 16 bits (0: none), and whether each of its fields is one varint
 * (TI_FLAT: a sample's, skipped without the generic walk) or it is a rare event the report notes
 * (TI_RARE: lfr.Label, lfr.SamplerSettings), and the field + 1 of the pid of an event of a
 * process (from bit TI_PID_SHIFT: jdk.SystemProcess, lfr.Label).
 */
enum {
	TI_FIELD = 0xffff,
	TI_FLAT = 1 << 16,
	TI_RARE = 1 << 17,
	TI_OBJECT = 1 << 18,
	TI_PID_SHIFT = 20
};

static uint64_t type_info(struct split *sp, const struct jfr_type *t)
{
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&sp->types, t->id, 0, &fresh);
	uint64_t v = TI_FLAT;
	int i;

	if (s && !fresh)
		return s->v;
	i = jfr_field_index(t, "sampledThread");
	if (i < 0)
		i = jfr_field_index(t, "eventThread");
	if (i >= 0 && i < TI_FIELD && t->fields[i].cp && !t->fields[i].array)
		v |= (uint64_t)(i + 1);
	for (int k = 0; k < t->nfields; k++)
		if (!jfr_field_is_varint(&t->fields[k]))
			v &= ~(uint64_t)TI_FLAT;
	if (!strcmp(t->name, "lfr.Label") || !strcmp(t->name, "lfr.SamplerSettings"))
		v |= TI_RARE;
	i = jfr_field_index(t, "pid");
	if ((!strcmp(t->name, "lfr.Label") || !strcmp(t->name, "jdk.SystemProcess")) && i >= 0 &&
	    i < TI_FIELD && !t->fields[i].array)
		v |= (uint64_t)(i + 1) << TI_PID_SHIFT;
	if (!strcmp(t->name, "lfr.ObjectFile"))
		v |= TI_OBJECT;
	if (s)
		s->v = v;
	return v;
}

/* lfr names a thread's group after its process, "NAME [PID]" (jfr/writer_pools.c). */
static void group_pid(struct split *sp, const struct jfr_field *tf, uint64_t key, struct proc *p)
{
	uint64_t off = jfr_pool_lookup(&sp->ch, tf->type_id, key);
	const struct jfr_field *g, *n;
	struct jfr_cur c, c2;
	char name[300];
	char *open;

	p->pid = -1;
	if (!off || !(g = jfr_value_field(sp->r, &sp->ch, tf->type, off, "group", &c)) ||
	    !jfr_deref(&c, &sp->ch, g) ||
	    !(n = jfr_value_field(sp->r, &sp->ch, g->type, jfr_cur_off(&c), "name", &c2)) ||
	    jfr_read_string(&c2, &sp->ch, name, sizeof(name)) <= 0)
		return;
	open = strrchr(name, '[');
	if (!open || open == name || open[-1] != ' ')
		return;
	p->pid = strtoll(open + 1, NULL, 10);
	open[-1] = 0;
	snprintf(p->name, sizeof(p->name), "%.63s", name);
}

/* The process of thread key (field tf): its index + 1, or 0. */
static size_t proc_of(struct split *sp, const struct jfr_field *tf, uint64_t key)
{
	uint64_t v;
	bool fresh;
	struct hashtab_slot *s;

	if (!tf || !key || !(s = hashtab_put(&sp->threads, key, 0, &fresh)))
		return 0;
	if (!fresh)
		return s->v;
	if (sp->nprocs == sp->cap) {
		size_t cap = sp->cap ? 2 * sp->cap : 64;
		struct proc *p = realloc(sp->procs, cap * sizeof(*p));

		if (!p)
			return 0;
		sp->procs = p;
		sp->cap = cap;
	}
	memset(&sp->procs[sp->nprocs], 0, sizeof(*sp->procs));
	group_pid(sp, tf, key, &sp->procs[sp->nprocs]);
	v = ++sp->nprocs;
	s->v = v;
	return v;
}

/* The pid in field f at c (a decimal string, as the JDK writes it, or an integer); 0: none. */
static int64_t field_pid(struct split *sp, const struct jfr_cur *c, const struct jfr_field *f)
{
	struct jfr_cur v = *c;
	char buf[24];

	if (f->type->kind != JFR_K_STRING)
		return f->cp ? 0 : (int64_t)jfr_read_scalar(&v, f);
	if (jfr_read_string(&v, &sp->ch, buf, sizeof(buf)) <= 0)
		return 0;
	return strtoll(buf, NULL, 10);
}

/* The next event (sp->nevs) is of process pid: -1 when memory runs out (sp->oom set). */
static int note_pid_event(struct split *sp, int64_t pid)
{
	if (sp->npid_evs == sp->pid_evs_cap) {
		size_t cap = sp->pid_evs_cap ? 2 * sp->pid_evs_cap : 64;
		struct pid_event *v = realloc(sp->pid_evs, cap * sizeof(*v));

		if (!v) {
			sp->oom = true;
			return -1;
		}
		sp->pid_evs = v;
		sp->pid_evs_cap = cap;
	}
	sp->pid_evs[sp->npid_evs++] = (struct pid_event){.ev = sp->nevs, .pid = pid};
	return 0;
}

/*
 * Notes the event at off (absolute, size bytes) of type t (NULL: a type the metadata does not
 * declare), its fields at ev, for the uploads: 0, or -1 when its fields do not parse.  The uploads
 * carry its bytes as they are, so each field is walked here, the thread's key read on the way: the
 * one walk of the chunk's events.
 */
static int note_event(struct split *sp, uint64_t off, uint64_t size, const struct jfr_type *t,
                      struct jfr_cur *ev)
{
	uint64_t info = !t ? 0 : t == sp->last_type ? sp->last_info : type_info(sp, t);
	int f = (int)(info & TI_FIELD) - 1;
	int pf = (int)(info >> TI_PID_SHIFT & TI_FIELD) - 1;
	uint64_t key = 0, meta = sp->ch.off + (uint64_t)sp->ch.meta_off, fields = jfr_cur_off(ev);
	int64_t pid = 0;
	size_t p;

	if (info & TI_FLAT) {
		for (int i = 0; i < t->nfields; i++) {
			uint64_t v = jfr_varint(ev);

			if (i == f)
				key = v;
		}
		if (ev->bad)
			key = 0;
	}
	for (int i = 0; t && !(info & TI_FLAT) && i < t->nfields && !ev->bad; i++) {
		if (i == f) {
			struct jfr_cur c = *ev;

			key = jfr_varint(&c);
			if (c.bad)
				key = 0;
		}
		if (i == pf)
			pid = field_pid(sp, ev, &t->fields[i]);
		jfr_skip_field(ev, &t->fields[i]);
	}
	if (ev->bad || (meta > off && meta < off + size)) {
		snprintf(sp->why, sp->whylen, "offset %llu: event of type %s %s",
		         (unsigned long long)off, t ? t->name : "(undeclared)",
		         ev->bad ? "does not parse" : "holds the metadata event");
		return -1;
	}
	if ((info & TI_RARE) && report_note_rare(sp->rep, sp->r, &sp->ch, t, fields) < 0)
		sp->oom = true;
	sp->last_type = t;
	sp->last_info = info;
	if (f >= 0 && key && key == sp->last_key) {
		p = sp->last_proc;
	} else {
		p = proc_of(sp, f < 0 ? NULL : &t->fields[f], key);
		if (f >= 0 && key) {
			sp->last_key = key;
			sp->last_proc = p;
		}
	}
	if (sp->nevs == sp->evs_cap) {
		size_t cap = sp->evs_cap ? 2 * sp->evs_cap : 1024;
		struct event_proc *v = realloc(sp->evs, cap * sizeof(*v));

		if (!v) {
			sp->oom = true;
			return 0;
		}
		sp->evs = v;
		sp->evs_cap = cap;
	}
	if (pid > 0 && note_pid_event(sp, pid))
		return 0;
	sp->evs[sp->nevs++] = (struct event_proc){.off = off,
	                                          .size = size,
	                                          .proc = (uint32_t)p,
	                                          .sample = p && t == sp->sample_type,
	                                          .object = !!(info & TI_OBJECT)};
	return 0;
}

/* jfr_rebase_chunk_keep()'s for the tail: no event but checkpoints and metadata. */
static bool keep_none(void *arg, uint64_t off, uint64_t type)
{
	(void)arg;
	(void)off;
	(void)type;
	return false;
}

/* A service name Pyroscope takes: letters, digits, - _ . /, others as '_'. */
static void service_name(char *dst, size_t n, const char *s)
{
	size_t i = 0;

	for (; s[i] && i + 1 < n; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		          (c >= '0' && c <= '9') || strchr("-_./", c);

		dst[i] = ok ? c : '_';
	}
	dst[i] = 0;
	if (!i)
		snprintf(dst, n, "unknown");
}

/* The series of a process: SERVICE{LABEL=VALUE,...}, its labels in the report's order. */
static void series_of(const struct split *sp, const struct proc *p, char *out, size_t n)
{
	struct report_thread t = {.name = "", .tid = -1, .pid = p->pid, .process = (char *)p->name};
	const struct report *rep = sp->rep;
	char buf[32], svc[LFR_LABEL_VALUE_MAX];
	size_t len;

	service_name(svc, sizeof(svc),
	             report_thread_label(rep, &t, LFR_LABEL_SERVICE, buf, sizeof(buf)) ?: "");
	len = (size_t)snprintf(out, n, "%s{", svc);
	/* every label of the process or the recording, once, the process's winning */
	for (size_t i = 0; i < rep->nlabels && len < n; i++) {
		const struct report_label *l = &rep->labels[i];
		const char *v;

		if ((l->pid != 0 && l->pid != p->pid) || !strcmp(l->name, LFR_LABEL_SERVICE))
			continue;
		v = report_thread_label(rep, &t, l->name, buf, sizeof(buf));
		if (v != l->value)
			continue; /* the process's own replaces the recording's */
		len += (size_t)snprintf(out + len, n - len, "%s%s=%s",
		                        out[len - 1] == '{' ? "" : ",", l->name, v);
	}
	if (len < n)
		snprintf(out + len, n - len, "}");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The series of event e, sp->nseries when it has no thread (it goes in every upload), or
 * sp->nseries + 1 when it goes in none.
 */
static size_t series_of_event(const struct split *sp, const struct event_proc *e)
{
	if (e->proc == PROC_NONE)
		return sp->nseries + 1;
	return e->proc ? sp->procs[e->proc - 1].series : sp->nseries;
}

/*
 * The events of a process with its threads: the process of each, one of its threads' (when its
 * threads are of series that differ, as after an exec: of no thread, in every upload), or none.
 * 0, or -1 (out of memory).
 */
static int place_pid_events(struct split *sp)
{
	struct hashtab of_pid = {0}; /* pid -> index into procs + 1; 0: of two series */

	for (size_t k = 0; k < sp->nprocs; k++) {
		bool fresh = false;
		struct hashtab_slot *s =
		    hashtab_put(&of_pid, (uint64_t)sp->procs[k].pid, 0, &fresh);

		if (!s) {
			hashtab_free(&of_pid);
			return -1;
		}
		if (fresh)
			s->v = k + 1;
		else if (s->v && sp->procs[s->v - 1].series != sp->procs[k].series)
			s->v = 0;
	}
	for (size_t i = 0; i < sp->npid_evs; i++) {
		const struct hashtab_slot *s =
		    hashtab_get(&of_pid, (uint64_t)sp->pid_evs[i].pid, 0);

		sp->evs[sp->pid_evs[i].ev].proc = !s ? PROC_NONE : (uint32_t)s->v;
	}
	hashtab_free(&of_pid);
	return 0;
}

/* sp->of, sp->at and sp->processes: 0, or -1 with why (out of memory). */
static int group_events(struct split *sp)
{
	size_t n = sp->nseries + 2; /* the series, those of no thread, those of none */
	struct hashtab seen = {0};  /* (series, pid) */

	sp->at = calloc(n + 1, sizeof(*sp->at));
	sp->of = malloc((sp->nevs + 1) * sizeof(*sp->of));
	sp->processes = calloc(n, sizeof(*sp->processes));
	if (!sp->at || !sp->of || !sp->processes)
		goto oom;
	for (size_t k = 0; k < sp->nevs; k++) {
		size_t i = series_of_event(sp, &sp->evs[k]);

		sp->at[i + 1]++;
		if (i == sp->nseries)
			sp->shared += sp->evs[k].size;
	}
	for (size_t i = 1; i <= n; i++)
		sp->at[i] += sp->at[i - 1];
	for (size_t k = 0; k < sp->nevs; k++)
		sp->of[sp->at[series_of_event(sp, &sp->evs[k])]++] = k;
	for (size_t i = n; i > 0; i--)
		sp->at[i] = sp->at[i - 1];
	sp->at[0] = 0;
	for (size_t k = 0; k < sp->nprocs; k++) {
		bool fresh = false;

		if (!hashtab_put(&seen, sp->procs[k].series, (uint64_t)sp->procs[k].pid, &fresh)) {
			hashtab_free(&seen);
			goto oom;
		}
		sp->processes[sp->procs[k].series] += fresh;
	}
	hashtab_free(&seen);
	return 0;
oom:
	snprintf(sp->why, sp->whylen, "out of memory");
	return -1;
}

/* Every event's process, the series, and each process's: 0, or -1 with why. */
static int find_series(struct split *sp)
{
	struct jfr_event_iter it;
	struct jfr_cur ev;
	uint64_t type, size;
	char name[SERIES_MAX];
	const struct jfr_type *t = NULL;
	uint64_t last = 0; /* t's id: events come in runs of a type */
	int rc;

	jfr_event_iter_init(&it, sp->r, &sp->ch);
	for (;;) {
		uint64_t start = (uint64_t)(it.p - sp->r->data);

		if ((rc = jfr_event_next(&it, &type, &size, &ev)) != 1)
			break;
		if (!t || type != last) {
			t = jfr_type_by_id(sp->ch.meta, type);
			last = type;
		}
		if (type > JFR_EVENT_CHECKPOINT && note_event(sp, start, size, t, &ev))
			return -1;
	}
	if (rc < 0) {
		snprintf(sp->why, sp->whylen, "%s", sp->r->err);
		return -1;
	}
	if (sp->oom)
		goto oom;
	sp->series = calloc(sp->nprocs + 1, sizeof(*sp->series));
	if (!sp->series)
		goto oom;
	for (size_t i = 0; i < sp->nprocs; i++) {
		series_of(sp, &sp->procs[i], name, sizeof(name));
		if (!(sp->series[sp->nseries] = strdup(name)))
			goto oom;
		sp->nseries++;
	}
	qsort(sp->series, sp->nseries, sizeof(*sp->series), cmp_str);
	size_t n = 0;

	for (size_t i = 0; i < sp->nseries; i++) {
		if (n && !strcmp(sp->series[n - 1], sp->series[i])) {
			free(sp->series[i]);
			continue;
		}
		sp->series[n++] = sp->series[i];
	}
	sp->nseries = n;
	for (size_t i = 0; i < sp->nprocs; i++) {
		char *key = name, **hit;

		series_of(sp, &sp->procs[i], name, sizeof(name));
		hit = bsearch(&key, sp->series, sp->nseries, sizeof(*sp->series), cmp_str);
		sp->procs[i].series = (unsigned)(hit - sp->series);
	}
	if (place_pid_events(sp))
		goto oom;
	return group_events(sp) ? -1 : 0;
oom:
	snprintf(sp->why, sp->whylen, "out of memory");
	return -1;
}

/* c as the query takes it: unreserved characters as they are, others %XX. */
static size_t url_encode(char *out, size_t n, const char *s)
{
	size_t len = 0;

	for (; *s && len + 4 < n; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-_.~", c))
			out[len++] = (char)c;
		else
			len += (size_t)snprintf(out + len, n - len, "%%%02X", c);
	}
	out[len] = 0;
	return len;
}

/* The query of series i: its name, the chunk's span in ns, the format, the rate. */
static void query_of(const struct split *sp, unsigned i, char *out, size_t n)
{
	size_t len = (size_t)snprintf(out, n, "name=");
	int64_t period = sp->rep->period_ns;

	len += url_encode(out + len, n - len, sp->series[i]);
	len += (size_t)snprintf(out + len, n - len, "&from=%lld&until=%lld&format=jfr&spyName=lfr",
	                        (long long)sp->rep->start_nanos, (long long)sp->rep->end_nanos);
	/* Pyroscope values a CPU sample at 1e9 / sampleRate ns: the recording's period */
	if (period > 0 && len < n)
		snprintf(out + len, n - len, "&sampleRate=%lld",
		         (long long)((1000000000 + period / 2) / period));
}

/*
 * The upload in part, gzipped into gz: its header and events as a gzip member of their own, then
 * the tail's, the same bytes in every upload of the chunk, as members made once: the checkpoints
 * before the metadata event and those after it (per chunk), the metadata event (per recording:
 * the same bytes in every chunk of a recorder).
 */
static int deflate_upload(struct split *sp, const struct jfr_buf *part, size_t events_end,
                          struct jfr_buf *gz)
{
	const uint8_t *tail = sp->tail.data + JFR_CHUNK_HEADER_SIZE;
	size_t n = sp->tail.len - JFR_CHUNK_HEADER_SIZE;
	uint64_t at = sp->meta_at, size = sp->meta_size;

	jfr_buf_reset(gz);
	gz->oom = false;
	if (lfr_gzip_append(part->data, events_end, NULL, gz))
		return -1;
	if (sp->prune) /* its own checkpoint is in part: the metadata event follows */
		return lfr_gzip_append(tail + at, size, sp->meta, gz);
	if (!sp->meta_found)
		return lfr_gzip_append(tail, n, NULL, gz);
	return (at && lfr_gzip_append(tail, at, &sp->pools[0], gz)) ||
	               lfr_gzip_append(tail + at, size, sp->meta, gz) ||
	               (at + size < n &&
	                lfr_gzip_append(tail + at + size, n - at - size, &sp->pools[1], gz))
	           ? -1
	           : 0;
}

/*
 * The chunk's tail: its header, checkpoints and metadata, rebuilt without its other events, for
 * every upload to follow its own.  0, or -1 with why.
 */
static int skeleton(struct split *sp)
{
	if (jfr_rebase_chunk_keep(sp->r, &sp->ch, 0, keep_none, NULL, &sp->tail, sp->why,
	                          sp->whylen))
		return -1;
	if (sp->tail.oom) {
		snprintf(sp->why, sp->whylen, "out of memory");
		return -1;
	}
	/* the tail came from the rebase, which found the metadata event where the header says */
	const uint8_t *tail = sp->tail.data + JFR_CHUNK_HEADER_SIZE;
	size_t n = sp->tail.len - JFR_CHUNK_HEADER_SIZE;
	uint64_t at = jfr_get_be64(sp->tail.data + JFR_H_META_OFFSET) - JFR_CHUNK_HEADER_SIZE;
	uint64_t size = 0;

	sp->meta_found = at < n && jfr_varint_decode(tail + at, n - at, &size) && size <= n - at;
	sp->meta_at = sp->meta_found ? at : 0;
	sp->meta_size = sp->meta_found ? size : 0;
	/* what every upload repeats: the pools (the tail but its header and the metadata event) and
	 * the events of no thread */
	sp->prune = sp->meta_found && sp->nseries > 1 &&
	            (n - size + sp->shared) * sp->nseries > WHOLE_POOLS_TIMES * sp->ch.size;
	return 0;
}

/* Adds n to the big-endian offset at h + at. */
static void move_offset(uint8_t *h, size_t at, uint64_t n)
{
	jfr_put_be64(h + at, jfr_get_be64(h + at) + n);
}

/* Upload i of the chunk: built and sent; the sender's status, or -1 with why. */
static int send_series(struct split *sp, unsigned i, struct jfr_buf *part, struct jfr_buf *gz,
                       int (*send)(void *, const struct lfr_pyroscope_part *), void *arg)
{
	char query[3 * SERIES_MAX + 256];
	struct lfr_pyroscope_part p = {.index = i, .count = (unsigned)sp->nseries};
	const uint8_t *data = sp->r->data;
	uint64_t samples = 0, events;

	jfr_buf_reset(part);
	part->oom = false;
	jfr_buf_put(part, sp->tail.data, JFR_CHUNK_HEADER_SIZE);
	/*
	 * The events of this series and of no thread, as they are, in file order (the two lists
	 * merged): runs of them copied at once.
	 */
	size_t a = sp->at[i], a_end = sp->at[i + 1];
	size_t s = sp->at[sp->nseries], s_end = sp->at[sp->nseries + 1];
	uint64_t from = 0, to = 0;

	if (sp->prune)
		jfr_reach_begin(&sp->reach, sp->r, &sp->ch);
	while (a < a_end || s < s_end) {
		size_t k =
		    s == s_end || (a < a_end && sp->of[a] < sp->of[s]) ? sp->of[a++] : sp->of[s++];
		const struct event_proc *e = &sp->evs[k];

		if (sp->prune && e->object)
			continue;
		if (e->off != to) {
			jfr_buf_put(part, data + from, to - from);
			from = e->off;
		}
		to = e->off + e->size;
		samples += e->sample;
		if (sp->prune && jfr_reach_event(&sp->reach, e->off, sp->why, sp->whylen))
			return -1;
	}
	jfr_buf_put(part, data + from, to - from);
	events = part->len - JFR_CHUNK_HEADER_SIZE;
	/* pruned: its own checkpoint, then the metadata event (in gz only, deflated once) */
	if (sp->prune)
		jfr_reach_checkpoint(&sp->reach, (uint64_t)sp->ch.start_ticks, part);
	if (part->oom) {
		snprintf(sp->why, sp->whylen, "out of memory");
		return -1;
	}
	if (sp->prune) {
		uint64_t cp = JFR_CHUNK_HEADER_SIZE + events;

		jfr_put_be64(part->data + JFR_H_SIZE, part->len + sp->meta_size);
		jfr_put_be64(part->data + JFR_H_CP_OFFSET, cp);
		jfr_put_be64(part->data + JFR_H_META_OFFSET, part->len);
	} else {
		/* the tail follows in gz only, from the pieces deflated once (deflate_upload()) */
		move_offset(part->data, JFR_H_SIZE, events);
		move_offset(part->data, JFR_H_CP_OFFSET, events);
		move_offset(part->data, JFR_H_META_OFFSET, events);
	}
	if (deflate_upload(sp, part, part->len, gz)) {
		snprintf(sp->why, sp->whylen, "out of memory");
		return -1;
	}
	query_of(sp, i, query, sizeof(query));
	p.processes = sp->processes[i];
	p.query = query;
	p.series = sp->series[i];
	p.jfr = gz->data;
	p.len = gz->len;
	p.samples = samples;
	return send(arg, &p);
}

int lfr_pyroscope_chunk(const uint8_t *data, size_t len, const char *name,
                        struct jfr_meta_cache *cache, unsigned first, struct lfr_gzip_piece *meta,
                        int (*send)(void *arg, const struct lfr_pyroscope_part *p), void *arg,
                        char *why, size_t whylen)
{
	struct lfr_gzip_piece own = {0};
	struct split sp = {.why = why, .whylen = whylen, .meta = meta ? meta : &own};
	struct jfr_buf part = {0}, gz = {0};
	int rc = -1;

	sp.r = jfr_open_mem(data, len, name);
	sp.rep = calloc(1, sizeof(*sp.rep));
	if (!sp.r || !sp.rep) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	sp.r->meta_cache = cache;
	if (jfr_chunk_load(sp.r, 0, &sp.ch)) {
		snprintf(why, whylen, "%s", sp.r->err);
		goto out;
	}
	if (sp.ch.size != len) {
		snprintf(why, whylen, "%s: %zu bytes after the chunk: one chunk per upload", name,
		         len - (size_t)sp.ch.size);
		goto out;
	}
	sp.rep->start_nanos = sp.ch.start_nanos;
	sp.rep->end_nanos = jfr_sat_add(sp.ch.start_nanos, sp.ch.duration_nanos);
	sp.sample_type = jfr_type_by_name(sp.ch.meta, "jdk.ExecutionSample");
	if (find_series(&sp) || skeleton(&sp))
		goto out;
	rc = 0;
	for (unsigned i = first; i < sp.nseries && !rc; i++)
		rc = send_series(&sp, i, &part, &gz, send, arg);
out:
	jfr_buf_free(&part);
	jfr_buf_free(&gz);
	jfr_buf_free(&sp.tail);
	jfr_reach_free(&sp.reach);
	lfr_gzip_piece_free(&sp.pools[0]);
	lfr_gzip_piece_free(&sp.pools[1]);
	for (size_t i = 0; i < sp.nseries; i++)
		free(sp.series[i]);
	free(sp.series);
	free(sp.procs);
	free(sp.evs);
	free(sp.pid_evs);
	free(sp.of);
	free(sp.at);
	free(sp.processes);
	hashtab_free(&sp.threads);
	hashtab_free(&sp.types);
	if (sp.ch.meta)
		jfr_chunk_release(&sp.ch);
	report_free(sp.rep);
	if (sp.r)
		jfr_close(sp.r);
	lfr_gzip_piece_free(&own);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A chunk as an OTLP profiles request (see otlp.h).  The chunk is read by the report's engine,
 * once per kind of sample it holds (every event with its time: report_opts.timeline), and each
 * read's frames, stacks and threads are interned into the request's dictionary as they are met.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/labels.h"
#include "export/otlp.h"
#include "export/otlp_dict.h"
#include "jfr/reader.h"
#include "report/labels.h"
#include "report/report.h"

/* ExportProfilesServiceRequest, ResourceProfiles, Resource, ScopeProfiles, InstrumentationScope,
 * Profile, ValueType and Sample fields */
enum {
	REQ_RESOURCE_PROFILES = 1,
	REQ_DICTIONARY = 2,
	RP_RESOURCE = 1,
	RP_SCOPE_PROFILES = 2,
	RESOURCE_ATTRIBUTES = 1,
	SP_SCOPE = 1,
	SP_PROFILES = 2,
	SCOPE_NAME = 1,
	SCOPE_VERSION = 2,
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLES = 2,
	PROFILE_TIME = 3,
	PROFILE_DURATION = 4,
	PROFILE_PERIOD_TYPE = 5,
	PROFILE_PERIOD = 6,
	PROFILE_ID = 7,
	VT_TYPE = 1,
	VT_UNIT = 2,
	SAMPLE_STACK = 1,
	SAMPLE_ATTRIBUTES = 2,
	SAMPLE_LINK = 3,
	SAMPLE_VALUES = 4,
	SAMPLE_TIMESTAMPS = 5,
};

enum kind { K_CPU, K_WALL, K_OFF_CPU, K_N };
static const char *const kind_names[K_N] = {"cpu", "wall", "off_cpu"};

/* One read of the chunk: one kind of sample. */
struct pass {
	struct report *rep;
	uint32_t *locations; /* per frame of the report: its location, 0 until interned */
	uint32_t *stacks;    /* per stack: its stack */
	uint32_t *attrs;     /* per thread: its thread.name and thread.id attributes */
	uint32_t *links;     /* per trace context of the report: its link, 0 until interned */
	/* the events grouped by stack, thread and trace context (value unused) */
	struct report_sample *samples;
	size_t nsamples;
	uint32_t *first, *nobs; /* per sample: where its events are in ts and val, how many */
	uint64_t *ts, *val;     /* the events by sample: epoch ns, value */
	uint32_t *order;        /* the samples by their thread's process */
};

struct build {
	struct otlp_dict d;
	struct pass pass[K_N];
	const char *name;
	struct jfr_meta_cache *cache; /* the readers' (jfr/reader.h), or NULL */
	const char *host;             /* the recording's host.name, or "" */
	int64_t start, duration, period;
	struct pb_buf tmp;
	char *why;
	size_t whylen;
};

static void pass_free(struct pass *p)
{
	report_free(p->rep);
	free(p->locations), free(p->stacks), free(p->attrs), free(p->links);
	free(p->samples), free(p->first), free(p->nobs), free(p->ts), free(p->val), free(p->order);
	memset(p, 0, sizeof(*p));
}

/* Reads the chunk for one kind: -1 with why, else 0 (p->rep holds its samples). */
static int read_pass(struct build *b, const uint8_t *data, size_t len, const char *const *events,
                     int nevents, const char *value, struct pass *p)
{
	struct jfr_reader *r = jfr_open_mem(data, len, b->name);
	struct report_opts o;
	int rc;

	if (!r) {
		snprintf(b->why, b->whylen, "out of memory");
		return -1;
	}
	r->meta_cache = b->cache;
	report_opts_init(&o);
	o.timeline = true;
	o.timed_only = true; /* index_pass() groups the events itself */
	o.contexts = true;
	o.jobs = 1;
	for (int i = 0; i < nevents; i++)
		o.events[o.nevents++] = events[i];
	o.value_field = value;
	rc = report_read(r, &o, &p->rep);
	if (rc)
		snprintf(b->why, b->whylen, "%s", r->err);
	jfr_close(r);
	return rc ? -1 : 0;
}

static uint64_t count_of(const struct report *rep, const char *type)
{
	for (size_t i = 0; i < rep->nevtypes; i++)
		if (!strcmp(rep->evtypes[i].name, type))
			return rep->evtypes[i].count;
	return 0;
}

/* The process of a sample of the pass. */
static int64_t pid_of(const struct pass *p, uint32_t sample)
{
	return p->rep->threads[p->samples[sample].thread].pid;
}

/* qsort_r's: the samples x and y of the pass arg by process, then in order */
static int by_process(const void *a, const void *b, void *arg)
{
	const struct pass *p = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t px = pid_of(p, x), py = pid_of(p, y);

	if (px != py)
		return px < py ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* A sample's key in index_pass: its thread and its trace context (report_sample.ctx). */
static uint64_t thread_ctx_key(uint32_t thread, uint32_t ctx)
{
	return thread | (uint64_t)ctx << 32;
}

/*
 * The pass's samples: its events (the report keeps them in time order, each with its stack,
 * thread and trace context) grouped by the three, each sample's events, the samples by process,
 * and the caches: 0, or -1 when out of memory.
 */
static int index_pass(struct build *b, struct pass *p, enum kind k)
{
	const struct report *rep = p->rep;
	struct hashtab ids = {0};
	size_t n = rep->ntimed + 1;
	uint32_t *of = malloc(n * sizeof(*of)); /* each event's sample */
	int rc = -1;

	p->locations = calloc(rep->nframes + 1, sizeof(*p->locations));
	p->stacks = calloc(rep->nstacks + 1, sizeof(*p->stacks));
	p->attrs = calloc(2 * rep->nthreads + 1, sizeof(*p->attrs));
	p->links = calloc(rep->ncontexts + 1, sizeof(*p->links));
	p->samples = malloc(n * sizeof(*p->samples));
	p->first = malloc(n * sizeof(*p->first));
	p->nobs = calloc(n, sizeof(*p->nobs));
	p->ts = malloc(n * sizeof(*p->ts));
	p->val = malloc(n * sizeof(*p->val));
	p->order = malloc(n * sizeof(*p->order));
	if (!p->locations || !p->stacks || !p->attrs || !p->links || !p->samples || !p->first ||
	    !p->nobs || !p->ts || !p->val || !p->order || !of)
		goto out;
	for (size_t i = 0; i < rep->ntimed; i++) {
		const struct report_timed *t = &rep->timed[i];
		struct hashtab_slot *s;
		bool fresh;

		/* a thread's events come in runs, often of one stack */
		if (i && t->stack == t[-1].stack && t->thread == t[-1].thread &&
		    t->ctx == t[-1].ctx) {
			of[i] = of[i - 1];
		} else {
			s = hashtab_put(&ids, t->stack, thread_ctx_key(t->thread, t->ctx), &fresh);
			if (!s)
				goto out;
			if (fresh) {
				s->v = p->nsamples;
				p->samples[p->nsamples++] = (struct report_sample){
				    .stack = t->stack, .thread = t->thread, .ctx = t->ctx};
			}
			of[i] = (uint32_t)s->v;
		}
		p->nobs[of[i]]++;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		p->first[i] = i ? p->first[i - 1] + p->nobs[i - 1] : 0;
		p->order[i] = (uint32_t)i;
	}
	memset(p->nobs, 0, p->nsamples * sizeof(*p->nobs));
	for (size_t i = 0; i < rep->ntimed; i++) {
		const struct report_timed *t = &rep->timed[i];
		uint32_t s = of[i], at = p->first[s] + p->nobs[s]++;

		p->ts[at] = (uint64_t)(rep->start_nanos + t->nanos);
		/* a CPU or wall sample stands for the period; without one, for one sample */
		p->val[at] = k == K_OFF_CPU ? t->value : b->period ? (uint64_t)b->period : 1;
	}
	qsort_r(p->order, p->nsamples, sizeof(*p->order), by_process, p);
	rc = 0;
out:
	hashtab_free(&ids);
	free(of);
	return rc;
}

/* The GNU build-id and path the recording gives object (lfr.ObjectFile), or "". */
static const struct report_object *object_of(const struct report *rep, const char *object)
{
	for (size_t i = 0; object && i < rep->nobjects; i++)
		if (!strcmp(rep->objects[i].name, object))
			return &rep->objects[i];
	return NULL;
}

/* A frame's location: its object's mapping, its address when it stayed unnamed, its type. */
static uint32_t location_of(struct build *b, struct pass *p, uint32_t frame)
{
	static const char *const types[] = {
	    [RF_JAVA] = "jvm", [RF_NATIVE] = "native", [RF_CPP] = "native", [RF_KERNEL] = "kernel"};
	const struct report_frame *f = &p->rep->frames[frame];
	const struct report_object *o;
	uint32_t mapping = 0;
	uint64_t address = 0;
	char *end;

	if (p->locations[frame])
		return p->locations[frame];
	if (f->object) {
		o = object_of(p->rep, f->object);
		mapping = otlp_mapping(&b->d, o ? o->path : f->object, o ? o->build_id : "");
	}
	if (f->name[0] == '0' && f->name[1] == 'x') {
		address = strtoull(f->name + 2, &end, 16);
		if (*end)
			address = 0;
	}
	p->locations[frame] =
	    otlp_location(&b->d, mapping, address, otlp_function(&b->d, f->name),
	                  otlp_attr_str(&b->d, "profile.frame.type", types[f->kind & 3]));
	return p->locations[frame];
}

static uint32_t stack_of(struct build *b, struct pass *p, uint32_t stack)
{
	const struct report_stack *st = &p->rep->stacks[stack];
	uint32_t locs[1024];
	size_t n = st->depth < 1024 ? st->depth : 1024;

	if (p->stacks[stack])
		return p->stacks[stack];
	for (size_t i = 0; i < n; i++)
		locs[i] = location_of(b, p, p->rep->stack_frames[st->first + i]);
	p->stacks[stack] = otlp_stack(&b->d, locs, n);
	return p->stacks[stack];
}

/* n bytes from 2n lower-case hex digits (report_context's ids). */
static void hex_bytes(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;

		for (int k = 0; k < 2; k++) {
			char c = hex[2 * i + k];

			v = v << 4 | (unsigned)(c >= 'a' ? c - 'a' + 10 : c - '0');
		}
		out[i] = (uint8_t)v;
	}
}

/* The Link of context cx of the pass (its trace and span ids). */
static uint32_t link_of(struct build *b, struct pass *p, uint32_t cx)
{
	const struct report_context *c = &p->rep->contexts[cx];
	uint8_t trace[16], span[8];

	if (!p->links[cx]) {
		hex_bytes(c->trace_id, trace, sizeof(trace));
		hex_bytes(c->span_id, span, sizeof(span));
		p->links[cx] = otlp_link(&b->d, trace, span);
	}
	return p->links[cx];
}

/*
 * A sample's attributes: at most the thread's two and a context's (OTEP 4947 keeps 640 bytes of
 * them, two at least each).
 */
#define SAMPLE_ATTRS_MAX (2 + 320)

/*
 * One Sample: its stack, its thread's attributes, its trace context (a Link, and its attributes
 * after the thread's), its events.
 */
static void put_sample(struct build *b, struct pass *p, uint32_t s, struct pb_buf *out)
{
	const struct report_sample *rs = &p->samples[s];
	const struct report_thread *t = &p->rep->threads[rs->thread];
	uint32_t *attrs = &p->attrs[2 * rs->thread];
	uint64_t a[SAMPLE_ATTRS_MAX];
	size_t na = 2;
	bool ctx = rs->ctx && rs->ctx < p->rep->ncontexts;

	if (!attrs[0]) {
		attrs[0] = otlp_attr_str(&b->d, "thread.name", t->name);
		attrs[1] = otlp_attr_int(&b->d, "thread.id", t->tid);
	}
	a[0] = attrs[0];
	a[1] = attrs[1];
	if (ctx) {
		const struct report_context *c = &p->rep->contexts[rs->ctx];
		const char *kv = c->attrs;

		for (unsigned i = 0; i < c->nattrs && na < SAMPLE_ATTRS_MAX; i++) {
			const char *v = kv + strlen(kv) + 1;

			a[na++] = otlp_attr_str(&b->d, kv, v);
			kv = v + strlen(v) + 1;
		}
	}
	pb_reset(&b->tmp);
	pb_uint(&b->tmp, SAMPLE_STACK, stack_of(b, p, rs->stack));
	pb_packed(&b->tmp, SAMPLE_ATTRIBUTES, a, na);
	if (ctx)
		pb_uint(&b->tmp, SAMPLE_LINK, link_of(b, p, rs->ctx));
	pb_packed(&b->tmp, SAMPLE_VALUES, p->val + p->first[s], p->nobs[s]);
	pb_packed_fixed64(&b->tmp, SAMPLE_TIMESTAMPS, p->ts + p->first[s], p->nobs[s]);
	pb_message(out, PROFILE_SAMPLES, &b->tmp);
}

static void value_type(struct build *b, struct pb_buf *out, unsigned field, const char *type,
                       const char *unit)
{
	struct pb_buf vt = {0};

	pb_uint(&vt, VT_TYPE, otlp_str(&b->d, type));
	pb_uint(&vt, VT_UNIT, otlp_str(&b->d, unit));
	pb_message(out, field, &vt);
	pb_free(&vt);
}

/* The profile of kind k of the samples order[from, to) of one process, into out. */
static void put_profile(struct build *b, enum kind k, size_t from, size_t to, int64_t pid,
                        struct pb_buf *out, struct lfr_otlp_stats *st)
{
	struct pass *p = &b->pass[k];
	struct pb_buf prof = {0};
	uint64_t id[2], events = 0, sum = 0;
	char key[LFR_LABEL_VALUE_MAX + 96];
	bool counts = k != K_OFF_CPU && !b->period;

	value_type(b, &prof, PROFILE_SAMPLE_TYPE, counts ? "samples" : kind_names[k],
	           counts ? "count" : "nanoseconds");
	for (size_t i = from; i < to; i++) {
		uint32_t s = p->order[i];

		put_sample(b, p, s, &prof);
		events += p->nobs[s];
		for (uint32_t j = 0; j < p->nobs[s]; j++)
			sum += p->val[p->first[s] + j];
	}
	pb_fixed64(&prof, PROFILE_TIME, (uint64_t)b->start);
	pb_uint(&prof, PROFILE_DURATION, (uint64_t)b->duration);
	if (k != K_OFF_CPU && b->period) {
		value_type(b, &prof, PROFILE_PERIOD_TYPE, kind_names[k], "nanoseconds");
		pb_uint(&prof, PROFILE_PERIOD, (uint64_t)b->period);
	}
	/* the same chunk gives the same ids, whichever file or repository it was read from */
	snprintf(key, sizeof(key), "%s/%lld/%lld/%s", b->host, (long long)b->start, (long long)pid,
	         kind_names[k]);
	id[0] = hashtab_hash_bytes(key, strlen(key));
	id[1] = hashtab_hash(id[0], (uint64_t)b->start);
	pb_bytes(&prof, PROFILE_ID, id, sizeof(id));
	pb_message(out, SP_PROFILES, &prof);
	pb_free(&prof);
	if (k == K_CPU)
		st->cpu_samples += events, st->cpu_ns += b->period ? sum : 0;
	else if (k == K_WALL)
		st->wall_samples += events;
	else
		st->off_cpu_intervals += events, st->off_cpu_ns += sum;
}

/* A thread of pid in some pass, whose labels and process name the resource takes. */
static const struct report_thread *thread_of(const struct build *b, int64_t pid,
                                             const struct report **rep)
{
	for (int k = 0; k < K_N; k++)
		for (size_t i = 0; b->pass[k].rep && i < b->pass[k].rep->nthreads; i++)
			if (b->pass[k].rep->threads[i].pid == pid) {
				*rep = b->pass[k].rep;
				return &b->pass[k].rep->threads[i];
			}
	return NULL;
}

/* The Resource of process pid: its attributes, the standard ones first. */
static void put_resource(const struct build *b, int64_t pid, struct pb_buf *out)
{
	static const char *const keys[] = {LFR_LABEL_SERVICE, LFR_LABEL_HOST,
	                                   "process.executable.name", LFR_LABEL_CONTAINER,
	                                   LFR_LABEL_POD};
	const struct report *rep = NULL;
	const struct report_thread *t = thread_of(b, pid, &rep);
	struct pb_buf res = {0};
	char buf[32];

	for (size_t i = 0; t && i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = report_thread_label(rep, t, keys[i], buf, sizeof(buf));

		if (v)
			otlp_key_value(&res, RESOURCE_ATTRIBUTES, keys[i], v, 0);
	}
	if (pid >= 0)
		otlp_key_value(&res, RESOURCE_ATTRIBUTES, "process.pid", NULL, pid);
	/* the other labels: the process's, then the recording's it does not have */
	for (int pass = 0; t && pass < 2; pass++)
		for (size_t i = 0; i < rep->nlabels; i++) {
			const struct report_label *l = &rep->labels[i];
			bool standard = false;

			for (size_t j = 0; j < sizeof(keys) / sizeof(keys[0]); j++)
				standard |= !strcmp(l->name, keys[j]);
			if (standard || l->pid != (pass ? 0 : pid) ||
			    (pass &&
			     report_thread_label(rep, t, l->name, buf, sizeof(buf)) != l->value))
				continue;
			otlp_key_value(&res, RESOURCE_ATTRIBUTES, l->name, l->value, 0);
		}
	pb_message(out, RP_RESOURCE, &res);
	pb_free(&res);
}

/* The ResourceProfiles of process pid: the ranges [from[k], to[k]) of each pass's samples. */
static void put_process(struct build *b, int64_t pid, const size_t *from, const size_t *to,
                        struct pb_buf *out, struct lfr_otlp_stats *st)
{
	struct pb_buf rp = {0}, sp = {0}, scope = {0};

	put_resource(b, pid, &rp);
	pb_string(&scope, SCOPE_NAME, "lfr");
	pb_string(&scope, SCOPE_VERSION, LFR_VERSION);
	pb_message(&sp, SP_SCOPE, &scope);
	for (int k = 0; k < K_N; k++)
		if (from[k] < to[k])
			put_profile(b, (enum kind)k, from[k], to[k], pid, &sp, st);
	pb_message(&rp, RP_SCOPE_PROFILES, &sp);
	pb_message(out, REQ_RESOURCE_PROFILES, &rp);
	pb_free(&rp), pb_free(&sp), pb_free(&scope);
	st->resources++;
}

/* Every process, in order of pid: the samples of each pass are ordered so already. */
static void put_processes(struct build *b, struct pb_buf *out, struct lfr_otlp_stats *st)
{
	size_t at[K_N] = {0}, to[K_N];

	for (;;) {
		int64_t pid = INT64_MAX;

		for (int k = 0; k < K_N; k++)
			if (b->pass[k].rep && at[k] < b->pass[k].nsamples &&
			    pid_of(&b->pass[k], b->pass[k].order[at[k]]) < pid)
				pid = pid_of(&b->pass[k], b->pass[k].order[at[k]]);
		if (pid == INT64_MAX)
			return;
		for (int k = 0; k < K_N; k++) {
			to[k] = at[k];
			while (b->pass[k].rep && to[k] < b->pass[k].nsamples &&
			       pid_of(&b->pass[k], b->pass[k].order[to[k]]) == pid)
				to[k]++;
		}
		put_process(b, pid, at, to, out, st);
		memcpy(at, to, sizeof(at));
	}
}

/* The passes the chunk needs, read and indexed: 0, 1 when it has no sample, or -1. */
static int read_passes(struct build *b, const uint8_t *data, size_t len)
{
	const char *cpu[] = {"jdk.ExecutionSample"}, *cpu_time[] = {"jdk.CPUTimeSample"};
	const char *wall[] = {"profiler.WallClockSample"};
	/* files of lfr before profiler.WallClockSample: the CPU samples and those off the CPU */
	const char *wall_old[] = {"jdk.ExecutionSample", "jdk.NativeMethodSample"};
	const char *off[] = {"lfr.OffCpu"};
	struct report *rep;

	if (read_pass(b, data, len, cpu, 1, NULL, &b->pass[K_CPU]))
		return -1;
	rep = b->pass[K_CPU].rep;
	if (!rep->ntimed && count_of(rep, "jdk.CPUTimeSample")) {
		pass_free(&b->pass[K_CPU]);
		if (read_pass(b, data, len, cpu_time, 1, NULL, &b->pass[K_CPU]))
			return -1;
		rep = b->pass[K_CPU].rep;
	}
	b->start = rep->start_nanos;
	for (size_t i = 0; i < rep->nlabels && !b->host; i++)
		if (!rep->labels[i].pid && !strcmp(rep->labels[i].name, LFR_LABEL_HOST))
			b->host = rep->labels[i].value;
	if (!b->host)
		b->host = "";
	b->duration = report_span_nanos(rep);
	b->period = rep->period_ns;
	if (count_of(rep, "profiler.WallClockSample")) {
		if (read_pass(b, data, len, wall, 1, NULL, &b->pass[K_WALL]))
			return -1;
	} else if (count_of(rep, "jdk.NativeMethodSample") &&
	           read_pass(b, data, len, wall_old, 2, NULL, &b->pass[K_WALL])) {
		return -1;
	}
	/* the ticks of lfr's durations are ns (1e9 per second) */
	if (count_of(rep, "lfr.OffCpu") &&
	    read_pass(b, data, len, off, 1, "duration", &b->pass[K_OFF_CPU]))
		return -1;
	bool any = false;

	for (int k = 0; k < K_N; k++) {
		if (!b->pass[k].rep)
			continue;
		any |= b->pass[k].rep->ntimed > 0;
		if (index_pass(b, &b->pass[k], (enum kind)k)) {
			snprintf(b->why, b->whylen, "out of memory");
			return -1;
		}
	}
	return any ? 0 : 1;
}

int lfr_otlp_chunk(const uint8_t *data, size_t len, const char *name, struct jfr_meta_cache *cache,
                   struct pb_buf *out, struct lfr_otlp_stats *st, char *why, size_t whylen)
{
	struct build b = {.name = name, .cache = cache, .why = why, .whylen = whylen};
	struct pb_buf dict = {0};
	int rc;

	memset(st, 0, sizeof(*st));
	pb_reset(out);
	otlp_dict_init(&b.d);
	rc = read_passes(&b, data, len);
	if (!rc) {
		put_processes(&b, out, st);
		otlp_dict_put(&b.d, &dict);
		pb_message(out, REQ_DICTIONARY, &dict);
		if (out->oom) {
			snprintf(why, whylen, "out of memory");
			rc = -1;
		}
	}
	for (int k = 0; k < K_N; k++)
		pass_free(&b.pass[k]);
	otlp_dict_free(&b.d);
	pb_free(&b.tmp);
	pb_free(&dict);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation pass of `lfr report`.  Per chunk: one linear scan of the events that counts every
 * type and, for the selected sample types, decodes only startTime, stackTrace, the thread and the
 * optional value field and adds the value to a (stackTrace key, thread key) bucket.  At the chunk's
 * end each distinct thread key and stack key is resolved once through the constant pools into
 * interned threads, frames and stacks, and the buckets are merged into the file-wide (stack,
 * thread) table. No event is ever materialized, so the cost per sample is a few varint reads and
 * one hash probe.
 */
#include <ctype.h>
#include <pthread.h>
#include <unistd.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashtab.h"
#include "report/contexts.h"
#include "export/labels.h"
#include "report/labels.h"
#include "report/report.h"
#include "report/states.h"

#define DENSE_TYPES 65536 /* type ids below this are looked up in an array */
#define NAME_MAX_LEN 1024
#define MAX_JOBS 16 /* chunks scanned in parallel */

/* ROLE_STATE_SAMPLE: a sample type whose state the view shows, scanned apart from ROLE_SAMPLE */
enum role {
	ROLE_COUNT,
	ROLE_SAMPLE,
	ROLE_STATE_SAMPLE,
	ROLE_LOST,
	ROLE_JVMINFO,
	ROLE_SETTINGS,
	ROLE_OBJECT,
	ROLE_LABEL,
};
enum slot { SLOT_NONE = 0, SLOT_TIME, SLOT_STACK, SLOT_THREAD, SLOT_VALUE, SLOT_STATE };

struct plan {
	const struct jfr_type *t;
	enum role role;
	uint32_t evidx;
	int nread;      /* fields decoded (a prefix of the event's fields) */
	uint8_t *slots; /* per field: enum slot */
	uint8_t *fast;  /* per field: a bare varint (integer or cp key) */
	int thread_field, stack_field;
	int state_field; /* report_opts.states and the type has one, else -1 */
};

struct priv {
	const struct report_opts *o;
	/* per-type counts indexed by jfr_reader type-name index, plus metadata/checkpoint */
	uint64_t *cnt, *bytes;
	size_t ncnt;
	uint64_t meta_cnt, meta_bytes, cp_cnt, cp_bytes;
	bool any_selected_type;
	unsigned wall_used; /* --wall: the types of report_opts_wall() read, a bit each */
	char *stack_types;  /* types with a stackTrace field, for the hint: "a, b, c" */
	size_t stack_types_len, stack_types_cap;
	struct hashtab stack_type_ids; /* the reader's type-name indexes in stack_types */
	/* file-wide interning */
	struct hashtab
	    frame_ids; /* (hash(name), kind) -> frame id + 1; collisions probed with salt */
	struct hashtab stack_ids;  /* (hash(frames), depth) -> stack id + 1 */
	struct hashtab thread_ids; /* (tid, hash(name)) -> thread id + 1 */
	struct hashtab sample_ids; /* (stack id, thread id) -> sample index + 1 */
	struct hashtab object_ids; /* (hash(name), hash(path, build-id)) -> object index + 1 */
	struct hashtab lost_ids;   /* (hash(reason), type name index) -> index in lost + 1 */
	size_t lost_cap;
	/* per chunk */
	struct hashtab
	    chunk_threads; /* thread key -> thread id + 1, or UINT32_MAX when filtered out */
	struct hashtab chunk_stacks; /* stack key -> stack id + 1 */
	struct hashtab chunk_frames; /* (method key, frame type key) -> frame id + 1 */
	int64_t jvm_pid;
	char jvm_process[256];
	uint32_t *tmp_frames;
	size_t tmp_cap;
	int64_t rec_start;
	bool have_start;
	bool value_found;         /* a selected type has the --value field */
	struct hashtab state_ids; /* report_opts.states: state name -> index + 1 */
	struct hashtab ctx_ids;   /* report_opts.contexts: a context's bytes -> its index */
};

void report_opts_init(struct report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->from_ns = -1;
	o->to_ns = -1;
	o->top = 20;
}

static const char *const wall_types[] = {"profiler.WallClockSample", "jdk.ExecutionSample",
                                         "jdk.NativeMethodSample"};

void report_opts_wall(struct report_opts *o)
{
	o->wall = true;
	for (int i = 0; i < 3; i++)
		o->events[o->nevents++] = wall_types[i];
}

/*
 * A hash of n bytes under a seed: the same bytes under another seed probe elsewhere.  Keyed: the
 * bytes are a file's, and equal hashes of different bytes are told apart one by one.
 */
static uint64_t hash_bytes(const void *data, size_t n, uint64_t seed)
{
	return hashtab_keyed(hashtab_keyed_bytes(data, n), seed);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* ---- growable arrays ---- */

static int grow(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t cap2 = *cap ? *cap : 64;
	while (cap2 < need)
		cap2 *= 2;
	void *n = realloc(*v, cap2 * elem);
	if (!n)
		return -1;
	*v = n;
	*cap = cap2;
	return 0;
}

/* ---- reading fields of pool values ---- */

/* Text of a value of field f at c: strings directly, other types through their first field (Symbol,
 * FrameType, ThreadState and other simple types wrap one string). */
static int value_text(struct jfr_cur *c, const struct jfr_chunk *ch, const struct jfr_field *f,
                      char *buf, size_t n, int depth)
{
	if (n)
		buf[0] = 0;
	if (f->array || depth > 4)
		return -1;
	if (f->type->kind == JFR_K_STRING && !f->cp)
		return jfr_read_string(c, ch, buf, n);
	if (!jfr_deref(c, ch, f))
		return -1;
	const struct jfr_type *t = f->type;
	if (t->kind == JFR_K_STRING)
		return jfr_read_string(c, ch, buf, n);
	if (t->kind != JFR_K_COMPLEX || !t->nfields)
		return -1;
	return value_text(c, ch, &t->fields[0], buf, n, depth + 1);
}

static int field_text(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
                      uint64_t off, const char *name, char *buf, size_t n)
{
	struct jfr_cur c;
	const struct jfr_field *f = jfr_value_field(r, ch, t, off, name, &c);

	if (n)
		buf[0] = 0;
	if (!f)
		return -1;
	return value_text(&c, ch, f, buf, n, 0);
}

static bool field_int(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
                      uint64_t off, const char *name, int64_t *v)
{
	struct jfr_cur c;
	const struct jfr_field *f = jfr_value_field(r, ch, t, off, name, &c);

	if (!f || f->cp || f->array || f->type->kind < JFR_K_BOOLEAN || f->type->kind > JFR_K_LONG)
		return false;
	*v = (int64_t)jfr_read_scalar(&c, f);
	return !c.bad;
}

/* Position of the pool value referenced by field `name` of the value at off, or 0. */
static uint64_t field_ref(struct jfr_reader *r, const struct jfr_chunk *ch,
                          const struct jfr_type *t, uint64_t off, const char *name,
                          const struct jfr_type **vt)
{
	struct jfr_cur c;
	const struct jfr_field *f = jfr_value_field(r, ch, t, off, name, &c);

	if (!f || !jfr_deref(&c, ch, f))
		return 0;
	*vt = f->type;
	return jfr_cur_off(&c);
}

/* ---- interning ---- */

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* A frame is its name, kind and object. */
static uint32_t intern_frame(struct report *rep, struct priv *pv, const char *name, uint8_t kind,
                             const char *object)
{
	size_t len = strlen(name);

	for (uint64_t salt = 0;; salt++) {
		bool fresh;
		uint64_t h = hash_bytes(name, len, salt);

		if (object)
			h = hash_bytes(object, strlen(object), h);
		struct hashtab_slot *s = hashtab_put(&pv->frame_ids, h, kind, &fresh);
		if (!s)
			return UINT32_MAX;
		if (!fresh) {
			struct report_frame *f = &rep->frames[s->v - 1];
			if (!strcmp(f->name, name) && same_text(f->object, object))
				return s->v - 1;
			continue;
		}
		if (grow((void **)&rep->frames, &rep->frames_cap, rep->nframes + 1,
		         sizeof(*rep->frames)))
			return UINT32_MAX;
		char *copy = strdup(name), *ocopy = object ? strdup(object) : NULL;
		if (!copy || (object && !ocopy)) {
			free(copy);
			return UINT32_MAX;
		}
		rep->frames[rep->nframes] =
		    (struct report_frame){.name = copy, .kind = kind, .object = ocopy};
		s->v = ++rep->nframes;
		return s->v - 1;
	}
}

static uint32_t intern_stack(struct report *rep, struct priv *pv, const uint32_t *frames,
                             uint32_t depth, bool truncated)
{
	for (uint64_t salt = 0;; salt++) {
		bool fresh;
		uint64_t h = hash_bytes(frames, depth * sizeof(*frames), salt);
		struct hashtab_slot *s =
		    hashtab_put(&pv->stack_ids, h, (uint64_t)depth << 1 | truncated, &fresh);
		if (!s)
			return UINT32_MAX;
		if (!fresh) {
			struct report_stack *st = &rep->stacks[s->v - 1];
			if (!memcmp(rep->stack_frames + st->first, frames, depth * sizeof(*frames)))
				return s->v - 1;
			continue;
		}
		if (grow((void **)&rep->stacks, &rep->stacks_cap, rep->nstacks + 1,
		         sizeof(*rep->stacks)) ||
		    grow((void **)&rep->stack_frames, &rep->stack_frames_cap,
		         rep->nstack_frames + depth, sizeof(*rep->stack_frames)))
			return UINT32_MAX;
		memcpy(rep->stack_frames + rep->nstack_frames, frames, depth * sizeof(*frames));
		rep->stacks[rep->nstacks] =
		    (struct report_stack){(uint32_t)rep->nstack_frames, depth, truncated};
		rep->nstack_frames += depth;
		s->v = ++rep->nstacks;
		return s->v - 1;
	}
}

/* ---- frames and stacks ---- */

static uint8_t frame_kind(const char *type)
{
	if (!strcmp(type, "Native"))
		return RF_NATIVE;
	if (!strcmp(type, "C++"))
		return RF_CPP;
	if (!strcmp(type, "Kernel"))
		return RF_KERNEL;
	return RF_JAVA;
}

/* Display name of a method: "pkg.Class.method" for Java code; the bare symbol for native code whose
 * "class" is a shared object, the kernel or missing, and that object in OBJ (empty if none). */
static void method_name(struct jfr_reader *r, const struct jfr_chunk *ch, uint64_t mkey,
                        uint64_t mtype, uint8_t kind, char *out, size_t n, char *obj, size_t objn)
{
	char cls[NAME_MAX_LEN], meth[NAME_MAX_LEN];
	const struct jfr_type *mt = jfr_type_by_id(ch->meta, mtype);
	uint64_t off = mt ? jfr_pool_lookup(ch, mtype, mkey) : 0;

	obj[0] = 0;
	if (!off) {
		snprintf(out, n, "[unknown method %llu]", (unsigned long long)mkey);
		return;
	}
	if (field_text(r, ch, mt, off, "name", meth, sizeof(meth)) < 0)
		snprintf(meth, sizeof(meth), "[unknown]");
	const struct jfr_type *ct = NULL;
	uint64_t coff = field_ref(r, ch, mt, off, "type", &ct);
	cls[0] = 0;
	if (coff)
		field_text(r, ch, ct, coff, "name", cls, sizeof(cls));
	/* JNI methods are "Native" frames of Java classes (slash form); other native frames name
	 * their object file as the class */
	bool native_lib = kind == RF_CPP || kind == RF_KERNEL || strstr(cls, ".so") ||
	                  cls[0] == '[' || !cls[0] || (kind == RF_NATIVE && !strchr(cls, '/'));
	if (native_lib) {
		snprintf(out, n, "%s", meth);
		snprintf(obj, objn, "%s", cls);
		return;
	}
	for (char *p = cls; *p; p++)
		if (*p == '/')
			*p = '.';
	snprintf(out, n, "%s.%s", cls, meth);
}

static uint32_t resolve_frame(struct report *rep, struct priv *pv, struct jfr_reader *r,
                              const struct jfr_chunk *ch, uint64_t mkey, uint64_t mtype,
                              uint64_t tkey, uint64_t ttype)
{
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&pv->chunk_frames, mkey, tkey, &fresh);

	if (!s)
		return UINT32_MAX;
	if (!fresh)
		return s->v - 1;
	char type[64] = "", name[2 * NAME_MAX_LEN + 2], obj[NAME_MAX_LEN];
	const struct jfr_type *tt = jfr_type_by_id(ch->meta, ttype);
	/* key 0 is a frame type too: HotSpot's and lfr's "Interpreted" */
	uint64_t toff = tt ? jfr_pool_lookup(ch, ttype, tkey) : 0;
	if (toff && tt->nfields) {
		struct jfr_cur c;
		jfr_cur_init(&c, r, toff, ch->off + ch->size);
		value_text(&c, ch, &tt->fields[0], type, sizeof(type), 0);
	}
	uint8_t kind = frame_kind(type);
	method_name(r, ch, mkey, mtype, kind, name, sizeof(name), obj, sizeof(obj));
	uint32_t id = intern_frame(rep, pv, name, kind, obj[0] ? obj : NULL);
	s->v = (uint64_t)id + 1;
	return id;
}

/* Reads one StackFrame value at c: its method and frame-type keys. */
static void read_frame(struct jfr_cur *c, const struct jfr_type *ft, uint64_t *mkey,
                       uint64_t *mtype, uint64_t *tkey, uint64_t *ttype)
{
	*mkey = *tkey = 0;
	for (int i = 0; i < ft->nfields && !c->bad; i++) {
		const struct jfr_field *f = &ft->fields[i];
		if (f->cp && !f->array && !strcmp(f->name, "method")) {
			*mkey = jfr_varint(c);
			*mtype = f->type_id;
		} else if (f->cp && !f->array && !strcmp(f->name, "type")) {
			*tkey = jfr_varint(c);
			*ttype = f->type_id;
		} else {
			jfr_skip_field(c, f);
		}
	}
}

static uint32_t resolve_stack(struct report *rep, struct priv *pv, struct jfr_reader *r,
                              const struct jfr_chunk *ch, const struct jfr_field *sf, uint64_t key)
{
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&pv->chunk_stacks, key, 0, &fresh);

	if (!s)
		return UINT32_MAX;
	if (!fresh)
		return s->v - 1;

	uint32_t depth = 0;
	bool truncated = false;
	const struct jfr_type *st = sf->type;
	uint64_t off = key ? jfr_pool_lookup(ch, sf->type_id, key) : 0;
	struct jfr_cur c;
	const struct jfr_field *ff = off ? jfr_value_field(r, ch, st, off, "frames", &c) : NULL;

	if (off) {
		int64_t t = 0;
		if (field_int(r, ch, st, off, "truncated", &t))
			truncated = t != 0;
	}
	if (ff && ff->array) {
		uint64_t n = jfr_varint(&c);
		if (n > (uint64_t)(c.end - c.p))
			n = 0;
		if (grow((void **)&pv->tmp_frames, &pv->tmp_cap, n + 1, sizeof(*pv->tmp_frames)))
			return UINT32_MAX;
		for (uint64_t i = 0; i < n && !c.bad; i++) {
			uint64_t mkey, mtype = 0, tkey, ttype = 0;
			if (ff->cp) {
				uint64_t fkey = jfr_varint(&c);
				uint64_t foff = jfr_pool_lookup(ch, ff->type_id, fkey);
				if (!foff)
					continue;
				struct jfr_cur fc;
				jfr_cur_init(&fc, r, foff, ch->off + ch->size);
				read_frame(&fc, ff->type, &mkey, &mtype, &tkey, &ttype);
			} else {
				read_frame(&c, ff->type, &mkey, &mtype, &tkey, &ttype);
			}
			if (c.bad)
				break;
			uint32_t fid = resolve_frame(rep, pv, r, ch, mkey, mtype, tkey, ttype);
			if (fid == UINT32_MAX)
				return UINT32_MAX;
			pv->tmp_frames[depth++] = fid;
		}
	}
	if (!depth) {
		uint32_t fid = intern_frame(rep, pv, off ? "[empty stack]" : "[no stack trace]",
		                            RF_JAVA, NULL);
		if (fid == UINT32_MAX ||
		    grow((void **)&pv->tmp_frames, &pv->tmp_cap, 1, sizeof(*pv->tmp_frames)))
			return UINT32_MAX;
		pv->tmp_frames[depth++] = fid;
	}
	uint32_t id = intern_stack(rep, pv, pv->tmp_frames, depth, truncated);
	s->v = (uint64_t)id + 1;
	return id;
}

/* ---- threads ---- */

static const char *const pid_fields[] = {"pid", "processId", "osProcessId", "tgid", NULL};
static const char *const proc_fields[] = {"processName", "process", "command", "comm", NULL};

/* lfr names a thread's group after its process, "NAME [PID]"; other writers' groups ("main",
 * "system") do not match and leave the process to jdk.JVMInformation. */
static void group_process(struct jfr_reader *r, const struct jfr_chunk *ch,
                          const struct jfr_type *tt, uint64_t off, char *proc, size_t n,
                          int64_t *pid)
{
	const struct jfr_type *gt = NULL;
	uint64_t goff = field_ref(r, ch, tt, off, "group", &gt);
	char name[256];

	if (!goff || field_text(r, ch, gt, goff, "name", name, sizeof(name)) <= 0)
		return;
	size_t len = strlen(name);
	char *open = strrchr(name, '[');
	if (!open || open == name || open[-1] != ' ' || name[len - 1] != ']')
		return;
	name[len - 1] = 0;
	if (!all_digits(open + 1))
		return;
	*pid = strtoll(open + 1, NULL, 10);
	open[-1] = 0;
	snprintf(proc, n, "%s", name);
}

static bool thread_selected(const struct report_opts *o, const struct report_thread *t)
{
	bool ok = !o->nthreads;
	for (int i = 0; i < o->nthreads && !ok; i++) {
		const char *f = o->threads[i];
		ok = all_digits(f) ? t->tid == strtoll(f, NULL, 10) : strstr(t->name, f) != NULL;
	}
	if (!ok)
		return false;
	ok = !o->nprocesses;
	for (int i = 0; i < o->nprocesses && !ok; i++) {
		const char *f = o->processes[i];
		if (all_digits(f))
			ok = t->pid == strtoll(f, NULL, 10);
		else
			ok = t->process && strstr(t->process, f);
	}
	return ok;
}

/* Thread id + 1, 0 on OOM, UINT32_MAX when the thread is filtered out. */
static uint64_t resolve_thread(struct report *rep, struct priv *pv, struct jfr_reader *r,
                               const struct jfr_chunk *ch, const struct jfr_field *tf, uint64_t key)
{
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&pv->chunk_threads, key, 0, &fresh);

	if (!s)
		return 0;
	if (!fresh)
		return s->v;

	struct report_thread t = {.tid = -1, .pid = pv->jvm_pid};
	char name[256] = "", proc[256] = "";
	const struct jfr_type *tt = tf ? tf->type : NULL;
	uint64_t off = tf && key ? jfr_pool_lookup(ch, tf->type_id, key) : 0;

	if (off) {
		if (field_text(r, ch, tt, off, "javaName", name, sizeof(name)) <= 0)
			field_text(r, ch, tt, off, "osName", name, sizeof(name));
		if (!field_int(r, ch, tt, off, "osThreadId", &t.tid))
			field_int(r, ch, tt, off, "javaThreadId", &t.tid);
		for (int i = 0; pid_fields[i]; i++)
			if (field_int(r, ch, tt, off, pid_fields[i], &t.pid))
				break;
		for (int i = 0; proc_fields[i] && !proc[0]; i++)
			field_text(r, ch, tt, off, proc_fields[i], proc, sizeof(proc));
		if (!proc[0])
			group_process(r, ch, tt, off, proc, sizeof(proc), &t.pid);
	}
	if (!proc[0])
		snprintf(proc, sizeof(proc), "%s", pv->jvm_process);
	if (!name[0]) {
		if (t.tid >= 0)
			snprintf(name, sizeof(name), "[tid %lld]", (long long)t.tid);
		else
			snprintf(name, sizeof(name), "[unknown thread]");
	}
	t.name = name;
	t.process = proc[0] ? proc : NULL;
	if (!thread_selected(pv->o, &t)) {
		s->v = UINT32_MAX;
		return s->v;
	}
	struct hashtab_slot *g =
	    hashtab_put(&pv->thread_ids, (uint64_t)t.tid,
	                hash_bytes(name, strlen(name), (uint64_t)t.pid), &fresh);
	if (!g)
		return 0;
	if (fresh) {
		if (grow((void **)&rep->threads, &rep->threads_cap, rep->nthreads + 1,
		         sizeof(*rep->threads)))
			return 0;
		t.name = strdup(name);
		t.process = proc[0] ? strdup(proc) : NULL;
		if (!t.name || (proc[0] && !t.process)) {
			free(t.name);
			free(t.process);
			return 0;
		}
		rep->threads[rep->nthreads] = t;
		g->v = ++rep->nthreads;
	}
	s->v = g->v;
	return s->v;
}

/* ---- lost-sample events ---- */

static const char *const lost_amount_fields[] = {"lostSamples", "lost",   "samples", "count",
                                                 "records",     "amount", NULL};

static bool is_lost_type(const struct jfr_type *t)
{
	if (!strcmp(t->name, "jdk.DataLoss") || strstr(t->name, "Lost"))
		return true;
	return !strncmp(t->name, "lfr.", 4) && jfr_field_index(t, "reason") >= 0;
}

static int record_lost(struct report *rep, struct priv *pv, struct jfr_reader *r,
                       const struct jfr_chunk *ch, const struct jfr_type *t, uint64_t off)
{
	char reason[256] = "";
	const char *field = NULL;
	int64_t amount = 0;

	field_text(r, ch, t, off, "reason", reason, sizeof(reason));
	for (int i = 0; lost_amount_fields[i]; i++)
		if (field_int(r, ch, t, off, lost_amount_fields[i], &amount)) {
			field = lost_amount_fields[i];
			break;
		}
	struct hashtab_slot *s;
	bool fresh;

	for (uint64_t a = hash_bytes(reason, strlen(reason), 0);; a++) {
		s = hashtab_put(&pv->lost_ids, a, t->name_idx, &fresh);
		if (!s)
			return -1;
		if (fresh)
			break;
		struct report_lost *l = &rep->lost[s->v - 1];
		if (!strcmp(l->type, t->name) && !strcmp(l->reason, reason)) {
			l->events++;
			l->amount += amount > 0 ? amount : 0;
			return 0;
		}
	}
	if (grow((void **)&rep->lost, &pv->lost_cap, rep->nlost + 1, sizeof(*rep->lost))) {
		hashtab_del(&pv->lost_ids, s);
		return -1;
	}
	s->v = rep->nlost + 1;
	struct report_lost *l = &rep->lost[rep->nlost++];
	l->type = strdup(t->name);
	l->reason = strdup(reason);
	l->field = field ? strdup(field) : NULL;
	l->events = 1;
	l->amount = amount > 0 ? amount : 0;
	if (!l->type || !l->reason || (field && !l->field)) {
		rep->nlost--;
		hashtab_del(&pv->lost_ids, s);
		free(l->type);
		free(l->reason);
		free(l->field);
		return -1;
	}
	return 0;
}

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

/*
 * build_plan() of type t of a chunk whose metadata declares profiler.WallClockSample (wall_clock):
 * the wall-clock samples are those events then, and --wall leaves out the CPU samples of the chunk
 * (which are wall-clock samples in files of lfr before it, with jdk.NativeMethodSample off the
 * CPU).
 */
static int build_plan(struct priv *pv, const struct jfr_type *t, bool wall_clock, struct plan *p)
{
	const struct report_opts *o = pv->o;

	memset(p, 0, sizeof(*p));
	p->t = t;
	p->evidx = t->name_idx;
	p->thread_field = p->stack_field = p->state_field = -1;
	if (!strcmp(t->name, "jdk.JVMInformation")) {
		p->role = ROLE_JVMINFO;
		return 0;
	}
	if (!strcmp(t->name, "lfr.SamplerSettings")) {
		p->role = ROLE_SETTINGS;
		return 0;
	}
	if (!strcmp(t->name, "lfr.ObjectFile")) {
		p->role = ROLE_OBJECT;
		return 0;
	}
	if (!strcmp(t->name, "lfr.Label")) {
		p->role = ROLE_LABEL;
		return 0;
	}
	if (is_event_type(t) && is_lost_type(t)) {
		p->role = ROLE_LOST;
		return 0;
	}
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
	for (int i = 0; i < p->nread; i++) {
		const struct jfr_field *f = &t->fields[i];
		p->fast[i] =
		    i != p->state_field && !f->array &&
		    (f->cp || (f->type->kind >= JFR_K_CHAR && f->type->kind <= JFR_K_LONG));
	}
	return 0;
}

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

/* ---- one chunk ---- */

#define BATCH 16

struct pending {
	uint64_t a, b, v, h;
};

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

static int chunk_jvminfo(struct priv *pv, struct jfr_reader *r, const struct jfr_chunk *ch,
                         const struct jfr_type *t, uint64_t off)
{
	char args[256];

	field_int(r, ch, t, off, "pid", &pv->jvm_pid);
	if (field_text(r, ch, t, off, "javaArguments", args, sizeof(args)) > 0) {
		args[strcspn(args, " ")] = 0;
		snprintf(pv->jvm_process, sizeof(pv->jvm_process), "%s", args);
	}
	return 0;
}

/* An lfr.ObjectFile event, kept once per distinct (name, path, build-id). */
static int note_object(struct report *rep, struct priv *pv, struct jfr_reader *r,
                       const struct jfr_chunk *ch, const struct jfr_type *t, uint64_t off)
{
	char name[NAME_MAX_LEN], path[4096], bid[2 * 64 + 1];
	struct hashtab_slot *s;
	bool fresh;

	if (field_text(r, ch, t, off, "name", name, sizeof(name)) < 0 ||
	    field_text(r, ch, t, off, "path", path, sizeof(path)) < 0 ||
	    field_text(r, ch, t, off, "buildId", bid, sizeof(bid)) < 0 || !name[0] ||
	    path[0] != '/')
		return 0;
	uint64_t b = hash_bytes(path, strlen(path), hash_bytes(bid, strlen(bid), 0));
	for (uint64_t a = hash_bytes(name, strlen(name), 0);; a++) {
		s = hashtab_put(&pv->object_ids, a, b, &fresh);
		if (!s)
			return -1;
		if (fresh)
			break;
		const struct report_object *o = &rep->objects[s->v - 1];
		if (!strcmp(o->name, name) && !strcmp(o->path, path) && !strcmp(o->build_id, bid))
			return 0;
	}
	if (grow((void **)&rep->objects, &rep->objects_cap, rep->nobjects + 1,
	         sizeof(*rep->objects))) {
		hashtab_del(&pv->object_ids, s);
		return -1;
	}
	struct report_object *o = &rep->objects[rep->nobjects];
	o->name = strdup(name);
	o->path = strdup(path);
	o->build_id = strdup(bid);
	if (!o->name || !o->path || !o->build_id) {
		free(o->name), free(o->path), free(o->build_id);
		hashtab_del(&pv->object_ids, s);
		return -1;
	}
	s->v = ++rep->nobjects;
	return 0;
}

/* An lfr.Label event; one without its fields is left out. */
static int note_label(struct report *rep, struct jfr_reader *r, const struct jfr_chunk *ch,
                      const struct jfr_type *t, uint64_t off)
{
	char name[LFR_LABEL_KEY_MAX], value[LFR_LABEL_VALUE_MAX];
	int64_t pid = -1;

	if (!field_int(r, ch, t, off, "pid", &pid) || pid < 0 ||
	    field_text(r, ch, t, off, "name", name, sizeof(name)) <= 0 ||
	    field_text(r, ch, t, off, "value", value, sizeof(value)) <= 0)
		return 0;
	return report_note_label(rep, pid, name, value);
}

/* The sampling period lfr.SamplerSettings gives; periods that differ leave it unknown. */
static void note_period(struct report *rep, struct jfr_reader *r, const struct jfr_chunk *ch,
                        const struct jfr_type *t, uint64_t off)
{
	int64_t ns = 0;

	if (!field_int(r, ch, t, off, "periodNanos", &ns) || ns <= 0 || rep->period_mixed)
		return;
	if (rep->period_ns && rep->period_ns != ns) {
		rep->period_mixed = true;
		rep->period_ns = 0;
		return;
	}
	rep->period_ns = ns;
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

/*
 * A sample's second key: its thread key, and with contexts the dense index of its context in the
 * bits above CTX_SHIFT (a thread key that reaches them keeps no context).
 */
#define CTX_SHIFT 48

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

/*
 * A chunk goes through three steps: prepare (sequential: header, metadata, pools, plans), scan (may
 * run on a worker thread: touches only the job and the mapped file) and merge (sequential, in file
 * order: resolves keys and interns into the report).
 */
struct special {
	const struct plan *pl;
	uint64_t off;
};

/* A sample's time and keys, kept for report.timed. */
struct timed_key {
	int64_t ticks;
	uint64_t a, b, v;
};

struct job {
	struct jfr_chunk ch;
	struct timed_key *timed; /* opts.timeline only */
	size_t ntimed, timed_cap;
	struct plan *plans;
	int nplans;
	struct plan **dense;
	size_t ndense;
	int64_t lo, hi;
	struct hashtab agg;
	uint64_t *cnt, *bytes;
	size_t ncnt;
	uint64_t meta_cnt, meta_bytes, cp_cnt, cp_bytes, sample_events;
	struct special *special;
	size_t nspecial, special_cap;
	struct states_job states; /* report_opts.states only */
	struct ctx_chunk ctx;     /* the samples' trace contexts, when the options use them */
	struct jfr_reader rr;     /* a copy of the reader that receives this chunk's scan error */
	int rc;
	bool keep_times;
};

static void job_free(struct job *j)
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

static int job_prepare(struct priv *pv, struct jfr_reader *r, struct job *j)
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
 * ROLE_STATE_SAMPLE: a sample as add_sample() takes it, and its value added to its thread's sum
 * in its state, whose key is the bytes of the field (decoded once per chunk, at the merge).  0,
 * 1 when a field is malformed (the error names its offset), or -1 when out of memory.
 */
static int scan_state_sample(struct job *j, const struct plan *pl, struct jfr_cur *c,
                             struct pending *batch, int *nbatch)
{
	uint64_t v[5] = {0, 0, 0, 0, 1};
	const struct jfr_field *fields = pl->t->fields;
	const uint8_t *state = NULL, *state_end = NULL;

	for (int i = 0; i < pl->nread; i++) {
		if (pl->fast[i]) {
			v[pl->slots[i]] = jfr_varint(c);
			continue;
		}
		if (i == pl->state_field)
			state = c->p;
		jfr_skip_field(c, &fields[i]);
		if (i == pl->state_field)
			state_end = c->p;
	}
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
		if (pl->role != ROLE_SAMPLE) {
			int rc = pl->role == ROLE_STATE_SAMPLE
			             ? scan_state_sample(j, pl, &c, batch, &nbatch)
			             : note_special(j, pl, &c);
			if (rc == -1)
				goto oom;
			if (rc)
				return; /* the error names the offset of the bad field */
			continue;
		}
		/* ROLE_SAMPLE: decode the prefix of fields that holds what is needed */
		uint64_t v[5] = {0, 0, 0, 0, 1};
		const struct jfr_field *fields = pl->t->fields;
		for (int i = 0; i < pl->nread; i++) {
			if (pl->fast[i])
				v[pl->slots[i]] = jfr_varint(&c);
			else
				jfr_skip_field(&c, &fields[i]);
		}
		if (c.bad)
			return; /* the error names the offset of the bad field */
		if (add_sample(j, v, batch, &nbatch) < 0)
			goto oom;
	}
	if (flush_batch(&j->agg, batch, &nbatch) < 0)
		goto oom;
	j->rc = 0;
	return;
oom:
	jfr_fail(r, j->ch.off, "out of memory");
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

	sample_fields(j->plans, (size_t)j->nplans, &sf, &tf);
	for (size_t i = 0; i < j->ntimed; i++) {
		const struct timed_key *k = &j->timed[i];
		uint64_t th =
		    resolve_thread(rep, pv, r, &j->ch, tf, sample_thread_key(&j->ctx, k->b));
		if (!th)
			return -1;
		if (th == UINT32_MAX)
			continue; /* filtered out */
		uint32_t st = resolve_stack(rep, pv, r, &j->ch, sf, k->a);
		if (st == UINT32_MAX)
			return -1;
		if (grow((void **)&rep->timed, &rep->timed_cap, rep->ntimed + 1,
		         sizeof(*rep->timed)))
			return -1;
		uint32_t cx = sample_ctx(rep, pv, r, &j->ch, &j->ctx, k->b);
		if (cx == UINT32_MAX)
			return -1;
		rep->timed[rep->ntimed++] = (struct report_timed){
		    jfr_sat_sub(jfr_ticks_to_nanos(&j->ch, k->ticks), pv->rec_start), st,
		    (uint32_t)(th - 1), k->v, cx};
	}
	return 0;
}

static int cmp_timed(const void *a, const void *b)
{
	const struct report_timed *x = a, *y = b;

	if (x->nanos != y->nanos)
		return x->nanos < y->nanos ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int job_merge(struct report *rep, struct priv *pv, struct jfr_reader *r, struct job *j)
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

static void scan_jobs(struct job *jobs, int n, int threads)
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

static int scan_threads(const struct report_opts *o)
{
	long n = o->jobs > 0 ? o->jobs : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (int)n;
}

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
		int n = 0, load_rc = 0;
		while (n < threads && off < r->size) {
			struct job *j = &jobs[n];
			memset(j, 0, sizeof(*j));
			if (jfr_chunk_load(r, off, &j->ch) < 0) {
				load_rc = -1;
				break;
			}
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
				load_rc = jfr_fail(r, ch->off, "out of memory");
				job_free(j);
				break;
			}
			off += j->ch.size;
			n++;
		}
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
	if (rep->ntimed)
		qsort(rep->timed, rep->ntimed, sizeof(*rep->timed), cmp_timed);
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

int64_t report_parse_duration(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);

	if (end == s || errno || v < 0)
		return -1;
	double mult = 1e9;
	if (!*end || !strcmp(end, "s"))
		mult = 1e9;
	else if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "ns"))
		mult = 1;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mult = 60e9;
	else if (!strcmp(end, "h"))
		mult = 3600e9;
	else
		return -1;
	if (v * mult > 9.2e18)
		return -1;
	return (int64_t)(v * mult);
}

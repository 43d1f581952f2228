// SPDX-License-Identifier: GPL-2.0
/*
 * A chunk's stack and thread keys resolved once each through the constant pools into the report's
 * interned frames, stacks and threads (the per-chunk tables of priv cache the keys).
 */
#include <ctype.h>
#include <string.h>

#include "report/report_internal.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
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

uint32_t resolve_stack(struct report *rep, struct priv *pv, struct jfr_reader *r,
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
uint64_t resolve_thread(struct report *rep, struct priv *pv, struct jfr_reader *r,
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

// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's processes and threads: their names, command lines, labels and mappings as the
 * records give them, and their keys in the JFR thread pool.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "export/labels.h"
#include "record/process_ctx.h"
#include "record/recorder_internal.h"

/* idmap_get() of an object not asked for lately: looked up, or added. */
void *idmap_find(struct idmap *m, uint32_t id)
{
	struct idmap_recent *c = &m->recent[id % IDMAP_RECENT];
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&m->t, id, 0, &fresh);
	void *o;

	if (!s)
		return NULL;
	if (!fresh) {
		o = (void *)(uintptr_t)s->v;
	} else {
		o = calloc(1, m->elem);
		if (!o) {
			hashtab_del(&m->t, s);
			return NULL;
		}
		memcpy(o, &id, sizeof(id));
		s->v = (uint64_t)(uintptr_t)o;
	}
	c->id = id;
	c->o = o;
	return o;
}

void idmap_free(struct idmap *m, void (*fini)(void *o))
{
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&m->t, s));) {
		if (fini)
			fini((void *)(uintptr_t)s->v);
		free((void *)(uintptr_t)s->v);
	}
	hashtab_free(&m->t);
	memset(m->recent, 0, sizeof(m->recent));
}

/* Removes the object of id's slot s from the map, and from the recently asked. */
static void idmap_drop(struct idmap *m, struct hashtab_slot *s, uint32_t id)
{
	struct idmap_recent *c = &m->recent[id % IDMAP_RECENT];

	if (c->id == id)
		c->o = NULL;
	free((void *)(uintptr_t)s->v);
	hashtab_del(&m->t, s);
}

/* A forgotten thread's counts, among the busiest ones forgotten (lfr_recorder_busiest()). */
static void keep_busiest(struct lfr_recorder *r, const struct thread *t)
{
	size_t j;

	if (!(t->samples + t->missed))
		return;
	if (r->n_gone_busiest == BUSIEST_GONE &&
	    t->samples <= r->gone_busiest[BUSIEST_GONE - 1].samples)
		return;
	j = r->n_gone_busiest < BUSIEST_GONE ? r->n_gone_busiest++ : BUSIEST_GONE - 1;
	for (; j > 0 && r->gone_busiest[j - 1].samples < t->samples; j--)
		r->gone_busiest[j] = r->gone_busiest[j - 1];
	r->gone_busiest[j] = (struct lfr_thread_rate){
	    .tid = t->tid, .tgid = t->tgid, .samples = t->samples, .missed = t->missed};
	memcpy(r->gone_busiest[j].comm, t->comm, sizeof(r->gone_busiest[j].comm));
}

/* Forgets what exited at e->time_ns, unless its id has been used again since. */
static void forget(struct lfr_recorder *r, const struct exited *e)
{
	struct hashtab_slot *s = hashtab_get(&r->threads.t, e->tid, 0);
	const struct thread *t = s ? (const struct thread *)(uintptr_t)s->v : NULL;
	struct process *p;

	if (t && t->exit_ns == e->time_ns) {
		keep_busiest(r, t);
		lfr_jfr_thread_release(r->w, t->key);
		idmap_drop(&r->threads, s, e->tid);
	}
	if (!e->main || !(s = hashtab_get(&r->procs.t, e->tid, 0)))
		return;
	p = (struct process *)(uintptr_t)s->v;
	if (!p->gone || p->gone_ns != e->time_ns)
		return;
	lfr_sym_forget_pid(r->sym, e->tid);
	lfr_jfr_labels_forget(r->w, e->tid);
	stack_cache_stale(r, p);
	process_fini(p);
	idmap_drop(&r->procs, s, e->tid);
}

/* The ring of exits with CAP (>= f->n) entries: 0, or -ENOMEM (unchanged). */
static int exited_resize(struct exited_fifo *f, size_t cap)
{
	struct exited *e = malloc(cap * sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++)
		e[i] = f->e[(f->head + i) % f->cap];
	free(f->e);
	f->e = e;
	f->cap = cap;
	f->head = 0;
	return 0;
}

/*
 * A burst of exits forgotten (churn: a build, a test suite): the tables and the ring it grew made
 * small again and the heap it took given back to the system, which free() alone does not do for
 * memory below chunks still in use.  Without it the recorder kept the size of its largest burst.
 */
static void after_burst(struct lfr_recorder *r)
{
	struct exited_fifo *f = &r->exited;
	size_t cap = 256;

	hashtab_shrink(&r->threads.t);
	hashtab_shrink(&r->procs.t);
	while (cap < 2 * f->n)
		cap *= 2;
	if (cap < f->cap)
		exited_resize(f, cap);
	malloc_trim(0);
	r->st.heap_trims++;
}

/*
 * Forgets what exited EXITED_KEEP_NS before now_ns (an exit's time, or a read of the rings: a
 * machine gone quiet after a burst gives it back too); a burst forgotten, the memory it took.
 */
void forget_exited(struct lfr_recorder *r, uint64_t now_ns)
{
	struct exited_fifo *f = &r->exited;

	while (f->n && f->e[f->head].time_ns + EXITED_KEEP_NS < now_ns) {
		forget(r, &f->e[f->head]);
		f->head = (f->head + 1) % f->cap;
		f->n--;
	}
	if (f->n > f->peak) {
		f->peak = f->n;
	} else if (f->peak >= EXITED_BURST && f->n <= f->peak / 8) {
		after_burst(r);
		f->peak = f->n;
	}
}

/*
 * Notes the exit of tid (the process's main thread: main) at time_ns, and forgets what exited
 * EXITED_KEEP_NS before it.  0 or -ENOMEM (the exit is then not noted: kept, not lost).
 */
static int note_exit(struct lfr_recorder *r, uint32_t tid, bool main, uint64_t time_ns)
{
	struct exited_fifo *f = &r->exited;

	forget_exited(r, time_ns);
	if (f->n == f->cap && exited_resize(f, f->cap ? 2 * f->cap : 256))
		return -ENOMEM;
	f->e[(f->head + f->n++) % f->cap] = (struct exited){time_ns, tid, main};
	return 0;
}

void exited_free(struct exited_fifo *f)
{
	free(f->e);
	memset(f, 0, sizeof(*f));
}

void process_fini(void *o)
{
	struct process *p = o;

	free(p->cmdline);
	if (p->keys)
		lfr_key_map_free(p->keys);
	free(p->keys);
}

/* Arguments (NUL-separated, LEN bytes) joined by spaces into a new string; NULL when empty. */
static char *join_args(const char *args, size_t len)
{
	char *s;

	while (len && args[len - 1] == '\0')
		len--;
	if (!len || !(s = malloc(len + 1)))
		return NULL;
	for (size_t i = 0; i < len; i++)
		s[i] = args[i] ? args[i] : ' ';
	s[len] = '\0';
	return s;
}

static void set_cmdline(struct process *p, char *cmdline)
{
	if (!cmdline)
		return;
	free(p->cmdline);
	p->cmdline = cmdline;
}

void apply_cmdline(struct lfr_recorder *r, const struct rec_cmdline *c)
{
	struct process *p = idmap_get(&r->procs, c->tgid);

	if (p && !p->cmdline)
		p->cmdline = join_args(c->args, c->len);
}

/* A process's labels from its cgroups (export/labels.h), kept by the writer for its chunks. */
int apply_cgroup(struct lfr_recorder *r, const struct rec_cmdline *c)
{
	struct lfr_labels l;
	const char *kv[2 * LFR_LABELS_MAX];

	lfr_labels_from_cgroup(c->args, c->len, r->labels, &l);
	if (!l.n) {
		/* none (any more): a process before it under the pid had some, or its exec left
		 * its container */
		lfr_jfr_labels_forget(r->w, c->tgid);
		return 0;
	}
	r->st.labelled++;
	return lfr_jfr_labels(r->w, r->last_time, c->tgid, kv, lfr_labels_kv(&l, kv));
}

/* The base name of argv[0] of a live process, cut to a comm's length; false if unreadable. */
static bool proc_image_name(uint32_t tgid, char *buf, size_t len)
{
	char path[64], arg[256];
	const char *base;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/cmdline", tgid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(arg, 1, sizeof(arg) - 1, f);
	fclose(f);
	arg[n] = '\0';
	if (!arg[0])
		return false;
	base = strrchr(arg, '/');
	base = base ? base + 1 : arg;
	n = strnlen(base, len - 1);
	memcpy(buf, base, n);
	buf[n] = '\0';
	return n > 0;
}

int apply_comm(struct lfr_recorder *r, const struct lfr_rec_comm *c)
{
	struct thread *t = idmap_get(&r->threads, c->tid);
	struct process *p = process_of(r, c->tgid);
	char comm[LFR_COMM_LEN];

	if (!t || !p)
		return -ENOMEM;
	memcpy(comm, c->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	/*
	 * No forgetting of mappings on exec: the new image's mappings may already have been applied
	 * from another CPU's ring, and each replaces whatever old mapping it overlaps anyway.
	 */
	/*
	 * A process is named by its image: the name at exec, else (a process already running when
	 * the recording began) its argv[0] while it lives, else the first name seen.  Later renames
	 * of its main thread rename that thread, not the process.
	 */
	if (c->flags & LFR_COMM_F_EXEC) {
		if (strcmp(p->comm, comm)) {
			memcpy(p->comm, comm, sizeof(comm));
			p->gen++;
		}
	} else if (!p->comm[0]) {
		if (!proc_image_name(c->tgid, p->comm, sizeof(p->comm)))
			memcpy(p->comm, comm, sizeof(comm));
		p->gen++;
	}
	/*
	 * Names come from every CPU's ring, and a round of reading may take a later one (a rename
	 * on one CPU) before an earlier one (the exec on another): the latest name wins.
	 */
	if (t->tgid == c->tgid && c->time_ns < t->comm_time)
		return 0;
	t->comm_time = c->time_ns;
	if (strcmp(t->comm, comm) || t->tgid != c->tgid) {
		memcpy(t->comm, comm, sizeof(comm));
		t->tgid = c->tgid;
		/* no event names a thread by its key: the recorder asks for it when it writes */
		lfr_jfr_thread_release(r->w, t->key);
		t->key = 0;
	}
	return 0;
}

/*
 * A FORK or EXEC record at time_ns of a thread or process that exited (*gone) at gone_ns: a new
 * life of its id when it comes later, else its own start read after its end.  Rings are read
 * one CPU after another: a thread of a few milliseconds is created on its parent's CPU and exits
 * on its own, and its exit must stand, or it is never forgotten.
 */
static void started(bool *gone, uint64_t gone_ns, uint64_t *start_ns, uint64_t time_ns)
{
	if (*gone && time_ns > gone_ns)
		*gone = false;
	if (time_ns > *start_ns)
		*start_ns = time_ns;
}

static void thread_started(struct thread *t, uint64_t time_ns)
{
	if (time_ns > t->exit_ns)
		t->exit_ns = 0;
	if (time_ns > t->start_ns)
		t->start_ns = time_ns;
}

/*
 * Thread TID of process TGID ended at TIME_NS (its process too when it is the main one), unless
 * that is of its id's previous holder, read late.
 */
static int thread_exited(struct lfr_recorder *r, uint32_t tid, uint32_t tgid, uint64_t time_ns)
{
	struct thread *t = idmap_get(&r->threads, tid);

	if (!t)
		return -ENOMEM;
	if (time_ns < t->start_ns)
		return 0;
	t->exit_ns = time_ns;
	if (tid == tgid) {
		/* its start is the main thread's: the check above holds for it too */
		struct process *p = process_of(r, tgid);

		if (!p)
			return -ENOMEM;
		p->gone = true;
		p->gone_ns = time_ns;
	}
	return note_exit(r, tid, tid == tgid, time_ns);
}

/* A thread's name from a TASK record: creation (the parent's name), exec or rename. */
int apply_task(struct lfr_recorder *r, const struct lfr_rec_task *k)
{
	struct lfr_rec_comm c = {
	    .time_ns = k->time_ns,
	    .tgid = k->tgid,
	    .tid = k->tid,
	    .flags = k->kind == LFR_TASK_EXEC ? LFR_COMM_F_EXEC : 0,
	};
	struct thread *t;

	switch (k->kind) {
	case LFR_TASK_FORK:
		if (k->tid == k->tgid && k->ptgid && k->ptgid != k->tgid) {
			/* a new process runs its parent's image until it execs (one lookup at a
			 * time: a lookup may grow the table and move the entries) */
			struct process *p = process_of(r, k->ptgid);
			char *copy;

			if (!p)
				return -ENOMEM;
			copy = p->cmdline ? strdup(p->cmdline) : NULL;
			p = process_of(r, k->tgid);
			if (!p) {
				free(copy);
				return -ENOMEM;
			}
			if (!p->cmdline)
				p->cmdline = copy;
			else
				free(copy);
			started(&p->gone, p->gone_ns, &p->start_ns, k->time_ns);
		}
		/* A name given later in the same batch wins: apply only to threads not seen yet. */
		t = idmap_get(&r->threads, k->tid);
		if (!t)
			return -ENOMEM;
		thread_started(t, k->time_ns);
		if (t->comm[0] && t->tgid == k->tgid)
			return 0;
		break;
	case LFR_TASK_EXEC: {
		struct process *p;

		/* a thread other than the main one that execs takes the main one's id, which
		 * exited just before (its EXIT record): the id lives on, and its own id (ptid)
		 * ends here without an EXIT */
		if (task_left_id(k)) {
			int err = thread_exited(r, k->ptid, k->tgid, k->time_ns);

			if (err)
				return err;
		}
		if (!(t = idmap_get(&r->threads, k->tid)))
			return -ENOMEM;
		thread_started(t, k->time_ns);
		if (!(p = process_of(r, k->tgid)))
			return -ENOMEM;
		started(&p->gone, p->gone_ns, &p->start_ns, k->time_ns);
		set_cmdline(p, join_args(k->args, k->args_len));
		p->described = false; /* a new command line */
		if (p->keys)
			lfr_key_map_free(p->keys); /* a new image publishes its own */
		p->keys_read_ns = 0;
		break;
	}
	case LFR_TASK_RENAME:
		break;
	case LFR_TASK_EXIT:
		return thread_exited(r, k->tid, k->tgid, k->time_ns);
	default:
		return 0;
	}
	memcpy(c.comm, k->comm, sizeof(c.comm));
	return apply_comm(r, &c);
}

int apply_mmap(struct lfr_recorder *r, const struct lfr_rec_mmap *m, const char *path)
{
	struct lfr_sym_mapping map = {
	    .pid = m->tgid,
	    .start = m->start,
	    .end = m->end,
	    .pgoff = m->pgoff,
	    .dev = makedev(m->dev_major, m->dev_minor),
	    .ino = m->ino,
	    .path = path,
	};
	struct process *p = process_of(r, m->tgid);
	int err;

	if (!p)
		return -ENOMEM;
	stack_cache_stale(r, p); /* its cached stacks are of the mappings before */
	p->map_gen++;
	err = lfr_sym_add_mapping(r->sym, &map);
	/* A mapping the symbolizer cannot use costs names, never samples. */
	return err == -ENOMEM ? err : 0;
}

int thread_key(struct lfr_recorder *r, uint32_t tid, uint32_t tgid, uint64_t *key)
{
	struct thread *t = idmap_get(&r->threads, tid);
	struct process *p = process_of(r, tgid);

	if (!t || !p)
		return -ENOMEM;
	return thread_key_of(r, t, p, tid, tgid, key);
}

/* thread_key_of() of a thread not written since its name or its process's name changed. */
int thread_key_new(struct lfr_recorder *r, struct thread *t, struct process *p, uint32_t tid,
                   uint32_t tgid, uint64_t *key)
{
	char name[32], proc[32];

	if (!t->comm[0])
		snprintf(name, sizeof(name), "[%" PRIu32 "]", tid);
	else
		snprintf(name, sizeof(name), "%s", t->comm);
	snprintf(proc, sizeof(proc), "%s", p->comm[0] ? p->comm : name);
	t->tgid = tgid;
	t->proc_gen = p->gen;
	uint64_t old = t->key;
	int err = lfr_jfr_thread(r->w, tid, tgid, name, proc, &t->key);

	if (old && old != t->key)
		lfr_jfr_thread_release(r->w, old); /* its process was renamed */

	*key = t->key;
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/* Thread contexts for a session (ctx_finder.h): a queue of processes, one thread. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/hashtab.h"
#include "lib/maps_line.h"
#include "lib/worker.h"
#include "record/ctx_finder.h"
#include "sym/tls_var.h"

/* Processes waiting: beyond this, triggers are not queued (counted as dropped). */
#define MAX_QUEUED 4096

/* What an object file holds, looked at once per (device, inode). */
struct object {
	int state; /* 1: it defines the variable (var), 0: it does not, -1: unreadable (why) */
	struct lfr_tls_var var;
	char why[256];
};

struct lfr_ctx_finder {
	lfr_ctx_add_fn add;
	void *arg;
	/* the reading thread's: processes seen (tgid, 0), and (tgid, object) met in MMAP records */
	struct hashtab seen, seen_objects;
	size_t objects_kept; /* seen_objects' entries after its last pruning */
	/* the finding thread's: (dev, ino) -> struct object *; processes registered */
	struct hashtab objects, registered;

	struct lfr_worker w; /* its lock: the queue and the stats */
	uint32_t *queue;
	size_t head, nqueued;
	struct lfr_ctx_finder_stats st;
};

/* One file mapping of a process, as /proc/PID/maps shows it. */
struct mapping {
	uint64_t start, end, pgoff, ino;
	unsigned int maj, min;
	char path[256];
};

/* The file mappings of pid; a malloc'ed array (*n entries), NULL with errno on failure. */
static struct mapping *read_maps(uint32_t pid, size_t *n)
{
	struct mapping *m = NULL, *grown;
	size_t cap = 0;
	char path[64], *line = NULL;
	size_t linecap = 0;
	bool oom = false;
	FILE *fp;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	fp = fopen(path, "re");
	if (!fp)
		return NULL;
	while (getline(&line, &linecap, fp) > 0) {
		struct lfr_maps_line l;

		if (!lfr_maps_line_parse(line, &l) || !l.ino || l.path[0] != '/')
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(m, cap * sizeof(*m));
			if (!grown) {
				oom = true;
				break;
			}
			m = grown;
		}
		m[*n] = (struct mapping){l.start, l.end, l.pgoff, l.ino, l.maj, l.min, ""};
		snprintf(m[*n].path, sizeof(m[*n].path), "%.*s", (int)l.path_len, l.path);
		(*n)++;
	}
	free(line);
	fclose(fp);
	if (oom) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m ? m : calloc(1, sizeof(*m));
}

/*
 * Opens a mapping's file: by its path when that is still the mapped inode, else through the
 * process's map_files link (a file replaced since, or a path from another mount namespace).
 */
static int open_mapping(uint32_t pid, const struct mapping *m)
{
	char mf[96];
	struct stat st;
	int fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_ino == m->ino)
		return fd;
	if (fd >= 0)
		close(fd);
	snprintf(mf, sizeof(mf), "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, pid, m->start,
	         m->end);
	fd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_ino == m->ino)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* What the object of mapping m holds, looked at once: cache maps (dev, ino) to a struct object *.
 */
static struct object *look_at(struct hashtab *cache, uint32_t pid, const struct mapping *m)
{
	uint64_t dev = (uint64_t)m->maj << 20 | m->min;
	struct hashtab_slot *s = hashtab_get(cache, dev, m->ino);
	struct object *o;
	bool fresh;
	int fd;

	if (s)
		return (struct object *)(uintptr_t)s->v;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	fd = open_mapping(pid, m);
	if (fd < 0) {
		o->state = -1;
		snprintf(o->why, sizeof(o->why), "the file is gone or changed since it was mapped");
	} else {
		o->state = lfr_tls_var_find(fd, &o->var, o->why, sizeof(o->why));
		close(fd);
	}
	s = hashtab_put(cache, dev, m->ino, &fresh);
	if (!s) {
		free(o);
		return NULL;
	}
	s->v = (uint64_t)(uintptr_t)o;
	return o;
}

/* The DTV of the process's C library: glibc's entries of 16 bytes, musl's of 8. */
static void dtv_layout(const struct mapping *maps, size_t n, uint16_t machine,
                       struct lfr_ctx_loc *l)
{
	bool musl = false;

	for (size_t i = 0; i < n && !musl; i++)
		musl = strstr(maps[i].path, "/ld-musl-") != NULL;
	if (!musl) {
		/* tcbhead_t: dtv after tcb (x86-64), first (arm64); dtv[-1] counts its slots */
		l->dtv_offset = machine == 62 /* EM_X86_64 */ ? 8 : 0;
		l->dtv_stride = 16;
		l->dtv_count = -1;
	} else {
		/* struct pthread: dtv after self (x86-64), last below tp (arm64); dtv[0] counts */
		l->dtv_offset = machine == 62 ? 8 : -8;
		l->dtv_stride = 8;
		l->dtv_count = 0;
	}
}

/*
 * The location in process pid: the executable's variable first, else the first library's in map
 * order.  Returns 1, 0 (none) or -1 (why).
 */
static int locate(struct hashtab *cache, uint32_t pid, struct lfr_ctx_loc *l, char *why,
                  size_t whylen)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), bias;
	struct object *o, *best = NULL;
	const struct mapping *bm = NULL;
	struct mapping *maps;
	size_t n, i;
	int ret = 0;

	maps = read_maps(pid, &n);
	if (!maps) {
		snprintf(why, whylen, "cannot read its mappings: %s", strerror(errno));
		return -1;
	}
	why[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i && maps[i].ino == maps[i - 1].ino && maps[i].maj == maps[i - 1].maj &&
		    maps[i].min == maps[i - 1].min)
			continue; /* the same object's next segment */
		o = look_at(cache, pid, &maps[i]);
		if (!o)
			continue;
		if (o->state < 0 && !why[0] && strstr(o->why, LFR_TLS_CTX_SYMBOL))
			snprintf(why, whylen, "%s: %s", maps[i].path, o->why);
		if (o->state <= 0 || (best && (best->var.executable || !o->var.executable)))
			continue;
		best = o;
		bm = &maps[i];
	}
	if (!best) {
		ret = why[0] ? -1 : 0;
		goto out;
	}
	/* the object's mapping of the offset of one of its PT_LOAD segments places it */
	for (i = 0; i < n; i++)
		if (maps[i].ino == bm->ino && maps[i].maj == bm->maj && maps[i].min == bm->min &&
		    lfr_tls_var_bias(&best->var, maps[i].start, maps[i].pgoff, page, &bias))
			break;
	if (i == n) {
		snprintf(why, whylen, "%s: no mapping of a loadable segment", bm->path);
		ret = -1;
		goto out;
	}
	*l = (struct lfr_ctx_loc){
	    .pid = pid,
	    .access = best->var.access,
	    .offset = best->var.access == LFR_CTX_ACCESS_STATIC ? best->var.tp_offset : 0,
	    .slot = best->var.access == LFR_CTX_ACCESS_STATIC ? 0 : bias + best->var.slot_vaddr,
	    .object_addr = maps[i].start,
	    .object_ino = maps[i].ino,
	    .object_dev = maps[i].maj << 20 | maps[i].min,
	};
	dtv_layout(maps, n, best->var.machine, l);
	ret = 1;
out:
	free(maps);
	return ret;
}

static void objects_free(struct hashtab *objects)
{
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(objects, s));)
		free((void *)(uintptr_t)s->v);
	hashtab_free(objects);
}

int lfr_ctx_locate(uint32_t pid, struct lfr_ctx_loc *l, char *why, size_t whylen)
{
	struct hashtab objects = {0};
	int ret = locate(&objects, pid, l, why, whylen);

	objects_free(&objects);
	return ret;
}

static void failed(struct lfr_ctx_finder *f, uint32_t pid, const char *why)
{
	pthread_mutex_lock(&f->w.lock);
	if (!f->st.failed++)
		snprintf(f->st.first_failure, sizeof(f->st.first_failure),
		         "pid %" PRIu32 ": %.960s", pid, why);
	pthread_mutex_unlock(&f->w.lock);
}

static void find(struct lfr_ctx_finder *f, uint32_t pid)
{
	struct lfr_ctx_loc l;
	struct lfr_error e;
	char why[1024];
	int ret, tries;

	/* an exec between reading the mappings and the kernel's check: look again, once */
	for (tries = 0; tries < 2; tries++) {
		ret = locate(&f->objects, pid, &l, why, sizeof(why));
		pthread_mutex_lock(&f->w.lock);
		f->st.looked++;
		pthread_mutex_unlock(&f->w.lock);
		if (ret < 0)
			failed(f, pid, why);
		if (ret <= 0)
			return;
		memset(&e, 0, sizeof(e));
		ret = f->add(f->arg, &l, &e);
		if (ret != -ESTALE)
			break;
	}
	if (!ret) {
		bool fresh = false;

		/* again after an exec or a library loaded later: one process still */
		hashtab_put(&f->registered, pid, 0, &fresh);
		pthread_mutex_lock(&f->w.lock);
		f->st.registered += fresh;
		pthread_mutex_unlock(&f->w.lock);
	} else if (ret != -ESRCH) { /* gone meanwhile: nothing to read */
		snprintf(why, sizeof(why), "%s", e.msg[0] ? e.msg : strerror(-ret));
		failed(f, pid, why);
	}
}

static bool finder_pending(void *arg)
{
	return ((struct lfr_ctx_finder *)arg)->nqueued;
}

static void *finder_take(void *arg)
{
	struct lfr_ctx_finder *f = arg;
	uint32_t pid = f->queue[f->head];

	f->head = (f->head + 1) % MAX_QUEUED;
	f->nqueued--;
	return (void *)(uintptr_t)pid;
}

static void finder_run(void *arg, void *item)
{
	find(arg, (uint32_t)(uintptr_t)item);
}

static const struct lfr_worker_ops finder_ops = {
    .pending = finder_pending,
    .take = finder_take,
    .run = finder_run,
};

int lfr_ctx_finder_new(struct lfr_ctx_finder **out, lfr_ctx_add_fn add, void *arg)
{
	struct lfr_ctx_finder *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f || !(f->queue = calloc(MAX_QUEUED, sizeof(*f->queue)))) {
		free(f);
		return -ENOMEM;
	}
	f->add = add;
	f->arg = arg;
	lfr_worker_init(&f->w, &finder_ops, f);
	*out = f;
	return 0;
}

void lfr_ctx_finder_queue(struct lfr_ctx_finder *f, uint32_t pid)
{
	pthread_mutex_lock(&f->w.lock);
	if (f->w.stopping) {
		pthread_mutex_unlock(&f->w.lock);
		return;
	}
	if (f->nqueued >= MAX_QUEUED) {
		f->st.dropped++;
	} else {
		f->queue[(f->head + f->nqueued) % MAX_QUEUED] = pid;
		f->nqueued++;
		lfr_worker_queued(&f->w);
	}
	pthread_mutex_unlock(&f->w.lock);
}

/*
 * A process ends (its main thread exits): it is forgotten, so that what the reading thread keeps
 * follows the processes that live, not every one the recording has met.  Its objects go with
 * the next pruning, once the table holds twice what survived the last one.
 */
static void forget(struct lfr_ctx_finder *f, uint32_t tgid)
{
	struct hashtab_slot *s = hashtab_get(&f->seen, tgid, 0);
	struct hashtab kept = {.trusted = f->seen_objects.trusted};
	bool fresh;

	if (!s)
		return;
	hashtab_del(&f->seen, s);
	hashtab_shrink_sparse(&f->seen);
	if (f->seen_objects.n < 2 * f->objects_kept || f->seen_objects.n < 1024)
		return;
	for (s = NULL; (s = hashtab_next(&f->seen_objects, s));) {
		if (hashtab_get(&f->seen, s->a, 0) && !hashtab_put(&kept, s->a, s->b, &fresh)) {
			hashtab_free(&kept);
			return; /* no memory: kept as it is */
		}
	}
	hashtab_free(&f->seen_objects);
	f->seen_objects = kept;
	f->objects_kept = kept.n;
}

void lfr_ctx_finder_record(struct lfr_ctx_finder *f, const struct lfr_rec_header *h)
{
	struct hashtab_slot *s;
	bool fresh = false;

	switch (h->type) {
	case LFR_REC_COMM: {
		const struct lfr_rec_comm *c = (const void *)h;

		if (h->size < sizeof(*c))
			return;
		s = hashtab_put(&f->seen, c->tgid, 0, &fresh);
		if (s && fresh)
			lfr_ctx_finder_queue(f, c->tgid);
		return;
	}
	case LFR_REC_TASK: {
		const struct lfr_rec_task *k = (const void *)h;

		if (h->size < sizeof(*k) || k->tid != k->tgid)
			return;
		if (k->kind == LFR_TASK_EXIT) {
			forget(f, k->tgid);
			return;
		}
		if (k->kind != LFR_TASK_EXEC)
			return;
		/* a new image: what its walks meet is new to it too */
		hashtab_put(&f->seen, k->tgid, 0, &fresh);
		lfr_ctx_finder_queue(f, k->tgid);
		return;
	}
	case LFR_REC_MMAP: {
		const struct lfr_rec_mmap *m = (const void *)h;

		if (h->size <= sizeof(*m) || (m->flags & LFR_MMAP_F_ANON) || !m->ino)
			return;
		s = hashtab_put(
		    &f->seen_objects, m->tgid,
		    m->ino ^ ((uint64_t)m->dev_major << 52 | (uint64_t)m->dev_minor << 32), &fresh);
		/* an object met the first time in this process: maybe loaded after its last look */
		if (s && fresh && hashtab_get(&f->seen, m->tgid, 0))
			lfr_ctx_finder_queue(f, m->tgid);
		return;
	}
	default:
		return;
	}
}

void lfr_ctx_finder_kept(const struct lfr_ctx_finder *f, size_t *processes, size_t *objects)
{
	*processes = f->seen.n;
	*objects = f->seen_objects.n;
}

int lfr_ctx_finder_start(struct lfr_ctx_finder *f, int nice)
{
	return lfr_worker_start(&f->w, nice);
}

void lfr_ctx_finder_stop(struct lfr_ctx_finder *f)
{
	lfr_worker_stop(&f->w);
	f->nqueued = 0;
}

void lfr_ctx_finder_get_stats(struct lfr_ctx_finder *f, struct lfr_ctx_finder_stats *st)
{
	lfr_worker_read(&f->w, st, &f->st, sizeof(*st));
}

void lfr_ctx_finder_free(struct lfr_ctx_finder *f)
{
	if (!f)
		return;
	lfr_ctx_finder_stop(f);
	objects_free(&f->objects);
	hashtab_free(&f->registered);
	hashtab_free(&f->seen);
	hashtab_free(&f->seen_objects);
	free(f->queue);
	lfr_worker_destroy(&f->w);
	free(f);
}

// SPDX-License-Identifier: GPL-2.0
/* Unwind tables for a session (unwind_loader.h): a queue, one thread, each object tried once. */
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
#include "lib/regular_file.h"
#include "lib/worker.h"
#include "record/program_objects.h"
#include "record/unwind_loader.h"

/* Objects waiting: beyond this, MMAP records are not queued (counted as dropped). */
#define MAX_QUEUED 4096

/* One object to load, as a mapping of process tgid showed it. */
struct item {
	struct item *next;
	uint32_t tgid; /* 0: no process to reopen it through */
	uint64_t start, end;
	dev_t dev;
	uint64_t ino;
	char path[];
};

struct lfr_unwind_loader {
	lfr_unwind_add_fn add;
	void *arg;
	struct hashtab queued; /* (dev, ino) queued or loaded: the queueing thread's */
	struct hashtab done;   /* (dev, ino) tried: the loading side's */

	struct lfr_blob_cache *cache; /* NULL: every table built */

	struct lfr_worker w; /* its lock: the queue, the flags below and the stats */
	struct item *head, *tail;
	size_t nqueued;
	bool adding; /* the thread is in the add function */
	bool gone;   /* the session is no longer running: nothing more to load */
	struct lfr_unwind_loader_stats st;
};

static void failed(struct lfr_unwind_loader *l, const char *path, const char *why)
{
	pthread_mutex_lock(&l->w.lock);
	if (!l->st.failed++)
		snprintf(l->st.first_failure, sizeof(l->st.first_failure), "%s: %s", path, why);
	pthread_mutex_unlock(&l->w.lock);
}

static bool stopped(struct lfr_unwind_loader *l)
{
	bool s;

	pthread_mutex_lock(&l->w.lock);
	s = l->st.unsupported || l->gone;
	pthread_mutex_unlock(&l->w.lock);
	return s;
}

/* Builds the table of the object open at fd and hands it over, once per (device, inode). */
static void load_fd(struct lfr_unwind_loader *l, int fd, const char *path)
{
	struct lfr_unwind_cache_result how;
	struct lfr_unwind_table t;
	struct lfr_error e;
	struct stat st;
	bool fresh = false;
	char why[512];
	int ret;

	if (fstat(fd, &st)) {
		failed(l, path, strerror(errno));
		return;
	}
	if (!hashtab_put(&l->done, st.st_dev, st.st_ino, &fresh) || !fresh || stopped(l))
		return;
	ret = lfr_unwind_cache_get(l->cache, fd, &t, &how, why, sizeof(why));
	pthread_mutex_lock(&l->w.lock);
	l->st.stored += how.how == LFR_UNWIND_CACHE_STORED;
	if (how.problem[0] && !l->st.cache_problems++)
		snprintf(l->st.first_cache_problem, sizeof(l->st.first_cache_problem), "%s",
		         how.problem);
	pthread_mutex_unlock(&l->w.lock);
	if (ret) {
		failed(l, path, why);
		return;
	}
	memset(&e, 0, sizeof(e));
	pthread_mutex_lock(&l->w.lock);
	if (l->w.stopping) {
		/* lfr_unwind_loader_quiesce(): the add function is not to be called any more */
		pthread_mutex_unlock(&l->w.lock);
		lfr_unwind_table_free(&t);
		return;
	}
	l->adding = true;
	pthread_mutex_unlock(&l->w.lock);
	ret = l->add(l->arg, fd, &t, &e);
	pthread_mutex_lock(&l->w.lock);
	l->adding = false;
	pthread_cond_broadcast(&l->w.idle);
	switch (ret) {
	case 0:
		l->st.tables++;
		l->st.cached += how.how == LFR_UNWIND_CACHE_HIT;
		l->st.bytes += lfr_unwind_table_bytes(&t);
		break;
	case -EEXIST:
		l->st.present++;
		break;
	case -EOPNOTSUPP:
		l->st.unsupported = true;
		snprintf(l->st.unsupported_why, sizeof(l->st.unsupported_why), "%s",
		         e.msg[0] ? e.msg : strerror(-ret));
		break;
	case -ESRCH:
	case -ENOENT:
		l->gone = true; /* stopped from elsewhere: no walk will use a table */
		break;
	default:
		pthread_mutex_unlock(&l->w.lock);
		snprintf(why, sizeof(why), "%s", e.msg[0] ? e.msg : strerror(-ret));
		failed(l, path, why);
		pthread_mutex_lock(&l->w.lock);
		break;
	}
	pthread_mutex_unlock(&l->w.lock);
	lfr_unwind_table_free(&t);
}

/*
 * Opens the file of a mapping: by its path when that is still the same file (device and inode),
 * else through the process's map_files link (a file deleted or replaced since, or a path from
 * another mount namespace).  The inode alone decides when the devices differ in name only (a
 * btrfs subvolume's stat device is not its mapping's).
 */
static int open_item(const struct item *it)
{
	char mf[96];
	struct stat st;
	/* the path the kernel named: it may be another file by now, a FIFO or a device */
	int fd = lfr_open_regular(it->path, O_RDONLY, &st), ino_fd = -1;

	if (fd >= 0 && st.st_ino == it->ino) {
		if (st.st_dev == it->dev)
			return fd;
		ino_fd = fd;
	} else if (fd >= 0) {
		close(fd);
	}
	if (it->tgid) {
		snprintf(mf, sizeof(mf), "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
		         it->tgid, it->start, it->end);
		fd = lfr_open_regular(mf, O_RDONLY, &st);
		if (fd >= 0 && st.st_ino == it->ino) {
			if (ino_fd >= 0)
				close(ino_fd);
			return fd;
		}
		if (fd >= 0)
			close(fd);
	}
	return ino_fd;
}

static void load_item(struct lfr_unwind_loader *l, const struct item *it)
{
	int fd = open_item(it);

	if (fd < 0) {
		failed(l, it->path, "the file is gone or changed since it was mapped");
		return;
	}
	load_fd(l, fd, it->path);
	close(fd);
}

static bool loader_pending(void *arg)
{
	return ((struct lfr_unwind_loader *)arg)->head;
}

static void *loader_take(void *arg)
{
	struct lfr_unwind_loader *l = arg;
	struct item *it = l->head;

	l->head = it->next;
	if (!l->head)
		l->tail = NULL;
	l->nqueued--;
	return it;
}

static void loader_run(void *arg, void *item)
{
	load_item(arg, item);
	free(item);
}

static const struct lfr_worker_ops loader_ops = {
    .pending = loader_pending,
    .take = loader_take,
    .run = loader_run,
};

/*
 * The recorder's own executable is never queued: lfr is built with frame pointers (user/Makefile),
 * which walk its stacks; the recorder samples itself with the rest of the machine, so its table
 * was built at every start of a system-wide recording (Documentation/benchmarks.md).
 */
static void skip_own_executable(struct lfr_unwind_loader *l)
{
	struct stat st;
	bool fresh;

	if (!stat("/proc/self/exe", &st))
		hashtab_put(&l->queued, st.st_dev, st.st_ino, &fresh);
}

int lfr_unwind_loader_new(struct lfr_unwind_loader **out, lfr_unwind_add_fn add, void *arg)
{
	struct lfr_unwind_loader *l = calloc(1, sizeof(*l));

	*out = NULL;
	if (!l)
		return -ENOMEM;
	l->add = add;
	l->arg = arg;
	/* (device, inode) pairs the kernel gave */
	hashtab_init_trusted(&l->queued, false);
	hashtab_init_trusted(&l->done, false);
	skip_own_executable(l);
	lfr_worker_init(&l->w, &loader_ops, l);
	*out = l;
	return 0;
}

/* Queues one object unless it was queued before. */
static int queue(struct lfr_unwind_loader *l, uint32_t tgid, uint64_t start, uint64_t end,
                 dev_t dev, uint64_t ino, const char *path, size_t pathlen)
{
	struct item *it;
	bool fresh = false;

	if (!hashtab_put(&l->queued, dev, ino, &fresh))
		return -ENOMEM;
	if (!fresh)
		return 0;
	it = malloc(sizeof(*it) + pathlen + 1);
	if (!it)
		return -ENOMEM;
	*it = (struct item){.tgid = tgid, .start = start, .end = end, .dev = dev, .ino = ino};
	memcpy(it->path, path, pathlen);
	it->path[pathlen] = '\0';
	pthread_mutex_lock(&l->w.lock);
	if (l->nqueued >= MAX_QUEUED || l->w.stopping || l->st.unsupported || l->gone) {
		l->st.dropped += l->nqueued >= MAX_QUEUED;
		pthread_mutex_unlock(&l->w.lock);
		free(it);
		return 0;
	}
	if (l->tail)
		l->tail->next = it;
	else
		l->head = it;
	l->tail = it;
	l->nqueued++;
	lfr_worker_queued(&l->w);
	pthread_mutex_unlock(&l->w.lock);
	return 1;
}

void lfr_unwind_loader_queue_mmap(struct lfr_unwind_loader *l, const struct lfr_rec_mmap *m)
{
	size_t max;

	if (m->hdr.size <= sizeof(*m) || !(m->flags & LFR_MMAP_F_EXEC) ||
	    (m->flags & LFR_MMAP_F_ANON) || !m->ino)
		return;
	max = m->hdr.size - sizeof(*m);
	if (m->path[0] != '/')
		return; /* [vdso] and the like: no file */
	queue(l, m->tgid, m->start, m->end, makedev(m->dev_major, m->dev_minor), m->ino, m->path,
	      strnlen(m->path, max));
}

int lfr_unwind_loader_queue_process(struct lfr_unwind_loader *l, uint32_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct lfr_maps_line m;

		if (!lfr_maps_line_parse(line, &m) || !strchr(m.perms, 'x') || !m.ino ||
		    m.path[0] != '/')
			continue;
		if (queue(l, pid, m.start, m.end, makedev(m.maj, m.min), m.ino, m.path,
		          m.path_len) > 0)
			n++;
	}
	free(line);
	fclose(f);
	return n;
}

struct program_load {
	struct lfr_unwind_loader *l;
	int n;
};

void lfr_unwind_loader_load_object(struct lfr_unwind_loader *l, const char *path)
{
	struct stat st;
	int fd = lfr_open_regular(path, O_RDONLY, &st);
	bool fresh;

	if (fd < 0) {
		failed(l, path, fd == -ENODEV ? "not a regular file" : strerror(-fd));
		return;
	}
	/* the MMAP records of these objects need not queue them again; one loaded is not again */
	if (!hashtab_put(&l->queued, st.st_dev, st.st_ino, &fresh) || fresh)
		load_fd(l, fd, path);
	close(fd);
}

static void load_program_object(const char *path, void *arg)
{
	struct program_load *p = arg;

	lfr_unwind_loader_load_object(p->l, path);
	p->n++;
}

int lfr_unwind_loader_load_program(struct lfr_unwind_loader *l, const char *cmd, char *err,
                                   size_t errlen)
{
	struct program_load p = {l, 0};

	if (lfr_program_objects(cmd, load_program_object, &p, err, errlen) < 0)
		return -1;
	return p.n;
}

void lfr_unwind_loader_set_cache(struct lfr_unwind_loader *l, struct lfr_blob_cache *c)
{
	l->cache = c;
}

int lfr_unwind_loader_start(struct lfr_unwind_loader *l, int nice)
{
	int err = lfr_worker_start(&l->w, nice);

	/* its own name in top -H and /proc: its work is per new object, not per sample */
	if (!err)
		pthread_setname_np(l->w.thread, "lfr-unwind");
	return err;
}

void lfr_unwind_loader_flush(struct lfr_unwind_loader *l)
{
	lfr_worker_flush(&l->w);
}

void lfr_unwind_loader_quiesce(struct lfr_unwind_loader *l)
{
	pthread_mutex_lock(&l->w.lock);
	l->w.stopping = true;
	pthread_cond_broadcast(&l->w.wake);
	while (l->adding)
		pthread_cond_wait(&l->w.idle, &l->w.lock);
	pthread_mutex_unlock(&l->w.lock);
}

void lfr_unwind_loader_stop(struct lfr_unwind_loader *l)
{
	struct item *it;

	lfr_worker_stop(&l->w);
	while ((it = l->head)) {
		l->head = it->next;
		free(it);
	}
	l->tail = NULL;
	l->nqueued = 0;
}

void lfr_unwind_loader_get_stats(struct lfr_unwind_loader *l, struct lfr_unwind_loader_stats *st)
{
	lfr_worker_read(&l->w, st, &l->st, sizeof(*st));
}

void lfr_unwind_loader_free(struct lfr_unwind_loader *l)
{
	if (!l)
		return;
	lfr_unwind_loader_stop(l);
	hashtab_free(&l->queued);
	hashtab_free(&l->done);
	lfr_worker_destroy(&l->w);
	free(l);
}

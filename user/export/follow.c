// SPDX-License-Identifier: GPL-2.0
/* Exports following a recording's repository, a thread per target; see follow.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "export/follow.h"
#include "export/ledger.h"

#define EXPORT_NICE 10

struct pending {
	char name[LFR_JFR_REPO_NAME_MAX];
	uint64_t bytes;
};

struct exporter {
	struct lfr_follow *f;
	struct lfr_export_target t;
	struct lfr_sender *s;
	struct lfr_export_state st;  /* the thread's own */
	struct lfr_export_state pub; /* published (under the lock) for lfr_follow_state() */
	struct pending *pend;        /* the chunks that wait, oldest first */
	size_t npend, pend_cap;
	struct pending *evicted; /* removed by the writer, not yet counted (under the lock) */
	size_t nevicted, evicted_cap;
	struct lfr_export_ledger ledger; /* which removed chunks were lost */
	uint64_t rng;
	unsigned attempt; /* failures in a row */
	pthread_t thread;
	bool started;
	const char *partial_of; /* progress(): the chunk being sent */
};

struct lfr_follow {
	char *dir;
	int dirfd;
	struct lfr_follow_opts o;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool ended, stopping;
	uint64_t finished; /* chunk files the writer finished (the last one: the recording ended) */
	uint64_t deadline; /* when stopping: CLOCK_MONOTONIC ns to give up draining at */
	struct exporter *e;
	size_t n;
};

static int64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The state as lfr status reads it: written (synced when the position moved) and published. */
static void save(struct exporter *e, bool sync)
{
	char why[256];

	e->st.written = real_ns();
	e->st.pid = (uint32_t)getpid();
	if (lfr_export_state_save(e->f->dirfd, &e->t, &e->st, sync, why, sizeof(why)))
		snprintf(e->st.error, sizeof(e->st.error), "%s", why);
	pthread_mutex_lock(&e->f->lock);
	e->pub = e->st;
	pthread_mutex_unlock(&e->f->lock);
}

static void set_error(struct exporter *e, const char *why)
{
	snprintf(e->st.error, sizeof(e->st.error), "%s", why);
	for (char *p = e->st.error; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	e->st.last_error = real_ns();
}

static void lose(struct exporter *e, enum lfr_export_loss why, uint64_t bytes)
{
	e->st.lost_chunks[why]++;
	e->st.lost_bytes[why] += bytes;
}

/*
 * Waits ns, or less when the follow stops meanwhile; with seen, also until the writer finishes a
 * chunk file after the seen'th (nothing is due before then: no listing while idle).
 */
static void wait_ns(struct lfr_follow *f, uint64_t ns, const uint64_t *seen)
{
	uint64_t until = lfr_mono_ns() + ns;
	struct timespec ts = {(time_t)(until / 1000000000ull), (long)(until % 1000000000ull)};

	pthread_mutex_lock(&f->lock);
	while (!f->stopping && !(seen && f->finished != *seen))
		if (pthread_cond_timedwait(&f->cond, &f->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&f->lock);
}

/* A wait that doubles with each failure in a row, between half of it and all of it. */
static uint64_t backoff(struct exporter *e)
{
	uint64_t lo = e->f->o.backoff_min_ns, hi = e->f->o.backoff_max_ns, d = lo;

	for (unsigned i = 0; i < e->attempt && d < hi; i++)
		d *= 2;
	d = d < hi ? d : hi;
	e->rng ^= e->rng << 13;
	e->rng ^= e->rng >> 7;
	e->rng ^= e->rng << 17;
	return d / 2 + e->rng % (d / 2 + 1);
}

/* The evictions the writer told of: those of chunks not delivered are lost. */
static void count_evicted(struct exporter *e)
{
	struct pending *v;
	size_t n;

	pthread_mutex_lock(&e->f->lock);
	v = e->evicted;
	n = e->nevicted;
	e->evicted = NULL;
	e->nevicted = e->evicted_cap = 0;
	pthread_mutex_unlock(&e->f->lock);
	for (size_t i = 0; i < n; i++)
		if (lfr_ledger_removed(&e->ledger, v[i].name)) {
			lose(e, LFR_LOSS_EVICTED, v[i].bytes);
			if (!strcmp(v[i].name, e->st.partial)) {
				e->st.partial[0] = 0;
				e->st.parts = 0;
			}
		}
	free(v);
}

/* Whether the writer told of name's eviction and it waits to be counted. */
static bool eviction_told(struct exporter *e, const char *name)
{
	bool told = false;

	pthread_mutex_lock(&e->f->lock);
	for (size_t i = 0; i < e->nevicted && !told; i++)
		told = !strcmp(e->evicted[i].name, name);
	pthread_mutex_unlock(&e->f->lock);
	return told;
}

static int cmp_pending(const void *a, const void *b)
{
	return strcmp(((const struct pending *)a)->name, ((const struct pending *)b)->name);
}

/*
 * The chunk files after the last delivered, oldest first; while the recording goes on, not the
 * newest of all (it is being written).  0, or a negative errno.
 */
static int scan(struct exporter *e, bool ended)
{
	int fd = openat(e->f->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char newest[LFR_JFR_REPO_NAME_MAX] = "";
	struct dirent *de;
	struct stat sb;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	e->npend = 0;
	while ((de = readdir(d))) {
		if (!lfr_jfr_repo_is_chunk_name(de->d_name))
			continue;
		if (strcmp(de->d_name, newest) > 0)
			snprintf(newest, sizeof(newest), "%.47s", de->d_name);
		if (strcmp(de->d_name, e->st.done) <= 0)
			continue;
		if (e->npend == e->pend_cap) {
			size_t cap = e->pend_cap ? 2 * e->pend_cap : 64;
			struct pending *v = realloc(e->pend, cap * sizeof(*v));

			if (!v) {
				closedir(d);
				return -ENOMEM;
			}
			e->pend = v;
			e->pend_cap = cap;
		}
		struct pending *p = &e->pend[e->npend++];

		snprintf(p->name, sizeof(p->name), "%.47s", de->d_name);
		p->bytes =
		    fstatat(dirfd(d), p->name, &sb, AT_SYMLINK_NOFOLLOW) ? 0 : (uint64_t)sb.st_size;
	}
	closedir(d);
	qsort(e->pend, e->npend, sizeof(*e->pend), cmp_pending);
	if (!ended && e->npend && !strcmp(e->pend[e->npend - 1].name, newest))
		e->npend--;
	e->st.pending_chunks = e->npend;
	e->st.pending_bytes = 0;
	for (size_t i = 0; i < e->npend; i++)
		e->st.pending_bytes += e->pend[i].bytes;
	return 0;
}

/* lfr_sender_chunk()'s: the parts delivered so far of a chunk of several, kept on disk. */
static void progress(void *arg, unsigned done, unsigned total)
{
	struct exporter *e = arg;

	if (done == total)
		return; /* the chunk's delivery is saved next */
	snprintf(e->st.partial, sizeof(e->st.partial), "%s", e->partial_of);
	e->st.parts = done;
	save(e, true);
}

/* The chunk head is delivered (or lost): the position moves past it. */
static void advance(struct exporter *e, const char *head)
{
	snprintf(e->st.done, sizeof(e->st.done), "%s", head);
	lfr_ledger_delivered(&e->ledger, head);
	e->st.partial[0] = 0;
	e->st.parts = 0;
	e->attempt = 0;
	save(e, true);
}

/* Sends the oldest waiting chunk: 0 when the position moved, 1 when it must wait. */
static int send_head(struct exporter *e)
{
	const struct pending *head = &e->pend[0];
	struct lfr_send_report rep;
	uint8_t *data;
	uint64_t len;
	unsigned parts;
	char why[512];
	/* not walked: the sender reads every event and takes one that does not parse as damage */
	int rc = lfr_jfr_repo_read(e->f->dirfd, head->name, &data, &len, why, sizeof(why));

	if (rc == 1) { /* gone: evicted (counted once, here or when the writer tells) */
		if (!eviction_told(e, head->name)) {
			lose(e, LFR_LOSS_EVICTED, head->bytes);
			lfr_ledger_found_gone(&e->ledger, head->name);
		}
		return 0;
	}
	if (rc == 2) {
		lose(e, LFR_LOSS_DAMAGED, head->bytes);
		set_error(e, why);
		advance(e, head->name);
		return 0;
	}
	if (rc < 0) {
		set_error(e, why);
		return 1;
	}
	parts = !strcmp(e->st.partial, head->name) ? e->st.parts : 0;
	e->partial_of = head->name;
	rc = lfr_sender_chunk(e->s, data, len, head->name, &parts, progress, e, &rep);
	free(data);
	switch (rc) {
	case LFR_SEND_DONE:
		e->st.sent_chunks++;
		e->st.sent_bytes += rep.bytes;
		e->st.sent_samples += rep.samples;
		e->st.last_ok = real_ns();
		if (rep.refused) {
			lose(e, LFR_LOSS_REFUSED, head->bytes);
			set_error(e, rep.why);
		}
		advance(e, head->name);
		return 0;
	case LFR_SEND_DAMAGED:
		lose(e, LFR_LOSS_DAMAGED, head->bytes);
		set_error(e, rep.why);
		advance(e, head->name);
		return 0;
	default:
		e->st.retries++;
		set_error(e, rep.why);
		save(e, false);
		return 1;
	}
}

static void *run(void *arg)
{
	struct exporter *e = arg;
	struct lfr_follow *f = e->f;

	/* behind the recording's own threads on a busy machine: what waits is in the spool */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), EXPORT_NICE);

	for (bool draining = false;;) {
		bool stop, ended;
		uint64_t deadline, finished;

		pthread_mutex_lock(&f->lock);
		stop = f->stopping;
		ended = f->ended;
		finished = f->finished;
		deadline = f->deadline;
		pthread_mutex_unlock(&f->lock);
		/* the recording has ended: what waits is all there is left to do (where allowed) */
		if (stop && !draining) {
			draining = true;
			setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 0);
		}
		count_evicted(e);
		if (stop && lfr_mono_ns() >= deadline)
			break;
		uint64_t before = e->st.pending_chunks;

		if (scan(e, ended)) {
			set_error(e, "cannot list the repository");
			save(e, false);
			if (stop)
				break;
			wait_ns(f, backoff(e), NULL);
			continue;
		}
		if (!e->npend) {
			if (before)
				save(e, false);
			if (stop)
				break;
			wait_ns(f, f->o.poll_ns, &finished);
			continue;
		}
		if (send_head(e)) {
			if (stop)
				break; /* draining: one try each */
			e->attempt++;
			wait_ns(f, backoff(e), NULL);
		}
	}
	save(e, true);
	return NULL;
}

void lfr_follow_evicted(void *arg, const char *name, uint64_t bytes)
{
	struct lfr_follow *f = arg;

	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < f->n; i++) {
		struct exporter *e = &f->e[i];

		if (e->nevicted == e->evicted_cap) {
			size_t cap = e->evicted_cap ? 2 * e->evicted_cap : 16;
			struct pending *v = realloc(e->evicted, cap * sizeof(*v));

			if (!v)
				continue; /* found gone when read, and counted then */
			e->evicted = v;
			e->evicted_cap = cap;
		}
		snprintf(e->evicted[e->nevicted].name, sizeof(e->evicted->name), "%s", name);
		e->evicted[e->nevicted++].bytes = bytes;
	}
	pthread_mutex_unlock(&f->lock);
}

/* A target's sender and state, before its thread starts: 0, or -1 with why. */
static int prepare(struct lfr_follow *f, struct exporter *e, const struct lfr_export_target *t,
                   char *why, size_t whylen)
{
	char w[512];

	e->f = f;
	e->t = *t;
	if (getrandom(&e->rng, sizeof(e->rng), GRND_NONBLOCK) != sizeof(e->rng) || !e->rng)
		e->rng = lfr_mono_ns() ^ (uint64_t)getpid() << 32 ^ t->id;
	if (lfr_sender_new(&e->s, t, &f->o.send, why, whylen))
		return -1;
	if (lfr_export_state_load(f->dirfd, t, &e->st, w, sizeof(w))) {
		snprintf(why, whylen, "%s: %s", f->dir, w);
		return -1;
	}
	e->pub = e->st;
	lfr_ledger_init(&e->ledger, e->st.done);
	return 0;
}

int lfr_follow_start(struct lfr_follow **out, const char *dir, const struct lfr_export_target *t,
                     size_t n, const struct lfr_follow_opts *o, char *why, size_t whylen)
{
	struct lfr_follow *f = calloc(1, sizeof(*f));
	pthread_condattr_t ca;

	*out = NULL;
	if (!f || !(f->dir = strdup(dir)) || !(f->e = calloc(n ? n : 1, sizeof(*f->e)))) {
		lfr_follow_free(f);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	f->n = n;
	f->o = *o;
	if (!f->o.backoff_min_ns)
		f->o.backoff_min_ns = LFR_FOLLOW_BACKOFF_MIN_NS;
	if (!f->o.backoff_max_ns)
		f->o.backoff_max_ns = LFR_FOLLOW_BACKOFF_MAX_NS;
	if (!f->o.poll_ns)
		f->o.poll_ns = LFR_FOLLOW_POLL_NS;
	pthread_mutex_init(&f->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cond, &ca);
	pthread_condattr_destroy(&ca);
	f->dirfd = lfr_jfr_repo_open_trusted(dir, false, why, whylen);
	for (size_t i = 0; f->dirfd >= 0 && i < n; i++)
		if (prepare(f, &f->e[i], &t[i], why, whylen)) {
			lfr_follow_free(f);
			return -1;
		}
	if (f->dirfd < 0) {
		lfr_follow_free(f);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (pthread_create(&f->e[i].thread, NULL, run, &f->e[i])) {
			snprintf(why, whylen, "cannot start the export's thread");
			lfr_follow_stop(f, 0);
			lfr_follow_free(f);
			return -1;
		}
		f->e[i].started = true;
		/* for top, ps and the benchmarks: which thread exports where */
		pthread_setname_np(f->e[i].thread, t[i].kind == LFR_EXPORT_OTLP
		                                       ? "lfr-export-otlp"
		                                       : "lfr-export-pyro");
	}
	*out = f;
	return 0;
}

void lfr_follow_chunk_finished(void *arg)
{
	struct lfr_follow *f = arg;

	pthread_mutex_lock(&f->lock);
	f->finished++;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

void lfr_follow_recording_ended(struct lfr_follow *f)
{
	pthread_mutex_lock(&f->lock);
	f->ended = true;
	f->finished++;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

void lfr_follow_stop(struct lfr_follow *f, uint64_t drain_ns)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stopping = true;
	f->deadline = lfr_mono_ns() + drain_ns;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	for (size_t i = 0; i < f->n; i++)
		if (f->e[i].started) {
			pthread_join(f->e[i].thread, NULL);
			f->e[i].started = false;
		}
}

void lfr_follow_free(struct lfr_follow *f)
{
	if (!f)
		return;
	lfr_follow_stop(f, 0);
	for (size_t i = 0; f->e && i < f->n; i++) {
		lfr_sender_free(f->e[i].s);
		free(f->e[i].pend);
		free(f->e[i].evicted);
	}
	if (f->dirfd > 0)
		close(f->dirfd);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free(f->e);
	free(f->dir);
	free(f);
}

size_t lfr_follow_count(const struct lfr_follow *f)
{
	return f ? f->n : 0;
}

void lfr_follow_state(struct lfr_follow *f, size_t i, struct lfr_export_state *st)
{
	pthread_mutex_lock(&f->lock);
	*st = f->e[i].pub;
	pthread_mutex_unlock(&f->lock);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Naming behind the reading (lfr_recorder_behind()): the naming thread and its scheduling, the
 * reading side's hand-over of its batches, the batches and caches mapped before the recording,
 * and the figures the naming thread leaves for the caller.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "record/recorder_internal.h"

/*
 * Naming behind the reading (lfr_recorder_behind()): the thread that reads the rings only copies
 * records into r->in and hands the batch over; a thread of its own, at the lowest priority,
 * applies the handed-over batches and flushes the file.
 */
struct behind {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;          /* work handed over, work taken, or the end */
	struct batch *queue, **tail;  /* handed over, not taken yet: oldest first */
	struct batch *spare;          /* applied, their buffers kept for the next hand-overs */
	size_t queued, max_queued;    /* bytes queued; past max_queued, the hand-over waits */
	bool end;                     /* no more hand-overs */
	bool idle;                    /* the naming thread waits for a hand-over */
	int nice;                     /* the naming thread's */
	bool idle_ok, idle_now;       /* SCHED_IDLE allowed while little is queued; and in force */
	pid_t tid;                    /* the naming thread's, for setpriority() */
	int late_nice, nice_now;      /* the caller's nice: the naming thread's while late */
	bool late;                    /* nothing flushed yet, or work waiting LATE_NS for a flush */
	uint64_t unflushed_since;     /* CLOCK_MONOTONIC ns: the oldest work handed over and not
	                               * flushed yet (0: none) */
	int err;                      /* first error of the naming thread */
	struct lfr_recorder_stats st; /* after the last batch applied */
	struct lfr_jfr_stats js;
};

void free_batches(struct batch *q)
{
	for (struct batch *next; q; q = next) {
		next = q->next;
		batch_free(q);
		free(q);
	}
}

/* How long handed-over work may wait for a flush before naming is made to keep up. */
#define LATE_NS 1000000000ull

/*
 * The naming thread's scheduling, set with b->lock held by either thread (self: the naming thread's
 * handle as the caller knows it).  SCHED_IDLE, where allowed, while the recording runs and less
 * than half the allowed lag is queued (naming then takes only CPU time no other thread wants);
 * otherwise SCHED_OTHER at its nice value: at the end, and when the queue nears its limit, naming
 * must keep up.  While it is late (nothing flushed yet: the file is not at its path; or work
 * handed over a second ago still waits for a flush: a starved thread cannot change its own
 * priority, nor even wake up to take the work, so the reading side does it), it runs SCHED_OTHER
 * at the caller's nice until it has caught up, so that the file on disk stays about a second
 * behind however busy the machine is.  Raising a thread's priority again needs CAP_SYS_NICE (or
 * RLIMIT_NICE): without it, a starved thread stays behind.
 */
static void naming_policy(struct behind *b, pthread_t self, bool idle)
{
	struct sched_param sp = {0};
	int nice = b->late ? b->late_nice : b->nice;

	idle = idle && !b->late;
	if (idle != b->idle_now &&
	    !pthread_setschedparam(self, idle ? SCHED_IDLE : SCHED_OTHER, &sp))
		b->idle_now = idle;
	if (nice != b->nice_now && b->tid && !setpriority(PRIO_PROCESS, (id_t)b->tid, nice))
		b->nice_now = nice;
}

/* The naming thread has flushed: it is no longer late once nothing waits for it. */
static void flushed(struct behind *b)
{
	b->unflushed_since = b->queue ? lfr_mono_ns() : 0;
	if (!b->queue)
		b->late = false;
}

static void *naming_thread(void *arg)
{
	struct lfr_recorder *r = arg;
	struct behind *b = r->behind;
	int err = 0;

	/*
	 * behind the recording, by default never ahead of the recorded threads (nice 19), once the
	 * first flush has put the file at its path: until then, the caller's priority (late)
	 */
	pthread_setname_np(pthread_self(), "lfr-naming");
	pthread_mutex_lock(&b->lock);
	b->tid = (pid_t)syscall(SYS_gettid);
	for (;;) {
		struct batch *list, *next;
		size_t taken = 0;
		bool idle, flush;

		while (!b->queue && !b->end) {
			b->idle = true;
			pthread_cond_wait(&b->cond, &b->lock);
		}
		b->idle = false;
		if (!b->queue)
			break;
		list = b->queue;
		b->queue = NULL;
		b->tail = &b->queue;
		pthread_mutex_unlock(&b->lock);
		for (struct batch *q = list; q; q = q->next) {
			/* per batch: a long list taken idle must not finish idle after the end */
			pthread_mutex_lock(&b->lock);
			idle = b->idle_ok && !b->end && b->queued - taken < b->max_queued / 2;
			naming_policy(b, pthread_self(), idle);
			pthread_mutex_unlock(&b->lock);
			taken += q->len;
			batch_swap(q, &r->cur);
			if (!err)
				err = process_cur(r, false);
			/* after an error: keep taking, the reading never waits */
			batch_reset(&r->cur);
			batch_swap(q, &r->cur);
			/* a long list is flushed on the way, about once a second */
			pthread_mutex_lock(&b->lock);
			flush = q->next && lfr_mono_ns() - b->unflushed_since >= LATE_NS;
			pthread_mutex_unlock(&b->lock);
			if (!err && flush) {
				err = lfr_jfr_flush(r->w);
				pthread_mutex_lock(&b->lock);
				b->unflushed_since =
				    lfr_mono_ns(); /* the rest of the list: from now */
				pthread_mutex_unlock(&b->lock);
			}
		}
		if (!err)
			err = lfr_jfr_flush(r->w);
		pthread_mutex_lock(&b->lock);
		flushed(b);
		b->queued -= taken;
		for (struct batch *q = list; q; q = next) {
			next = q->next;
			q->next = b->spare;
			b->spare = q;
		}
		if (!b->err)
			b->err = err;
		r->st.stack_cache_entries = r->raw.used + r->stacks_used;
		b->st = r->st;
		lfr_jfr_get_stats(r->w, &b->js);
		pthread_cond_broadcast(&b->cond);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* Methods of a recording's first seconds, whose table's pages are written beforehand. */
#define PREPARED_METHODS (1u << 12)

int lfr_recorder_prepare(struct lfr_recorder *r, size_t bytes)
{
	if (!r->in.mapped && batch_map(&r->in, BATCH_BLOCK))
		return -ENOMEM;
	/*
	 * The caches' first pages, and all of the tables probed anywhere: naming the first stacks
	 * of a recording, most of its distinct ones, takes no fresh pages either.
	 */
	if (raw_stacks_prepare(&r->raw) || (!r->stacks && stacks_alloc(r)) ||
	    hashtab_prepare(&r->stack_index, PREPARED_STACKS) ||
	    hashtab_prepare(&r->methods, PREPARED_METHODS))
		return -ENOMEM;
	if (!r->stacks_used) { /* (what is in use is written already) */
		memset(r->stacks, 0, PREPARED_STACKS * sizeof(*r->stacks));
		memset(r->stack_ips, 0, PREPARED_STACK_IPS * sizeof(*r->stack_ips));
	}
	/* the memo at its largest, written (it forgets nothing but hits) */
	if (r->memo &&
	    (r->memo_bits == FRAME_MEMO_BITS || !frame_memo_resize(r, FRAME_MEMO_BITS))) {
		memset(r->memo, 0, FRAME_MEMO * sizeof(*r->memo));
		r->memo_used = 0;
	}
	for (size_t n = 0; n < bytes; n += BATCH_BLOCK) {
		struct batch *q = calloc(1, sizeof(*q));

		if (!q || batch_map(q, BATCH_BLOCK)) {
			free(q);
			return -ENOMEM;
		}
		q->next = r->prepared;
		r->prepared = q;
	}
	return 0;
}

int lfr_recorder_behind(struct lfr_recorder *r, size_t max_queued, int nice, bool idle)
{
	struct behind *b = calloc(1, sizeof(*b));
	pthread_condattr_t ca;
	int err;

	if (!b)
		return -ENOMEM;
	/* the reading side's first batch, before any record: its pages are there when they come */
	if (!r->in.mapped && batch_map(&r->in, BATCH_BLOCK)) {
		free(b);
		return -ENOMEM;
	}
	b->spare = r->prepared;
	r->prepared = NULL;
	b->max_queued = max_queued;
	b->nice = nice;
	b->idle_ok = idle;
	errno = 0;
	b->late_nice = getpriority(PRIO_PROCESS, 0); /* the caller's: the new thread's at first */
	if (errno)
		b->late_nice = 0;
	b->nice_now = b->late_nice;
	b->late = true;
	b->tail = &b->queue;
	pthread_mutex_init(&b->lock, NULL);
	/* the hand-over times its waits by CLOCK_MONOTONIC: a wall clock step stretches none */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	b->st = r->st;
	lfr_jfr_get_stats(r->w, &b->js);
	r->behind = b;
	if ((err = pthread_create(&b->thread, NULL, naming_thread, r))) {
		r->prepared = b->spare;
		r->behind = NULL;
		pthread_cond_destroy(&b->cond);
		pthread_mutex_destroy(&b->lock);
		free(b);
		return -err;
	}
	return 0;
}

/* How often a hand-over that waits for the naming thread looks at the stop flag. */
#define STOP_SLICE_NS 50000000L

static bool stop_asked(const struct lfr_recorder *r)
{
	return r->stop && *r->stop;
}

void lfr_recorder_stop_flag(struct lfr_recorder *r, const volatile sig_atomic_t *stop)
{
	r->stop = stop;
}

/*
 * The reading side's batch goes to the naming thread, and it takes a spare one (with its buffer:
 * no allocation, no page faults) for what comes next, or maps a new one; with END, the last
 * hand-over.
 */
int hand_over(struct lfr_recorder *r, bool end)
{
	struct behind *b = r->behind;
	struct batch *q = NULL;
	int err;

	pthread_mutex_lock(&b->lock);
	/*
	 * bounded lag: past the limit, reading waits (the module counts what its rings lose), in
	 * slices, so that a stop asked for meanwhile (a signal) ends the wait within one: from then
	 * on the batch is queued whatever the limit (what is read after the stop is bounded by the
	 * rings' size)
	 */
	while (b->queue && b->queued + r->in.len > b->max_queued && !stop_asked(r)) {
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += STOP_SLICE_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&b->cond, &b->lock, &until);
	}
	if (r->in.len) {
		q = b->spare;
		if (q) {
			b->spare = q->next;
		} else if ((q = calloc(1, sizeof(*q))) && batch_map(q, r->in.cap)) {
			/* as large as the batch it replaces: no growing while records come */
			free(q);
			q = NULL;
		}
	}
	if (q) {
		batch_swap(q, &r->in);
		q->next = NULL;
		*b->tail = q;
		b->tail = &q->next;
		b->queued += q->len;
		if (!b->unflushed_since)
			b->unflushed_since = lfr_mono_ns();
	}
	b->end = end;
	pthread_cond_broadcast(&b->cond);
	err = b->err;
	if (!err && r->in.len)
		err = -ENOMEM; /* no batch for the hand-over: keep it for the next one */
	pthread_mutex_unlock(&b->lock);
	return err;
}

/* The last hand-over: waits until the naming thread has applied everything, and ends it. */
int stop_behind(struct lfr_recorder *r)
{
	struct behind *b = r->behind;
	int err;

	if (!b)
		return 0;
	err = hand_over(r, true);
	pthread_join(b->thread, NULL);
	err = err ?: b->err;
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
	free_batches(b->spare);
	free(b);
	r->behind = NULL;
	return err;
}

/*
 * Whether the reading side hands its batch over now: when the naming thread waits for one.
 * While it is busy (behind the recorded threads, at its low priority), the records of later
 * reads join the same batch until it is full (in_push()): the queue then holds whole blocks.
 */
bool hand_over_now(struct behind *b, int *err)
{
	bool now;

	pthread_mutex_lock(&b->lock);
	now = b->idle;
	*err = b->err;
	if (!b->late && b->unflushed_since && lfr_mono_ns() - b->unflushed_since >= LATE_NS) {
		/* work waiting a second for a flush: starved at its low priority (maybe not even
		 * awake yet to take it) */
		b->late = true;
		naming_policy(b, b->thread, false);
	}
	pthread_mutex_unlock(&b->lock);
	return now;
}

void lfr_recorder_get_stats(const struct lfr_recorder *r, struct lfr_recorder_stats *st)
{
	struct behind *b = r->behind;

	if (b) {
		pthread_mutex_lock(&b->lock);
		*st = b->st;
		pthread_mutex_unlock(&b->lock);
	} else {
		*st = r->st;
		st->stack_cache_entries = r->raw.used + r->stacks_used;
	}
	st->records = r->added;
	st->looked = r->looked.n;
}

void lfr_recorder_get_file_stats(const struct lfr_recorder *r, struct lfr_jfr_stats *js)
{
	struct behind *b = r->behind;

	if (!b) {
		lfr_jfr_get_stats(r->w, js);
		return;
	}
	pthread_mutex_lock(&b->lock);
	*js = b->js;
	pthread_mutex_unlock(&b->lock);
}

// SPDX-License-Identifier: GPL-2.0
/* Ticks joined with their user stacks.  See join.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/join.h"
#include "lib/hashtab.h"

/*
 * A tick or an off-CPU interval with the longest kernel stack the module writes fits a walk's own
 * room.  Both begin with the header, time, walk id and thread, which is all the joining reads.
 */
#define TICK_ROOM (sizeof(struct lfr_rec_offcpu) + LFR_MAX_KERNEL_STACK_DEPTH * sizeof(__u64))
_Static_assert(offsetof(struct lfr_rec_offcpu, walk_id) == offsetof(struct lfr_rec_tick, walk_id),
               "an OFFCPU record's walk id lies where a TICK's does");
_Static_assert(offsetof(struct lfr_rec_offcpu, time_ns) == offsetof(struct lfr_rec_tick, time_ns) &&
                   offsetof(struct lfr_rec_offcpu, tid) == offsetof(struct lfr_rec_tick, tid),
               "and its time and thread where a TICK's are (lfr_join_read() reads them)");

/*
 * A walk that one side has reached: its stack, or the ticks that wait for it.  Nearly every walk
 * has one tick, which comes first: that tick waits in the walk's own room, and the stack, when it
 * comes, is joined where it lies without a copy.  Finished walks are kept for reuse, so a sample
 * costs no allocation.
 *
 * A side whose other side a full ring lost would wait for ever (the module counts the loss):
 * lfr_join_read() gives it up once no record of it can still come (see join.h), so that a reader
 * that runs for ever holds a bounded number of walks however many records the rings lose.
 */
struct walk {
	uint64_t id;
	struct lfr_rec_ustack *u; /* a copy, when ticks of it are still to come */
	uint32_t joined;          /* ticks handed out */
	uint32_t tid;             /* the thread of the ticks that wait */
	uint64_t last_ns;         /* the latest of their times */
	uint64_t read;      /* the reads done when its stack came, or its thread walked again */
	uint64_t exit_ns;   /* its thread's exit (its stack still to come), else 0 */
	bool superseded;    /* its thread walked again: its stack can come no more */
	size_t nticks, cap; /* ticks waiting, in room or allocated; the array is kept */
	struct lfr_rec_tick **ticks;
	struct walk *next_free;
	union {
		struct lfr_rec_tick tick;
		uint8_t bytes[TICK_ROOM];
	} room;
};

/*
 * A reader mostly finds a walk's stack right after its ticks, in the same ring: one tick, or a few
 * of a thread that stayed in the kernel, one after the other.  Those ticks wait as the pending
 * ones, outside the table, and meet their stack without a lookup.  Anything else (a tick of
 * another walk, a stack of another walk or of other ticks, more ticks than PEND_MAX) first moves
 * the pending ticks into the table, and takes the general way.  A pending tick is the caller's
 * record itself, not a copy, until lfr_join_keep() copies it into own.
 */
#define PEND_MAX 8

struct lfr_join {
	struct hashtab walks; /* walk id -> struct walk */
	struct hashtab tids;  /* thread id -> the walk whose stack its ticks wait for (in walks) */
	uint64_t reads;       /* lfr_join_read() calls: complete reads of every ring */
	struct lfr_join_lost lost;
	struct walk **gone; /* lfr_join_read()'s walks to give up */
	size_t gone_cap;
	uint64_t waiting;
	struct walk *free; /* finished walks, for reuse */
	void *spare;       /* TICK_ROOM buffers, each begins with the next */
	unsigned npend;    /* pending ticks, all of one walk */
	const struct lfr_rec_tick *pend[PEND_MAX]; /* in the order they came */
	union {
		struct lfr_rec_tick tick;
		uint8_t bytes[TICK_ROOM];
	} own[PEND_MAX]; /* pend[i]'s copy, once kept */
};

int lfr_join_new(struct lfr_join **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	hashtab_init_trusted(&(*out)->walks, false); /* the module's walk ids */
	return 0;
}

/*
 * Room for a tick beyond a walk's first: a walk of several ticks is one in 8 or so, and each of
 * its ticks but the first would cost an allocation.  Buffers of TICK_ROOM are kept for reuse.
 */
static struct lfr_rec_tick *tick_room(struct lfr_join *j, uint32_t size)
{
	void *c = j->spare;

	if (size > TICK_ROOM)
		return malloc(size);
	if (!c)
		return malloc(TICK_ROOM);
	memcpy(&j->spare, c, sizeof(j->spare));
	return c;
}

/* Gives back the ticks W waits with. */
static void walk_ticks_put(struct lfr_join *j, struct walk *w)
{
	for (size_t i = 0; i < w->nticks; i++) {
		struct lfr_rec_tick *c = w->ticks[i];

		if (c == &w->room.tick)
			continue;
		if (c->hdr.size > TICK_ROOM) {
			free(c);
			continue;
		}
		memcpy(c, &j->spare, sizeof(j->spare));
		j->spare = c;
	}
	w->nticks = 0;
}

/* Empties W for reuse: what it holds is given back or freed, the walk itself kept. */
static void walk_clear(struct lfr_join *j, struct walk *w)
{
	walk_ticks_put(j, w);
	w->joined = 0;
	w->last_ns = 0;
	w->exit_ns = 0;
	w->superseded = false;
	free(w->u);
	w->u = NULL;
}

static void walk_free(struct lfr_join *j, struct walk *w)
{
	walk_clear(j, w);
	free(w->ticks);
	free(w);
}

void lfr_join_free(struct lfr_join *j)
{
	if (!j)
		return;
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&j->walks, s));)
		walk_free(j, (struct walk *)(uintptr_t)s->v);
	for (struct walk *w = j->free, *next; w; w = next) {
		next = w->next_free;
		walk_free(j, w);
	}
	for (void *c = j->spare, *next; c; c = next) {
		memcpy(&next, c, sizeof(next));
		free(c);
	}
	hashtab_free(&j->walks);
	hashtab_free(&j->tids);
	free(j->gone);
	free(j);
}

static struct walk *walk_get(struct lfr_join *j, uint64_t id)
{
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&j->walks, id, 0, &fresh);
	struct walk *w;

	if (!s)
		return NULL;
	if (!fresh)
		return (struct walk *)(uintptr_t)s->v;
	if (j->free) {
		w = j->free;
		j->free = w->next_free;
	} else if (!(w = calloc(1, sizeof(*w)))) {
		hashtab_del(&j->walks, s);
		return NULL;
	}
	w->id = id;
	s->v = (uint64_t)(uintptr_t)w;
	return w;
}

static struct walk *walk_of(const struct lfr_join *j, uint64_t id)
{
	struct hashtab_slot *s = hashtab_get(&j->walks, id, 0);

	return s ? (struct walk *)(uintptr_t)s->v : NULL;
}

/* W's ticks no longer wait for its stack: its thread's entry goes. */
static void tid_forget(struct lfr_join *j, const struct walk *w)
{
	struct hashtab_slot *s = j->tids.n ? hashtab_get(&j->tids, w->tid, 0) : NULL;

	if (s && s->v == w->id)
		hashtab_del(&j->tids, s);
}

/*
 * Ticks of W wait for its stack: the thread's walk to watch, unless an older one (a late tick of
 * an earlier walk, from another ring) -- or a walk that can have no stack any more.
 */
static void tid_note(struct lfr_join *j, struct walk *w)
{
	struct hashtab_slot *s;
	struct walk *cur;
	bool fresh;

	if (w->superseded || w->exit_ns || !(s = hashtab_put(&j->tids, w->tid, 0, &fresh)))
		return;
	if (fresh || s->v == w->id || !(cur = walk_of(j, s->v)) || cur->last_ns < w->last_ns)
		s->v = w->id;
}

/*
 * A record of thread TID's walk ID at TIME_NS came.  The thread's walk whose stack its ticks wait
 * for is over when ID is another walk and TIME_NS later than all of them: a thread has one walk
 * at a time, the next queued only after the last one ran, and that one's USTACK record was written
 * before (only a full ring can have lost it).  It is given up once every ring has been read twice
 * more (lfr_join_read()), in case that record is on a ring read before this one.
 */
static void thread_walked(struct lfr_join *j, uint32_t tid, uint64_t id, uint64_t time_ns)
{
	struct hashtab_slot *s = hashtab_get(&j->tids, tid, 0);
	struct walk *w;

	if (!s || s->v == id || !(w = walk_of(j, s->v)) || time_ns <= w->last_ns)
		return;
	w->superseded = true;
	w->read = j->reads;
	hashtab_del(&j->tids, s);
}

static void walk_done(struct lfr_join *j, struct walk *w)
{
	tid_forget(j, w);
	hashtab_del(&j->walks, hashtab_get(&j->walks, w->id, 0));
	walk_clear(j, w);
	w->next_free = j->free;
	j->free = w;
}

static int emit(struct walk *w, const struct lfr_rec_ustack *u, const struct lfr_rec_tick *t,
                lfr_join_fn fn, void *ctx)
{
	const struct lfr_rec_offcpu *o =
	    t->hdr.type == LFR_REC_OFFCPU ? (const struct lfr_rec_offcpu *)(const void *)t : NULL;
	struct lfr_joined jd = {
	    .tick = t,
	    .offcpu = o,
	    .ustack = u,
	    .kernel_ips = o ? o->ips : t->ips,
	    .user_ips = u->ips,
	    .words = u->ips + u->nr_user,
	    .flags = (t->flags | u->flags) & ~LFR_USTACK_F_TICK,
	    .lost_reason = u->lost_reason,
	};

	if (w)
		w->joined++;
	return fn(ctx, &jd);
}

/* Keeps a copy of tick T until its walk's stack comes. */
static int tick_wait(struct lfr_join *j, struct walk *w, const struct lfr_rec_tick *t)
{
	struct lfr_rec_tick *c;

	if (w->nticks == w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 2;
		struct lfr_rec_tick **nt = realloc(w->ticks, ncap * sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		w->ticks = nt;
		w->cap = ncap;
	}
	if (!w->nticks && t->hdr.size <= sizeof(w->room))
		c = &w->room.tick;
	else if (!(c = tick_room(j, t->hdr.size)))
		return -ENOMEM;
	memcpy(c, t, t->hdr.size);
	w->ticks[w->nticks++] = c;
	return 0;
}

static int join_tick(struct lfr_join *j, const struct lfr_rec_tick *t, lfr_join_fn fn, void *ctx)
{
	struct walk *w;
	int err;

	if (j->tids.n)
		thread_walked(j, t->tid, t->walk_id, t->time_ns);
	if (!(w = walk_get(j, t->walk_id)))
		return -ENOMEM;
	if (w->u) {
		err = emit(w, w->u, t, fn, ctx);
		if (w->joined >= w->u->ticks)
			walk_done(j, w);
		return err;
	}
	if ((err = tick_wait(j, w, t)))
		return err;
	j->waiting++;
	w->tid = t->tid;
	if (t->time_ns > w->last_ns)
		w->last_ns = t->time_ns;
	tid_note(j, w);
	return 0;
}

/* The pending ticks, if any, join the table (where they were counted as waiting already). */
static int pend_settle(struct lfr_join *j, lfr_join_fn fn, void *ctx)
{
	unsigned n = j->npend;
	int err = 0;

	j->npend = 0;
	j->waiting -= n;
	for (unsigned i = 0; i < n && !err; i++)
		err = join_tick(j, j->pend[i], fn, ctx);
	return err;
}

/* lfr_join_tick() the general way.  Out of line: the pending way then saves no registers. */
static __attribute__((noinline)) int tick_general(struct lfr_join *j, const struct lfr_rec_tick *t,
                                                  lfr_join_fn fn, void *ctx)
{
	int err = pend_settle(j, fn, ctx);

	return err ? err : join_tick(j, t, fn, ctx);
}

int lfr_join_tick(struct lfr_join *j, const struct lfr_rec_tick *t, lfr_join_fn fn, void *ctx)
{
	/* with no walk in the table, the tick cannot meet a stack that came first */
	if (!j->walks.n && t->hdr.size <= sizeof(j->own[0]) &&
	    (!j->npend || (j->npend < PEND_MAX && j->pend[0]->walk_id == t->walk_id))) {
		j->pend[j->npend++] = t;
		j->waiting++;
		return 0;
	}
	return tick_general(j, t, fn, ctx);
}

/* The tick a USTACK record carries (LFR_USTACK_F_TICK), as its TICK record would have it. */
static void own_tick(const struct lfr_rec_ustack *u, struct lfr_rec_tick *t)
{
	*t = (struct lfr_rec_tick){
	    .hdr = {.type = LFR_REC_TICK, .size = sizeof(*t)},
	    .time_ns = u->time_ns,
	    .walk_id = u->walk_id,
	    .cpu = (uint32_t)(u->walk_id >> LFR_WALK_ID_CPU_SHIFT),
	    .tgid = u->tgid,
	    .tid = u->tid,
	    .flags = u->flags & LFR_SAMPLE_F_COMPAT,
	};
}

int lfr_join_ustack(struct lfr_join *j, const struct lfr_rec_ustack *u, lfr_join_fn fn, void *ctx)
{
	unsigned own = !!(u->flags & LFR_USTACK_F_TICK);
	struct lfr_rec_tick own_rec;
	struct walk *w;
	int err = 0;

	if (j->tids.n)
		thread_walked(j, u->tid, u->walk_id, u->time_ns);
	if (own) {
		own_tick(u, &own_rec);
		/* nearly every walk: one tick, which the record itself carries */
		if (u->ticks == 1)
			return emit(NULL, u, &own_rec, fn, ctx);
	}
	if (j->npend && j->pend[0]->walk_id == u->walk_id && u->ticks == j->npend + own) {
		unsigned n = j->npend;

		j->npend = 0;
		j->waiting -= n;
		if (own)
			err = emit(NULL, u, &own_rec, fn, ctx);
		for (unsigned i = 0; i < n && !err; i++)
			err = emit(NULL, u, j->pend[i], fn, ctx);
		return err;
	}
	if ((err = pend_settle(j, fn, ctx)))
		return err;
	/* the carried tick waits with the others, as if its record had come first */
	if (own && (err = join_tick(j, &own_rec, fn, ctx)))
		return err;
	if (!u->ticks && !hashtab_get(&j->walks, u->walk_id, 0))
		return 0; /* no tick of it reached the ring */
	w = walk_get(j, u->walk_id);
	if (!w)
		return -ENOMEM;
	if (w->u) /* the same walk twice: keep the first */
		return 0;
	for (size_t i = 0; i < w->nticks; i++)
		if (!err)
			err = emit(w, u, w->ticks[i], fn, ctx);
	j->waiting -= w->nticks;
	if (!err && w->joined >= u->ticks) {
		walk_done(j, w);
		return 0;
	}
	/* ticks of it are still to come (or an error stopped the joining): it waits for them */
	walk_ticks_put(j, w);
	tid_forget(j, w);
	w->superseded = false;
	w->exit_ns = 0;
	w->read = j->reads;
	w->u = malloc(u->hdr.size);
	if (!w->u)
		return err ? err : -ENOMEM;
	memcpy(w->u, u, u->hdr.size);
	return err;
}

int lfr_join_offcpu(struct lfr_join *j, const struct lfr_rec_offcpu *o, lfr_join_fn fn, void *ctx)
{
	return lfr_join_tick(j, (const struct lfr_rec_tick *)(const void *)o, fn, ctx);
}

void lfr_join_keep(struct lfr_join *j)
{
	for (unsigned i = 0; i < j->npend; i++)
		if (j->pend[i] != &j->own[i].tick) {
			memcpy(&j->own[i], j->pend[i], j->pend[i]->hdr.size);
			j->pend[i] = &j->own[i].tick;
		}
}

uint64_t lfr_join_waiting(const struct lfr_join *j)
{
	return j->waiting;
}

size_t lfr_join_held(const struct lfr_join *j)
{
	return j->walks.n + (j->npend > 0);
}

void lfr_join_lost(const struct lfr_join *j, struct lfr_join_lost *out)
{
	*out = j->lost;
}

int lfr_join_exit(struct lfr_join *j, uint32_t tid, uint64_t time_ns, lfr_join_fn fn, void *ctx)
{
	struct hashtab_slot *s;
	struct walk *w;
	int err = pend_settle(j, fn, ctx); /* the thread's ticks may be pending */

	if (!j->tids.n || !(s = hashtab_get(&j->tids, tid, 0)))
		return err;
	if ((w = walk_of(j, s->v)))
		w->exit_ns = time_ns ? time_ns : 1;
	hashtab_del(&j->tids, s);
	return err;
}

/* Whether W can have nothing more to join: see lfr_join_read(). */
static bool walk_over(const struct lfr_join *j, const struct walk *w, uint64_t start_ns)
{
	if (w->u || w->superseded)
		return j->reads >= w->read + 2;
	return w->exit_ns && start_ns >= w->exit_ns &&
	       start_ns - w->exit_ns >= LFR_JOIN_EXIT_GRACE_NS;
}

void lfr_join_read(struct lfr_join *j, uint64_t start_ns)
{
	size_t n = 0;

	j->reads++;
	if (!j->walks.n)
		return;
	/* first the walks to give up (deleting moves the table's slots), then give them up */
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&j->walks, s));) {
		struct walk *w = (struct walk *)(uintptr_t)s->v;

		if (!walk_over(j, w, start_ns))
			continue;
		if (n == j->gone_cap) {
			size_t cap = j->gone_cap ? j->gone_cap * 2 : 16;
			struct walk **g = realloc(j->gone, cap * sizeof(*g));

			if (!g)
				break; /* the rest at the next read */
			j->gone = g;
			j->gone_cap = cap;
		}
		j->gone[n++] = w;
	}
	for (size_t i = 0; i < n; i++) {
		struct walk *w = j->gone[i];

		if (w->u) {
			j->lost.stacks++;
			j->lost.stack_ticks += w->u->ticks - w->joined;
		} else {
			*(w->superseded ? &j->lost.ticks_superseded : &j->lost.ticks_exited) +=
			    w->nticks;
			j->waiting -= w->nticks;
		}
		walk_done(j, w);
	}
}

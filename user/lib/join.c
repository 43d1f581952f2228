// SPDX-License-Identifier: GPL-2.0
/* Ticks joined with their user stacks.  See join.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/join.h"
#include "lib/hashtab.h"

/* A walk that one side has reached: its stack, or the ticks that wait for it. */
struct walk {
	uint64_t id;
	struct lfr_rec_ustack *u; /* a copy, once it arrived */
	uint32_t joined;          /* ticks handed out */
	struct lfr_rec_tick **ticks;
	size_t nticks, cap;
};

struct lfr_join {
	struct hashtab walks; /* walk id -> struct walk */
	uint64_t waiting;
};

int lfr_join_new(struct lfr_join **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->nticks; i++)
		free(w->ticks[i]);
	free(w->ticks);
	free(w->u);
	free(w);
}

void lfr_join_free(struct lfr_join *j)
{
	if (!j)
		return;
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&j->walks, s));)
		walk_free((struct walk *)(uintptr_t)s->v);
	hashtab_free(&j->walks);
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
	w = calloc(1, sizeof(*w));
	if (!w) {
		hashtab_del(&j->walks, s);
		return NULL;
	}
	w->id = id;
	s->v = (uint64_t)(uintptr_t)w;
	return w;
}

static void walk_done(struct lfr_join *j, struct walk *w)
{
	hashtab_del(&j->walks, hashtab_get(&j->walks, w->id, 0));
	walk_free(w);
}

static int emit(struct walk *w, const struct lfr_rec_tick *t, lfr_join_fn fn, void *ctx)
{
	const struct lfr_rec_ustack *u = w->u;
	struct lfr_joined jd = {
	    .tick = t,
	    .ustack = u,
	    .kernel_ips = t->ips,
	    .user_ips = u->ips,
	    .words = u->ips + u->nr_user,
	    .lost_reason = u->lost_reason,
	};

	w->joined++;
	return fn(ctx, &jd);
}

int lfr_join_tick(struct lfr_join *j, const struct lfr_rec_tick *t, lfr_join_fn fn, void *ctx)
{
	struct walk *w = walk_get(j, t->walk_id);
	int err;

	if (!w)
		return -ENOMEM;
	if (w->u) {
		err = emit(w, t, fn, ctx);
		if (w->joined >= w->u->ticks)
			walk_done(j, w);
		return err;
	}
	if (w->nticks == w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 2;
		struct lfr_rec_tick **nt = realloc(w->ticks, ncap * sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		w->ticks = nt;
		w->cap = ncap;
	}
	w->ticks[w->nticks] = malloc(t->hdr.size);
	if (!w->ticks[w->nticks])
		return -ENOMEM;
	memcpy(w->ticks[w->nticks++], t, t->hdr.size);
	j->waiting++;
	return 0;
}

int lfr_join_ustack(struct lfr_join *j, const struct lfr_rec_ustack *u, lfr_join_fn fn, void *ctx)
{
	struct walk *w;
	int err = 0;

	if (!u->ticks && !hashtab_get(&j->walks, u->walk_id, 0))
		return 0; /* no tick of it reached the ring */
	w = walk_get(j, u->walk_id);
	if (!w)
		return -ENOMEM;
	if (w->u) /* the same walk twice: keep the first */
		return 0;
	w->u = malloc(u->hdr.size);
	if (!w->u)
		return -ENOMEM;
	memcpy(w->u, u, u->hdr.size);
	for (size_t i = 0; i < w->nticks; i++) {
		if (!err)
			err = emit(w, w->ticks[i], fn, ctx);
		free(w->ticks[i]);
	}
	j->waiting -= w->nticks;
	w->nticks = 0;
	if (!err && w->joined >= w->u->ticks)
		walk_done(j, w);
	return err;
}

uint64_t lfr_join_waiting(const struct lfr_join *j)
{
	return j->waiting;
}

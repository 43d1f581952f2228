// SPDX-License-Identifier: GPL-2.0
/* A process's lfr.Label events, told once per chunk; see labels.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/labels.h"
#include "jfr/schema.h"

struct jfr_proc_labels {
	uint32_t pid;
	uint32_t told; /* the chunk they were last told in; 0: none */
	bool released; /* its process is gone: freed after the next flush */
	char **kv;     /* key, value, key, value ... */
	size_t n;      /* pairs */
};

void jfr_labels_put_event(struct jfr_buf *b, uint64_t ticks, uint32_t pid, const char *name,
                          const char *value)
{
	struct jfr_buf tmp = {0};

	jfr_buf_varint(&tmp, T_LABEL);
	jfr_buf_varint(&tmp, ticks);
	jfr_buf_varint(&tmp, pid);
	jfr_buf_string(&tmp, name);
	jfr_buf_string(&tmp, value);
	if (tmp.oom)
		b->oom = true;
	jfr_buf_varint(b, jfr_event_size(tmp.len));
	jfr_buf_put(b, tmp.data, tmp.len);
	jfr_buf_free(&tmp);
}

static void free_kv(struct jfr_proc_labels *p)
{
	for (size_t i = 0; i < 2 * p->n; i++)
		free(p->kv[i]);
	free(p->kv);
	p->kv = NULL;
	p->n = 0;
}

int jfr_labels_set(struct jfr_labels *t, uint32_t pid, const char *const *kv, size_t n)
{
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&t->by_pid, pid, 0, &fresh);
	struct jfr_proc_labels *p;
	char **copy = calloc(2 * n + 1, sizeof(*copy));

	if (!s || !copy) {
		free(copy);
		return -ENOMEM;
	}
	if (fresh) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 64;
			struct jfr_proc_labels *v = realloc(t->procs, cap * sizeof(*v));

			if (!v) {
				hashtab_del(&t->by_pid, s);
				free(copy);
				return -ENOMEM;
			}
			t->procs = v;
			t->cap = cap;
		}
		t->procs[t->n] = (struct jfr_proc_labels){.pid = pid};
		s->v = ++t->n;
	}
	for (size_t i = 0; i < 2 * n; i++)
		if (!(copy[i] = strdup(kv[i]))) {
			for (size_t j = 0; j < i; j++)
				free(copy[j]);
			free(copy);
			return -ENOMEM;
		}
	p = &t->procs[s->v - 1];
	if (p->released) {
		p->released = false; /* a new process under the pid */
		t->nreleased--;
	}
	free_kv(p);
	p->kv = copy;
	p->n = n;
	p->told = 0; /* a new image of the process: told again, in this chunk too */
	return 0;
}

size_t jfr_labels_tell(struct jfr_labels *t, uint32_t pid, uint32_t chunk, uint64_t ticks,
                       struct jfr_buf *ev)
{
	struct hashtab_slot *s = hashtab_get(&t->by_pid, pid, 0);
	struct jfr_proc_labels *p;

	if (!s)
		return 0;
	p = &t->procs[s->v - 1];
	if (p->told == chunk)
		return 0;
	p->told = chunk;
	for (size_t i = 0; i < p->n; i++)
		jfr_labels_put_event(ev, ticks, pid, p->kv[2 * i], p->kv[2 * i + 1]);
	return p->n;
}

void jfr_labels_release(struct jfr_labels *t, uint32_t pid)
{
	struct hashtab_slot *s = hashtab_get(&t->by_pid, pid, 0);

	if (s && !t->procs[s->v - 1].released) {
		t->procs[s->v - 1].released = true;
		t->nreleased++;
	}
}

void jfr_labels_free_released(struct jfr_labels *t)
{
	size_t keep = 0;

	if (!t->nreleased)
		return;
	for (size_t i = 0; i < t->n; i++) {
		struct jfr_proc_labels *p = &t->procs[i];
		struct hashtab_slot *s = hashtab_get(&t->by_pid, p->pid, 0);

		if (p->released) {
			free_kv(p);
			hashtab_del(&t->by_pid, s);
			continue;
		}
		t->procs[keep] = *p;
		s->v = ++keep;
	}
	t->n = keep;
	t->nreleased = 0;
	/* a burst of processes gone: the table and its index follow */
	hashtab_shrink_sparse(&t->by_pid);
	if (t->cap > 64 && 4 * keep < t->cap) {
		size_t cap = 64;
		struct jfr_proc_labels *v;

		while (cap < 2 * keep)
			cap *= 2;
		if ((v = realloc(t->procs, cap * sizeof(*v)))) {
			t->procs = v;
			t->cap = cap;
		}
	}
}

void jfr_labels_free(struct jfr_labels *t)
{
	for (size_t i = 0; i < t->n; i++)
		free_kv(&t->procs[i]);
	free(t->procs);
	hashtab_free(&t->by_pid);
	memset(t, 0, sizeof(*t));
}

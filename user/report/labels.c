// SPDX-License-Identifier: GPL-2.0
/* A recording's labels, by process; see labels.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/labels.h"
#include "report/labels.h"
#include "report/report.h"

const char *report_label_name(const char *name)
{
	static const char *const alias[][2] = {
	    {"service", LFR_LABEL_SERVICE},
	    {"container", LFR_LABEL_CONTAINER},
	    {"pod", LFR_LABEL_POD},
	    {"host", LFR_LABEL_HOST},
	};

	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(name, alias[i][0]))
			return alias[i][1];
	return name;
}

static uint64_t name_hash(const char *name)
{
	return hashtab_hash_bytes(name, strlen(name));
}

int report_note_label(struct report *rep, int64_t pid, const char *name, const char *value)
{
	bool fresh;
	struct hashtab_slot *s =
	    hashtab_put(&rep->label_index, (uint64_t)pid, name_hash(name), &fresh);
	char *v = strdup(value);

	if (!s || !v) {
		free(v);
		return -1;
	}
	if (!fresh) {
		struct report_label *l = &rep->labels[s->v - 1];

		if (!strcmp(l->name, name)) {
			free(l->value);
			l->value = v;
			return 0;
		}
		/* another name of the same hash: kept, not found by the index (at worst unlisted)
		 */
		free(v);
		return 0;
	}
	if (rep->nlabels == rep->labels_cap) {
		size_t cap = rep->labels_cap ? 2 * rep->labels_cap : 64;
		struct report_label *nl = realloc(rep->labels, cap * sizeof(*nl));

		if (!nl) {
			hashtab_del(&rep->label_index, s);
			free(v);
			return -1;
		}
		rep->labels = nl;
		rep->labels_cap = cap;
	}
	struct report_label *l = &rep->labels[rep->nlabels];

	l->pid = pid;
	l->value = v;
	l->name = strdup(name);
	if (!l->name) {
		hashtab_del(&rep->label_index, s);
		free(v);
		return -1;
	}
	s->v = ++rep->nlabels;
	return 0;
}

static const char *find(const struct report *rep, int64_t pid, const char *name, uint64_t h)
{
	const struct hashtab_slot *s = hashtab_get(&rep->label_index, (uint64_t)pid, h);

	if (!s || strcmp(rep->labels[s->v - 1].name, name))
		return NULL;
	return rep->labels[s->v - 1].value;
}

const char *report_thread_label(const struct report *rep, const struct report_thread *t,
                                const char *name, char *buf, size_t n)
{
	uint64_t h = name_hash(name);
	const char *v = t->pid > 0 ? find(rep, t->pid, name, h) : NULL;

	if (!strcmp(name, "process.pid")) {
		if (t->pid < 0)
			return NULL;
		snprintf(buf, n, "%lld", (long long)t->pid);
		return buf;
	}
	if (!strcmp(name, "process.executable.name"))
		return t->process;
	if (!v)
		v = find(rep, 0, name, h);
	if (!v && !strcmp(name, LFR_LABEL_SERVICE))
		v = t->process;
	return v;
}

void report_labels_free(struct report *rep)
{
	for (size_t i = 0; i < rep->nlabels; i++) {
		free(rep->labels[i].name);
		free(rep->labels[i].value);
	}
	free(rep->labels);
	rep->labels = NULL;
	rep->nlabels = rep->labels_cap = 0;
	hashtab_free(&rep->label_index);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The rare events a chunk's scan keeps aside and its merge decodes: losses, jdk.JVMInformation,
 * lfr.ObjectFile, lfr.Label and lfr.SamplerSettings.
 */
#include <string.h>

#include "export/labels.h"
#include "report/labels.h"
#include "report/report_internal.h"

/* ---- lost-sample events ---- */

static const char *const lost_amount_fields[] = {"lostSamples", "lost",   "samples", "count",
                                                 "records",     "amount", NULL};

bool is_lost_type(const struct jfr_type *t)
{
	if (!strcmp(t->name, "jdk.DataLoss") || strstr(t->name, "Lost"))
		return true;
	return !strncmp(t->name, "lfr.", 4) && jfr_field_index(t, "reason") >= 0;
}

int record_lost(struct report *rep, struct priv *pv, struct jfr_reader *r,
                const struct jfr_chunk *ch, const struct jfr_type *t, uint64_t off)
{
	char reason[256] = "";
	const char *field = NULL;
	int64_t amount = 0;

	field_text(r, ch, t, off, "reason", reason, sizeof(reason));
	for (int i = 0; lost_amount_fields[i]; i++)
		if (field_int(r, ch, t, off, lost_amount_fields[i], &amount)) {
			field = lost_amount_fields[i];
			break;
		}
	struct hashtab_slot *s;
	bool fresh;

	for (uint64_t a = hash_bytes(reason, strlen(reason), 0);; a++) {
		s = hashtab_put(&pv->lost_ids, a, t->name_idx, &fresh);
		if (!s)
			return -1;
		if (fresh)
			break;
		struct report_lost *l = &rep->lost[s->v - 1];
		if (!strcmp(l->type, t->name) && !strcmp(l->reason, reason)) {
			l->events++;
			l->amount += amount > 0 ? amount : 0;
			return 0;
		}
	}
	if (grow((void **)&rep->lost, &pv->lost_cap, rep->nlost + 1, sizeof(*rep->lost))) {
		hashtab_del(&pv->lost_ids, s);
		return -1;
	}
	s->v = rep->nlost + 1;
	struct report_lost *l = &rep->lost[rep->nlost++];
	l->type = strdup(t->name);
	l->reason = strdup(reason);
	l->field = field ? strdup(field) : NULL;
	l->events = 1;
	l->amount = amount > 0 ? amount : 0;
	if (!l->type || !l->reason || (field && !l->field)) {
		rep->nlost--;
		hashtab_del(&pv->lost_ids, s);
		free(l->type);
		free(l->reason);
		free(l->field);
		return -1;
	}
	return 0;
}

int chunk_jvminfo(struct priv *pv, struct jfr_reader *r, const struct jfr_chunk *ch,
                  const struct jfr_type *t, uint64_t off)
{
	char args[256];

	field_int(r, ch, t, off, "pid", &pv->jvm_pid);
	if (field_text(r, ch, t, off, "javaArguments", args, sizeof(args)) > 0) {
		args[strcspn(args, " ")] = 0;
		snprintf(pv->jvm_process, sizeof(pv->jvm_process), "%s", args);
	}
	return 0;
}

/* An lfr.ObjectFile event, kept once per distinct (name, path, build-id). */
int note_object(struct report *rep, struct priv *pv, struct jfr_reader *r,
                const struct jfr_chunk *ch, const struct jfr_type *t, uint64_t off)
{
	char name[NAME_MAX_LEN], path[4096], bid[2 * 64 + 1];
	struct hashtab_slot *s;
	bool fresh;

	if (field_text(r, ch, t, off, "name", name, sizeof(name)) < 0 ||
	    field_text(r, ch, t, off, "path", path, sizeof(path)) < 0 ||
	    field_text(r, ch, t, off, "buildId", bid, sizeof(bid)) < 0 || !name[0] ||
	    path[0] != '/')
		return 0;
	uint64_t b = hash_bytes(path, strlen(path), hash_bytes(bid, strlen(bid), 0));
	for (uint64_t a = hash_bytes(name, strlen(name), 0);; a++) {
		s = hashtab_put(&pv->object_ids, a, b, &fresh);
		if (!s)
			return -1;
		if (fresh)
			break;
		const struct report_object *o = &rep->objects[s->v - 1];
		if (!strcmp(o->name, name) && !strcmp(o->path, path) && !strcmp(o->build_id, bid))
			return 0;
	}
	if (grow((void **)&rep->objects, &rep->objects_cap, rep->nobjects + 1,
	         sizeof(*rep->objects))) {
		hashtab_del(&pv->object_ids, s);
		return -1;
	}
	struct report_object *o = &rep->objects[rep->nobjects];
	o->name = strdup(name);
	o->path = strdup(path);
	o->build_id = strdup(bid);
	if (!o->name || !o->path || !o->build_id) {
		free(o->name), free(o->path), free(o->build_id);
		hashtab_del(&pv->object_ids, s);
		return -1;
	}
	s->v = ++rep->nobjects;
	return 0;
}

/* An lfr.Label event; one without its fields is left out. */
int note_label(struct report *rep, struct jfr_reader *r, const struct jfr_chunk *ch,
               const struct jfr_type *t, uint64_t off)
{
	char name[LFR_LABEL_KEY_MAX], value[LFR_LABEL_VALUE_MAX];
	int64_t pid = -1;

	if (!field_int(r, ch, t, off, "pid", &pid) || pid < 0 ||
	    field_text(r, ch, t, off, "name", name, sizeof(name)) <= 0 ||
	    field_text(r, ch, t, off, "value", value, sizeof(value)) <= 0)
		return 0;
	return report_note_label(rep, pid, name, value);
}

/* The sampling period lfr.SamplerSettings gives; periods that differ leave it unknown. */
void note_period(struct report *rep, struct jfr_reader *r, const struct jfr_chunk *ch,
                 const struct jfr_type *t, uint64_t off)
{
	int64_t ns = 0;

	if (!field_int(r, ch, t, off, "periodNanos", &ns) || ns <= 0 || rep->period_mixed)
		return;
	if (rep->period_ns && rep->period_ns != ns) {
		rep->period_mixed = true;
		rep->period_ns = 0;
		return;
	}
	rep->period_ns = ns;
}

int report_note_rare(struct report *rep, struct jfr_reader *r, const struct jfr_chunk *ch,
                     const struct jfr_type *t, uint64_t off)
{
	if (!strcmp(t->name, "lfr.Label"))
		return note_label(rep, r, ch, t, off);
	if (!strcmp(t->name, "lfr.SamplerSettings"))
		note_period(rep, r, ch, t, off);
	return 0;
}

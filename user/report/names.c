// SPDX-License-Identifier: GPL-2.0
/*
 * Frames a recording left unnamed, named at report time: a frame "0x1139" of object "app" whose
 * lfr.ObjectFile event gives its path and build-id is looked up with the symbolizer (the file
 * itself, its debug files, and last the debuginfod servers), renamed, and merged with the frames
 * that already had that name.  The objects that stay unnamed are listed with the reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashtab.h"
#include "report/report.h"
#include "sym/sym.h"

/* "0x" and hex digits only: the name lfr gives a pc it could not name. */
static bool parse_addr(const char *name, uint64_t *addr)
{
	char *end;

	if (name[0] != '0' || name[1] != 'x' || !name[2])
		return false;
	errno = 0;
	*addr = strtoull(name + 2, &end, 16);
	return !errno && !*end;
}

/*
 * The objects by name (byte keys: the names): index + 1 of each name's one object, or 0 when
 * several objects of that name differ (the report keeps each (name, path, build-id) once).
 */
static int index_objects(const struct report *rep, struct hashtab *by_name)
{
	hashtab_init_bytes(by_name);
	for (size_t i = 0; i < rep->nobjects; i++) {
		const struct report_object *o = &rep->objects[i];
		bool fresh;
		struct hashtab_slot *s =
		    hashtab_put_bytes(by_name, o->name, strlen(o->name), &fresh);

		if (!s)
			return -1;
		if (fresh)
			s->v = i + 1;
		else if (s->v && (strcmp(rep->objects[s->v - 1].path, o->path) ||
		                  strcmp(rep->objects[s->v - 1].build_id, o->build_id)))
			s->v = 0;
	}
	return 0;
}

/* The one object of that name; NULL when none, or when several differ. */
static const struct report_object *object_named(const struct report *rep,
                                                const struct hashtab *by_name, const char *name)
{
	const struct hashtab_slot *s = hashtab_get_bytes(by_name, name, strlen(name));

	return s && s->v ? &rep->objects[s->v - 1] : NULL;
}

static size_t parse_build_id(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex) / 2;

	if (n > cap || strlen(hex) % 2)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return 0;
		out[i] = (uint8_t)v;
	}
	return n;
}

/* Why an object stayed unnamed, by its path (byte keys: the symbolizer's paths). */
static const char *why_unnamed(const struct lfr_sym_object *obj)
{
	if (obj->unnamed_why)
		return obj->unnamed_why;
	if (!obj->ok)
		return "file missing or replaced, and no debug file of its build-id";
	return "no symbol covers its addresses";
}

struct whys {
	struct hashtab by_path;
	bool oom;
};

static void note_why(const struct lfr_sym_object *obj, void *arg)
{
	struct whys *w = arg;
	bool fresh;
	struct hashtab_slot *s =
	    hashtab_put_bytes(&w->by_path, obj->path, strlen(obj->path), &fresh);

	if (!s)
		w->oom = true;
	else
		s->v = (uint64_t)(uintptr_t)why_unnamed(obj); /* the last object of the path says */
}

static bool same_frame(const struct report_frame *f, const struct report_frame *g)
{
	return g->kind == f->kind && !strcmp(g->name, f->name) &&
	       (g->object == f->object ||
	        (g->object && f->object && !strcmp(g->object, f->object)));
}

/*
 * Merges frames that now have equal names: each frame index maps to the first of its name, found
 * by a table of the frames kept, keyed by the keyed hashes of name and object (equal hashes of
 * different frames are told apart by a salt, as the report's interning does).
 */
static int merge_frames(struct report *rep)
{
	uint32_t *to = malloc(rep->nframes * sizeof(*to) + 1);
	struct hashtab kept; /* (hash of the name + salt, hash of the object ^ kind) -> index + 1 */
	size_t n = 0;
	int rc = -1;

	/* the keys are keyed hashes already: nobody chooses them */
	hashtab_init_trusted(&kept, false);
	if (!to || hashtab_reserve(&kept, rep->nframes))
		goto out;
	for (size_t i = 0; i < rep->nframes; i++) {
		struct report_frame *f = &rep->frames[i];
		uint64_t a = hashtab_keyed_bytes(f->name, strlen(f->name)),
		         b = (f->object ? hashtab_keyed_bytes(f->object, strlen(f->object)) : 0) ^
		             f->kind;
		struct hashtab_slot *s;
		bool fresh;

		for (;; a++) {
			s = hashtab_put(&kept, a, b, &fresh);
			if (!s)
				goto out;
			if (fresh || same_frame(f, &rep->frames[s->v - 1]))
				break;
		}
		if (!fresh) {
			free(f->name);
			free(f->object);
		} else {
			rep->frames[n] = *f;
			s->v = ++n;
		}
		to[i] = (uint32_t)(s->v - 1);
	}
	rep->nframes = n;
	for (size_t i = 0; i < rep->nstack_frames; i++)
		rep->stack_frames[i] = to[rep->stack_frames[i]];
	rc = 0;
out:
	hashtab_free(&kept);
	free(to);
	return rc;
}

int report_name_frames(struct report *rep, const char *debug_dirs, bool debuginfod)
{
	struct lfr_sym_opts so = {.debug_dirs = debug_dirs,
	                          .flags = debuginfod ? LFR_SYM_DEBUGINFOD : 0};
	struct lfr_sym *sym = NULL;
	struct hashtab by_name = {0};
	struct whys whys = {0};
	/* per object of rep->objects: frames still unnamed; its build-id, parsed once */
	uint64_t *left = NULL;
	struct bid {
		uint8_t id[64];
		size_t len;
		bool parsed;
	} *bids = NULL;
	size_t nleft = 0, len = 0, cap = 0;
	char *line = NULL;
	int rc = -1;

	if (!rep->nobjects)
		return 0;
	left = calloc(rep->nobjects, sizeof(*left));
	bids = calloc(rep->nobjects, sizeof(*bids));
	if (!left || !bids || index_objects(rep, &by_name) || lfr_sym_new(&sym, &so))
		goto out;
	for (size_t i = 0; i < rep->nframes; i++) {
		struct report_frame *f = &rep->frames[i];
		const struct report_object *o;
		struct lfr_frame lf;
		struct bid *b;
		uint64_t addr;
		char *name;

		if (f->kind != RF_NATIVE || !f->object || !parse_addr(f->name, &addr))
			continue;
		o = object_named(rep, &by_name, f->object);
		if (!o)
			continue;
		b = &bids[o - rep->objects];
		if (!b->parsed)
			b->len = parse_build_id(o->build_id, b->id, sizeof(b->id)),
			b->parsed = true;
		if (!lfr_sym_resolve_object(sym, o->path, b->id, b->len, addr, &lf)) {
			left[o - rep->objects]++;
			continue;
		}
		name = strdup(lf.method);
		if (!name)
			goto out;
		free(f->name);
		f->name = name;
		if (lf.type == LFR_FRAME_CPP)
			f->kind = RF_CPP;
		rep->frames_named++;
	}
	if (rep->frames_named && merge_frames(rep))
		goto out;
	for (size_t i = 0; i < rep->nobjects; i++)
		nleft += left[i] > 0;
	if (nleft) {
		FILE *m;

		hashtab_init_bytes(&whys.by_path);
		lfr_sym_foreach_object(sym, note_why, &whys);
		if (whys.oom || !(m = open_memstream(&line, &cap)))
			goto out;
		fprintf(m, "%zu object%s unnamed:", nleft, nleft == 1 ? "" : "s");
		for (size_t i = 0; i < rep->nobjects; i++) {
			const struct report_object *o = &rep->objects[i];
			const struct hashtab_slot *s =
			    hashtab_get_bytes(&whys.by_path, o->path, strlen(o->path));

			if (!left[i])
				continue;
			fprintf(m, "%s %s (build-id %.*s%s): %s", len++ ? ";" : "", o->path, 8,
			        o->build_id[0] ? o->build_id : "none",
			        strlen(o->build_id) > 8 ? ".." : "",
			        s ? (const char *)(uintptr_t)s->v : "not looked up");
		}
		if (fclose(m)) {
			free(line);
			goto out;
		}
		rep->unnamed = line;
	}
	rc = 0;
out:
	free(left);
	free(bids);
	hashtab_free(&by_name);
	hashtab_free(&whys.by_path);
	lfr_sym_free(sym);
	return rc;
}

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

/* The one object of that name; NULL when none, or when several differ (*ambiguous). */
static const struct report_object *object_named(const struct report *rep, const char *name,
                                                bool *ambiguous)
{
	const struct report_object *found = NULL;

	*ambiguous = false;
	for (size_t i = 0; i < rep->nobjects; i++) {
		const struct report_object *o = &rep->objects[i];

		if (strcmp(o->name, name))
			continue;
		if (found &&
		    (strcmp(found->path, o->path) || strcmp(found->build_id, o->build_id))) {
			*ambiguous = true;
			return NULL;
		}
		found = o;
	}
	return found;
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

struct why_ctx {
	const char *path;
	const char *why;
};

static void find_why(const struct lfr_sym_object *obj, void *arg)
{
	struct why_ctx *c = arg;

	if (strcmp(obj->path, c->path))
		return;
	if (obj->unnamed_why)
		c->why = obj->unnamed_why;
	else if (!obj->ok)
		c->why = "file missing or replaced, and no debug file of its build-id";
	else
		c->why = "no symbol covers its addresses";
}

/* Merges frames that now have equal names: each frame index maps to the first of its name. */
static int merge_frames(struct report *rep)
{
	uint32_t *to = malloc(rep->nframes * sizeof(*to) + 1);
	size_t n = 0;

	if (!to)
		return -1;
	for (size_t i = 0; i < rep->nframes; i++) {
		struct report_frame *f = &rep->frames[i];
		size_t j;

		for (j = 0; j < n; j++) {
			struct report_frame *g = &rep->frames[j];

			if (g->kind == f->kind && !strcmp(g->name, f->name) &&
			    (g->object == f->object ||
			     (g->object && f->object && !strcmp(g->object, f->object))))
				break;
		}
		if (j < n) {
			free(f->name);
			free(f->object);
		} else {
			rep->frames[n] = *f;
			j = n++;
		}
		to[i] = (uint32_t)j;
	}
	rep->nframes = n;
	for (size_t i = 0; i < rep->nstack_frames; i++)
		rep->stack_frames[i] = to[rep->stack_frames[i]];
	free(to);
	return 0;
}

int report_name_frames(struct report *rep, const char *debug_dirs, bool debuginfod)
{
	struct lfr_sym_opts so = {.debug_dirs = debug_dirs,
	                          .flags = debuginfod ? LFR_SYM_DEBUGINFOD : 0};
	struct lfr_sym *sym = NULL;
	/* per object of rep->objects: frames still unnamed */
	uint64_t *left = NULL;
	size_t nleft = 0, len = 0, cap = 0;
	char *line = NULL;
	int rc = -1;

	if (!rep->nobjects)
		return 0;
	left = calloc(rep->nobjects, sizeof(*left));
	if (!left || lfr_sym_new(&sym, &so))
		goto out;
	for (size_t i = 0; i < rep->nframes; i++) {
		struct report_frame *f = &rep->frames[i];
		const struct report_object *o;
		struct lfr_frame lf;
		uint8_t bid[64];
		uint64_t addr;
		bool ambiguous;
		char *name;

		if (f->kind != RF_NATIVE || !f->object || !parse_addr(f->name, &addr))
			continue;
		o = object_named(rep, f->object, &ambiguous);
		if (!o)
			continue;
		if (!lfr_sym_resolve_object(sym, o->path, bid,
		                            parse_build_id(o->build_id, bid, sizeof(bid)), addr,
		                            &lf)) {
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
		FILE *m = open_memstream(&line, &cap);

		if (!m)
			goto out;
		fprintf(m, "%zu object%s unnamed:", nleft, nleft == 1 ? "" : "s");
		for (size_t i = 0; i < rep->nobjects; i++) {
			const struct report_object *o = &rep->objects[i];
			struct why_ctx c = {o->path, "not looked up"};

			if (!left[i])
				continue;
			lfr_sym_foreach_object(sym, find_why, &c);
			fprintf(m, "%s %s (build-id %.*s%s): %s", len++ ? ";" : "", o->path, 8,
			        o->build_id[0] ? o->build_id : "none",
			        strlen(o->build_id) > 8 ? ".." : "", c.why);
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
	lfr_sym_free(sym);
	return rc;
}

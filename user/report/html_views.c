// SPDX-License-Identifier: GPL-2.0
/*
 * The views of the HTML page: what each is called, and which a recording has.  The extra views
 * are read in passes of their own over the same file, as `lfr report --off-cpu` and `--wall`
 * read them: a page's off-CPU or wall view then holds exactly what those reports show.
 */
#include <string.h>

#include "report/html_views.h"

void report_html_view_kind(const struct report_opts *o, struct report_html_view *v)
{
	if (o->off_cpu) {
		v->id = "off-cpu";
		v->name = "Off-CPU";
		v->label = "Off-CPU time";
	} else if (o->wall) {
		v->id = "wall";
		v->name = "Wall";
		v->label = "Wall-clock samples";
	} else if (o->latency) {
		v->id = "latency";
		v->name = "Latency";
		v->label = "Sampling latency";
	} else if (!o->nevents && !o->value_field) {
		v->id = "cpu";
		v->name = "CPU";
		v->label = "CPU samples";
	} else {
		/* the events and field the user named: the page's header names them */
		v->id = "events";
		v->name = "Events";
		v->label = NULL;
	}
}

static bool has_events(const struct report *rep, const char *type)
{
	for (size_t i = 0; i < rep->nevtypes; i++)
		if (!strcmp(rep->evtypes[i].name, type))
			return rep->evtypes[i].count > 0;
	return false;
}

/* Reads the view the options o select into vs's next slot. */
static int read_view(struct jfr_reader *r, struct report_html_views *vs, struct report_opts *o)
{
	size_t i = vs->n;
	struct report *rep = NULL;

	vs->o[i] = *o;
	vs->v[i].o = &vs->o[i];
	report_html_view_kind(o, &vs->v[i]);
	int rc = report_read(r, &vs->o[i], &rep);
	vs->own[i] = rep;
	vs->v[i].rep = rep;
	vs->n++;
	return rc < 0 ? -1 : 0;
}

int report_html_views_read(struct jfr_reader *r, const struct report *cpu,
                           const struct report_opts *o, struct report_html_views *vs)
{
	struct report_opts vo;
	int rc = 0;

	memset(vs, 0, sizeof(*vs));
	vs->v[0].rep = cpu;
	vs->v[0].o = o;
	report_html_view_kind(o, &vs->v[0]);
	vs->n = 1;
	if (has_events(cpu, "lfr.OffCpu")) {
		vo = *o;
		vo.off_cpu = true;
		vo.events[vo.nevents++] = "lfr.OffCpu";
		vo.value_field = "duration"; /* ns in lfr's files, as lfr report --off-cpu sums */
		rc = read_view(r, vs, &vo);
	}
	if (!rc && (has_events(cpu, "profiler.WallClockSample") ||
	            has_events(cpu, "jdk.NativeMethodSample"))) {
		vo = *o;
		report_opts_wall(&vo);
		rc = read_view(r, vs, &vo);
	}
	return rc;
}

void report_html_views_free(struct report_html_views *vs)
{
	for (size_t i = 0; i < REPORT_HTML_MAX_VIEWS; i++)
		report_free(vs->own[i]);
	memset(vs, 0, sizeof(*vs));
}

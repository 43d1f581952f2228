// SPDX-License-Identifier: GPL-2.0
/* What lfr top's views print of the table: names, the status line, a row. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/top.h"
#include "export/labels.h"
#include "report/labels.h"
#include "report/text_safe.h"
#include "report/units.h"

/* The function's name as the report views give it: object after a native one, [k] for kernel. */
void top_func_name(const struct report *rep, uint32_t frame, char *buf, size_t n)
{
	const struct report_frame *f = &rep->frames[frame];

	if (f->kind == RF_KERNEL)
		snprintf(buf, n, "%s [k]", f->name);
	else if (f->object)
		snprintf(buf, n, "%s  (%s)", f->name, f->object);
	else
		snprintf(buf, n, "%s", f->name);
}

static void thread_name(const struct report *rep, uint32_t thread, char *buf, size_t n)
{
	const struct report_thread *th = &rep->threads[thread];

	snprintf(buf, n, "%s/%lld", th->name ? th->name : "?", (long long)th->tid);
}

/*
 * The process: name/pid, and its container (the short id docker ps shows) or, for a process of
 * a Kubernetes pod outside any container, its pod (its lfr.Label container.id, k8s.pod.uid).
 */
static void process_name(const struct report *rep, uint32_t thread, char *buf, size_t n)
{
	const struct report_thread *th = &rep->threads[thread];
	const char *name = th->process ? th->process : "?", *id = NULL, *pod = NULL;
	char tmp[32];

	if (th->pid >= 0 &&
	    !(id = report_thread_label(rep, th, LFR_LABEL_CONTAINER, tmp, sizeof(tmp))))
		pod = report_thread_label(rep, th, LFR_LABEL_POD, tmp, sizeof(tmp));
	if (th->pid < 0)
		snprintf(buf, n, "?");
	else if (id)
		snprintf(buf, n, "%s/%lld %.12s", name, (long long)th->pid, id);
	else if (pod)
		snprintf(buf, n, "%s/%lld pod %.8s", name, (long long)th->pid, pod);
	else
		snprintf(buf, n, "%s/%lld", name, (long long)th->pid);
}

/*
 * The status line: window, samples, rate, losses, sort, filters.  The rate is of the samples
 * shown (not those left out, kernel-only ones without -k) over the time the window covers.
 */
void top_status_line(const struct top_view *v, char *buf, size_t n)
{
	const struct top_table *t = &v->t;
	double secs = (double)(t->to_ns - t->from_ns + 1) / 1e9;
	uint64_t shown = t->events - t->kernel_only;
	char filt[96] = "";

	if (v->o.tid >= 0)
		snprintf(filt, sizeof(filt), ", thread %lld", (long long)v->o.tid);
	if (v->o.pid >= 0)
		snprintf(filt + strlen(filt), sizeof(filt) - strlen(filt), ", process %lld",
		         (long long)v->o.pid);
	snprintf(buf, n, "%" PRIu64 " samples in %.1f s, %.1f/s, lost %" PRIu64 ", by %s%s", shown,
	         secs, shown && secs > 0 ? (double)shown / secs : 0, v->lost,
	         v->o.sort == TOP_SORT_SELF ? "self" : "total", filt);
	if (t->kernel_only) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l, " (%" PRIu64 " kernel-only samples; -k shows them)",
		         t->kernel_only);
	}
}

void top_row_text(const struct top_view *v, const struct top_row *r, char *buf, size_t n)
{
	char fn[256], th[64], pr[64];

	top_func_name(v->rep, r->frame, fn, sizeof(fn));
	thread_name(v->rep, r->thread, th, sizeof(th));
	process_name(v->rep, r->thread, pr, sizeof(pr));
	snprintf(buf, n, "%6.2f%% %6.2f%%  %-44s %-20s %s", report_pct(r->self, v->t.samples),
	         report_pct(r->total, v->t.samples), fn, th, pr);
	/* the names are the recording's: shown as the text report shows them */
	text_safe_in_place(buf);
}

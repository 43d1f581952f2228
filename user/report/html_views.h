/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views the HTML page of a recording switches between when no option selects one: CPU
 * samples always, off-CPU time when the recording has lfr.OffCpu events, wall-clock samples when
 * it has profiler.WallClockSample events (jdk.NativeMethodSample in lfr's earlier files).  Each is
 * read as its own option (--off-cpu, --wall) would read it, with the same filters, so that the
 * page shows what those reports show.
 */
#ifndef LFR_REPORT_HTML_VIEWS_H
#define LFR_REPORT_HTML_VIEWS_H

#include <stddef.h>

#include "report/report.h"

#define REPORT_HTML_MAX_VIEWS 3

struct report_html_views {
	struct report_html_view v[REPORT_HTML_MAX_VIEWS];
	size_t n;
	/* the options and reports of the views read here (v[i].o and v[i].rep point at them) */
	struct report_opts o[REPORT_HTML_MAX_VIEWS];
	struct report *own[REPORT_HTML_MAX_VIEWS];
};

/*
 * Fills vs with the CPU view cpu (read from r with o, which selects no view) and the views the
 * recording has events for, read from r with o's filters (vs->own[1...]: their frames are still
 * to be named as cpu's were).  Returns 0, or -1 with the reason in r->err; vs is to be freed
 * either way.
 */
int report_html_views_read(struct jfr_reader *r, const struct report *cpu,
                           const struct report_opts *o, struct report_html_views *vs);
void report_html_views_free(struct report_html_views *vs);

#endif

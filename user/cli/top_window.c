// SPDX-License-Identifier: GPL-2.0
/* lfr top's window: the newest chunks of the repository that cover it, read as a report. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/top.h"
#include "jfr/reader.h"
#include "jfr/repository.h"

/* The newest chunks of the repository that cover the window, read into v->rep. */
int top_view_load(struct top_view *v)
{
	struct lfr_jfr_repo_chunk *chunks = NULL;
	struct lfr_jfr_dump_stats st;
	size_t n = 0;
	int64_t newest = 0;
	int rc;

	v->err[0] = 0;
	rc = lfr_jfr_repo_list(v->dir, &chunks, &n, v->err, sizeof(v->err));
	if (rc == -ENOENT && v->child > 0) /* the session has not made it yet */
		n = 0;
	else if (rc) {
		v->exit_code = LFR_EXIT_IO;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (chunks[i].chunk && chunks[i].end_nanos > newest)
			newest = chunks[i].end_nanos;
	free(chunks);
	if (!newest) {
		if (v->child > 0)
			snprintf(v->err, sizeof(v->err), "waiting for the session's first samples");
		else
			snprintf(v->err, sizeof(v->err), "no chunk in %s yet", v->dir);
		v->exit_code = LFR_EXIT_FAILURE;
		return -1;
	}
	/* whole chunks: those that end within the window of the newest end */
	int64_t since = v->window_ns ? newest - (int64_t)v->window_ns : 0;
	rc = lfr_jfr_repo_dump(v->dir, v->dump, since > 0 ? since : 0, &st, v->err, sizeof(v->err));
	v->unreadable[0] = 0;
	if (rc) {
		v->exit_code = rc == -EUCLEAN ? LFR_EXIT_FORMAT : LFR_EXIT_IO;
		v->partial |= rc == -EIO; /* none of them could be read */
		return -1;
	}
	if (st.unreadable) {
		/* shown, never silently: the view lacks their samples */
		snprintf(v->unreadable, sizeof(v->unreadable),
		         "left out %" PRIu64 " chunk file%s that could not be read: %s",
		         st.unreadable, st.unreadable == 1 ? "" : "s", st.unreadable_names);
		snprintf(v->seen, sizeof(v->seen), "%s", v->unreadable);
		v->partial = true;
	}
	v->have_dump = true;
	struct jfr_reader *r = jfr_open_file(v->dump, v->err, sizeof(v->err));
	if (!r) {
		v->exit_code = LFR_EXIT_IO;
		return -1;
	}
	struct report_opts ro;
	struct report *rep = NULL;

	report_opts_init(&ro);
	ro.timeline = true;
	ro.jobs = 1;
	rc = report_read(r, &ro, &rep);
	if (rc) {
		snprintf(v->err, sizeof(v->err), "%s", r->err);
		v->exit_code = LFR_EXIT_FORMAT;
	}
	jfr_close(r);
	if (rc && !rep)
		return -1;
	report_free(v->rep);
	v->rep = rep;
	v->lost = 0;
	for (size_t i = 0; i < rep->nlost; i++)
		if (strcmp(rep->lost[i].type, "jdk.DataLoss"))
			v->lost += rep->lost[i].field ? rep->lost[i].amount : rep->lost[i].events;
	return 0;
}

int top_view_build(struct top_view *v)
{
	top_free(&v->t);
	if (!v->rep)
		return 0;
	v->o.window_ns = (int64_t)v->window_ns;
	if (top_build(v->rep, &v->o, &v->t)) {
		snprintf(v->err, sizeof(v->err), "out of memory");
		return -1;
	}
	return 0;
}

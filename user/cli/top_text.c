// SPDX-License-Identifier: GPL-2.0
/* lfr top's plain tables: one per refresh, on standard output. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/top.h"
#include "report/text_safe.h"

static void print_text(struct top_view *v, FILE *out)
{
	char line[512], when[40] = "?";

	if (!v->rep) {
		fprintf(out, "%s: ", TOP_PROG);
		text_safe_put(out, v->err);
		fputs("\n\n", out);
		fflush(out);
		return;
	}
	time_t secs = (time_t)((v->rep->start_nanos + v->t.to_ns) / 1000000000);
	struct tm tm;
	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%H:%M:%S UTC", &tm);
	top_status_line(v, line, sizeof(line));
	fprintf(out, "%s: ", TOP_PROG);
	text_safe_put(out, v->dir);
	fprintf(out, ", up to %s: %s\n%s\n", when, line, TOP_HEADER);
	for (size_t i = 0; i < v->t.nrows && (long)i < v->lines; i++) {
		top_row_text(v, &v->t.rows[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	fprintf(out, "\n");
	fflush(out);
}

/* Sleeps ns, cut short by a signal. */
static void nap(const struct top_view *v, uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};

	if (!*v->quit)
		nanosleep(&ts, NULL);
}

int top_run_text(struct top_view *v)
{
	int rc = LFR_EXIT_OK;

	for (long i = 0, pass = 0; !*v->quit && (v->iterations <= 0 || i < v->iterations);
	     i++, pass++) {
		if (pass)
			nap(v, v->delay_ns);
		/* a session that ended: what it recorded is read once more, then lfr top ends */
		bool ended = top_session_ended(v);
		int loaded = top_view_load(v);
		if (ended && !v->rep)
			return top_session_exit(v) ? top_session_exit(v) : v->exit_code;
		rc = loaded && !v->rep ? v->exit_code : LFR_EXIT_OK;
		if (top_session_waiting(v, ended)) {
			i--; /* no table yet */
			continue;
		}
		if (top_view_build(v))
			return LFR_EXIT_FAILURE;
		print_text(v, stdout);
		if (strcmp(v->unreadable, v->told)) {
			if (v->unreadable[0])
				fprintf(stderr, "%s: %s\n", TOP_PROG, v->unreadable);
			snprintf(v->told, sizeof(v->told), "%s", v->unreadable);
		}
		if (ferror(stdout) || ended)
			break;
	}
	return rc;
}

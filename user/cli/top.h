/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr top's parts (cmd_top.c: options and the run): the session of its own (top_session.c), the
 * window read from the repository (top_window.c), its rows as text (top_rows.c), the plain tables
 * (top_text.c) and the full-screen view (top_screen.c).
 */
#ifndef LFR_CLI_TOP_H
#define LFR_CLI_TOP_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "report/report.h"
#include "report/top.h"

#define TOP_PROG "lfr top"

struct top_view {
	volatile sig_atomic_t *quit; /* set by SIGINT, SIGTERM, SIGHUP or the q key: it ends */
	const char *dir;
	/* the session of its own (no --repository): lfr record --repository into tmpdir/session */
	pid_t child;
	int child_status;
	bool child_done;
	bool sampled; /* the session's samples have been seen */
	char log[PATH_MAX + 16];
	char tmpdir[PATH_MAX], dump[PATH_MAX + 16];
	bool have_dump;
	uint64_t window_ns, delay_ns;
	long iterations, lines;
	struct top_opts o;
	struct report *rep;
	struct top_table t;
	uint64_t lost; /* samples lost in the chunks read */
	char err[512]; /* why the last refresh read nothing */
	int exit_code; /* of the last failed refresh */
	/* chunk files the last refresh could not read (empty: none), and whether any refresh met
	 * some: lfr top then ends with LFR_EXIT_PARTIAL */
	char unreadable[900], told[900], seen[900];
	bool partial;
};

/* top_session.c: lfr record --repository as a child, for a session of lfr top's own. */
int top_session_start(struct top_view *v, char **args);
bool top_session_waiting(struct top_view *v, bool ended);
bool top_session_ended(struct top_view *v);
int top_session_exit(const struct top_view *v);
void top_session_stop(struct top_view *v);
void top_session_log(const struct top_view *v);
void top_remove_dir(const char *path);

/* top_window.c: the chunks that cover the window, read into v->rep; their table into v->t. */
int top_view_load(struct top_view *v);
int top_view_build(struct top_view *v);

/* top_rows.c: what both views print of the table. */
#define TOP_HEADER                                                                                 \
	"  SELF%  TOTAL%  FUNCTION                                     THREAD/TID           "      \
	"PROCESS/PID CONTAINER"
void top_func_name(const struct report *rep, uint32_t frame, char *buf, size_t n);
void top_status_line(const struct top_view *v, char *buf, size_t n);
void top_row_text(const struct top_view *v, const struct top_row *r, char *buf, size_t n);

/* top_text.c, top_screen.c: the two views, until the end or N refreshes; an exit status. */
int top_run_text(struct top_view *v);
int top_run_screen(struct top_view *v);

#endif

// SPDX-License-Identifier: GPL-2.0
/* lfr top's full-screen view (ncurses): the table, a zoom into a function, the keys. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "cli/commands.h"
#include "cli/top.h"
#include "lib/clock.h"
#include "lib/outfile.h"
#include "report/text_safe.h"
#include "report/units.h"

/* The full-screen view's state: the selected line, the zoom, pause, the last message. */
struct top_screen {
	size_t sel; /* index into the shown list */
	uint32_t sel_frame, sel_thread;
	bool paused;
	char msg[PATH_MAX + 64];
};

/* The list the selection moves in: the table's rows, or in a zoom its callers then callees. */
static size_t shown_rows(const struct top_view *v)
{
	if (v->o.zoom != TOP_ALL)
		return v->t.ncallers + v->t.ncallees;
	return v->t.nrows;
}

static const struct top_row *shown_row(const struct top_view *v, size_t i)
{
	if (v->o.zoom == TOP_ALL)
		return i < v->t.nrows ? &v->t.rows[i] : NULL;
	if (i < v->t.ncallers)
		return &v->t.callers[i];
	i -= v->t.ncallers;
	return i < v->t.ncallees ? &v->t.callees[i] : NULL;
}

/* After a rebuild: the selection stays on its function and thread when it is still shown. */
static void keep_selection(const struct top_view *v, struct top_screen *s)
{
	size_t n = shown_rows(v);

	for (size_t i = 0; i < n; i++) {
		const struct top_row *r = shown_row(v, i);
		if (r->frame == s->sel_frame && r->thread == s->sel_thread) {
			s->sel = i;
			return;
		}
	}
	if (s->sel >= n)
		s->sel = n ? n - 1 : 0;
}

static void remember_selection(const struct top_view *v, struct top_screen *s)
{
	const struct top_row *r = shown_row(v, s->sel);

	s->sel_frame = r ? r->frame : TOP_ALL;
	s->sel_thread = r ? r->thread : TOP_ALL;
}

/* A line of the screen; what it shows of the recording (names, messages) made safe first. */
static void put_line(int y, const char *text, int attr)
{
	struct text_safe ts = {0};
	int w = COLS;

	if (y >= LINES)
		return;
	text = text_safe(&ts, text);
	attron(attr);
	mvaddnstr(y, 0, text, w);
	if (attr & A_REVERSE) /* the bar spans the width */
		for (int x = (int)strlen(text); x < w; x++)
			mvaddch(y, x, ' ');
	attroff(attr);
	text_safe_free(&ts);
}

static void draw(struct top_view *v, struct top_screen *s)
{
	char line[1024], st[512];
	int y = 0;

	erase();
	snprintf(line, sizeof(line), "%s: %s%s", TOP_PROG, v->dir, s->paused ? "  [paused]" : "");
	put_line(y++, line, A_BOLD);
	if (!v->rep) {
		put_line(y++, v->err, 0);
	} else {
		top_status_line(v, st, sizeof(st));
		put_line(y++, st, 0);
	}
	if (v->unreadable[0])
		put_line(y++, v->unreadable, A_BOLD);
	int bottom = LINES - 2; /* the message line, then the keys */
	if (v->rep && v->o.zoom == TOP_ALL) {
		put_line(y++, TOP_HEADER, A_REVERSE);
		size_t room = bottom > y ? (size_t)(bottom - y) : 1;
		size_t first = s->sel >= room ? s->sel - room + 1 : 0; /* the selection in view */
		for (size_t i = first; i < v->t.nrows && y < bottom; i++) {
			top_row_text(v, &v->t.rows[i], line, sizeof(line));
			put_line(y++, line, i == s->sel ? A_STANDOUT | A_BOLD : 0);
		}
	} else if (v->rep) {
		char fn[256];

		top_func_name(v->rep, v->o.zoom, fn, sizeof(fn));
		snprintf(line, sizeof(line), "zoom: %s  self %.2f%%  total %.2f%%", fn,
		         report_pct(v->t.zoom.self, v->t.samples),
		         report_pct(v->t.zoom.total, v->t.samples));
		put_line(y++, line, A_BOLD);
		for (int part = 0; part < 2; part++) {
			const struct top_row *rows = part ? v->t.callees : v->t.callers;
			size_t n = part ? v->t.ncallees : v->t.ncallers,
			       base = part ? v->t.ncallers : 0;

			if (y >= bottom)
				break;
			snprintf(line, sizeof(line), " TOTAL%%  %s OF %s",
			         part ? "CALLEES" : "CALLERS", fn);
			put_line(y++, line, A_REVERSE);
			for (size_t i = 0; i < n && y < bottom; i++) {
				top_func_name(v->rep, rows[i].frame, fn + 128, 128);
				snprintf(line, sizeof(line), "%6.2f%%  %s",
				         report_pct(rows[i].total, v->t.samples), fn + 128);
				put_line(y++, line, base + i == s->sel ? A_STANDOUT | A_BOLD : 0);
			}
			if (!n && y < bottom)
				put_line(y++, "  none", 0);
			top_func_name(v->rep, v->o.zoom, fn, sizeof(fn));
		}
	}
	put_line(LINES - 2, s->msg, A_BOLD);
	put_line(
	    LINES - 1,
	    v->o.zoom == TOP_ALL
	        ? "q quit  s sort  z/Enter zoom  t thread  p process  space pause  w write  "
	          "up/down select"
	        : "q quit  z/Enter zoom there  Esc/b back  space pause  w write  up/down select",
	    A_REVERSE);
	refresh();
}

/* Writes the recording the view was read from to lfr-top-DATE-TIME.jfr. */
static void write_shown(struct top_view *v, struct top_screen *s)
{
	char path[64], err[512], buf[65536];
	struct lfr_outfile of = LFR_OUTFILE_INIT;
	time_t now = time(NULL);
	struct tm tm;
	ssize_t n;
	int in;

	if (!v->have_dump) {
		snprintf(s->msg, sizeof(s->msg), "nothing read yet");
		return;
	}
	gmtime_r(&now, &tm);
	strftime(path, sizeof(path), "lfr-top-%Y%m%d-%H%M%S.jfr", &tm);
	in = open(v->dump, O_RDONLY | O_CLOEXEC);
	if (in < 0 || lfr_outfile_open(&of, path, 0, 0640, err, sizeof(err))) {
		snprintf(s->msg, sizeof(s->msg), "cannot write %s: %s", path,
		         in < 0 ? strerror(errno) : err);
		if (in >= 0)
			close(in);
		return;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if ((errno = -lfr_write_all(of.fd, buf, (size_t)n))) {
			n = -1;
			break;
		}
	close(in);
	if (n < 0 || lfr_outfile_commit(&of, err, sizeof(err))) {
		snprintf(s->msg, sizeof(s->msg), "cannot write %s: %s", path,
		         n < 0 ? strerror(errno) : err);
		lfr_outfile_abort(&of);
		return;
	}
	lfr_outfile_abort(&of);
	snprintf(s->msg, sizeof(s->msg), "wrote %s (the chunks shown: lfr report %s)", path, path);
}

/* A key pressed: 1 when the view is to be built again, 0 when not, -1 to quit. */
static int on_key(struct top_view *v, struct top_screen *s, int key)
{
	int rebuild = 0;

	switch (key) {
	case 'q':
	case 'Q':
		*v->quit = 1;
		return -1;
	case KEY_UP:
	case 'k':
		if (s->sel > 0)
			s->sel--;
		remember_selection(v, s);
		break;
	case KEY_DOWN:
	case 'j':
		if (s->sel + 1 < shown_rows(v))
			s->sel++;
		remember_selection(v, s);
		break;
	case 's':
		if (v->o.zoom == TOP_ALL) {
			v->o.sort = v->o.sort == TOP_SORT_SELF ? TOP_SORT_TOTAL : TOP_SORT_SELF;
			rebuild = 1;
			s->sel = 0; /* the new first line */
			s->sel_frame = s->sel_thread = TOP_ALL;
		}
		break;
	case 'z':
	case '\n':
	case KEY_ENTER: {
		const struct top_row *r = shown_row(v, s->sel);
		if (r) {
			v->o.zoom = r->frame;
			s->sel = 0;
			s->sel_frame = s->sel_thread = TOP_ALL;
			rebuild = 1;
		}
		break;
	}
	case 27: /* Esc */
	case 'b':
	case KEY_BACKSPACE:
		if (v->o.zoom != TOP_ALL) {
			s->sel_frame = v->o.zoom;
			s->sel_thread = TOP_ALL;
			v->o.zoom = TOP_ALL;
			rebuild = 1;
		}
		break;
	case 't':
	case 'p': {
		const struct top_row *r = shown_row(v, s->sel);
		int64_t *f = key == 't' ? &v->o.tid : &v->o.pid;
		if (*f >= 0) {
			*f = -1;
		} else if (r && r->thread != TOP_ALL) {
			const struct report_thread *th = &v->rep->threads[r->thread];
			*f = key == 't' ? th->tid : th->pid;
			if (*f < 0)
				snprintf(s->msg, sizeof(s->msg), "the process of %s is not known",
				         th->name ? th->name : "?");
		} else {
			snprintf(s->msg, sizeof(s->msg), "select a line of the table first");
		}
		rebuild = 1;
		break;
	}
	case ' ':
		s->paused = !s->paused;
		break;
	case 'w':
		write_shown(v, s);
		break;
	case KEY_RESIZE:
	case ERR:
	default:
		break;
	}
	return rebuild;
}

int top_run_screen(struct top_view *v)
{
	struct top_screen s = {.sel_frame = TOP_ALL, .sel_thread = TOP_ALL};
	uint64_t next = 0;
	long done = 0;
	bool ended = false;
	int rc = LFR_EXIT_OK;

	if (!initscr()) {
		fprintf(stderr, "%s: cannot drive this terminal (TERM=%s)\n", TOP_PROG,
		        getenv("TERM") ? getenv("TERM") : "");
		return LFR_EXIT_FAILURE;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	timeout(100);
	while (!*v->quit) {
		bool rebuild = false;

		if (!s.paused && !ended && lfr_mono_ns() >= next) {
			if (v->iterations > 0 && done >= v->iterations)
				break;
			ended = top_session_ended(v);
			rc = top_view_load(v) && !v->rep ? v->exit_code : LFR_EXIT_OK;
			if (ended && !v->rep) {
				rc = top_session_exit(v) ? top_session_exit(v) : v->exit_code;
				break;
			}
			if (ended)
				snprintf(s.msg, sizeof(s.msg),
				         "the session ended (exit %d): its last samples are shown",
				         top_session_exit(v));
			next = lfr_mono_ns() + v->delay_ns;
			done += !top_session_waiting(v, ended);
			rebuild = true;
		}
		int key = getch();
		if (key != ERR && key != KEY_RESIZE)
			s.msg[0] = 0;
		int k = on_key(v, &s, key);
		if (k < 0)
			continue;
		if (k)
			rebuild = true;
		if (rebuild) {
			if (top_view_build(v)) {
				rc = LFR_EXIT_FAILURE;
				break;
			}
			keep_selection(v, &s);
			remember_selection(v, &s);
		}
		draw(v, &s);
	}
	endwin();
	return rc;
}

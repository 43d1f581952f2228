// SPDX-License-Identifier: GPL-2.0
/*
 * lfr top: a live view of the hottest functions, refreshed every second.  It reads a repository:
 * the lfr service's or lfr record --repository's, or that of a session of its own, which is
 * lfr record --repository run as a child into a temporary directory (the runner, recorder, stack
 * walks and symbols of lfr record, not a second copy of them).  At each refresh the newest chunks
 * that cover the window are dumped to a temporary file, read as lfr report reads a file (every
 * sample with its time), and the samples of the window are aggregated by report/top.c.  On a
 * terminal it is a full-screen ncurses view; otherwise it prints plain tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curses.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "jfr/reader.h"
#include "jfr/repository.h"
#include "lib/outfile.h"
#include "export/labels.h"
#include "report/labels.h"
#include "report/report.h"
#include "report/text_safe.h"
#include "report/top.h"

#define PROG "lfr top"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: lfr top [OPTIONS] [-a | -p PID,... | -t TID,... | -G CGROUP] [-- COMMAND "
	        "[ARGS...]]\n"
	        "       lfr top [OPTIONS] --repository DIR [-p PID] [-t TID]\n\n"
	        "A live view of the hottest functions: the samples of the last seconds (the\n"
	        "window) per function and thread, with their self and total shares, refreshed\n"
	        "every second.  It samples in a session of its own (lfr record --repository into\n"
	        "a temporary directory, removed at the end): every user thread of the machine by\n"
	        "default, or lfr record's targets.  With --repository DIR it reads what a\n"
	        "continuous recording keeps there (the lfr service, lfr record --repository)\n"
	        "instead: no second session.  On a terminal the view is full-screen (keys below);\n"
	        "when standard output is not a terminal, or with --text, each refresh is printed\n"
	        "as a plain table.\n\n"
	        "What to sample (lfr record's targets; -p and -t filter with --repository):\n"
	        "  -- COMMAND [ARGS...]  run COMMAND and sample it (lfr top ends with it)\n"
	        "  -p, --pid PID,...     these processes (with --repository: only process PID)\n"
	        "  -t, --tid TID,...     these threads (with --repository: only thread TID)\n"
	        "  -G, --cgroup CGROUP   the threads of a cgroup v2\n"
	        "  -a, --all             every user thread (the default)\n"
	        "  -F, --freq HZ         samples per second of each thread's CPU time\n"
	        "  -R, --repository DIR  read the chunks of DIR (the service's: %s)\n\n"
	        "View:\n"
	        "  -w, --window TIME     the samples of the last TIME (default 5s; 0: all read)\n"
	        "  -d, --delay TIME      between refreshes (default 1s)\n"
	        "  -n, --iterations N    exit after N refreshes (default: until q or Ctrl-C)\n"
	        "  -l, --lines N         rows of a plain table (default 20)\n"
	        "  -s, --sort KEY        self (default) or total\n"
	        "  -k, --kernel          kernel frames too (a session records kernel stacks);\n"
	        "                        without -k a stack starts at its first user frame and\n"
	        "                        the samples with kernel frames only are counted apart\n"
	        "      --label KEY=VALUE only the processes with that label (lfr record's:\n"
	        "                        service, container, pod, host or a label's name;\n"
	        "                        lfr report -s KEY lists the values)\n"
	        "      --text            plain tables even on a terminal\n\n"
	        "Columns: SELF%% (samples whose leaf is the function) and TOTAL%% (samples whose\n"
	        "stack holds it), as shares of the window's samples; the function; the thread\n"
	        "and the process it ran in.  The status line gives the window's samples, the\n"
	        "rate achieved (the samples shown per second of the window: its length, or from\n"
	        "the start of the chunks read when they cover less) and the samples the\n"
	        "recording lost (in the chunks read).\n\n"
	        "Keys: up/down (or k/j) select a line; s sorts by self or by total; z or Enter\n"
	        "zooms into the selected function: its callers and callees (z again goes down\n"
	        "into the selected one, Esc or b back to the table); t keeps only the selected\n"
	        "line's thread, p its process (again: all); space pauses and resumes; w writes\n"
	        "the chunks shown to lfr-top-DATE-TIME.jfr; q quits.\n\n"
	        "Examples:\n"
	        "  lfr top -k\n"
	        "  lfr top -- ./app --flag\n"
	        "  lfr top --repository /var/lib/lfr/repository\n"
	        "  lfr top -n 3 | head -n 30\n\n"
	        "Exit status: 0; 2 bad usage; 6 the repository could not be read; 8 its chunks\n"
	        "do not parse; 10 chunk files that could not be read were left out of the view\n"
	        "(named on the screen and on stderr); a session that could not start: lfr\n"
	        "record's (3 no module, 4 no permission, 5 no such target).\n",
	        LFR_DEFAULT_REPOSITORY);
}

struct top_view {
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

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * Whether a session of its own has given no sample yet (its first chunk is empty until its first
 * flush, a second or more after the start): no refresh to show or count.
 */
static bool session_waiting(struct top_view *v, bool ended)
{
	if (v->rep && v->rep->ntimed)
		v->sampled = true;
	return v->child > 0 && !ended && !v->sampled;
}

/* Whether the session's recorder ended (reaped here). */
static bool session_ended(struct top_view *v)
{
	if (v->child > 0 && !v->child_done &&
	    waitpid(v->child, &v->child_status, WNOHANG) == v->child)
		v->child_done = true;
	return v->child > 0 && v->child_done;
}

static int session_exit(const struct top_view *v)
{
	if (WIFEXITED(v->child_status))
		return WEXITSTATUS(v->child_status);
	return LFR_EXIT_FAILURE;
}

/*
 * Starts the session: `lfr record --repository DIR` of this very program with the targets given
 * (lfr record's runner and recorder, its stack walks and symbols), its messages into a log.  The
 * recorder ends with lfr top however lfr top ends: a SIGTERM when lfr top is gone (killed with
 * SIGKILL too), its Ctrl-C's way out (it stops its session and writes its last chunk).
 */
static int session_start(struct top_view *v, char **args)
{
	pid_t parent = getpid();

	v->child = fork();
	if (v->child < 0) {
		fprintf(stderr, "%s: fork: %s\n", PROG, strerror(errno));
		return -1;
	}
	if (v->child == 0) {
		/* kept across the exec; a parent gone before it was set is seen by getppid() */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(LFR_EXIT_FAILURE);
		int fd = open(v->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0 || in < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || dup2(in, 0) < 0)
			_exit(LFR_EXIT_IO);
		signal(SIGPIPE, SIG_DFL);
		execv("/proc/self/exe", args);
		fprintf(stderr, "%s: cannot run lfr record: %s\n", PROG, strerror(errno));
		_exit(LFR_EXIT_FAILURE);
	}
	return 0;
}

/* Ends the session (Ctrl-C's way: it drains and writes its last chunk) and waits for it. */
static void session_stop(struct top_view *v)
{
	if (v->child <= 0 || v->child_done)
		return;
	kill(v->child, SIGINT);
	while (waitpid(v->child, &v->child_status, 0) < 0 && errno == EINTR)
		;
	v->child_done = true;
}

/* The session's log on stderr (after the screen is gone). */
static void session_log(const struct top_view *v)
{
	char buf[4096];
	FILE *f = fopen(v->log, "r");

	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f))
		fputs(buf, stderr);
	fclose(f);
}

/* Removes the files of a directory lfr top made, then the directory. */
static void remove_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	rmdir(path);
}

/* The newest chunks of the repository that cover the window, read into v->rep. */
static int load(struct top_view *v)
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

static int build(struct top_view *v)
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

static double pct(uint64_t x, uint64_t of)
{
	return of ? 100.0 * (double)x / (double)of : 0;
}

/* The function's name as the report views give it: object after a native one, [k] for kernel. */
static void func_name(const struct report *rep, uint32_t frame, char *buf, size_t n)
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
static void status_line(const struct top_view *v, char *buf, size_t n)
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

static void row_text(const struct top_view *v, const struct top_row *r, char *buf, size_t n)
{
	char fn[256], th[64], pr[64];

	func_name(v->rep, r->frame, fn, sizeof(fn));
	thread_name(v->rep, r->thread, th, sizeof(th));
	process_name(v->rep, r->thread, pr, sizeof(pr));
	snprintf(buf, n, "%6.2f%% %6.2f%%  %-44s %-20s %s", pct(r->self, v->t.samples),
	         pct(r->total, v->t.samples), fn, th, pr);
	/* the names are the recording's: shown as the text report shows them */
	text_safe_in_place(buf);
}

#define HEADER                                                                                     \
	"  SELF%  TOTAL%  FUNCTION                                     THREAD/TID           "      \
	"PROCESS/PID CONTAINER"

static void print_text(struct top_view *v, FILE *out)
{
	char line[512], when[40] = "?";

	if (!v->rep) {
		fprintf(out, "%s: ", PROG);
		text_safe_put(out, v->err);
		fputs("\n\n", out);
		fflush(out);
		return;
	}
	time_t secs = (time_t)((v->rep->start_nanos + v->t.to_ns) / 1000000000);
	struct tm tm;
	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%H:%M:%S UTC", &tm);
	status_line(v, line, sizeof(line));
	fprintf(out, "%s: ", PROG);
	text_safe_put(out, v->dir);
	fprintf(out, ", up to %s: %s\n%s\n", when, line, HEADER);
	for (size_t i = 0; i < v->t.nrows && (long)i < v->lines; i++) {
		row_text(v, &v->t.rows[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	fprintf(out, "\n");
	fflush(out);
}

/* Sleeps ns, cut short by a signal. */
static void nap(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};

	if (!interrupted)
		nanosleep(&ts, NULL);
}

static int run_text(struct top_view *v)
{
	int rc = LFR_EXIT_OK;

	for (long i = 0, pass = 0; !interrupted && (v->iterations <= 0 || i < v->iterations);
	     i++, pass++) {
		if (pass)
			nap(v->delay_ns);
		/* a session that ended: what it recorded is read once more, then lfr top ends */
		bool ended = session_ended(v);
		int loaded = load(v);
		if (ended && !v->rep)
			return session_exit(v) ? session_exit(v) : v->exit_code;
		rc = loaded && !v->rep ? v->exit_code : LFR_EXIT_OK;
		if (session_waiting(v, ended)) {
			i--; /* no table yet */
			continue;
		}
		if (build(v))
			return LFR_EXIT_FAILURE;
		print_text(v, stdout);
		if (strcmp(v->unreadable, v->told)) {
			if (v->unreadable[0])
				fprintf(stderr, "%s: %s\n", PROG, v->unreadable);
			snprintf(v->told, sizeof(v->told), "%s", v->unreadable);
		}
		if (ferror(stdout) || ended)
			break;
	}
	return rc;
}

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
	snprintf(line, sizeof(line), "%s: %s%s", PROG, v->dir, s->paused ? "  [paused]" : "");
	put_line(y++, line, A_BOLD);
	if (!v->rep) {
		put_line(y++, v->err, 0);
	} else {
		status_line(v, st, sizeof(st));
		put_line(y++, st, 0);
	}
	if (v->unreadable[0])
		put_line(y++, v->unreadable, A_BOLD);
	int bottom = LINES - 2; /* the message line, then the keys */
	if (v->rep && v->o.zoom == TOP_ALL) {
		put_line(y++, HEADER, A_REVERSE);
		size_t room = bottom > y ? (size_t)(bottom - y) : 1;
		size_t first = s->sel >= room ? s->sel - room + 1 : 0; /* the selection in view */
		for (size_t i = first; i < v->t.nrows && y < bottom; i++) {
			row_text(v, &v->t.rows[i], line, sizeof(line));
			put_line(y++, line, i == s->sel ? A_STANDOUT | A_BOLD : 0);
		}
	} else if (v->rep) {
		char fn[256];

		func_name(v->rep, v->o.zoom, fn, sizeof(fn));
		snprintf(line, sizeof(line), "zoom: %s  self %.2f%%  total %.2f%%", fn,
		         pct(v->t.zoom.self, v->t.samples), pct(v->t.zoom.total, v->t.samples));
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
				func_name(v->rep, rows[i].frame, fn + 128, 128);
				snprintf(line, sizeof(line), "%6.2f%%  %s",
				         pct(rows[i].total, v->t.samples), fn + 128);
				put_line(y++, line, base + i == s->sel ? A_STANDOUT | A_BOLD : 0);
			}
			if (!n && y < bottom)
				put_line(y++, "  none", 0);
			func_name(v->rep, v->o.zoom, fn, sizeof(fn));
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
		if (write(of.fd, buf, (size_t)n) != n) {
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

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_screen(struct top_view *v)
{
	struct top_screen s = {.sel_frame = TOP_ALL, .sel_thread = TOP_ALL};
	double next = 0;
	long done = 0;
	bool ended = false;
	int rc = LFR_EXIT_OK;

	if (!initscr()) {
		fprintf(stderr, "%s: cannot drive this terminal (TERM=%s)\n", PROG,
		        getenv("TERM") ? getenv("TERM") : "");
		return LFR_EXIT_FAILURE;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	timeout(100);
	while (!interrupted) {
		bool rebuild = false;

		if (!s.paused && !ended && mono() >= next) {
			if (v->iterations > 0 && done >= v->iterations)
				break;
			ended = session_ended(v);
			rc = load(v) && !v->rep ? v->exit_code : LFR_EXIT_OK;
			if (ended && !v->rep) {
				rc = session_exit(v) ? session_exit(v) : v->exit_code;
				break;
			}
			if (ended)
				snprintf(s.msg, sizeof(s.msg),
				         "the session ended (exit %d): its last samples are shown",
				         session_exit(v));
			next = mono() + (double)v->delay_ns / 1e9;
			done += !session_waiting(v, ended);
			rebuild = true;
		}
		int key = getch();
		if (key != ERR && key != KEY_RESIZE)
			s.msg[0] = 0;
		switch (key) {
		case 'q':
		case 'Q':
			interrupted = 1;
			continue;
		case KEY_UP:
		case 'k':
			if (s.sel > 0)
				s.sel--;
			remember_selection(v, &s);
			break;
		case KEY_DOWN:
		case 'j':
			if (s.sel + 1 < shown_rows(v))
				s.sel++;
			remember_selection(v, &s);
			break;
		case 's':
			if (v->o.zoom == TOP_ALL) {
				v->o.sort =
				    v->o.sort == TOP_SORT_SELF ? TOP_SORT_TOTAL : TOP_SORT_SELF;
				rebuild = true;
				s.sel = 0; /* the new first line */
				s.sel_frame = s.sel_thread = TOP_ALL;
			}
			break;
		case 'z':
		case '\n':
		case KEY_ENTER: {
			const struct top_row *r = shown_row(v, s.sel);
			if (r) {
				v->o.zoom = r->frame;
				s.sel = 0;
				s.sel_frame = s.sel_thread = TOP_ALL;
				rebuild = true;
			}
			break;
		}
		case 27: /* Esc */
		case 'b':
		case KEY_BACKSPACE:
			if (v->o.zoom != TOP_ALL) {
				s.sel_frame = v->o.zoom;
				s.sel_thread = TOP_ALL;
				v->o.zoom = TOP_ALL;
				rebuild = true;
			}
			break;
		case 't':
		case 'p': {
			const struct top_row *r = shown_row(v, s.sel);
			int64_t *f = key == 't' ? &v->o.tid : &v->o.pid;
			if (*f >= 0) {
				*f = -1;
			} else if (r && r->thread != TOP_ALL) {
				const struct report_thread *th = &v->rep->threads[r->thread];
				*f = key == 't' ? th->tid : th->pid;
				if (*f < 0)
					snprintf(s.msg, sizeof(s.msg),
					         "the process of %s is not known",
					         th->name ? th->name : "?");
			} else {
				snprintf(s.msg, sizeof(s.msg), "select a line of the table first");
			}
			rebuild = true;
			break;
		}
		case ' ':
			s.paused = !s.paused;
			break;
		case 'w':
			write_shown(v, &s);
			break;
		case KEY_RESIZE:
		case ERR:
		default:
			break;
		}
		if (rebuild) {
			if (build(v)) {
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

int cmd_top(int argc, char **argv)
{
	enum { O_TEXT = 256, O_LABEL };
	static const struct option opts[] = {
	    {"repository", required_argument, NULL, 'R'},
	    {"window", required_argument, NULL, 'w'},
	    {"delay", required_argument, NULL, 'd'},
	    {"iterations", required_argument, NULL, 'n'},
	    {"lines", required_argument, NULL, 'l'},
	    {"sort", required_argument, NULL, 's'},
	    {"kernel", no_argument, NULL, 'k'},
	    {"pid", required_argument, NULL, 'p'},
	    {"tid", required_argument, NULL, 't'},
	    {"cgroup", required_argument, NULL, 'G'},
	    {"all", no_argument, NULL, 'a'},
	    {"freq", required_argument, NULL, 'F'},
	    {"text", no_argument, NULL, O_TEXT},
	    {"label", required_argument, NULL, O_LABEL},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct top_view v = {.dir = LFR_DEFAULT_REPOSITORY,
	                     .window_ns = 5000000000ull,
	                     .delay_ns = 1000000000ull,
	                     .lines = 20};
	bool text = false, repository = false;
	/* lfr record's command line for a session of its own: at most 9 fixed words + 3 per target
	 */
	char *rec[64 + 16] = {"lfr", "record", "-q"}, *pids = NULL, *tids = NULL;
	int nrec = 3;
	char *end;
	int c, rc;

	top_opts_init(&v.o);
	while ((c = getopt_long(argc, argv, "+R:w:d:n:l:s:kp:t:G:aF:h", opts, NULL)) != -1) {
		switch (c) {
		case 'R':
			v.dir = optarg;
			repository = true;
			break;
		case 'G':
		case 'a':
		case 'F':
			if (nrec + 2 >= 64) {
				fprintf(stderr, "%s: too many targets\n", PROG);
				return LFR_EXIT_USAGE;
			}
			rec[nrec++] = c == 'G' ? "-G" : c == 'a' ? "-a" : "-F";
			if (optarg)
				rec[nrec++] = optarg;
			break;
		case 'p':
		case 't':
			if (c == 'p')
				pids = optarg;
			else
				tids = optarg;
			break;
		case 'w':
			if (!strcmp(optarg, "0"))
				v.window_ns = 0;
			else if (cli_parse_duration(PROG, "--window", optarg, 1000000,
			                            366 * 86400000000000ull, &v.window_ns) < 0)
				return LFR_EXIT_USAGE;
			break;
		case 'd':
			if (cli_parse_duration(PROG, "--delay", optarg, 10000000, 3600000000000ull,
			                       &v.delay_ns) < 0)
				return LFR_EXIT_USAGE;
			break;
		case 'n':
		case 'l': {
			errno = 0;
			long x = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || x < 1 || x > INT_MAX) {
				fprintf(stderr, "%s: -%c takes a number from 1 to %d, not '%s'\n",
				        PROG, c, INT_MAX, optarg);
				return LFR_EXIT_USAGE;
			}
			if (c == 'n')
				v.iterations = x;
			else
				v.lines = x;
			break;
		}
		case 's':
			if (!strcmp(optarg, "self"))
				v.o.sort = TOP_SORT_SELF;
			else if (!strcmp(optarg, "total"))
				v.o.sort = TOP_SORT_TOTAL;
			else {
				fprintf(stderr, "%s: --sort is self or total, not '%s'\n", PROG,
				        optarg);
				return LFR_EXIT_USAGE;
			}
			break;
		case 'k':
			if (!v.o.kernel)
				rec[nrec++] = "-k";
			v.o.kernel = true;
			break;
		case O_TEXT:
			text = true;
			break;
		case O_LABEL: {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || !eq[1]) {
				fprintf(stderr,
				        "%s: --label takes KEY=VALUE (service=nginx, "
				        "container.id=ID, env=prod), not '%s'\n",
				        PROG, optarg);
				return LFR_EXIT_USAGE;
			}
			*eq = 0;
			v.o.label_name = optarg;
			v.o.label_value = eq + 1;
			break;
		}
		case 'h':
			usage(stdout);
			return LFR_EXIT_OK;
		default:
			fprintf(stderr, "Run 'lfr top --help' for the options.\n");
			return LFR_EXIT_USAGE;
		}
	}
	if (repository) {
		/* the threads shown: one process, one thread */
		const char *ids[2] = {pids, tids};
		int64_t *f[2] = {&v.o.pid, &v.o.tid};
		for (int i = 0; i < 2; i++) {
			if (!ids[i])
				continue;
			errno = 0;
			long x = strtol(ids[i], &end, 10);
			if (errno || end == ids[i] || *end || x < 1 || x > INT_MAX) {
				fprintf(stderr,
				        "%s: with --repository, -%c takes one id, not '%s'\n", PROG,
				        i ? 't' : 'p', ids[i]);
				return LFR_EXIT_USAGE;
			}
			*f[i] = x;
		}
		if (optind < argc || nrec > 3 + v.o.kernel) {
			fprintf(
			    stderr,
			    "%s: --repository DIR shows what a recording keeps there: no command, "
			    "-G, -a or -F\n",
			    PROG);
			return LFR_EXIT_USAGE;
		}
	} else {
		if (pids) {
			rec[nrec++] = "-p";
			rec[nrec++] = pids;
		}
		if (tids) {
			rec[nrec++] = "-t";
			rec[nrec++] = tids;
		}
		bool target = optind < argc || pids || tids;
		for (int i = 3; i < nrec; i++)
			target |= !strcmp(rec[i], "-a") || !strcmp(rec[i], "-G");
		if (!target) /* system-wide by default, as perf top */
			rec[nrec++] = "-a";
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(v.tmpdir, sizeof(v.tmpdir), "%s/lfr-top-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(v.tmpdir)) {
		fprintf(stderr, "%s: cannot create a directory in %s: %s\n", PROG,
		        tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return LFR_EXIT_IO;
	}
	snprintf(v.dump, sizeof(v.dump), "%s/window.jfr", v.tmpdir);
	char session[PATH_MAX + 16], chunk_age[32], max_age[32];
	snprintf(session, sizeof(session), "%s/session", v.tmpdir);
	snprintf(v.log, sizeof(v.log), "%s/record.log", v.tmpdir);
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!repository) {
		/* a chunk a second, kept for the window (and a chunk's age more) */
		snprintf(chunk_age, sizeof(chunk_age), "1s");
		snprintf(
		    max_age, sizeof(max_age), "%" PRIu64 "ms",
		    (uint64_t)((v.window_ns ? v.window_ns : 600000000000ull) / 1000000 + 2000));
		char *fixed[] = {"--repository", session,     "--chunk-age",
		                 chunk_age,      "--max-age", max_age};
		for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			rec[nrec++] = fixed[i];
		int ncmd = argc - optind;
		char **args = calloc((size_t)(nrec + ncmd + 2), sizeof(*args));
		if (!args) {
			fprintf(stderr, "%s: out of memory\n", PROG);
			remove_dir(v.tmpdir);
			return LFR_EXIT_FAILURE;
		}
		memcpy(args, rec, (size_t)nrec * sizeof(*args));
		if (ncmd) {
			args[nrec] = "--";
			memcpy(args + nrec + 1, argv + optind, (size_t)ncmd * sizeof(*args));
		}
		v.dir = session;
		rc = session_start(&v, args);
		free(args);
		if (rc) {
			remove_dir(v.tmpdir);
			return LFR_EXIT_FAILURE;
		}
	}
	bool screen = !text && isatty(STDOUT_FILENO);
	rc = screen ? run_screen(&v) : run_text(&v);
	/* what was shown lacked chunks it could not read: said on the screen (then again once it
	 * is gone) or on stderr, and in the exit status */
	if (v.partial && rc == LFR_EXIT_OK) {
		rc = LFR_EXIT_PARTIAL;
		if (screen && v.seen[0])
			fprintf(stderr, "%s: %s\n", PROG, v.seen);
	}
	session_stop(&v);
	if (v.child > 0 && (rc || session_exit(&v)))
		session_log(&v);
	top_free(&v.t);
	report_free(v.rep);
	unlink(v.dump);
	remove_dir(session);
	remove_dir(v.tmpdir);
	return rc;
}

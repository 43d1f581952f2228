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
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "cli/top.h"

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

enum { O_TEXT = 256, O_LABEL };

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* The command line, beside the view's options: lfr record's words for a session of its own. */
struct top_args {
	/* lfr record's command line: at most 9 fixed words + 3 per target */
	char *rec[64 + 16];
	int nrec;
	char *pids, *tids;
	bool text, repository;
};

/* A number from 1 to INT_MAX for -n and -l, into *x; else says so and returns -1. */
static int count_opt(int c, const char *arg, long *x)
{
	char *end;

	errno = 0;
	*x = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *x < 1 || *x > INT_MAX) {
		fprintf(stderr, "%s: -%c takes a number from 1 to %d, not '%s'\n", TOP_PROG, c,
		        INT_MAX, arg);
		return -1;
	}
	return 0;
}

/* --label KEY=VALUE, into the view's filter (arg is cut at its '='). */
static int label_opt(struct top_view *v, char *arg)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1]) {
		fprintf(stderr,
		        "%s: --label takes KEY=VALUE (service=nginx, "
		        "container.id=ID, env=prod), not '%s'\n",
		        TOP_PROG, arg);
		return -1;
	}
	*eq = 0;
	v->o.label_name = arg;
	v->o.label_value = eq + 1;
	return 0;
}

/* The view's options: -w, -d, -n, -l, -s, --label; -1 when taken, else the exit status. */
static int view_opt(struct top_view *v, int c, char *arg)
{
	long x;

	switch (c) {
	case 'w':
		if (!strcmp(arg, "0"))
			v->window_ns = 0;
		else if (cli_parse_duration(TOP_PROG, "--window", arg, 1000000,
		                            366 * 86400000000000ull, &v->window_ns) < 0)
			return LFR_EXIT_USAGE;
		return -1;
	case 'd':
		if (cli_parse_duration(TOP_PROG, "--delay", arg, 10000000, 3600000000000ull,
		                       &v->delay_ns) < 0)
			return LFR_EXIT_USAGE;
		return -1;
	case 'n':
	case 'l':
		if (count_opt(c, arg, &x))
			return LFR_EXIT_USAGE;
		if (c == 'n')
			v->iterations = x;
		else
			v->lines = x;
		return -1;
	case 's':
		if (!strcmp(arg, "self"))
			v->o.sort = TOP_SORT_SELF;
		else if (!strcmp(arg, "total"))
			v->o.sort = TOP_SORT_TOTAL;
		else {
			fprintf(stderr, "%s: --sort is self or total, not '%s'\n", TOP_PROG, arg);
			return LFR_EXIT_USAGE;
		}
		return -1;
	default:
		return label_opt(v, arg) ? LFR_EXIT_USAGE : -1;
	}
}

/* One option of getopt_long's; -1 when taken, else the exit status. */
static int top_opt(struct top_view *v, struct top_args *a, int c, char *arg)
{
	switch (c) {
	case 'R':
		v->dir = arg;
		a->repository = true;
		return -1;
	case 'G':
	case 'a':
	case 'F':
		if (a->nrec + 2 >= 64) {
			fprintf(stderr, "%s: too many targets\n", TOP_PROG);
			return LFR_EXIT_USAGE;
		}
		a->rec[a->nrec++] = c == 'G' ? "-G" : c == 'a' ? "-a" : "-F";
		if (arg)
			a->rec[a->nrec++] = arg;
		return -1;
	case 'p':
		a->pids = arg;
		return -1;
	case 't':
		a->tids = arg;
		return -1;
	case 'k':
		if (!v->o.kernel)
			a->rec[a->nrec++] = "-k";
		v->o.kernel = true;
		return -1;
	case O_TEXT:
		a->text = true;
		return -1;
	case 'w':
	case 'd':
	case 'n':
	case 'l':
	case 's':
	case O_LABEL:
		return view_opt(v, c, arg);
	case 'h':
		usage(stdout);
		return LFR_EXIT_OK;
	default:
		fprintf(stderr, "Run 'lfr top --help' for the options.\n");
		return LFR_EXIT_USAGE;
	}
}

/*
 * What is shown: with --repository, one process and one thread of what the recording keeps;
 * else the targets of the session (system-wide by default, as perf top).  -1, or the exit status.
 */
static int top_targets(struct top_view *v, struct top_args *a, bool command)
{
	if (a->repository) {
		/* the threads shown: one process, one thread */
		const char *ids[2] = {a->pids, a->tids};
		int64_t *f[2] = {&v->o.pid, &v->o.tid};
		char *end;
		for (int i = 0; i < 2; i++) {
			if (!ids[i])
				continue;
			errno = 0;
			long x = strtol(ids[i], &end, 10);
			if (errno || end == ids[i] || *end || x < 1 || x > INT_MAX) {
				fprintf(stderr,
				        "%s: with --repository, -%c takes one id, not '%s'\n",
				        TOP_PROG, i ? 't' : 'p', ids[i]);
				return LFR_EXIT_USAGE;
			}
			*f[i] = x;
		}
		if (command || a->nrec > 3 + v->o.kernel) {
			fprintf(
			    stderr,
			    "%s: --repository DIR shows what a recording keeps there: no command, "
			    "-G, -a or -F\n",
			    TOP_PROG);
			return LFR_EXIT_USAGE;
		}
		return -1;
	}
	if (a->pids) {
		a->rec[a->nrec++] = "-p";
		a->rec[a->nrec++] = a->pids;
	}
	if (a->tids) {
		a->rec[a->nrec++] = "-t";
		a->rec[a->nrec++] = a->tids;
	}
	bool target = command || a->pids || a->tids;
	for (int i = 3; i < a->nrec; i++)
		target |= !strcmp(a->rec[i], "-a") || !strcmp(a->rec[i], "-G");
	if (!target) /* system-wide by default, as perf top */
		a->rec[a->nrec++] = "-a";
	return -1;
}

/*
 * A session of its own: lfr record --repository SESSION, a chunk a second, kept for the window
 * (and a chunk's age more), with the command cmd (ncmd words) if any; 0, or the exit status.
 */
static int top_start(struct top_view *v, struct top_args *a, char *session, char **cmd, int ncmd)
{
	char chunk_age[32], max_age[32];
	int rc;

	snprintf(chunk_age, sizeof(chunk_age), "1s");
	snprintf(max_age, sizeof(max_age), "%" PRIu64 "ms",
	         (uint64_t)((v->window_ns ? v->window_ns : 600000000000ull) / 1000000 + 2000));
	char *fixed[] = {"--repository", session, "--chunk-age", chunk_age, "--max-age", max_age};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		a->rec[a->nrec++] = fixed[i];
	char **args = calloc((size_t)(a->nrec + ncmd + 2), sizeof(*args));
	if (!args) {
		fprintf(stderr, "%s: out of memory\n", TOP_PROG);
		top_remove_dir(v->tmpdir);
		return LFR_EXIT_FAILURE;
	}
	memcpy(args, a->rec, (size_t)a->nrec * sizeof(*args));
	if (ncmd) {
		args[a->nrec] = "--";
		memcpy(args + a->nrec + 1, cmd, (size_t)ncmd * sizeof(*args));
	}
	v->dir = session;
	rc = top_session_start(v, args);
	free(args);
	if (rc) {
		top_remove_dir(v->tmpdir);
		return LFR_EXIT_FAILURE;
	}
	return 0;
}

/* The view until it ends, then the session stopped and everything removed; the exit status. */
static int top_show(struct top_view *v, bool text, const char *session)
{
	bool screen = !text && isatty(STDOUT_FILENO);
	int rc = screen ? top_run_screen(v) : top_run_text(v);

	/* what was shown lacked chunks it could not read: said on the screen (then again once it
	 * is gone) or on stderr, and in the exit status */
	if (v->partial && rc == LFR_EXIT_OK) {
		rc = LFR_EXIT_PARTIAL;
		if (screen && v->seen[0])
			fprintf(stderr, "%s: %s\n", TOP_PROG, v->seen);
	}
	top_session_stop(v);
	if (v->child > 0 && (rc || top_session_exit(v)))
		top_session_log(v);
	top_free(&v->t);
	report_free(v->rep);
	unlink(v->dump);
	top_remove_dir(session);
	top_remove_dir(v->tmpdir);
	return rc;
}

int cmd_top(int argc, char **argv)
{
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
	struct top_view v = {.quit = &interrupted,
	                     .dir = LFR_DEFAULT_REPOSITORY,
	                     .window_ns = 5000000000ull,
	                     .delay_ns = 1000000000ull,
	                     .lines = 20};
	struct top_args a = {.rec = {"lfr", "record", "-q"}, .nrec = 3};
	char session[PATH_MAX + 16];
	int c, rc;

	top_opts_init(&v.o);
	while ((c = getopt_long(argc, argv, "+R:w:d:n:l:s:kp:t:G:aF:h", opts, NULL)) != -1)
		if ((rc = top_opt(&v, &a, c, optarg)) >= 0)
			return rc;
	if ((rc = top_targets(&v, &a, optind < argc)) >= 0)
		return rc;
	const char *tmp = getenv("TMPDIR");
	snprintf(v.tmpdir, sizeof(v.tmpdir), "%s/lfr-top-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(v.tmpdir)) {
		fprintf(stderr, "%s: cannot create a directory in %s: %s\n", TOP_PROG,
		        tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return LFR_EXIT_IO;
	}
	snprintf(v.dump, sizeof(v.dump), "%s/window.jfr", v.tmpdir);
	snprintf(session, sizeof(session), "%s/session", v.tmpdir);
	snprintf(v.log, sizeof(v.log), "%s/record.log", v.tmpdir);
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!a.repository && (rc = top_start(&v, &a, session, argv + optind, argc - optind)))
		return rc;
	return top_show(&v, a.text, session);
}

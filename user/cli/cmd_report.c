// SPDX-License-Identifier: GPL-2.0
/* lfr report: top functions, threads and lost samples of a JFR file; folded stacks; HTML flame
 * graph. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "lib/outfile.h"
#include "export/labels.h"
#include "report/diff.h"
#include "report/html_views.h"
#include "report/report.h"
#include "report/text_safe.h"

/* The options from -j on, the examples and the exit statuses: report_usage()'s end. */
static void report_usage_end(FILE *out)
{
	fprintf(
	    out,
	    "  -j, --jobs N         chunks read in parallel (default: one per CPU)\n"
	    "      --diff           compare two recordings, BASE.jfr then NEW.jfr: per function\n"
	    "                       its self and total share of all samples in each and the\n"
	    "                       change in percentage points, largest first (and the change\n"
	    "                       of CPU time when both give their sampling period); with\n"
	    "                       html the flame graph of NEW coloured by the change (red\n"
	    "                       grew, blue shrank); with collapsed `stack BASE NEW` lines\n"
	    "                       for flamegraph.pl, BASE scaled to NEW's total; with pprof\n"
	    "                       one profile of the change (NEW's samples and BASE's\n"
	    "                       negated, scaled to NEW's total, label pprof::base), as\n"
	    "                       go tool pprof -normalize -diff_base builds it; the filters\n"
	    "                       apply to both; not with speedscope, summary or --threads;\n"
	    "                       BASE and NEW must be two files\n"
	    "      --no-debuginfod  do not fetch debug files from the debuginfod servers of\n"
	    "                       DEBUGINFOD_URLS for frames the recording left unnamed\n"
	    "                       (by default they are, after /usr/lib/debug and\n"
	    "                       .gnu_debuglink; cached in DEBUGINFOD_CACHE_PATH; each\n"
	    "                       query given up after DEBUGINFOD_MAXTIME seconds in all\n"
	    "                       (default 30), after DEBUGINFOD_TIMEOUT seconds below\n"
	    "                       100 KiB/s (default 10) or past DEBUGINFOD_MAXSIZE bytes\n"
	    "                       (default 1 GiB); a file that is not ELF or has another\n"
	    "                       build-id is removed from the cache; after a failure no\n"
	    "                       other object is asked for)\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Examples:\n"
	    "  lfr report rec.jfr\n"
	    "  lfr report --thread worker --from 10s --to 20s rec.jfr\n"
	    "  lfr report --format html -o rec.html rec.jfr\n"
	    "  lfr report --format collapsed rec.jfr | flamegraph.pl > rec.svg\n"
	    "  lfr report --format pprof -o rec.pb.gz rec.jfr && go tool pprof -top rec.pb.gz\n"
	    "  lfr report --format speedscope -o rec.speedscope.json rec.jfr\n"
	    "  lfr report --event jdk.CPUTimeSample --process 4242 rec.jfr\n"
	    "  lfr report --off-cpu --thread worker rec.jfr\n"
	    "  lfr report -s span rec.jfr; lfr report --span 00f067aa0ba902b7 rec.jfr\n"
	    "  lfr report --diff before.jfr after.jfr\n"
	    "  lfr report --diff --format html -o diff.html before.jfr after.jfr\n"
	    "  lfr report --diff -f pprof -o diff.pb.gz before.jfr after.jfr && go tool pprof "
	    "-top diff.pb.gz\n"
	    "\n"
	    "Frames lfr could not name while recording (\"0x...\") are named from the object's\n"
	    "file or debug files, by its build-id; the objects that stay unnamed are listed\n"
	    "with the reason (in the text report, else on standard error).\n"
	    "\n"
	    "A malformed file stops the report with an error naming the file offset; what was "
	    "read\n"
	    "before it (complete chunks) is still shown.  Exit status: 0 success, 2 bad command\n"
	    "line (also --diff of one file twice), 6 file not readable or output not\n"
	    "writable, 8 malformed file, 9 (--diff) a recording with no samples to compare.\n"
	    "See Documentation/report.md.\n");
}

static void report_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: lfr report [OPTIONS] [FILE.jfr]\n"
	    "       lfr report --diff [OPTIONS] BASE.jfr NEW.jfr\n"
	    "\n"
	    "FILE.jfr defaults to lfr.jfr, lfr record's default output.\n\n"
	    "Reads a JFR recording (written by lfr, a JVM, async-profiler, ...) and shows where "
	    "the\n"
	    "samples went: top functions by self and total samples, samples per thread and the\n"
	    "lost-sample summary; or writes folded stacks or an interactive HTML flame graph.\n"
	    "\n"
	    "Options:\n"
	    "  -f, --format FMT     text (default), collapsed (folded stacks for flamegraph.pl "
	    "and\n"
	    "                       speedscope), html (one self-contained page: flame graph,\n"
	    "                       timeline, top functions; without --off-cpu, --wall,\n"
	    "                       --latency, --event or --value it holds the CPU samples and,\n"
	    "                       when the recording has them, the off-CPU time and the\n"
	    "                       wall-clock samples, with buttons that switch between them), "
	    "pprof\n"
	    "                       (gzipped profile.proto for `go tool pprof`), speedscope "
	    "(JSON for\n"
	    "                       speedscope, samples in time order), summary (event counts "
	    "and\n"
	    "                       sizes per type, like `jfr summary`)\n"
	    "  -o, --output FILE    write to FILE instead of standard output (-: standard\n"
	    "                       output; not the input file; mode 0640, replaced only\n"
	    "                       once the report is complete; a FILE that is no regular\n"
	    "                       file, or another user's in a sticky directory such as\n"
	    "                       /tmp, is refused)\n"
	    "  -e, --event TYPE     aggregate the stack traces of events of TYPE (repeatable; "
	    "default\n"
	    "                       jdk.ExecutionSample; 'all' = every type with a stackTrace "
	    "field,\n"
	    "                       e.g. profiler.WallClockSample, jdk.CPUTimeSample, lfr.* "
	    "samples)\n"
	    "  -t, --thread T       only threads whose OS thread id is T, or whose name contains "
	    "T\n"
	    "                       (repeatable: any of them)\n"
	    "  -p, --process P      only processes whose pid is P, or whose name contains P\n"
	    "                       (repeatable)\n"
	    "      --from TIME      only samples at or after TIME since the recording start\n"
	    "      --to TIME        only samples before TIME since the recording start\n"
	    "                       (TIME: 1.5, 1.5s, 200ms, 3us, 10ns, 2m, 1h; the start\n"
	    "                       is the earliest chunk's, wherever it is in the file)\n"
	    "      --value FIELD    sum the integer event field FIELD (e.g. weight) instead of\n"
	    "                       counting events (refused when no sample event has it)\n"
	    "      --off-cpu        off-CPU time instead of CPU samples: the lfr.OffCpu events\n"
	    "                       of lfr record --off-cpu by their duration in ns, by stack\n"
	    "                       (the kernel stack the thread left the CPU with, then its\n"
	    "                       user stack) and thread (--event lfr.OffCpu --value duration);\n"
	    "                       pprof's sample type off-cpu/nanoseconds, speedscope's unit\n"
	    "                       nanoseconds; in text also \"Off-CPU by state\": the ns\n"
	    "                       by why the thread left the CPU (sleeping,\n"
	    "                       uninterruptible, preempted, idle, other)\n"
	    "      --wall           wall-clock samples of lfr record --wall: on the CPU and\n"
	    "                       off it (profiler.WallClockSample; of files of earlier\n"
	    "                       lfr versions, the CPU samples and jdk.NativeMethodSample\n"
	    "                       together); pprof's sample types samples/count and\n"
	    "                       wall/nanoseconds (without it cpu/nanoseconds), speedscope's\n"
	    "                       unit nanoseconds of wall-clock time; in text also \"Samples\n"
	    "                       by state\": the samples by thread state (STATE_RUNNABLE, ...)\n"
	    "      --latency        sampling latency instead of CPU samples: the\n"
	    "                       lfr.SamplingLatency events of lfr record --latency by their\n"
	    "                       duration in ns (from a tick in the kernel until the thread\n"
	    "                       returned to user space), by stack and thread, and in text\n"
	    "                       the longest ones each with its kernel stack\n"
	    "      --span ID        only the samples that ran in OpenTelemetry span ID (16 hex\n"
	    "                       digits; the lfr.TraceContext of lfr record; repeatable)\n"
	    "      --trace ID       only the samples that ran in trace ID (32 hex digits;\n"
	    "                       repeatable; with --span: either)\n"
	    "  -n, --top N          rows in the top lists (default 20)\n"
	    "  -s, --sort KEY       text: 'function' (the default: top functions, each with its\n"
	    "                       object), 'dso' (top objects: libraries, executables, the\n"
	    "                       kernel; with --diff the changes of the objects' shares),\n"
	    "                       'span' (top spans by samples, each with its trace and\n"
	    "                       attributes), 'trace' (top traces by samples), or a label\n"
	    "                       of the samples' processes: service, container, pod, host\n"
	    "                       (service.name, container.id, k8s.pod.uid, host.name) or\n"
	    "                       any other (lfr record --label KEY=VALUE)\n"
	    "      --threads        text: each top thread's top functions; collapsed/html: one\n"
	    "                       root frame per thread; speedscope: one profile per\n"
	    "                       thread (not with summary and pprof)\n");
	report_usage_end(out);
}

static int add_filter(const char **v, int *n, const char *arg, const char *what)
{
	if (*n >= REPORT_MAX_FILTERS) {
		fprintf(stderr, "lfr report: at most %d %s filters\n", REPORT_MAX_FILTERS, what);
		return -1;
	}
	if (!*arg) {
		fprintf(stderr, "lfr report: empty %s filter\n", what);
		return -1;
	}
	v[(*n)++] = arg;
	return 0;
}

static int event_opt(const char *flag, const char *arg, void *dst)
{
	struct report_opts *o = dst;

	return add_filter(o->events, &o->nevents, arg, flag);
}

static int thread_opt(const char *flag, const char *arg, void *dst)
{
	struct report_opts *o = dst;

	return add_filter(o->threads, &o->nthreads, arg, flag);
}

static int process_opt(const char *flag, const char *arg, void *dst)
{
	struct report_opts *o = dst;

	return add_filter(o->processes, &o->nprocesses, arg, flag);
}

/* --from, --to: seconds since the recording's start, into an int64_t of ns */
static int time_opt(const char *flag, const char *arg, void *dst)
{
	int64_t ns = report_parse_duration(arg);

	(void)flag;
	if (ns < 0) {
		fprintf(stderr,
		        "lfr report: bad time '%s': give seconds since the recording start, e.g. "
		        "1.5, 1500ms or 2m\n",
		        arg);
		return -1;
	}
	*(int64_t *)dst = ns;
	return 0;
}

/* --sort: function (sym), dso (object), span, trace or a label's name, into the report options */
static int sort_opt(const char *flag, const char *arg, void *dst)
{
	struct report_opts *o = dst;

	if (!strcmp(arg, "dso") || !strcmp(arg, "object")) {
		o->sort_objects = true;
	} else if (!strcmp(arg, "span")) {
		o->sort_ctx = REPORT_BY_SPAN;
	} else if (!strcmp(arg, "trace")) {
		o->sort_ctx = REPORT_BY_TRACE;
	} else if (lfr_label_key_valid(arg) && strcmp(arg, "function") && strcmp(arg, "sym")) {
		o->sort_label = arg;
	} else if (strcmp(arg, "function") && strcmp(arg, "sym")) {
		fprintf(stderr,
		        "lfr report: bad %s '%s': give function, dso, span, trace or a label "
		        "(service, container, pod, host, or a label's name)\n",
		        flag, arg);
		return -1;
	}
	return 0;
}

/* --span, --trace: DIGITS hex digits (W3C ids, as lfr.types.TraceContext writes them) */
static int id_opt(const char *flag, const char *arg, const char **v, int *n, size_t digits)
{
	if (strlen(arg) != digits || strspn(arg, "0123456789abcdefABCDEF") != digits) {
		fprintf(stderr, "lfr report: bad %s '%s': give the id as %zu hex digits\n", flag,
		        arg, digits);
		return -1;
	}
	return add_filter(v, n, arg, flag);
}

static int span_opt(const char *flag, const char *arg, void *dst)
{
	struct report_opts *o = dst;

	return id_opt(flag, arg, o->spans, &o->nspans, 16);
}

static int trace_opt(const char *flag, const char *arg, void *dst)
{
	struct report_opts *o = dst;

	return id_opt(flag, arg, o->traces, &o->ntraces, 32);
}

static int count_opt(const char *arg, int *dst, long max, const char *what)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || v <= 0 || v > max) {
		fprintf(stderr, "lfr report: bad %s '%s': give a positive count\n", what, arg);
		return -1;
	}
	*dst = (int)v;
	return 0;
}

static int top_opt(const char *flag, const char *arg, void *dst)
{
	return count_opt(arg, dst, 1000000, flag);
}

static int jobs_opt(const char *flag, const char *arg, void *dst)
{
	return count_opt(arg, dst, 1024, flag);
}

/* --help prints the usage; a bad option, after getopt's message, only where to look */
static void usage_or_hint(FILE *out)
{
	if (out == stdout)
		report_usage(stdout);
	else
		fprintf(stderr, "run 'lfr report --help' for the options\n");
}

/*
 * Ends a view written to OUT: to OUTPUT through OF (put in place only when everything was
 * written), or to standard output.  Returns the exit status: STATUS, or the write's failure.
 */
static int finish_output(FILE *out, const char *output, struct lfr_outfile *of, int failed,
                         int status)
{
	char err[512];

	if (fflush(out) || ferror(out)) {
		fprintf(stderr, "lfr report: writing %s: %s\n", output ? output : "standard output",
		        strerror(errno));
		failed = -1;
		status = LFR_EXIT_IO;
	} else if (failed) {
		status = LFR_EXIT_FAILURE;
	}
	if (!output)
		return status;
	int kept = lfr_outfile_fclose(of, out, !failed, err, sizeof(err));
	if (kept < 0) {
		fprintf(stderr, "lfr report: %s\n", err);
		status = LFR_EXIT_IO;
	} else if (!kept) {
		fprintf(stderr, "lfr report: wrote %s\n", output);
	}
	return status;
}

/* Reads one side of a diff: 0, or an exit status after saying why. */
static int diff_read(const char *path, const struct report_opts *o, bool debuginfod,
                     struct jfr_reader **rp, struct report **repp)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	struct report *rep = NULL;

	*rp = r;
	*repp = NULL;
	if (!r) {
		fprintf(stderr, "lfr report: %s\n", err);
		return LFR_EXIT_IO;
	}
	int rc = report_read(r, o, &rep);
	*repp = rep;
	if (rc < 0) {
		/* a partial recording would show changes that did not happen */
		fprintf(stderr, "lfr report: %s\n", r->err);
		return LFR_EXIT_FORMAT;
	}
	/* frames the recording left unnamed, as for one recording */
	if (report_name_frames(rep, NULL, debuginfod)) {
		fprintf(stderr, "lfr report: out of memory naming frames\n");
		return LFR_EXIT_FAILURE;
	}
	if (rep->unnamed) {
		fprintf(stderr, "lfr report: %s: ", path);
		text_safe_put(stderr, rep->unnamed);
		fputc('\n', stderr);
	}
	bool any_selected = false;
	const char *types = report_stack_types(rep, &any_selected);
	if (o->value_field && any_selected && !report_value_field_found(rep)) {
		fprintf(stderr, "lfr report: --value %s: no event of %s in %s has a field %s\n",
		        o->value_field, rep->selected, path, o->value_field);
		return LFR_EXIT_USAGE;
	}
	if (!rep->total) {
		if (!any_selected)
			fprintf(stderr, "lfr report: %s: no %s events to compare%s%s%s\n", path,
			        rep->selected, types && *types ? " (event types with stacks: " : "",
			        types && *types ? types : "",
			        types && *types ? "; see --event)" : "");
		else
			fprintf(stderr, "lfr report: %s: no samples to compare%s\n", path,
			        rep->matched_events < rep->sample_events
			            ? " (none pass the filters)"
			            : "");
		return LFR_EXIT_NODATA;
	}
	return LFR_EXIT_OK;
}

/* lfr report --diff BASE NEW */
static int report_diff(struct report_opts *o, bool debuginfod, const char *format,
                       const char *output, int nfiles, char **files)
{
	bool html = !strcmp(format, "html"), collapsed = !strcmp(format, "collapsed");
	bool pprof = !strcmp(format, "pprof");
	char err[512];

	if (nfiles != 2) {
		fprintf(stderr, "lfr report: --diff compares two recordings: lfr report --diff "
		                "BASE.jfr NEW.jfr (see --help)\n");
		return LFR_EXIT_USAGE;
	}
	if (!html && !collapsed && !pprof && strcmp(format, "text")) {
		fprintf(stderr,
		        "lfr report: --diff writes text, collapsed, html or pprof, not '%s'\n",
		        format);
		return LFR_EXIT_USAGE;
	}
	if (o->sort_ctx) {
		fprintf(stderr, "lfr report: --diff compares functions or objects, not spans: "
		                "select a span's samples of each with --span\n");
		return LFR_EXIT_USAGE;
	}
	if (o->sort_label) {
		fprintf(stderr,
		        "lfr report: --diff compares functions or objects (-s dso), not the "
		        "values of a label (-s %s)\n",
		        o->sort_label);
		return LFR_EXIT_USAGE;
	}
	if (o->thread_roots) {
		fprintf(stderr, "lfr report: --diff compares functions, not threads: the threads "
		                "of two recordings are not the same; select them with --thread\n");
		return LFR_EXIT_USAGE;
	}
	if (o->from_ns >= 0 && o->to_ns >= 0 && o->to_ns <= o->from_ns) {
		fprintf(stderr, "lfr report: --to must be later than --from\n");
		return LFR_EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++)
		if (output && lfr_outfile_same(output, files[i], err, sizeof(err))) {
			fprintf(stderr, "lfr report: %s\n", err);
			return LFR_EXIT_USAGE;
		}
	struct stat st[2];
	if (!stat(files[0], &st[0]) && !stat(files[1], &st[1]) && st[0].st_dev == st[1].st_dev &&
	    st[0].st_ino == st[1].st_ino) {
		fprintf(
		    stderr,
		    "lfr report: --diff: BASE %s and NEW %s are the same file: nothing can have "
		    "changed; give two recordings\n",
		    files[0], files[1]);
		return LFR_EXIT_USAGE;
	}
	o->timeline = html;
	struct jfr_reader *r[2] = {NULL, NULL};
	struct report *rep[2] = {NULL, NULL};
	struct lfr_outfile of = LFR_OUTFILE_INIT;
	int status = LFR_EXIT_OK;
	/* the output is checked before the reading: a target refused is refused at once */
	if (output && lfr_outfile_open(&of, output, 0, 0640, err, sizeof(err))) {
		fprintf(stderr, "lfr report: %s\n", err);
		return LFR_EXIT_IO;
	}
	for (int i = 0; i < 2 && status == LFR_EXIT_OK; i++)
		status = diff_read(files[i], o, debuginfod, &r[i], &rep[i]);
	if (status == LFR_EXIT_OK) {
		FILE *out = stdout;
		int failed = 0;

		if (output && !(out = lfr_outfile_fdopen(&of))) {
			fprintf(stderr, "lfr report: cannot write %s: %s\n", output,
			        strerror(errno));
			status = LFR_EXIT_IO;
			goto done;
		}
		if (html)
			report_print_html_diff(rep[0], rep[1], o, out);
		else if (collapsed)
			failed = report_print_diff_collapsed(rep[0], rep[1], o, out);
		else if (pprof)
			failed = report_print_pprof_diff(rep[0], rep[1], o, out);
		else
			report_print_diff_text(rep[0], rep[1], o, out);
		status = finish_output(out, output, &of, failed, status);
	}
done:
	lfr_outfile_abort(&of);
	for (int i = 0; i < 2; i++) {
		report_free(rep[i]);
		if (r[i])
			jfr_close(r[i]);
	}
	return status;
}

/* --off-cpu, --latency and --wall as the events and value they stand for; -1 when they clash. */
static int view_opts(struct report_opts *o)
{
	if (o->off_cpu && (o->nevents || o->value_field)) {
		fprintf(stderr,
		        "lfr report: --off-cpu is --event lfr.OffCpu --value duration: give "
		        "it without --event and --value\n");
		return -1;
	}
	if (o->latency && (o->nevents || o->value_field || o->off_cpu)) {
		fprintf(stderr, "lfr report: --latency is --event lfr.SamplingLatency --value "
		                "duration: give it without --event, --value and --off-cpu\n");
		return -1;
	}
	if (o->wall && (o->nevents || o->value_field || o->off_cpu || o->latency)) {
		fprintf(stderr,
		        "lfr report: --wall is --event profiler.WallClockSample: give it without "
		        "--event, --value, --off-cpu and --latency\n");
		return -1;
	}
	if (o->wall)
		report_opts_wall(o);
	if (o->latency) {
		o->events[o->nevents++] = "lfr.SamplingLatency";
		o->value_field = "duration";
	}
	if (o->off_cpu) {
		o->events[o->nevents++] = "lfr.OffCpu";
		o->value_field = "duration"; /* ticks: ns in lfr's files (1e9 ticks per second) */
	}
	return 0;
}

/* A format of one recording's report: print, or one of the two that say when they fail. */
struct report_format {
	void (*print)(const struct report *, const struct report_opts *, FILE *);
	/* text and pprof say when they could not complete (out of memory) */
	bool pprof, text;
};

/* -1 when the format is unknown */
static int pick_format(const char *format, struct report_format *f)
{
	*f = (struct report_format){NULL, false, false};
	if (!strcmp(format, "text"))
		f->text = true;
	else if (!strcmp(format, "collapsed"))
		f->print = report_print_collapsed;
	else if (!strcmp(format, "html"))
		f->print = report_print_html;
	else if (!strcmp(format, "pprof"))
		f->pprof = true;
	else if (!strcmp(format, "speedscope"))
		f->print = report_print_speedscope;
	else if (strcmp(format, "summary")) {
		fprintf(stderr,
		        "lfr report: unknown format '%s': use text, collapsed, html, pprof, "
		        "speedscope or summary\n",
		        format);
		return -1;
	}
	return 0;
}

/* What the format reads, and the options it refuses; -1 when it refuses one. */
static int format_opts(struct report_opts *o, const struct report_format *f)
{
	/* the text view's table by state, of the two views whose events say why a thread waited */
	o->states = f->text && (o->off_cpu || o->wall);
	/* each sample's trace context: pprof's labels, the page's trace filter */
	o->contexts = f->pprof || f->print == report_print_html;
	if (o->sort_ctx && !f->text) {
		fprintf(stderr, "lfr report: -s %s is a table of the text view\n",
		        o->sort_ctx == REPORT_BY_SPAN ? "span" : "trace");
		return -1;
	}
	/* samples in time order: speedscope's, and the HTML page's timeline */
	o->timeline = f->print == report_print_speedscope || f->print == report_print_html ||
	              (o->latency && f->text);
	if (o->thread_roots && !f->print && !f->text) {
		fprintf(stderr,
		        "lfr report: --threads splits the text, collapsed, html and speedscope "
		        "views by thread, not %s\n",
		        f->pprof
		            ? "pprof, whose samples carry a thread label (-tagfocus thread=NAME)"
		            : "the summary");
		return -1;
	}
	if (o->from_ns >= 0 && o->to_ns >= 0 && o->to_ns <= o->from_ns) {
		fprintf(stderr, "lfr report: --to must be later than --from\n");
		return -1;
	}
	return 0;
}

/*
 * The recording of r read into *rep (*rc report_read()'s return) and its frames named, the errors
 * said: the exit status so far, and *stop when there is nothing to write.
 */
static int read_named(struct jfr_reader *r, const struct report_opts *o,
                      const struct report_format *f, bool debuginfod, struct report **rep, int *rc,
                      bool *stop)
{
	int status = LFR_EXIT_OK;
	bool any_selected = false;

	*rc = report_read(r, o, rep);
	if (*rep && *rc == 0)
		report_stack_types(*rep, &any_selected);
	if (o->value_field && any_selected && !report_value_field_found(*rep)) {
		fprintf(stderr,
		        "lfr report: --value %s: no event of %s has a field %s: name a numeric "
		        "field of the sample events (e.g. weight)\n",
		        o->value_field, (*rep)->selected, o->value_field);
		*stop = true;
		return LFR_EXIT_USAGE;
	}
	/* frames the recording left unnamed, named from debug files (not for the summary) */
	if (*rep && (f->print || f->pprof || f->text) &&
	    report_name_frames(*rep, NULL, debuginfod)) {
		fprintf(stderr, "lfr report: out of memory naming frames\n");
		*stop = true;
		return LFR_EXIT_FAILURE;
	}
	/* the text report says it itself */
	if (*rep && (*rep)->unnamed && !f->text) {
		fputs("lfr report: ", stderr);
		text_safe_put(stderr, (*rep)->unnamed);
		fputc('\n', stderr);
	}
	if (*rc < 0) {
		fprintf(stderr, "lfr report: %s\n", r->err);
		if (*rep && (*rep)->nchunks)
			fprintf(stderr,
			        "lfr report: showing the %llu complete chunk%s before the error\n",
			        (unsigned long long)(*rep)->nchunks,
			        (*rep)->nchunks == 1 ? "" : "s");
		status = LFR_EXIT_FORMAT;
	}
	return status;
}

/*
 * The page without a view option holds every view the recording has data for (CPU,
 * off-CPU, wall): all read before anything is written, so that a failure leaves an old
 * output as it was.  -1 when one could not be read or named (said on standard error).
 */
static int html_views_read(struct jfr_reader *r, struct report *rep, const struct report_opts *o,
                           struct report_html_views *views, bool debuginfod)
{
	bool failed = report_html_views_read(r, rep, o, views) < 0;
	if (failed)
		fprintf(stderr, "lfr report: %s\n", r->err);
	/* the objects left unnamed are the CPU view's too: said once, above */
	for (size_t i = 1; !failed && i < views->n; i++)
		if (report_name_frames(views->own[i], NULL, debuginfod)) {
			fprintf(stderr, "lfr report: out of memory naming frames\n");
			failed = true;
		}
	return failed ? -1 : 0;
}

/* The report in format f to output (NULL: standard output); the exit status, from `status`. */
static int write_report(const struct report *rep, const struct report_opts *o,
                        const struct report_format *f, const struct report_html_views *views,
                        const char *output, struct lfr_outfile *of, int status)
{
	FILE *out = stdout;
	int failed = 0;

	if (output && !(out = lfr_outfile_fdopen(of))) {
		fprintf(stderr, "lfr report: cannot write %s: %s\n", output, strerror(errno));
		return LFR_EXIT_IO;
	}
	if (f->pprof)
		failed = report_print_pprof(rep, o, out);
	else if (f->text) {
		if ((failed = report_print_text(rep, o, out)))
			fprintf(stderr, "lfr report: out of memory writing the text report\n");
	} else if (views->n > 1)
		report_print_html_views(views->v, views->n, out);
	else if (f->print)
		f->print(rep, o, out);
	else
		report_print_summary(rep, out);
	return finish_output(out, output, of, failed, status);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	const char *format = "text", *output = NULL;
	bool diff = false;
	bool debuginfod = true;
	const struct cli_opt opts[] = {
	    {"format", 'f', NULL, CLI_OPT_STRING, &format},
	    {"output", 'o', NULL, CLI_OPT_STRING, &output},
	    {"event", 'e', NULL, CLI_OPT_CALL, &o, .parse = event_opt},
	    {"thread", 't', NULL, CLI_OPT_CALL, &o, .parse = thread_opt},
	    {"process", 'p', NULL, CLI_OPT_CALL, &o, .parse = process_opt},
	    {"from", 0, NULL, CLI_OPT_CALL, &o.from_ns, .parse = time_opt},
	    {"to", 0, NULL, CLI_OPT_CALL, &o.to_ns, .parse = time_opt},
	    {"value", 0, NULL, CLI_OPT_STRING, &o.value_field},
	    {"off-cpu", 0, NULL, CLI_OPT_SET, &o.off_cpu},
	    {"latency", 0, NULL, CLI_OPT_SET, &o.latency},
	    {"wall", 0, NULL, CLI_OPT_SET, &o.wall},
	    {"top", 'n', NULL, CLI_OPT_CALL, &o.top, .parse = top_opt},
	    {"sort", 's', NULL, CLI_OPT_CALL, &o, .parse = sort_opt},
	    {"span", 0, NULL, CLI_OPT_CALL, &o, .parse = span_opt},
	    {"trace", 0, NULL, CLI_OPT_CALL, &o, .parse = trace_opt},
	    {"threads", 0, NULL, CLI_OPT_SET, &o.thread_roots},
	    {"no-debuginfod", 0, NULL, CLI_OPT_CLEAR, &debuginfod},
	    {"jobs", 'j', NULL, CLI_OPT_CALL, &o.jobs, .parse = jobs_opt},
	    {"diff", 0, NULL, CLI_OPT_SET, &diff},
	    {"help", 'h', NULL, CLI_OPT_HELP},
	};
	int ret;

	report_opts_init(&o);
	ret = cli_parse_options("lfr report", opts, sizeof(opts) / sizeof(opts[0]), 0, argc, argv,
	                        usage_or_hint);
	if (ret >= 0)
		return ret;
	if (view_opts(&o) < 0)
		return LFR_EXIT_USAGE;
	if (output && !strcmp(output, "-")) /* standard output, as without -o */
		output = NULL;
	if (diff)
		return report_diff(&o, debuginfod, format, output, argc - optind, argv + optind);
	if (optind < argc - 1) {
		fprintf(stderr,
		        "lfr report: only one input file is read; usage: lfr report [OPTIONS] "
		        "FILE.jfr (see --help)\n");
		return LFR_EXIT_USAGE;
	}
	/* as perf report reads perf.data: lfr record's default output */
	const char *input = optind < argc ? argv[optind] : "lfr.jfr";
	char err[512];
	if (output && lfr_outfile_same(output, input, err, sizeof(err))) {
		/* the report would replace the recording it is made from */
		fprintf(stderr, "lfr report: %s\n", err);
		return LFR_EXIT_USAGE;
	}
	struct report_format f;
	if (pick_format(format, &f) < 0 || format_opts(&o, &f) < 0)
		return LFR_EXIT_USAGE;

	/* the output is checked before the reading: a target refused is refused at once */
	struct lfr_outfile of = LFR_OUTFILE_INIT;
	if (output && lfr_outfile_open(&of, output, 0, 0640, err, sizeof(err))) {
		fprintf(stderr, "lfr report: %s\n", err);
		return LFR_EXIT_IO;
	}
	struct report_html_views views = {.n = 0};
	struct report *rep = NULL;
	int status = LFR_EXIT_OK;
	struct jfr_reader *r = jfr_open_file(input, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "lfr report: %s%s\n", err,
		        optind < argc ? "" : ": name the recording to read: lfr report FILE.jfr");
		status = LFR_EXIT_IO;
		goto done;
	}
	int rc = 0;
	bool stop = false;
	status = read_named(r, &o, &f, debuginfod, &rep, &rc, &stop);
	if (stop)
		goto done;
	if (rep && rc == 0 && f.print == report_print_html && !o.nevents && !o.value_field &&
	    html_views_read(r, rep, &o, &views, debuginfod) < 0) {
		status = LFR_EXIT_FAILURE;
		goto done;
	}
	if (rep && (rc == 0 || rep->nchunks))
		status = write_report(rep, &o, &f, &views, output, &of, status);
done:
	lfr_outfile_abort(&of);
	report_html_views_free(&views);
	report_free(rep);
	if (r)
		jfr_close(r);
	return status;
}

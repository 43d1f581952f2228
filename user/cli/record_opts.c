// SPDX-License-Identifier: GPL-2.0
/*
 * lfr record's command line: the options into struct record and the session's start options,
 * and the checks of what goes together.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "cli/options.h"
#include "cli/privileges.h"
#include "cli/record.h"
#include "lib/cgroup.h"

/* --help prints the usage; a bad option, after its message, only where to look */
static void usage_or_hint(FILE *out)
{
	if (out == stdout)
		record_usage(stdout);
	else
		fprintf(stderr, "Run 'lfr record --help' for the options.\n");
}

/* perf's -g turns call graphs on, which lfr always records: a bare -g is followed by no number */
static bool is_number(const char *word)
{
	return isdigit((unsigned char)word[0]);
}

/* -c, --period: perf's count, into period_ns */
static int period_opt(const char *flag, const char *arg, void *dst)
{
	if (!isdigit((unsigned char)arg[0])) {
		/* -c was the cgroup before it took perf's meaning */
		fprintf(stderr,
		        "%s: -c: '%s' is not a number: -c is the sampling period in ns of CPU time "
		        "(perf's count); the cgroup is -G\n",
		        PROG, arg);
		return -1;
	}
	return cli_parse_u64(PROG, flag, arg, LFR_MIN_PERIOD_NS, LFR_MAX_PERIOD_NS, dst);
}

/* --call-graph, into fp_only: perf's "dwarf[,SIZE]" copies stacks; lfr's walk reads the same CFI */
static int call_graph_opt(const char *flag, const char *arg, void *dst)
{
	if (!strcmp(arg, "fp")) {
		*(bool *)dst = true;
	} else if (!strcmp(arg, "cfi") || !strcmp(arg, "dwarf") || !strncmp(arg, "dwarf,", 6)) {
		*(bool *)dst = false;
	} else {
		fprintf(
		    stderr,
		    "%s: %s: '%s': cfi (the default; perf's 'dwarf') unwinds by the objects' CFI, "
		    "fp by frame pointers only\n",
		    PROG, flag, arg);
		return -1;
	}
	return 0;
}

/* -e: perf's events that count CPU time are what lfr samples anyway */
static int event_opt(const char *flag, const char *arg, void *dst)
{
	(void)dst;
	if (strcmp(arg, "cpu-clock") && strcmp(arg, "task-clock")) {
		fprintf(stderr, "%s: %s: '%s': lfr samples CPU time only (cpu-clock, task-clock)\n",
		        PROG, flag, arg);
		return -1;
	}
	return 0;
}

/*
 * An optional minimum duration, --off-cpu[=MIN] and --latency[=MIN]: DEF without MIN; a bare
 * number is in ms, as perf's --off-cpu-thresh, otherwise a duration with its unit.
 */
static int min_duration(const char *flag, const char *arg, uint64_t *min_ns, uint64_t def,
                        uint64_t lo, uint64_t hi)
{
	uint64_t ms;

	*min_ns = def;
	if (!arg)
		return 0;
	if (arg[0] && strspn(arg, "0123456789") == strlen(arg)) {
		if (cli_parse_u64(PROG, flag, arg, 1, hi / 1000000, &ms) < 0)
			return -1;
		*min_ns = ms * 1000000;
		return 0;
	}
	return cli_parse_duration(PROG, flag, arg, lo, hi, min_ns);
}

/* --off-cpu[=MIN], into offcpu_min_ns */
static int off_cpu_opt(const char *flag, const char *arg, void *dst)
{
	return min_duration(flag, arg, dst, LFR_DEFAULT_OFFCPU_MIN_NS, LFR_MIN_OFFCPU_MIN_NS,
	                    LFR_MAX_OFFCPU_MIN_NS);
}

/* --latency[=MIN], into latency_min_ns */
static int latency_opt(const char *flag, const char *arg, void *dst)
{
	return min_duration(flag, arg, dst, LFR_DEFAULT_LATENCY_MIN_NS, LFR_MIN_LATENCY_MIN_NS,
	                    LFR_MAX_LATENCY_MIN_NS);
}

/*
 * -G without CAP_PERFMON: the cgroup's cgroup.procs opened for writing, which proves to the
 * module that the cgroup is delegated to this user (1); 0 when it cannot be opened (the id goes,
 * and the module refuses it with its reason after this one).
 */
static int cgroup_procs_opt(struct record *r, const char *flag, const char *arg)
{
	char why[PATH_MAX + 160];
	int fd = lfr_cgroup_procs_open(arg, NULL, why, sizeof(why));
	int *fds = realloc(r->cgroup_fds, (r->ncgroup_fds + 1) * sizeof(*fds));
	const char **paths = realloc(r->cgroup_paths, (r->ncgroup_fds + 1) * sizeof(*paths));

	if (fds)
		r->cgroup_fds = fds;
	if (paths)
		r->cgroup_paths = paths;
	if (fd < 0) {
		fprintf(
		    stderr,
		    "%s: note: %s %s: %s: without CAP_PERFMON only a cgroup delegated to you (one "
		    "whose cgroup.procs you may write) may be recorded\n",
		    PROG, flag, arg, why);
		return 0;
	}
	if (!fds || !paths) {
		close(fd);
		return -1;
	}
	fds[r->ncgroup_fds] = fd;
	paths[r->ncgroup_fds++] = arg;
	return 1;
}

/* -G, appended to the record's cgroups */
static int cgroup_opt(const char *flag, const char *arg, void *dst)
{
	struct record *r = dst;
	char why[PATH_MAX + 160];
	uint64_t *ids;
	int by_fd = cli_privileged() ? 0 : cgroup_procs_opt(r, flag, arg);

	if (by_fd)
		return by_fd > 0 ? 0 : LFR_EXIT_FAILURE;
	ids = realloc(r->cgroups, (r->ncgroups + 1) * sizeof(*ids));
	if (!ids)
		return LFR_EXIT_FAILURE;
	r->cgroups = ids;
	if (lfr_cgroup_resolve(arg, NULL, &ids[r->ncgroups], why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: %s: %s\n", PROG, flag, why);
		return -1;
	}
	r->ncgroups++;
	return 0;
}

/* --label KEY=VALUE[,...], added to the recording's labels */
static int label_opt(const char *flag, const char *arg, void *dst)
{
	char why[512];

	if (lfr_labels_parse(dst, arg, why, sizeof(why))) {
		fprintf(stderr, "%s: %s: %s\n", PROG, flag, why);
		return -1;
	}
	return 0;
}

/* --events, into sample_events */
static int events_opt(const char *flag, const char *arg, void *dst)
{
	unsigned *events = dst;

	if (!strcmp(arg, "execution"))
		*events = LFR_JFR_SAMPLE_EXECUTION;
	else if (!strcmp(arg, "cpu-time"))
		*events = LFR_JFR_SAMPLE_CPU_TIME;
	else if (!strcmp(arg, "both"))
		*events = LFR_JFR_SAMPLE_ALL;
	else {
		fprintf(stderr, "%s: %s: '%s' is not execution, cpu-time or both\n", PROG, flag,
		        arg);
		return -1;
	}
	return 0;
}

/*
 * Kernel stacks (and off-CPU intervals and latencies, which carry them) without CAP_PERFMON: a
 * perf event opened without exclude_kernel shows the module that perf allows this user the
 * kernel; without it the module refuses them, with its reason after this one.
 */
static void kernel_proof(struct cli_runner *run)
{
	struct lfr_start_opts *so = &run->start;
	char why[256];

	if ((!so->kernel_stack && !so->offcpu_min_ns && !so->latency_min_ns) || cli_privileged())
		return;
	so->kernel_proof_fd = cli_kernel_proof(why, sizeof(why));
	if (so->kernel_proof_fd < 0)
		fprintf(stderr, "%s: note: kernel stacks: %s\n", PROG, why);
}

/* -o, --repository and what goes with them; -1 when they do, else the exit status. */
static int parse_outputs(struct record *r, const char *output, const char *repository)
{
	if (repository) {
		r->repository = r->jfr_opts.repository = true;
		r->output = repository;
	}
	if (r->export.opts.n && !r->repository) {
		fprintf(
		    stderr,
		    "%s: --export sends a continuous recording's chunks as they are finished: give "
		    "--repository DIR (the exports' spool); a file is sent afterwards with lfr "
		    "export --to KIND=URL FILE\n",
		    PROG);
		return LFR_EXIT_USAGE;
	}
	if ((r->export.opts.send.ca_file || r->export.opts.send.credentials) && !r->export.opts.n) {
		fprintf(stderr, "%s: --ca-file and --export-credentials are for --export\n", PROG);
		return LFR_EXIT_USAGE;
	}
	if (output && r->repository) {
		fprintf(stderr,
		        "%s: give -o FILE or --repository DIR, not both (lfr dump DIR -o FILE "
		        "writes a continuous recording out)\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	if (output)
		r->output = output;
	if (!r->repository && (r->jfr_opts.repo_max_age_ns || r->jfr_opts.repo_max_bytes)) {
		fprintf(stderr, "%s: --max-age and --max-size limit a --repository DIR\n", PROG);
		return LFR_EXIT_USAGE;
	}
	if (r->repository) {
		uint64_t cap = r->jfr_opts.repo_max_bytes / 4;

		if (!r->chunk_age_set)
			r->jfr_opts.max_chunk_age_ns =
			    r->export.opts.n ? REPO_EXPORT_CHUNK_AGE_NS : REPO_CHUNK_AGE_NS;
		if (!r->jfr_opts.max_chunk_bytes)
			r->jfr_opts.max_chunk_bytes = 12 << 20;
		if (cap && r->jfr_opts.max_chunk_bytes > cap)
			r->jfr_opts.max_chunk_bytes = cap < 64 << 10 ? 64 << 10 : cap;
	}
	return -1;
}

/* The walks, the sampling and the targets; -1 when they go together, else the exit status. */
static int parse_targets(struct record *r, char **cmd, bool unwind_max_set, uint64_t unwind_max)
{
	struct cli_runner *run = &r->run;

	if (r->fp_only && unwind_max) {
		fprintf(stderr,
		        "%s: --unwind-max sizes the tables of --call-graph cfi; fp has none\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	if (unwind_max_set && !unwind_max)
		r->fp_only = true;
	run->start.no_unwind = r->fp_only;
	run->start.thread_ctx = !r->no_ctx;
	run->start.unwind_max_kb = (uint32_t)((unwind_max + 1023) >> 10);
	if (run->start.freq_hz && run->start.period_ns) {
		fprintf(stderr, "%s: give -F or -c (--period), not both\n", PROG);
		return LFR_EXIT_USAGE;
	}
	if (!cmd && !run->ntgids && !run->ntids && !r->ncgroups && !r->ncgroup_fds && !r->system) {
		fprintf(stderr,
		        "%s: say what to record: -- COMMAND [ARGS...], -p PID, -t TID, "
		        "-G CGROUP or -a\n"
		        "Run 'lfr record --help' for the options.\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	/* a latency is reported with the kernel stack its tick interrupted */
	if (run->start.latency_min_ns)
		run->start.kernel_stack = true;
	if (r->wall_hz) {
		/* the time off the CPU is sampled from every interval the module records */
		if ((run->start.freq_hz && run->start.freq_hz != r->wall_hz) ||
		    run->start.period_ns) {
			fprintf(stderr, "%s: --wall HZ samples the CPU at HZ too: drop -F or -c\n",
			        PROG);
			return LFR_EXIT_USAGE;
		}
		run->start.freq_hz = r->wall_hz;
		/* every CPU sample is a wall-clock sample too */
		r->jfr_opts.sample_events |= LFR_JFR_SAMPLE_WALL;
		r->off_cpu_events_min =
		    run->start.offcpu_min_ns ? run->start.offcpu_min_ns : UINT64_MAX;
		run->start.offcpu_min_ns = LFR_MIN_OFFCPU_MIN_NS;
	}
	if (r->system && (cmd || run->ntgids || run->ntids || r->ncgroups || r->ncgroup_fds)) {
		fprintf(stderr,
		        "%s: -a records every thread already; drop -p, -t, -G or the command\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	kernel_proof(run);
	return -1;
}

int record_parse(struct record *r, int argc, char **argv, char ***cmd)
{
	struct cli_runner *run = &r->run;
	struct lfr_start_opts *so = &run->start;
	struct cli_ids pids = {&run->tgids, &run->ntgids}, tids = {&run->tids, &run->ntids};
	const char *output = NULL, *repository = NULL;
	bool unwind_max_set = false;
	uint64_t unwind_max = 0;
	/* messages name -F, -p, -t, -G, -d by their letters, -c and -g as they were given */
	const struct cli_opt opts[] = {
	    {"freq", 'F', NULL, CLI_OPT_U32, &so->freq_hz, 1, LFR_MAX_FREQ_HZ,
	     .named = CLI_NAMED_LETTER},
	    {"period", 'c', NULL, CLI_OPT_CALL, &so->period_ns, .parse = period_opt,
	     .named = CLI_NAMED_AS_GIVEN},
	    {"count", 'c'},
	    {"depth", 'g', NULL, CLI_OPT_U32, &so->user_depth, 1, LFR_MAX_USER_STACK_DEPTH,
	     .named = CLI_NAMED_AS_GIVEN, .takes = is_number},
	    {"max-stack", 'g'},
	    {"call-graph", 0, NULL, CLI_OPT_CALL, &r->fp_only, .parse = call_graph_opt},
	    {"unwind-max", 0, NULL, CLI_OPT_SIZE, &unwind_max, 0,
	     (uint64_t)LFR_MAX_UNWIND_MAX_KB << 10, &unwind_max_set},
	    {"cache", 0, NULL, CLI_OPT_STRING, &r->cache_dir},
	    {"kernel-stacks", 'k', NULL, CLI_OPT_SET, &so->kernel_stack},
	    {"off-cpu", 0, NULL, CLI_OPT_CALL, &so->offcpu_min_ns, .parse = off_cpu_opt,
	     .optional = true},
	    {"latency", 0, NULL, CLI_OPT_CALL, &so->latency_min_ns, .parse = latency_opt,
	     .optional = true},
	    {"wall", 0, NULL, CLI_OPT_U32, &r->wall_hz, 1, LFR_MAX_FREQ_HZ},
	    {"no-thread-context", 0, NULL, CLI_OPT_SET, &r->no_ctx},
	    {"pid", 'p', NULL, CLI_OPT_IDS, &pids, .named = CLI_NAMED_LETTER},
	    {"tid", 't', NULL, CLI_OPT_IDS, &tids, .named = CLI_NAMED_LETTER},
	    {"all", 'a', NULL, CLI_OPT_SET, &r->system},
	    {"cgroup", 'G', NULL, CLI_OPT_CALL, r, .parse = cgroup_opt, .named = CLI_NAMED_LETTER},
	    {"output", 'o', NULL, CLI_OPT_STRING, &output},
	    {"duration", 'd', NULL, CLI_OPT_SECONDS, &run->duration, 1000000,
	     366 * 86400000000000ull, .named = CLI_NAMED_LETTER},
	    {"chunk-size", 0, NULL, CLI_OPT_SIZE, &r->jfr_opts.max_chunk_bytes, 64 << 10,
	     1ull << 30},
	    {"chunk-age", 0, NULL, CLI_OPT_NS, &r->jfr_opts.max_chunk_age_ns, 100000000,
	     7 * 86400000000000ull, &r->chunk_age_set},
	    {NULL, 'e', NULL, CLI_OPT_CALL, NULL, .parse = event_opt},
	    {"events", 0, NULL, CLI_OPT_CALL, &r->jfr_opts.sample_events, .parse = events_opt},
	    {"ring-pages", 0, NULL, CLI_OPT_U32, &so->ring_pages, LFR_MIN_RING_PAGES,
	     LFR_MAX_RING_PAGES},
	    {"max-threads", 0, NULL, CLI_OPT_U32, &so->max_threads, LFR_MIN_MAX_THREADS,
	     LFR_MAX_MAX_THREADS},
	    {"drain-timeout", 0, NULL, CLI_OPT_MS, &run->drain_timeout_ms, 0, 86400000},
	    {"repository", 0, NULL, CLI_OPT_STRING, &repository},
	    {"max-age", 0, NULL, CLI_OPT_NS, &r->jfr_opts.repo_max_age_ns, 1000000000,
	     366 * 86400000000000ull},
	    {"max-size", 0, NULL, CLI_OPT_SIZE, &r->jfr_opts.repo_max_bytes, 256 << 10, 1ull << 50},
	    {"label", 0, NULL, CLI_OPT_CALL, &r->labels, .parse = label_opt},
	    {"export", 0, NULL, CLI_OPT_CALL, &r->export.opts, .parse = cli_export_target_opt},
	    {"ca-file", 0, NULL, CLI_OPT_CALL, &r->export.opts, .parse = cli_export_ca_opt},
	    {"export-credentials", 0, NULL, CLI_OPT_CALL, &r->export,
	     .parse = cli_export_credentials_opt},
	    {"quiet", 'q', NULL, CLI_OPT_SET, &r->quiet},
	    {"help", 'h', NULL, CLI_OPT_HELP},
	};
	int ret =
	    cli_parse_options(PROG, opts, sizeof(opts) / sizeof(opts[0]),
	                      CLI_STOP_AT_COMMAND | CLI_OWN_MESSAGES, argc, argv, usage_or_hint);

	if (ret >= 0)
		return ret;
	so->system = r->system;
	so->cgroup_ids = r->cgroups;
	so->ncgroups = r->ncgroups;
	so->cgroup_procs_fds = r->cgroup_fds;
	so->ncgroup_procs_fds = r->ncgroup_fds;
	*cmd = optind < argc ? argv + optind : NULL;
	ret = parse_outputs(r, output, repository);
	if (ret >= 0)
		return ret;
	return parse_targets(r, *cmd, unwind_max_set, unwind_max);
}

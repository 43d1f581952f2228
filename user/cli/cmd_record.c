// SPDX-License-Identifier: GPL-2.0
/*
 * lfr record: samples threads with the module and writes a JFR file.  The file is readable by
 * `jfr` after every flush (once a second), after Ctrl-C, and after a crash up to its last flush.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "cli/runner.h"
#include "jfr/writer.h"
#include "lib/cgroup.h"
#include "lib/record.h"
#include "record/recorder.h"
#include "record/unwind_loader.h"
#include "sym/sym.h"

#define PROG "lfr record"
/* Walks of running threads finish within a scheduler tick; longer means a thread blocked. */
#define DEFAULT_DRAIN_MS 2000u
/* Records read but not yet named: past this, reading waits for naming (the rings then lose). */
#define MAX_BEHIND_BYTES (256u << 20)
/* A continuous recording's chunk age: a dump of the last N seconds covers at most this more. */
#define REPO_CHUNK_AGE_NS 5000000000ull

struct record {
	struct cli_runner run;
	const char *output;
	struct lfr_jfr_options jfr_opts;
	struct lfr_jfr_writer *w;
	struct lfr_sym *sym;
	struct lfr_recorder *rec;
	bool quiet, tty, system;
	bool repository, chunk_age_set; /* --repository DIR (output is DIR) */
	int err;                        /* first writer error, negative errno */
	uint64_t start_ticks;
	double start_s;
	char target[256];  /* what is recorded, for the settings event and the summary */
	uint64_t *cgroups; /* cgroup v2 ids */
	size_t ncgroups;
	/* the ring size chosen by default; ring_pages 0 with --ring-pages */
	struct lfr_ring_size rings;
	bool fp_only;                     /* --call-graph fp or --unwind-max 0: no unwind tables */
	struct lfr_unwind_loader *unwind; /* the session's unwind tables, unless fp_only */
	bool unsupported_told;            /* the module without tables was reported already */
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: lfr record [-F HZ | -c NS] [-g DEPTH] [-k] [-p PID,... | -t TID,... |\n"
	    "                  -G CGROUP | -a] [-o FILE] [-d DURATION] [options] [-- COMMAND "
	    "[ARGS...]]\n\n"
	    "Samples threads by their own CPU time, with complete user (and kernel) stacks, and\n"
	    "writes a JFR file that `jfr`, JDK Mission Control and `lfr report` read.\n\n"
	    "What to record (one is required; -p, -t, -G and a command combine):\n"
	    "  -- COMMAND [ARGS...]   run COMMAND and record it and every process and thread it\n"
	    "                         starts (fork, clone, exec), each from its first instruction\n"
	    "  -p, --pid PID,...      these processes, all their threads\n"
	    "  -t, --tid TID,...      these threads\n"
	    "  -G, --cgroup CGROUP    the threads inside a cgroup v2 or below it, at each tick:\n"
	    "                         threads moving in are sampled from then on, threads moving\n"
	    "                         out no longer are.  CGROUP is a path in the cgroup2 mount\n"
	    "                         (absolute, or relative to the mount) or a numeric cgroup "
	    "id;\n"
	    "                         repeat for several\n"
	    "  -a, --all              every user thread of the machine\n\n"
	    "How:\n"
	    "  -F, --freq HZ          samples per second of each thread's CPU time (default %u)\n"
	    "  -c, --period NS        or: one sample per NS nanoseconds of CPU time (perf's -c,\n"
	    "                         the count of a cpu-clock event)\n"
	    "  -g, --depth N          user stack depth limit (default %u, up to %u); a bare -g, "
	    "as\n"
	    "                         perf takes it, changes nothing: stacks are always recorded\n"
	    "      --max-stack N      the same as --depth (perf's spelling)\n"
	    "      --call-graph MODE  how user stacks are walked: cfi (the default; perf's\n"
	    "                         'dwarf' is taken for it) unwinds code without frame\n"
	    "                         pointers from the CFI of its object (unwind tables built\n"
	    "                         here and given to the module), fp by frame pointers only\n"
	    "      --unwind-max SIZE  memory the module may hold unwind tables in (K, M or G;\n"
	    "                         default 64M): past it, the least recently used go; 0 is\n"
	    "                         --call-graph fp\n"
	    "  -e EVENT               cpu-clock or task-clock (perf's names for CPU-time "
	    "sampling,\n"
	    "                         which is what lfr samples); no other event\n"
	    "  -k, --kernel-stacks    also record kernel stacks when a tick lands in the kernel\n"
	    "      --off-cpu[=MIN]    also record every time a thread is off the CPU for MIN or\n"
	    "                         more (ms, or with a unit: 500us, 0.5s; default 1 ms) as\n"
	    "                         one lfr.OffCpu event: start, duration,\n"
	    "                         why (sleeping, uninterruptible, preempted), the kernel\n"
	    "                         stack it left with and its user stack; shorter ones are\n"
	    "                         counted per thread.  A command, -p or -t only\n"
	    "  -d, --duration TIME    stop after TIME: seconds (1.5) or with a unit (500ms, 2m, "
	    "1h)\n"
	    "                         (default: when COMMAND exits, when every\n"
	    "                         -p process is gone, or on Ctrl-C)\n\n"
	    "Output:\n"
	    "  -o, --output FILE      the JFR file (default lfr.jfr; an existing one is\n"
	    "                         replaced at the first flush, kept if that fails);\n"
	    "                         complete after each flush (about once a second), so\n"
	    "                         a killed recording keeps its samples up to then\n"
	    "      --chunk-size SIZE  start a new chunk past this size: bytes, or with K, M or G\n"
	    "                         (64M; default 12M, 12 MiB)\n"
	    "      --chunk-age TIME   start a new chunk after TIME (0.5, 30s, 5m; default: never)\n"
	    "      --events SET       the JDK events of a sample: execution (jdk.ExecutionSample,\n"
	    "                         the default: 'jfr view hot-methods', JMC, JDK 17), cpu-time\n"
	    "                         (JDK 25's jdk.CPUTimeSample: 'jfr view "
	    "cpu-time-hot-methods'),\n"
	    "                         or both (about twice the bytes per sample)\n"
	    "  -q, --quiet            no status line and no summary\n\n"
	    "Continuous recording (a flight recorder; see lfr dump):\n"
	    "      --repository DIR   record until stopped into DIR, one file per chunk (a new\n"
	    "                         chunk every 5 s by default; --chunk-age), the newest on\n"
	    "                         disk about 1 s behind; 'lfr dump DIR' writes them out.\n"
	    "                         A second recording cannot write to the same DIR\n"
	    "      --max-age TIME     remove chunks that ended more than TIME ago (10m, 1h)\n"
	    "      --max-size SIZE    remove the oldest chunks while DIR holds more than SIZE\n"
	    "                         (64M, 1G; chunks are then at most SIZE / 4)\n\n"
	    "Tuning:\n"
	    "      --ring-pages N     data pages per CPU ring (power of two, %u .. %u; default:\n"
	    "                         enough for 0.5 s of the worst-case record rate of -F\n"
	    "                         and -g, within 128 MiB for all rings)\n"
	    "      --max-threads N    threads the session can track at once (default %u)\n"
	    "      --drain-timeout T  at the end, how long to wait for the stack walks of\n"
	    "                         threads still in the kernel since their last tick\n"
	    "                         (ms, or with a unit: 2s; default %u ms); then they\n"
	    "                         are given up and their ticks counted lost as\n"
	    "                         'abandoned'\n\n"
	    "Ctrl-C ends the recording cleanly.  Needs CAP_PERFMON (or root) and lfr.ko loaded.\n"
	    "Examples:\n"
	    "  lfr record -F 999 -o app.jfr -- ./app --flag\n"
	    "  lfr record -p 1234 -d 30 -k\n"
	    "  lfr record -G system.slice/nginx.service -d 60 -o nginx.jfr\n"
	    "  lfr record -a -F 19 --repository /var/lib/lfr-repo --max-age 30m --max-size 256M\n"
	    "  lfr report app.jfr; jfr print --events jdk.ExecutionSample app.jfr\n",
	    LFR_DEFAULT_FREQ_HZ, LFR_DEFAULT_USER_STACK_DEPTH, LFR_MAX_USER_STACK_DEPTH,
	    LFR_MIN_RING_PAGES, LFR_MAX_RING_PAGES, LFR_DEFAULT_MAX_THREADS, DEFAULT_DRAIN_MS);
}

static int on_record(const struct lfr_ring *ring, const struct lfr_rec_header *h, void *arg)
{
	struct record *r = arg;

	(void)ring;
	if (r->unwind && h->type == LFR_REC_MMAP)
		lfr_unwind_loader_queue_mmap(r->unwind, (const struct lfr_rec_mmap *)h);
	if (r->err)
		return 0; /* keep consuming: the session must not stall on full rings */
	r->err = lfr_recorder_add(r->rec, h);
	return 0;
}

static void human_bytes(char *buf, size_t len, uint64_t b)
{
	if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MB", (double)b / (1 << 20));
	else if (b >= 10ull << 10)
		snprintf(buf, len, "%.1f KB", (double)b / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " B", b);
}

static uint64_t lost_total(const struct lfr_recorder_stats *st)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i <= LFR_LOST_MAX; i++)
		n += st->lost_ticks[i];
	return n + st->lost_pending;
}

/*
 * Once a second: hand the batch over to the naming thread (which applies it and flushes the
 * file), refresh the status line.  Every 100 ms until a flush has put samples in the file: the
 * recording is at its path, readable, from its first samples on (a kill a second in leaves them).
 */
static void on_tick(struct cli_runner *run)
{
	struct record *r = run->arg;
	struct lfr_recorder_stats st;
	struct lfr_jfr_stats js;
	char size[32];

	if (!r->err)
		r->err = lfr_recorder_process(r->rec, false);
	if (r->err) {
		cli_runner_interrupted = 1; /* stop: the file cannot take more */
		return;
	}
	lfr_recorder_get_stats(r->rec, &st); /* as of the naming thread's last flush */
	run->tick_ms = st.events ? 1000 : 100;
	if (!r->tty || r->quiet)
		return;
	lfr_recorder_get_file_stats(r->rec, &js);
	human_bytes(size, sizeof(size), js.bytes);
	fprintf(stderr, "\r%s: %6.1f s  %" PRIu64 " samples  %" PRIu64 " lost  %s  %s   ", PROG,
	        cli_now() - r->start_s, st.events, lost_total(&st), size, r->output);
}

static void describe_target(struct record *r, char **cmd)
{
	struct cli_runner *run = &r->run;
	size_t off = 0;

	if (r->system) {
		snprintf(r->target, sizeof(r->target), "system-wide");
		return;
	}
	if (cmd)
		off += snprintf(r->target + off, sizeof(r->target) - off, "command %s", cmd[0]);
	for (size_t i = 0; i < run->ntgids && off < sizeof(r->target); i++)
		off += snprintf(r->target + off, sizeof(r->target) - off, "%spid %" PRIu32,
		                off ? ", " : "", run->tgids[i]);
	for (size_t i = 0; i < run->ntids && off < sizeof(r->target); i++)
		off += snprintf(r->target + off, sizeof(r->target) - off, "%stid %" PRIu32,
		                off ? ", " : "", run->tids[i]);
	for (size_t i = 0; i < r->ncgroups && off < sizeof(r->target); i++)
		off += snprintf(r->target + off, sizeof(r->target) - off, "%scgroup %" PRIu64,
		                off ? ", " : "", r->cgroups[i]);
}

static int write_header_events(struct record *r)
{
	struct lfr_jfr_recording rec = {
	    .id = r->run.info.id,
	    .name = "lfr",
	    .destination = r->output,
	    .flush_interval_ms = 1000,
	    .max_size_bytes =
	        r->repository ? r->jfr_opts.repo_max_bytes : r->jfr_opts.max_chunk_bytes,
	    .max_age_ms = r->jfr_opts.repo_max_age_ns / 1000000,
	    .start_ticks = r->start_ticks,
	};
	uint64_t now = lfr_jfr_now();

	return lfr_jfr_active_recording(r->w, now, &rec) ?:
	       lfr_jfr_os_information(r->w, now, NULL) ?:
	       lfr_jfr_cpu_information(r->w, now, NULL) ?:
	       (lfr_recorder_set_period(r->rec, r->run.info.period_ns),
	        lfr_jfr_sampler_settings(r->w, now, r->run.info.period_ns, r->run.info.user_depth,
	                                 r->run.info.kernel_stack, r->target));
}

/* The summary, printed once the file is closed (its final size known). */
/*
 * The rate each of the busiest threads got: a tick per period of its CPU time was asked for, and
 * the periods a late interrupt missed are not samples (Documentation/counting.md).
 */
static void print_rates(const struct record *r)
{
	struct lfr_thread_rate top[5];
	size_t n = lfr_recorder_busiest(r->rec, top, 5);
	double hz = r->run.info.period_ns ? 1e9 / (double)r->run.info.period_ns : 0;

	if (!n || !hz)
		return;
	fprintf(stderr, "  rate achieved per thread (asked: %.0f Hz of its CPU time):\n", hz);
	for (size_t i = 0; i < n; i++) {
		uint64_t periods = top[i].samples + top[i].missed;

		fprintf(stderr,
		        "    tid %-8" PRIu32 " %-16s %8" PRIu64 " samples, %8" PRIu64
		        " periods missed: %.0f Hz\n",
		        top[i].tid, top[i].comm[0] ? top[i].comm : "?", top[i].samples,
		        top[i].missed, periods ? hz * (double)top[i].samples / (double)periods : 0);
	}
}

/* The unwind tables the session took, and what its walks did with them. */
static void print_unwind(const struct record *r, const struct lfr_status *st)
{
	struct lfr_unwind_loader_stats us;
	const uint64_t *v = st->total.v;

	if (!r->unwind)
		return;
	lfr_unwind_loader_get_stats(r->unwind, &us);
	if (us.unsupported)
		return;
	fprintf(stderr,
	        "  unwind tables: %" PRIu64 " object%s, %" PRIu64 " KiB; %" PRIu64
	        " return addresses found by them, %" PRIu64 " stacks ended in code without CFI",
	        us.tables, us.tables == 1 ? "" : "s", (us.bytes + 1023) / 1024,
	        v[LFR_CTR_UNWIND_FRAMES], v[LFR_CTR_USER_NO_CFI]);
	if (v[LFR_CTR_UNWIND_EVICTED])
		fprintf(stderr, ", %" PRIu64 " dropped for --unwind-max",
		        v[LFR_CTR_UNWIND_EVICTED]);
	fputc('\n', stderr);
}

/* What went wrong with unwind tables: never fatal, said once; failures at the end. */
static void warn_unwind(struct record *r, bool at_end)
{
	struct lfr_unwind_loader_stats us;
	uint64_t missing;

	if (!r->unwind)
		return;
	lfr_unwind_loader_get_stats(r->unwind, &us);
	if (us.unsupported && !r->unsupported_told) {
		fprintf(stderr,
		        "%s: warning: the loaded lfr module has no unwind tables (%s): user stacks "
		        "are walked by frame pointers only\n  hint: load a newer lfr.ko, or say "
		        "--call-graph fp\n",
		        PROG, us.unsupported_why);
		r->unsupported_told = true;
	}
	missing = us.failed + us.dropped;
	if (at_end && missing && !us.unsupported)
		fprintf(stderr,
		        "%s: warning: no unwind table for %" PRIu64 " object%s (frame pointers "
		        "there): %s%s\n",
		        PROG, missing, missing == 1 ? "" : "s",
		        us.failed ? us.first_failure : "more objects than the queue holds",
		        us.failed > 1 || us.dropped ? ", ..." : "");
}

static int unwind_add(void *arg, int object_fd, const struct lfr_unwind_table *t,
                      struct lfr_error *e)
{
	struct record *r = arg;

	return lfr_ctl_unwind_add(&r->run.ctl, r->run.info.id, object_fd, &t->hdr, t->rows, e);
}

/*
 * Once the session runs: the tables of the command's objects before it runs (so that its first
 * samples have them), the objects of the -p/-t processes queued; objects mapped later come with
 * their MMAP records.  A system-wide or cgroup recording loads what its samples hit that way.
 */
static void on_started(struct cli_runner *run, char **cmd)
{
	struct record *r = run->arg;
	char err[512];

	if (r->fp_only || lfr_unwind_loader_new(&r->unwind, unwind_add, r))
		return;
	if (cmd)
		lfr_unwind_loader_load_program(r->unwind, cmd[0], err, sizeof(err));
	warn_unwind(r, false);
	for (size_t i = 0; i < run->ntgids; i++)
		if ((pid_t)run->tgids[i] != run->child) /* not exec'd yet: this program */
			lfr_unwind_loader_queue_process(r->unwind, run->tgids[i]);
	for (size_t i = 0; i < run->ntids; i++)
		lfr_unwind_loader_queue_process(r->unwind, run->tids[i]);
	if (lfr_unwind_loader_start(r->unwind, r->repository ? 0 : 19)) {
		lfr_unwind_loader_free(r->unwind);
		r->unwind = NULL;
	}
}

static void print_summary(struct record *r, const struct lfr_status *st, double secs,
                          const struct lfr_jfr_stats *js)
{
	struct lfr_recorder_stats rs;
	uint64_t matched = st->total.v[LFR_CTR_TICKS_MATCHED];
	struct stat sb;
	char size[32];

	lfr_recorder_get_stats(r->rec, &rs);
	human_bytes(size, sizeof(size),
	            r->repository          ? js->repo_bytes
	            : stat(r->output, &sb) ? 0
	                                   : (uint64_t)sb.st_size);
	if (r->tty)
		fputc('\n', stderr);
	fprintf(stderr,
	        "%s: %" PRIu64 " samples (%" PRIu64 " stack walks) of %s in %.1f s, %" PRIu64
	        " lost\n",
	        PROG, rs.events, rs.samples, r->target, secs, lost_total(&rs));
	if (r->run.start.offcpu_min_ns)
		fprintf(stderr,
		        "  off-CPU: %" PRIu64 " intervals of %.3f ms or more (%.3f s), %" PRIu64
		        " shorter (%.3f s), %" PRIu64 " without a stack\n",
		        rs.off_cpu, (double)r->run.start.offcpu_min_ns / 1e6,
		        (double)rs.off_cpu_ns / 1e9, st->total.v[LFR_CTR_OFFCPU_SHORT],
		        (double)st->total.v[LFR_CTR_OFFCPU_SHORT_NS] / 1e9,
		        st->total.v[LFR_CTR_OFFCPU_LOST] + rs.off_cpu_lost);
	for (unsigned int i = 1; i <= LFR_LOST_MAX; i++)
		if (rs.lost_ticks[i])
			fprintf(stderr, "  lost %-18s %" PRIu64 "\n", lfr_lost_reason_name(i),
			        rs.lost_ticks[i]);
	if (rs.lost_pending)
		fprintf(stderr, "  lost %-18s %" PRIu64 "\n", LFR_LOST_WALK_PENDING_NAME,
		        rs.lost_pending);
	if (st->total.v[LFR_CTR_TICKS_SKIPPED])
		fprintf(
		    stderr,
		    "  %" PRIu64
		    " periods skipped without an interrupt: lfr's time on a CPU passed "
		    "its budget there (module parameter max_cpu_percent, all sessions together)\n",
		    st->total.v[LFR_CTR_TICKS_SKIPPED]);
	if (rs.incomplete)
		fprintf(stderr,
		        "  %" PRIu64 " stacks incomplete (depth limit, unreadable stack, or code "
		        "without frame pointers or CFI short of the thread's start)\n",
		        rs.incomplete);
	if (rs.frames)
		fprintf(stderr, "  %" PRIu64 " of %" PRIu64 " frames named\n",
		        rs.frames - rs.unnamed, rs.frames);
	fprintf(stderr, "  %" PRIu64 " process%s, %" PRIu64 " threads started, %" PRIu64 " ended\n",
	        rs.processes, rs.processes == 1 ? "" : "es", rs.thread_starts, rs.thread_ends);
	print_unwind(r, st);
	print_rates(r);
	if (r->rings.ring_pages)
		fprintf(stderr,
		        "  rings: %u pages per CPU (chosen for %.0f ticks/s of %" PRIu64
		        " B: %.2f s%s), reader woken at %u B\n",
		        r->rings.ring_pages, r->rings.rate_hz, r->rings.rec_bytes, r->rings.seconds,
		        r->rings.capped ? ", capped" : "", r->rings.wakeup_bytes);
	if (rs.events + lost_total(&rs) != matched)
		fprintf(stderr,
		        "%s: warning: %" PRIu64 " ticks hit the targets but %" PRIu64
		        " are in the file (samples + lost)\n",
		        PROG, matched, rs.events + lost_total(&rs));
	if (r->repository) {
		fprintf(stderr,
		        "%s: the repository %s keeps %s in %" PRIu64 " chunk file%s (%" PRIu64
		        " removed by its limits)\n",
		        PROG, r->output, size, js->repo_chunks, js->repo_chunks == 1 ? "" : "s",
		        js->evicted);
		fprintf(stderr, "  write it out: lfr dump %s -o FILE [--last TIME]\n", r->output);
		return;
	}
	fprintf(stderr, "%s: wrote %s (%s, %" PRIu64 " chunk%s)\n", PROG, r->output, size,
	        js->chunks, js->chunks == 1 ? "" : "s");
	fprintf(stderr,
	        "  look at it: lfr report %s  |  jfr summary %s  |  jfr print --events "
	        "jdk.ExecutionSample %s\n",
	        r->output, r->output, r->output);
}

static int parse(struct record *r, int argc, char **argv, char ***cmd)
{
	enum {
		O_CHUNK_SIZE = 256,
		O_CHUNK_AGE,
		O_RING,
		O_THREADS,
		O_DRAIN,
		O_EVENTS,
		O_CALL_GRAPH,
		O_REPOSITORY,
		O_MAX_AGE,
		O_MAX_SIZE,
		O_UNWIND_MAX,
		O_OFF_CPU,
	};
	static const struct option opts[] = {
	    {"freq", required_argument, NULL, 'F'},
	    {"period", required_argument, NULL, 'c'},
	    {"count", required_argument, NULL, 'c'},
	    {"depth", required_argument, NULL, 'g'},
	    {"max-stack", required_argument, NULL, 'g'},
	    {"call-graph", required_argument, NULL, O_CALL_GRAPH},
	    {"unwind-max", required_argument, NULL, O_UNWIND_MAX},
	    {"kernel-stacks", no_argument, NULL, 'k'},
	    {"off-cpu", optional_argument, NULL, O_OFF_CPU},
	    {"pid", required_argument, NULL, 'p'},
	    {"tid", required_argument, NULL, 't'},
	    {"all", no_argument, NULL, 'a'},
	    {"cgroup", required_argument, NULL, 'G'},
	    {"output", required_argument, NULL, 'o'},
	    {"duration", required_argument, NULL, 'd'},
	    {"chunk-size", required_argument, NULL, O_CHUNK_SIZE},
	    {"chunk-age", required_argument, NULL, O_CHUNK_AGE},
	    {"events", required_argument, NULL, O_EVENTS},
	    {"ring-pages", required_argument, NULL, O_RING},
	    {"max-threads", required_argument, NULL, O_THREADS},
	    {"drain-timeout", required_argument, NULL, O_DRAIN},
	    {"repository", required_argument, NULL, O_REPOSITORY},
	    {"max-age", required_argument, NULL, O_MAX_AGE},
	    {"max-size", required_argument, NULL, O_MAX_SIZE},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct cli_runner *run = &r->run;
	const char *output = NULL;
	bool unwind_max_set = false;
	uint64_t v, unwind_max = 0;
	int c, li = -1;

	/* "+:": stop at the command; report a missing argument as ':' (a bare -g is perf's) */
	while ((c = getopt_long(argc, argv, "+:F:g:kp:t:c:G:ae:o:d:qh", opts, &li)) != -1) {
		bool long_opt = li >= 0;

		li = -1;
		switch (c) {
		case 'F':
			if (cli_parse_u64(PROG, "-F", optarg, 1, LFR_MAX_FREQ_HZ, &v) < 0)
				return LFR_EXIT_USAGE;
			run->start.freq_hz = (uint32_t)v;
			break;
		case 'c':
			if (!isdigit((unsigned char)optarg[0])) {
				/* -c was the cgroup before it took perf's meaning */
				fprintf(
				    stderr,
				    "%s: -c: '%s' is not a number: -c is the sampling period in ns "
				    "of CPU time (perf's count); the cgroup is -G\n",
				    PROG, optarg);
				return LFR_EXIT_USAGE;
			}
			if (cli_parse_u64(PROG, long_opt ? "--period" : "-c", optarg,
			                  LFR_MIN_PERIOD_NS, LFR_MAX_PERIOD_NS, &v) < 0)
				return LFR_EXIT_USAGE;
			run->start.period_ns = v;
			break;
		case 'g':
			/*
			 * perf's -g (call graphs on) takes no number: "-g -- ./app" or "-g -p 1"
			 * hands the next word back.  Stacks are always recorded.
			 */
			if (!long_opt && !isdigit((unsigned char)optarg[0]) &&
			    optarg == argv[optind - 1]) {
				optind--;
				break;
			}
			if (cli_parse_u64(PROG, long_opt ? "--depth" : "-g", optarg, 1,
			                  LFR_MAX_USER_STACK_DEPTH, &v) < 0)
				return LFR_EXIT_USAGE;
			run->start.user_depth = (uint32_t)v;
			break;
		case O_CALL_GRAPH:
			/* perf's "dwarf[,SIZE]" copies stacks; lfr's walk reads the same CFI */
			if (!strcmp(optarg, "fp")) {
				r->fp_only = true;
			} else if (!strcmp(optarg, "cfi") || !strcmp(optarg, "dwarf") ||
			           !strncmp(optarg, "dwarf,", 6)) {
				r->fp_only = false;
			} else {
				fprintf(stderr,
				        "%s: --call-graph: '%s': cfi (the default; perf's 'dwarf') "
				        "unwinds by the objects' CFI, fp by frame pointers only\n",
				        PROG, optarg);
				return LFR_EXIT_USAGE;
			}
			break;
		case O_UNWIND_MAX:
			if (cli_parse_size(PROG, "--unwind-max", optarg, 0,
			                   (uint64_t)LFR_MAX_UNWIND_MAX_KB << 10, &unwind_max) < 0)
				return LFR_EXIT_USAGE;
			unwind_max_set = true;
			break;
		case 'e':
			if (strcmp(optarg, "cpu-clock") && strcmp(optarg, "task-clock")) {
				fprintf(stderr,
				        "%s: -e: '%s': lfr samples CPU time only (cpu-clock, "
				        "task-clock)\n",
				        PROG, optarg);
				return LFR_EXIT_USAGE;
			}
			break;
		case 'k':
			run->start.kernel_stack = true;
			break;
		case O_OFF_CPU:
			run->start.offcpu_min_ns = LFR_DEFAULT_OFFCPU_MIN_NS;
			if (!optarg)
				break;
			/* a bare number is in ms, as perf's --off-cpu-thresh */
			if (optarg[0] && strspn(optarg, "0123456789") == strlen(optarg)) {
				if (cli_parse_u64(PROG, "--off-cpu", optarg, 1,
				                  LFR_MAX_OFFCPU_MIN_NS / 1000000, &v) < 0)
					return LFR_EXIT_USAGE;
				run->start.offcpu_min_ns = v * 1000000;
			} else if (cli_parse_duration(PROG, "--off-cpu", optarg,
			                              LFR_MIN_OFFCPU_MIN_NS, LFR_MAX_OFFCPU_MIN_NS,
			                              &run->start.offcpu_min_ns) < 0) {
				return LFR_EXIT_USAGE;
			}
			break;
		case 'p':
			if (cli_parse_ids(PROG, "-p", optarg, &run->tgids, &run->ntgids) < 0)
				return LFR_EXIT_USAGE;
			break;
		case 't':
			if (cli_parse_ids(PROG, "-t", optarg, &run->tids, &run->ntids) < 0)
				return LFR_EXIT_USAGE;
			break;
		case 'a':
			r->system = run->start.system = true;
			break;
		case 'G': {
			char why[PATH_MAX + 160];
			uint64_t *ids = realloc(r->cgroups, (r->ncgroups + 1) * sizeof(*ids));

			if (!ids)
				return LFR_EXIT_FAILURE;
			r->cgroups = ids;
			if (lfr_cgroup_resolve(optarg, NULL, &ids[r->ncgroups], why, sizeof(why)) <
			    0) {
				fprintf(stderr, "%s: -%c: %s\n", PROG, c, why);
				return LFR_EXIT_USAGE;
			}
			r->ncgroups++;
			run->start.cgroup_ids = r->cgroups;
			run->start.ncgroups = r->ncgroups;
			break;
		}
		case 'o':
			output = optarg;
			break;
		case O_REPOSITORY:
			r->repository = r->jfr_opts.repository = true;
			r->output = optarg;
			break;
		case O_MAX_AGE:
			if (cli_parse_duration(PROG, "--max-age", optarg, 1000000000,
			                       366 * 86400000000000ull, &v) < 0)
				return LFR_EXIT_USAGE;
			r->jfr_opts.repo_max_age_ns = v;
			break;
		case O_MAX_SIZE:
			if (cli_parse_size(PROG, "--max-size", optarg, 256 << 10, 1ull << 50, &v) <
			    0)
				return LFR_EXIT_USAGE;
			r->jfr_opts.repo_max_bytes = v;
			break;
		case 'd':
			if (cli_parse_duration(PROG, "-d", optarg, 1000000, 366 * 86400000000000ull,
			                       &v) < 0)
				return LFR_EXIT_USAGE;
			run->duration = (double)v / 1e9;
			break;
		case O_CHUNK_SIZE:
			if (cli_parse_size(PROG, "--chunk-size", optarg, 64 << 10, 1ull << 30, &v) <
			    0)
				return LFR_EXIT_USAGE;
			r->jfr_opts.max_chunk_bytes = v;
			break;
		case O_EVENTS:
			if (!strcmp(optarg, "execution"))
				r->jfr_opts.sample_events = LFR_JFR_SAMPLE_EXECUTION;
			else if (!strcmp(optarg, "cpu-time"))
				r->jfr_opts.sample_events = LFR_JFR_SAMPLE_CPU_TIME;
			else if (!strcmp(optarg, "both"))
				r->jfr_opts.sample_events = LFR_JFR_SAMPLE_ALL;
			else {
				fprintf(stderr,
				        "%s: --events: '%s' is not execution, cpu-time or both\n",
				        PROG, optarg);
				return LFR_EXIT_USAGE;
			}
			break;
		case O_CHUNK_AGE:
			if (cli_parse_duration(PROG, "--chunk-age", optarg, 100000000,
			                       7 * 86400000000000ull, &v) < 0)
				return LFR_EXIT_USAGE;
			r->jfr_opts.max_chunk_age_ns = v;
			r->chunk_age_set = true;
			break;
		case O_RING:
			if (cli_parse_u64(PROG, "--ring-pages", optarg, LFR_MIN_RING_PAGES,
			                  LFR_MAX_RING_PAGES, &v) < 0)
				return LFR_EXIT_USAGE;
			run->start.ring_pages = (uint32_t)v;
			break;
		case O_THREADS:
			if (cli_parse_u64(PROG, "--max-threads", optarg, LFR_MIN_MAX_THREADS,
			                  LFR_MAX_MAX_THREADS, &v) < 0)
				return LFR_EXIT_USAGE;
			run->start.max_threads = (uint32_t)v;
			break;
		case O_DRAIN:
			if (cli_parse_ms(PROG, "--drain-timeout", optarg, 86400000, &v) < 0)
				return LFR_EXIT_USAGE;
			run->drain_timeout_ms = v;
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			if (optopt == 'g')
				break; /* a bare -g at the end: perf's, see above */
			fprintf(stderr,
			        "%s: %s needs a value\nRun 'lfr record --help' for the options.\n",
			        PROG, argv[optind - 1]);
			return LFR_EXIT_USAGE;
		default:
			fprintf(stderr,
			        "%s: unknown option %s\nRun 'lfr record --help' for the options.\n",
			        PROG, argv[optind - 1]);
			return LFR_EXIT_USAGE;
		}
	}
	*cmd = optind < argc ? argv + optind : NULL;
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
			r->jfr_opts.max_chunk_age_ns = REPO_CHUNK_AGE_NS;
		if (!r->jfr_opts.max_chunk_bytes)
			r->jfr_opts.max_chunk_bytes = 12 << 20;
		if (cap && r->jfr_opts.max_chunk_bytes > cap)
			r->jfr_opts.max_chunk_bytes = cap < 64 << 10 ? 64 << 10 : cap;
	}
	if (r->fp_only && unwind_max) {
		fprintf(stderr,
		        "%s: --unwind-max sizes the tables of --call-graph cfi; fp has none\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	if (unwind_max_set && !unwind_max)
		r->fp_only = true;
	run->start.no_unwind = r->fp_only;
	run->start.unwind_max_kb = (uint32_t)((unwind_max + 1023) >> 10);
	if (run->start.freq_hz && run->start.period_ns) {
		fprintf(stderr, "%s: give -F or -c (--period), not both\n", PROG);
		return LFR_EXIT_USAGE;
	}
	if (!*cmd && !run->ntgids && !run->ntids && !r->ncgroups && !r->system) {
		fprintf(stderr,
		        "%s: say what to record: -- COMMAND [ARGS...], -p PID, -t TID, "
		        "-G CGROUP or -a\n"
		        "Run 'lfr record --help' for the options.\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	if (run->start.offcpu_min_ns && (r->system || r->ncgroups)) {
		fprintf(stderr,
		        "%s: --off-cpu records the threads of a command, -p or -t; not yet -a or "
		        "-G\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	if (r->system && (*cmd || run->ntgids || run->ntids || r->ncgroups)) {
		fprintf(stderr,
		        "%s: -a records every thread already; drop -p, -t, -G or the command\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	return 0;
}

static int open_outputs(struct record *r)
{
	struct lfr_sym_opts so = {.flags = LFR_SYM_PROC_MAPS_FALLBACK};
	int err;

	err = lfr_jfr_open(&r->w, r->output, &r->jfr_opts);
	if (err) {
		fprintf(stderr, "%s: %s\n  hint: %s\n", PROG,
		        r->w ? lfr_jfr_strerror(r->w) : strerror(-err),
		        err == -EBUSY   ? "stop that recording, or give another --repository DIR"
		        : r->repository ? "choose a writable directory with --repository DIR"
		                        : "choose a writable file with -o FILE");
		return err == -EBUSY ? LFR_EXIT_BUSY : LFR_EXIT_IO;
	}
	err = lfr_sym_new(&r->sym, &so);
	if (!err)
		err = lfr_recorder_new(&r->rec, r->w, r->sym);
	if (!err && r->repository)
		lfr_recorder_jit_wait(r->rec, 0); /* a dump must find the last minutes' samples */
	if (err) {
		fprintf(stderr, "%s: %s\n", PROG, strerror(-err));
		return LFR_EXIT_FAILURE;
	}
	return 0;
}

/* An unpublished writer leaves the file that was at -o (if any) as it was. */
static void close_outputs(struct record *r)
{
	lfr_unwind_loader_free(r->unwind); /* before the control socket it uses closes */
	r->unwind = NULL;
	lfr_recorder_free(r->rec);
	lfr_sym_free(r->sym);
	lfr_jfr_abandon(r->w);
}

int cmd_record(int argc, char **argv)
{
	struct record r = {
	    .output = "lfr.jfr",
	    .run = {.prog = PROG, .drain_timeout_ms = DEFAULT_DRAIN_MS, .tick_ms = 100},
	};
	struct lfr_status st = {0};
	char **cmd = NULL, err[512];
	int ret;

	r.run.on_record = on_record;
	r.run.on_tick = on_tick;
	r.run.on_started = on_started;
	r.run.arg = &r;
	r.run.start.jitter_pct = -1;
	if ((ret = parse(&r, argc, argv, &cmd))) {
		free(r.run.tgids);
		free(r.run.tids);
		free(r.cgroups);
		return ret;
	}
	cli_default_rings(&r.run.start, &r.rings);
	r.tty = isatty(STDERR_FILENO);
	if ((ret = open_outputs(&r))) {
		close_outputs(&r);
		cli_runner_close(&r.run);
		free(r.cgroups);
		return ret;
	}
	r.start_ticks = lfr_jfr_now();
	r.start_s = cli_now();
	if ((ret = cli_runner_start(&r.run, cmd))) {
		/* nothing was recorded: the writer leaves no file behind and keeps an old one */
		close_outputs(&r);
		cli_runner_close(&r.run);
		free(r.cgroups);
		return ret;
	}
	describe_target(&r, cmd);
	r.err = write_header_events(&r);
	/*
	 * a SIGINT or SIGTERM ends the reading side's wait for naming at once (not once naming,
	 * seconds behind on a busy machine, has caught up): the session stops within a poll
	 */
	lfr_recorder_stop_flag(r.rec, &cli_runner_interrupted);
	if (!r.err)
		r.err = lfr_recorder_behind(r.rec, MAX_BEHIND_BYTES, r.repository ? 0 : 19,
		                            !r.repository);
	if (!r.err)
		ret = cli_runner_loop(&r.run);
	/*
	 * however the recording ends (its duration, the command's exit, lfr stop), the rings are
	 * read while the session drains without waiting for naming (after STOP they hold a bounded
	 * amount): they must not fill, nor the drain's deadline pass, while naming catches up
	 */
	cli_runner_interrupted = 1;
	/* the loader's requests share the control socket the stop goes through */
	if (r.unwind)
		lfr_unwind_loader_quiesce(r.unwind); /* not the table it builds: the stop waits */
	if (!ret)
		ret = cli_runner_finish(&r.run, &st);
	if (!r.err)
		r.err = lfr_recorder_process(r.rec, true);
	if (!r.err && st.total.present[LFR_CTR_TICKS_MATCHED])
		r.err = lfr_recorder_account(r.rec, &st.total);
	if (!r.err && st.info.state == LFR_STATE_DRAINING)
		r.err = lfr_recorder_account_pending(r.rec, &st.total);
	if (r.err) {
		fprintf(stderr, "%s: %s\n  %s\n", PROG, lfr_jfr_strerror(r.w),
		        lfr_jfr_published(r.w) ? "the file keeps everything up to its last flush"
		                               : "nothing was written: the file is left as it was");
		lfr_jfr_abandon(r.w);
		r.w = NULL;
		ret = LFR_EXIT_IO;
	} else {
		struct lfr_jfr_stats js;
		double secs = cli_now() - r.start_s;

		lfr_jfr_get_stats(r.w, &js);
		if (lfr_jfr_close(r.w, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			ret = LFR_EXIT_IO;
		} else if (!r.quiet) {
			print_summary(&r, &st, secs, &js);
		}
		if (!ret)
			warn_unwind(&r, true);
		r.w = NULL;
	}
	lfr_status_free(&st);
	close_outputs(&r);
	cli_runner_close(&r.run);
	free(r.cgroups);
	return ret;
}

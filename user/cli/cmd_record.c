// SPDX-License-Identifier: GPL-2.0
/*
 * lfr record: samples threads with the module and writes a JFR file.  The file is readable by
 * `jfr` after every flush (once a second), after Ctrl-C, and after a crash up to its last flush.
 */
#include <ctype.h>
#include <errno.h>
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
#include "cli/record_export.h"
#include "cli/options.h"
#include "cli/privileges.h"
#include "cli/runner.h"
#include "export/labels.h"
#include "jfr/writer.h"
#include "lib/cgroup.h"
#include "lib/record.h"
#include "record/ctx_finder.h"
#include "record/program_objects.h"
#include "record/recorder.h"
#include "record/unwind_loader.h"
#include "report/text_safe.h"
#include "sym/sym.h"

#define PROG "lfr record"
/* Walks of running threads finish within a scheduler tick; longer means a thread blocked. */
#define DEFAULT_DRAIN_MS 2000u
/* Records read but not yet named: past this, reading waits for naming (the rings then lose). */
#define MAX_BEHIND_BYTES (256u << 20)
/* A continuous recording's chunk age: a dump of the last N seconds covers at most this more. */
#define REPO_CHUNK_AGE_NS 5000000000ull
/*
 * With --export: each chunk is read, converted and sent whole, at a cost per chunk (its metadata
 * and pools, a request per series) that 30 s spread over six times the samples of 5 s
 * (Documentation/benchmarks.md, "Where the exports' instructions go").
 */
#define REPO_EXPORT_CHUNK_AGE_NS 30000000000ull

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
	/* without CAP_PERFMON: cgroups by their cgroup.procs open for writing, and their paths */
	int *cgroup_fds;
	const char **cgroup_paths;
	size_t ncgroup_fds;
	/* the ring size chosen by default; ring_pages 0 with --ring-pages */
	struct lfr_ring_size rings;
	bool fp_only;                     /* --call-graph fp or --unwind-max 0: no unwind tables */
	struct lfr_unwind_loader *unwind; /* the session's unwind tables, unless fp_only */
	bool unsupported_told;            /* the module without tables was reported already */
	uint32_t wall_hz;                 /* --wall HZ: wall-clock samples at HZ; 0: none */
	bool no_ctx;                      /* --no-thread-context */
	struct lfr_ctx_finder *ctx;       /* the processes' thread contexts, unless no_ctx */
	struct lfr_ctl ctx_ctl;           /* the finder's own control socket */
	bool ctx_ctl_open;
	uint64_t off_cpu_events_min; /* with --wall: --off-cpu's minimum, UINT64_MAX: none */
	struct lfr_labels labels;    /* --label: the recording's own */
	struct record_export export; /* --export KIND=URL ...: what follows the repository */
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
	    "                         counted per thread.  Any target; with -a or -G a\n"
	    "                         thread's time off the CPU counts from its first\n"
	    "                         switch out in the recording\n"
	    "      --wall HZ          wall-clock samples: every target thread is sampled HZ\n"
	    "                         times per second of wall time whatever it does: on the\n"
	    "                         CPU by its CPU samples (-F HZ), off it with its state\n"
	    "                         (sleeping, or runnable when preempted) and the stacks it\n"
	    "                         waits with: profiler.WallClockSample events, as\n"
	    "                         async-profiler writes them (lfr report --wall).  Any\n"
	    "                         target, as --off-cpu\n"
	    "      --latency[=MIN]    also record sampling latencies: a tick that interrupts a\n"
	    "                         thread in the kernel until the thread returns to user\n"
	    "                         space and walks its stack, when that takes MIN or more\n"
	    "                         (as --off-cpu's MIN; default 1 ms), as one\n"
	    "                         lfr.SamplingLatency event with the kernel stack the tick\n"
	    "                         interrupted (implies -k)\n"
	    "      --no-thread-context  do not read the OpenTelemetry thread context (the trace\n"
	    "                         and span of every sample, with its attributes, from\n"
	    "                         processes that publish otel_thread_ctx_v1, OTEP 4947:\n"
	    "                         lfr.TraceContext events; lfr report --span, --trace)\n"
	    "  -d, --duration TIME    stop after TIME: seconds (1.5) or with a unit (500ms, 2m, "
	    "1h)\n"
	    "                         (default: when COMMAND exits, when every\n"
	    "                         -p process is gone, or on Ctrl-C)\n\n"
	    "Output:\n"
	    "  -o, --output FILE      the JFR file (default lfr.jfr; an existing one is\n"
	    "                         replaced at the first flush, kept if that fails; a\n"
	    "                         FILE that is no regular file, or another user's in a\n"
	    "                         sticky directory such as /tmp, is refused);\n"
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
	    "      --label KEY=VALUE  a label of the recording (repeatable; KEY=VALUE,... for\n"
	    "                         several), beside host.name and each process's\n"
	    "                         service.name, container.id and k8s.pod.uid (read from\n"
	    "                         its cgroup): lfr.Label events, shown by lfr report -s\n"
	    "                         LABEL and sent by --export.  service.name=NAME names\n"
	    "                         every process's service\n"
	    "  -q, --quiet            no status line and no summary\n\n"
	    "Continuous recording (a flight recorder; see lfr dump):\n"
	    "      --repository DIR   record until stopped into DIR, one file per chunk (a new\n"
	    "                         chunk every 5 s by default, 30 s with --export;\n"
	    "                         --chunk-age), the newest on\n"
	    "                         disk about 1 s behind; 'lfr dump DIR' writes them out.\n"
	    "                         A second recording cannot write to the same DIR\n"
	    "      --max-age TIME     remove chunks that ended more than TIME ago (10m, 1h)\n"
	    "      --max-size SIZE    remove the oldest chunks while DIR holds more than SIZE\n"
	    "                         (64M, 1G; chunks are then at most SIZE / 4)\n"
	    "      --export KIND=URL  also send each finished chunk to a fleet backend\n"
	    "                         (repeatable; KIND=URL,... for several): otlp=http(s)://\n"
	    "                         HOST:PORT, an OpenTelemetry Collector's OTLP/HTTP receiver,\n"
	    "                         or pyroscope=http(s)://HOST:PORT, Pyroscope's ingest API.\n"
	    "                         DIR is the spool: what a backend has not taken waits there\n"
	    "                         (within --max-size and --max-age), is sent again with\n"
	    "                         backoff, in order, also by the next recorder on DIR; lfr\n"
	    "                         status shows what waits, was sent and was lost\n"
	    "      --ca-file FILE     with --export: TLS authorities (PEM) instead of the "
	    "system's\n"
	    "      --export-credentials FILE\n"
	    "                         with --export: a bearer token, basic authentication or\n"
	    "                         headers (see lfr export --help; mode 600), never on the\n"
	    "                         command line\n\n"
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
	if (r->ctx)
		lfr_ctx_finder_record(r->ctx, h);
	if (r->err)
		return 0; /* keep consuming: the session must not stall on full rings */
	r->err = lfr_recorder_add(r->rec, h);
	return 0;
}

/* After every read of the rings: how far they were read, for the joining of ticks and stacks. */
static void on_read(struct cli_runner *run)
{
	struct record *r = run->arg;

	if (!r->err)
		r->err = lfr_recorder_read(r->rec, run->read_ns);
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
	fprintf(stderr, "\r%s: %6.1f s  %" PRIu64 " samples  %" PRIu64 " lost  %s  %s", PROG,
	        cli_now() - r->start_s, st.events, lost_total(&st), size, r->output);
	record_export_status(&r->export, stderr);
	fputs("   ", stderr);
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
	for (size_t i = 0; i < r->ncgroup_fds && off < sizeof(r->target); i++)
		off += snprintf(r->target + off, sizeof(r->target) - off, "%scgroup %s",
		                off ? ", " : "", r->cgroup_paths[i]);
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
	struct lfr_labels own;
	const char *kv[2 * LFR_LABELS_MAX];

	lfr_labels_recording(&r->labels, &own);
	lfr_recorder_set_labels(r->rec, &r->labels);
	return lfr_jfr_labels(r->w, now, 0, kv, lfr_labels_kv(&own, kv)) ?:
	       lfr_jfr_active_recording(r->w, now, &rec) ?:
	       lfr_jfr_os_information(r->w, now, NULL) ?:
	       lfr_jfr_cpu_information(r->w, now, NULL) ?:
	       (lfr_recorder_set_period(r->rec, r->run.info.period_ns),
	        r->wall_hz ? lfr_recorder_set_wall(r->rec, r->off_cpu_events_min) : (void)0,
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

		/* a thread names itself: its name reaches the terminal as text_safe.h has it */
		text_safe_in_place(top[i].comm);
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

static int ctx_add(void *arg, const struct lfr_ctx_loc *l, struct lfr_error *e)
{
	struct record *r = arg;

	return lfr_ctl_ctx_add(&r->ctx_ctl, r->run.info.id, l, e);
}

/*
 * The thread contexts' finder, with a control socket of its own (the unwind loader's requests
 * go through the session's): the -p processes now, every other one at its first record.
 */
static void start_ctx_finder(struct record *r)
{
	struct cli_runner *run = &r->run;
	struct lfr_error e;

	if (!run->info.thread_ctx)
		return;
	memset(&e, 0, sizeof(e));
	if (lfr_ctl_open(&r->ctx_ctl, &e)) {
		fprintf(stderr, "%s: warning: no thread contexts: %s\n", PROG, e.msg);
		return;
	}
	r->ctx_ctl_open = true;
	if (lfr_ctx_finder_new(&r->ctx, ctx_add, r))
		return;
	for (size_t i = 0; i < run->ntgids; i++)
		if ((pid_t)run->tgids[i] != run->child)
			lfr_ctx_finder_queue(r->ctx, run->tgids[i]);
	if (lfr_ctx_finder_start(r->ctx, r->repository ? 0 : 19)) {
		lfr_ctx_finder_free(r->ctx);
		r->ctx = NULL;
	}
}

/* Ends the finder (its thread, then its socket), before the session stops. */
static void stop_ctx_finder(struct record *r)
{
	if (r->ctx)
		lfr_ctx_finder_stop(r->ctx);
	if (r->ctx_ctl_open)
		lfr_ctl_close(&r->ctx_ctl);
	r->ctx_ctl_open = false;
}

/* What the recording found of the processes' thread contexts. */
static void print_ctx(const struct record *r, const struct lfr_recorder_stats *rs)
{
	struct lfr_ctx_finder_stats fs;
	uint64_t without = 0;

	if (!r->ctx)
		return;
	lfr_ctx_finder_get_stats(r->ctx, &fs);
	for (unsigned int i = LFR_CTX_NULL; i < __LFR_CTX_STATE_MAX; i++)
		without += rs->ctx[i];
	if (!fs.registered && !fs.failed)
		return;
	fprintf(stderr,
	        "  thread contexts: %" PRIu64 " process%s; %" PRIu64 " samples with one, %" PRIu64
	        " without (null %" PRIu64 ", invalid %" PRIu64 ", unreadable %" PRIu64
	        ", changed while read %" PRIu64 ", no TLS block %" PRIu64 ")\n",
	        fs.registered, fs.registered == 1 ? "" : "es", rs->ctx[LFR_CTX_VALID], without,
	        rs->ctx[LFR_CTX_NULL], rs->ctx[LFR_CTX_INVALID], rs->ctx[LFR_CTX_FAULT],
	        rs->ctx[LFR_CTX_CHANGED], rs->ctx[LFR_CTX_NO_BLOCK]);
	if (rs->ctx_attrs_unnamed)
		fprintf(stderr,
		        "  %" PRIu64 " context attributes left out: their key has no name in the "
		        "process context's threadlocal.attribute_key_map\n",
		        rs->ctx_attrs_unnamed);
	if (fs.failed)
		fprintf(stderr,
		        "%s: warning: the thread context of %" PRIu64
		        " process%s is not read: %s\n",
		        PROG, fs.failed, fs.failed == 1 ? "" : "es", fs.first_failure);
}

#define PREPARED_MAX (8u << 20)

/* One object of the command, before it runs: its symbols, and its unwind table when loaded. */
static void load_program_object(const char *path, void *arg)
{
	struct record *r = arg;

	lfr_sym_preload_object(r->sym, path); /* else read at its first sample, as any object */
	if (r->unwind)
		lfr_unwind_loader_load_object(r->unwind, path);
}

/*
 * Once the session runs: the symbols and unwind tables of the command's objects before it runs
 * (so that its first samples have the tables, and naming them does not compete with the command
 * while it starts), the objects of the -p/-t processes queued; objects mapped later come with
 * their MMAP records.  A system-wide or cgroup recording loads what its samples hit that way.
 */
static void on_started(struct cli_runner *run, char **cmd)
{
	struct record *r = run->arg;
	size_t ring_bytes;
	char err[512];

	/*
	 * The batches that queue while naming stays behind (up to about a second of records): as
	 * much as the rings hold (half a second of records of the full depth), at most 8 MiB.
	 * Before the naming thread starts: the symbolizer and the batches are this thread's.
	 */
	ring_bytes = (size_t)run->rings.nmapped * run->rings.ring_pages * run->rings.page_size;
	lfr_recorder_prepare(r->rec, ring_bytes < PREPARED_MAX ? ring_bytes : PREPARED_MAX);
	if (!r->fp_only)
		lfr_unwind_loader_new(&r->unwind, unwind_add, r); /* NULL when it cannot */
	if (cmd)
		lfr_program_objects(cmd[0], load_program_object, r, err, sizeof(err));
	start_ctx_finder(r);
	if (!r->unwind)
		return;
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
	if (r->wall_hz)
		fprintf(stderr,
		        "  wall clock: %" PRIu64
		        " samples off the CPU beside the CPU samples (profiler.WallClockSample), "
		        "%" PRIu64 " intervals without a stack, %" PRIu64 " over the CPU budget\n",
		        rs.wall_samples, st->total.v[LFR_CTR_OFFCPU_LOST] + rs.off_cpu_lost,
		        st->total.v[LFR_CTR_OFFCPU_THROTTLED]);
	if (r->run.start.offcpu_min_ns && !r->wall_hz)
		fprintf(stderr,
		        "  off-CPU: %" PRIu64 " intervals of %.3f ms or more (%.3f s), %" PRIu64
		        " shorter (%.3f s), %" PRIu64 " without a stack, %" PRIu64
		        " over the CPU budget\n",
		        rs.off_cpu, (double)r->run.start.offcpu_min_ns / 1e6,
		        (double)rs.off_cpu_ns / 1e9, st->total.v[LFR_CTR_OFFCPU_SHORT],
		        (double)st->total.v[LFR_CTR_OFFCPU_SHORT_NS] / 1e9,
		        st->total.v[LFR_CTR_OFFCPU_LOST] + rs.off_cpu_lost,
		        st->total.v[LFR_CTR_OFFCPU_THROTTLED]);
	else if (r->wall_hz && r->off_cpu_events_min != UINT64_MAX)
		/* every interval came from the module; the minimum was applied here */
		fprintf(stderr,
		        "  off-CPU: %" PRIu64 " intervals of %.3f ms or more (%.3f s) of %" PRIu64
		        " (%.3f s)\n",
		        rs.off_cpu, (double)r->off_cpu_events_min / 1e6,
		        (double)rs.off_cpu_ns / 1e9,
		        st->total.v[LFR_CTR_OFFCPU] + st->total.v[LFR_CTR_OFFCPU_SHORT],
		        (double)(st->total.v[LFR_CTR_OFFCPU_NS] +
		                 st->total.v[LFR_CTR_OFFCPU_SHORT_NS]) /
		            1e9);
	if (r->run.start.latency_min_ns)
		fprintf(stderr,
		        "  sampling latency: %" PRIu64 " of %.3f ms or more (longest %.3f ms, mean "
		        "%.3f ms), %" PRIu64 " without their tick\n",
		        rs.latencies, (double)r->run.start.latency_min_ns / 1e6,
		        (double)rs.latency_max_ns / 1e6,
		        rs.latencies ? (double)rs.latency_ns / 1e6 / (double)rs.latencies : 0.0,
		        st->total.v[LFR_CTR_LATENCY_LOST] + rs.latency_unmatched);
	for (unsigned int i = 1; i <= LFR_LOST_MAX; i++)
		if (rs.lost_ticks[i])
			fprintf(stderr, "  lost %-18s %" PRIu64 "\n", lfr_lost_reason_name(i),
			        rs.lost_ticks[i]);
	if (rs.lost_pending)
		fprintf(stderr, "  lost %-18s %" PRIu64 "\n", LFR_LOST_WALK_PENDING_NAME,
		        rs.lost_pending);
	if (rs.join_lost.ticks_superseded + rs.join_lost.ticks_exited + rs.join_lost.stacks)
		fprintf(stderr,
		        "  given up, the other record lost to a full ring (counted above): %" PRIu64
		        " ticks without their stack walk (%" PRIu64
		        " of threads that exited), %" PRIu64 " stack walks without %" PRIu64
		        " of their ticks\n",
		        rs.join_lost.ticks_superseded + rs.join_lost.ticks_exited,
		        rs.join_lost.ticks_exited, rs.join_lost.stacks, rs.join_lost.stack_ticks);
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
	print_ctx(r, &rs);
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
		record_export_summary(&r->export, stderr);
		return;
	}
	fprintf(stderr, "%s: wrote %s (%s, %" PRIu64 " chunk%s)\n", PROG, r->output, size,
	        js->chunks, js->chunks == 1 ? "" : "s");
	fprintf(stderr,
	        "  look at it: lfr report %s  |  jfr summary %s  |  jfr print --events "
	        "jdk.ExecutionSample %s\n",
	        r->output, r->output, r->output);
}

/* --help prints the usage; a bad option, after its message, only where to look */
static void usage_or_hint(FILE *out)
{
	if (out == stdout)
		usage(stdout);
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

/* Returns -1 when the recording can start, else the exit status. */
static int parse(struct record *r, int argc, char **argv, char ***cmd)
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
	if (repository) {
		r->repository = r->jfr_opts.repository = true;
		r->output = repository;
	}
	*cmd = optind < argc ? argv + optind : NULL;
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
	if (!*cmd && !run->ntgids && !run->ntids && !r->ncgroups && !r->ncgroup_fds && !r->system) {
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
	if (r->system && (*cmd || run->ntgids || run->ntids || r->ncgroups || r->ncgroup_fds)) {
		fprintf(stderr,
		        "%s: -a records every thread already; drop -p, -t, -G or the command\n",
		        PROG);
		return LFR_EXIT_USAGE;
	}
	kernel_proof(run);
	return -1;
}

static int open_outputs(struct record *r)
{
	/* the recorder names each frame in a file once (lfr_recorder's own memory of frames): its
	 * symbolizer's cache holds the rest, code in anonymous memory and pcs not named again */
	struct lfr_sym_opts so = {.flags = LFR_SYM_PROC_MAPS_FALLBACK, .cache_entries = 16384};
	int err;

	record_export_hooks(&r->export, &r->jfr_opts);
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
	record_export_free(&r->export);    /* stops it first, if it still runs */
	lfr_unwind_loader_free(r->unwind); /* before the control socket it uses closes */
	r->unwind = NULL;
	stop_ctx_finder(r);
	lfr_ctx_finder_free(r->ctx);
	r->ctx = NULL;
	lfr_recorder_free(r->rec);
	lfr_sym_free(r->sym);
	lfr_jfr_abandon(r->w);
}

/* The cgroups given and what proves the user's rights to them and to the kernel. */
static void free_targets(struct record *r)
{
	for (size_t i = 0; i < r->ncgroup_fds; i++)
		close(r->cgroup_fds[i]);
	if (r->run.start.kernel_proof_fd > 0)
		close(r->run.start.kernel_proof_fd);
	free(r->cgroups);
	free(r->cgroup_fds);
	free(r->cgroup_paths);
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
	r.run.on_wake = on_read;
	r.run.on_started = on_started;
	r.run.arg = &r;
	r.run.start.jitter_pct = -1;
	r.export.opts.prog = PROG;
	if ((ret = parse(&r, argc, argv, &cmd)) >= 0) {
		free(r.run.tgids);
		free(r.run.tids);
		free_targets(&r);
		return ret;
	}
	cli_default_rings(&r.run.start, &r.rings);
	r.tty = isatty(STDERR_FILENO);
	if ((ret = open_outputs(&r)) || (ret = record_export_start(&r.export, r.output))) {
		close_outputs(&r);
		cli_runner_close(&r.run);
		free_targets(&r);
		return ret;
	}
	r.start_ticks = lfr_jfr_now();
	r.start_s = cli_now();
	if ((ret = cli_runner_start(&r.run, cmd))) {
		/* nothing was recorded: the writer leaves no file behind and keeps an old one */
		close_outputs(&r);
		cli_runner_close(&r.run);
		free_targets(&r);
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
	stop_ctx_finder(&r);
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
		/* the repository as the close left it: its last chunk's end may remove one more */
		if (lfr_jfr_close_repo_stats(r.w, &js, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			ret = LFR_EXIT_IO;
		} else {
			/* every chunk finished: the exports send the last ones now, if they can */
			record_export_end(&r.export);
			if (!r.quiet)
				print_summary(&r, &st, secs, &js);
		}
		if (!ret)
			warn_unwind(&r, true);
		r.w = NULL;
	}
	lfr_status_free(&st);
	close_outputs(&r);
	cli_runner_close(&r.run);
	free_targets(&r);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr record's parts: the command line (cli/record_opts.c), its usage text (cli/record_usage.c),
 * the summary printed at the end (cli/record_summary.c) and the run (cli/cmd_record.c) share the
 * state of one recording, struct record.
 */
#ifndef LFR_CLI_RECORD_H
#define LFR_CLI_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/record_export.h"
#include "cli/runner.h"
#include "export/labels.h"
#include "jfr/writer.h"
#include "lib/control.h"
#include "lib/ringsize.h"
#include "record/ctx_finder.h"
#include "record/recorder.h"
#include "record/unwind_loader.h"
#include "sym/sym.h"

#define PROG "lfr record"
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
	const char *cache_dir;            /* --cache DIR: tables kept there by build-id */
	struct lfr_blob_cache *cache;     /* its unwind tables and symbol tables */
	bool unsupported_told;            /* the module without tables was reported already */
	uint32_t wall_hz;                 /* --wall HZ: wall-clock samples at HZ; 0: none */
	bool no_ctx;                      /* --no-thread-context */
	struct lfr_ctx_finder *ctx;       /* the processes' thread contexts, unless no_ctx */
	struct lfr_ctl ctx_ctl;           /* the finder's own control socket */
	bool ctx_ctl_open;
	struct lfr_ctl ksym_ctl; /* the naming side's own, for kernel names (LFR_CMD_KSYM) */
	bool ksym_ctl_open;
	uint64_t off_cpu_events_min; /* with --wall: --off-cpu's minimum, UINT64_MAX: none */
	struct lfr_labels labels;    /* --label: the recording's own */
	struct record_export export; /* --export KIND=URL ...: what follows the repository */
};

/* The usage text, to out (--help: stdout). */
void record_usage(FILE *out);
/* The command line into r and *cmd; -1 when the recording can start, else the exit status. */
int record_parse(struct record *r, int argc, char **argv, char ***cmd);
/* b as "N B", "N.N KB" or "N.N MB". */
void record_human_bytes(char *buf, size_t len, uint64_t b);
/* Every tick lost, whatever the reason, and the walks still pending. */
uint64_t record_lost_total(const struct lfr_recorder_stats *st);
/* The summary, printed once the file is closed (its final size known). */
void record_print_summary(struct record *r, const struct lfr_status *st, double secs,
                          const struct lfr_jfr_stats *js);

#endif

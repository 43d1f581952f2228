// SPDX-License-Identifier: GPL-2.0
/*
 * lfr record: samples threads with the module and writes a JFR file.  The file is readable by
 * `jfr` after every flush (once a second), after Ctrl-C, and after a crash up to its last flush.
 * The command line is cli/record_opts.c's, the summary cli/record_summary.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "cli/record.h"
#include "lib/record.h"
#include "record/program_objects.h"

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
	record_human_bytes(size, sizeof(size), js.bytes);
	fprintf(stderr, "\r%s: %6.1f s  %" PRIu64 " samples  %" PRIu64 " lost  %s  %s", PROG,
	        cli_now() - r->start_s, st.events, record_lost_total(&st), size, r->output);
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

/* Files of --cache DIR not used (damaged, stale) or not written: said once, at the end. */
static void warn_cache(struct record *r)
{
	struct lfr_unwind_loader_stats us = {0};
	struct lfr_sym_cache_stats ss;
	uint64_t n;

	if (!r->cache)
		return;
	if (r->unwind)
		lfr_unwind_loader_get_stats(r->unwind, &us);
	lfr_sym_get_cache_stats(r->sym, &ss);
	n = us.cache_problems + ss.problems;
	if (n)
		fprintf(stderr,
		        "%s: warning: --cache: %" PRIu64 " file%s not used or not written: %s%s\n",
		        PROG, n, n == 1 ? "" : "s",
		        us.cache_problems ? us.first_cache_problem : ss.first_problem,
		        n > 1 ? ", ..." : "");
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
 * The program a wrapper runs (`taskset -c 1 PROG`, `env X=1 PROG`, `nice PROG`, `sudo PROG`):
 * each argument of the command that names an executable, found as execvp finds it, has its
 * objects loaded before the command runs too.  Else they would come only with the MMAP records of
 * the exec'd program, and its first stacks (a second or more under emulation: libc's table takes
 * that long to build beside a busy program) would be walked by frame pointers alone.  An argument
 * that merely names a program costs its tables, nothing else.
 */
static void load_exec_arguments(struct record *r, char **cmd)
{
	char err[512];

	for (size_t i = 1; cmd[i]; i++)
		if (cmd[i][0] && cmd[i][0] != '-')
			lfr_program_objects(cmd[i], load_program_object, r, err, sizeof(err));
}

/*
 * Once the session runs: the symbols and unwind tables of the command's objects before it runs
 * (so that its first samples have the tables, and naming them does not compete with the command
 * while it starts), and those of the programs its arguments name; the objects of the -p/-t
 * processes queued; objects mapped later come with their MMAP records.  A system-wide or cgroup
 * recording loads what its samples hit that way.
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
	 * Only for a command, held until this returns: its pages are written before it runs.  A
	 * running machine (-a, -p, a cgroup) would pay for them during the recording all the same,
	 * most of them never used by a recording's first minutes of a few hundred stacks: 94 ms
	 * of the service's first 10 s under -icount (Documentation/benchmarks.md, "Start-up").
	 */
	ring_bytes = (size_t)run->rings.nmapped * run->rings.ring_pages * run->rings.page_size;
	if (cmd)
		lfr_recorder_prepare(r->rec, ring_bytes < PREPARED_MAX ? ring_bytes : PREPARED_MAX);
	if (!r->fp_only)
		lfr_unwind_loader_new(&r->unwind, unwind_add, r); /* NULL when it cannot */
	if (r->unwind)
		lfr_unwind_loader_set_cache(r->unwind, r->cache);
	if (cmd) {
		lfr_program_objects(cmd[0], load_program_object, r, err, sizeof(err));
		load_exec_arguments(r, cmd);
	}
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

struct ksym_text {
	char *text;
	size_t len;
};

static void ksym_copy(void *arg, size_t i, const char *name)
{
	struct ksym_text *t = arg;

	if (i == 0)
		snprintf(t->text, t->len, "%s", name);
}

/*
 * Kernel names for the symbolizer, asked of the module through a socket of the naming side's
 * own (opened at its first question): a function at a time instead of all of /proc/kallsyms.
 * An error makes the symbolizer read /proc/kallsyms from then on.
 */
static int ask_ksym(void *arg, uint64_t pc, char *text, size_t len)
{
	struct record *r = arg;
	struct ksym_text t = {text, len};
	struct lfr_error e;

	memset(&e, 0, sizeof(e));
	if (!r->ksym_ctl_open) {
		if (lfr_ctl_open(&r->ksym_ctl, &e))
			return e.code ? -e.code : -EIO;
		r->ksym_ctl_open = true;
	}
	return lfr_ctl_ksym(&r->ksym_ctl, &pc, 1, ksym_copy, &t, &e);
}

static int open_outputs(struct record *r)
{
	/* the recorder names each frame in a file or the kernel once (lfr_recorder's own memory of
	 * frames): its symbolizer's cache holds the rest, JIT code named by perf maps */
	struct lfr_sym_opts so = {.flags = LFR_SYM_PROC_MAPS_FALLBACK | LFR_SYM_CACHE_FILELESS,
	                          .cache_entries = 16384};
	int err;

	if (r->cache_dir) {
		char why[512];

		err = lfr_blob_cache_open(r->cache_dir, &r->cache, why, sizeof(why));
		if (err) {
			fprintf(stderr,
			        "%s: --cache %s\n  hint: give a directory of your own (it is made, "
			        "mode "
			        "700, when missing)\n",
			        PROG, why);
			return err == -EPERM ? LFR_EXIT_PERM : LFR_EXIT_IO;
		}
	}
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
		lfr_sym_set_kernel_ask(r->sym, ask_ksym, r);
	if (!err && r->cache)
		lfr_sym_set_cache(r->sym, r->cache);
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
	lfr_blob_cache_close(r->cache);
	r->cache = NULL;
	stop_ctx_finder(r);
	lfr_ctx_finder_free(r->ctx);
	r->ctx = NULL;
	lfr_recorder_free(r->rec);
	lfr_sym_free(r->sym);
	if (r->ksym_ctl_open)
		lfr_ctl_close(&r->ksym_ctl);
	r->ksym_ctl_open = false;
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

/* The end: the file closed and the summary printed, or why it could not be; the exit status. */
static int finish_file(struct record *r, const struct lfr_status *st, int ret)
{
	char err[512];

	if (r->err) {
		fprintf(stderr, "%s: %s\n  %s\n", PROG, lfr_jfr_strerror(r->w),
		        lfr_jfr_published(r->w)
		            ? "the file keeps everything up to its last flush"
		            : "nothing was written: the file is left as it was");
		lfr_jfr_abandon(r->w);
		r->w = NULL;
		ret = LFR_EXIT_IO;
	} else {
		struct lfr_jfr_stats js;
		double secs = cli_now() - r->start_s;

		lfr_jfr_get_stats(r->w, &js);
		/* the repository as the close left it: its last chunk's end may remove one more */
		if (lfr_jfr_close_repo_stats(r->w, &js, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			ret = LFR_EXIT_IO;
		} else {
			/* every chunk finished: the exports send the last ones now, if they can */
			record_export_end(&r->export);
			if (!r->quiet)
				record_print_summary(r, st, secs, &js);
		}
		if (!ret) {
			warn_unwind(r, true);
			warn_cache(r);
		}
		r->w = NULL;
	}
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record r = {
	    .output = "lfr.jfr",
	    .run = {.prog = PROG, .drain_timeout_ms = DEFAULT_DRAIN_MS, .tick_ms = 100},
	};
	struct lfr_status st = {0};
	char **cmd = NULL;
	int ret;

	r.run.on_record = on_record;
	r.run.on_tick = on_tick;
	r.run.on_wake = on_read;
	r.run.on_started = on_started;
	r.run.arg = &r;
	r.run.start.jitter_pct = -1;
	r.export.opts.prog = PROG;
	if ((ret = record_parse(&r, argc, argv, &cmd)) >= 0) {
		free(r.run.tgids);
		free(r.run.tids);
		free_targets(&r);
		return ret;
	}
	/*
	 * Blocks of 128 KiB and more (the thread and process tables a burst of exits grows, the
	 * stack caches' indexes) mapped apart and unmapped when freed, always: glibc raises that
	 * threshold to the size of each such block freed, so the next burst's tables came from
	 * the heap and left it in pieces no trim gives back (bench/soak, minute 35: 16.4 MiB
	 * resident before, 12.9 after).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	cli_default_rings(&r.run.start, &r.rings);
	cli_runner_small_pages(&r.run);
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
	ret = finish_file(&r, &st, ret);
	lfr_status_free(&st);
	close_outputs(&r);
	cli_runner_close(&r.run);
	free_targets(&r);
	return ret;
}

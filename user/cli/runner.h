/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs one sampling session for a subcommand (lfr record, lfr raw): launches the command to sample
 * (held before its
 * exec until the session samples it), starts the session, reads every CPU's ring until the duration
 * ends, the command exits, every target process is gone, the session is stopped from elsewhere or
 * a signal (SIGINT, SIGTERM, SIGHUP) arrives; then stops the session and reads the rings while it
 * drains, so that every record the session wrote is delivered.
 */
#ifndef LFR_CLI_RUNNER_H
#define LFR_CLI_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/control.h"
#include "lib/ring.h"

struct cli_runner {
	/* set by the caller */
	const char *prog;            /* "lfr record", for messages */
	struct lfr_start_opts start; /* targets are filled from tgids/tids below; cgroup ids here */
	uint32_t *tgids, *tids;      /* malloc'ed; the command's pid is appended */
	size_t ntgids, ntids;
	double duration;           /* seconds; 0: until the command or targets end, or a signal */
	uint64_t drain_timeout_ms; /* how long to wait for pending walks at the end */
	lfr_record_fn on_record;   /* every ring record */
	void (*on_tick)(struct cli_runner *r); /* about every tick_ms while recording */
	int tick_ms;
	struct lfr_ctl
	    *monitor; /* a socket of the module's notifications to wait on too, or NULL */
	void (*on_wake)(struct cli_runner *r); /* after every read of the rings (may be NULL) */
	/* once the session runs, before the command is released to exec (may be NULL) */
	void (*on_started)(struct cli_runner *r, char **cmd);
	void *arg;

	/* state */
	pid_t child;
	int child_status;
	struct lfr_ctl ctl;
	struct lfr_rings rings;
	struct lfr_session_info info;
	bool started, rings_open;
	bool thp_restore; /* cli_runner_small_pages() turned THP off: on again for CMD */
	uint64_t read_ns; /* the kernel's CLOCK_MONOTONIC (lfr_kernel_mono_ns()) when the last read
	                     of every ring began (for on_wake) */
};

/*
 * The recorder's own memory in 4 KiB pages from now on, never transparent huge pages: its tables
 * and buffers are touched a little at a time, and a huge page makes the first touch of any 2 MiB
 * range clear all of it (the service's start-up, Documentation/benchmarks.md).  The command
 * cli_runner_start() spawns gets the setting lfr itself was started with.
 */
void cli_runner_small_pages(struct cli_runner *r);

/* Set by the signal handlers cli_runner_start installs. */
extern volatile sig_atomic_t cli_runner_interrupted;

/*
 * Spawns CMD (may be NULL), starts the session, maps the rings, calls on_started, releases CMD.
 * Exit status or 0.
 * With start.detached (and no CMD) it only starts the session, which runs on after the process.
 */
int cli_runner_start(struct cli_runner *r, char **cmd);

/* Reads records until the recording should end.  Exit status or 0. */
int cli_runner_loop(struct cli_runner *r);

/*
 * Stops the session, reads the rings while it drains, and fills *ST with the final STATUS
 * (free it with lfr_status_free).  Exit status or 0; a session still draining after the timeout
 * is reported with a hint and ST holds its last status.
 */
int cli_runner_finish(struct cli_runner *r, struct lfr_status *st);

/* Reaps or ends the command, unmaps the rings, closes the control socket. */
void cli_runner_close(struct cli_runner *r);

/* CLOCK_MONOTONIC seconds. */
double cli_now(void);

/* True once PID has exited, even while its parent has not reaped it yet. */
bool cli_process_gone(pid_t pid);

#endif

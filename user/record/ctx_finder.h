/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tells a session where each recorded process keeps its OpenTelemetry thread context (OTEP 4947's
 * otel_thread_ctx_v1), so that the module's walks read it (LFR_CMD_CTX_ADD).  The thread that
 * reads the rings queues a process when its first record comes, when it exec'd and when a walk
 * met an object of it not looked at yet (a library loaded later); a thread of the finder's own
 * reads its mappings (/proc/PID/maps), looks for the variable in each object once per file
 * (sym/tls_var.h) and hands the process's location over.  The executable's variable wins over a
 * library's, as the dynamic linker binds it; processes without one cost one read of their maps.
 */
#ifndef LFR_RECORD_CTX_FINDER_H
#define LFR_RECORD_CTX_FINDER_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/lfr.h>

#include "lib/control.h"
#include "lib/error.h"

struct lfr_ctx_finder;

/* Hands one process's location to the session (lfr_ctl_ctx_add): 0 or a negative errno. */
typedef int (*lfr_ctx_add_fn)(void *arg, const struct lfr_ctx_loc *l, struct lfr_error *e);

struct lfr_ctx_finder_stats {
	uint64_t looked;          /* processes whose mappings were read */
	uint64_t registered;      /* processes the session took (each once) */
	uint64_t failed;          /* processes with the variable that could not be registered */
	uint64_t dropped;         /* processes not queued: the queue was full */
	char first_failure[1024]; /* "pid N: PATH: why" of the first failure */
};

int lfr_ctx_finder_new(struct lfr_ctx_finder **out, lfr_ctx_add_fn add, void *arg);
/* Stops the thread if it runs. */
void lfr_ctx_finder_free(struct lfr_ctx_finder *f);

/*
 * A ring record, for the thread that reads the rings (it copies, and never waits for work): a
 * process's first COMM record queues it, an EXEC queues it again, an MMAP record of a file not
 * seen in that process image queues it again.
 */
void lfr_ctx_finder_record(struct lfr_ctx_finder *f, const struct lfr_rec_header *h);
/*
 * For the thread that reads the rings: the processes it keeps as seen, and the (process,
 * object) pairs; a process is forgotten when its main thread exits.
 */
void lfr_ctx_finder_kept(const struct lfr_ctx_finder *f, size_t *processes, size_t *objects);
/* Queues process pid (a -p target, the command). */
void lfr_ctx_finder_queue(struct lfr_ctx_finder *f, uint32_t pid);

/* Starts the thread at priority nice.  Returns 0 or a negative errno. */
int lfr_ctx_finder_start(struct lfr_ctx_finder *f, int nice);
/* Stops the thread; the add function is not called any more afterwards. */
void lfr_ctx_finder_stop(struct lfr_ctx_finder *f);
void lfr_ctx_finder_get_stats(struct lfr_ctx_finder *f, struct lfr_ctx_finder_stats *st);

/*
 * The location of the variable in process pid, from its mappings now (no session involved):
 * 1 with *l filled, 0 when no object of it defines the variable, -1 with why filled.
 */
int lfr_ctx_locate(uint32_t pid, struct lfr_ctx_loc *l, char *why, size_t whylen);

#endif

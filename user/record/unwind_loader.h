/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Gives a session the unwind tables (sym/unwind_table.h) of the objects its threads run: those a
 * command maps at its start, loaded before it runs; those of running processes, from their maps;
 * and any object the module reports in an executable MMAP record that has no table yet (a
 * library loaded later, a process started later), queued by the thread that reads the rings and
 * loaded by a thread of the loader's own, so that reading never waits for a table to be built.
 *
 * Each object (device, inode) is tried once.  A table the session has already (EEXIST) is fine;
 * any other failure is counted and the first one kept for the summary; a module without unwind
 * tables (EOPNOTSUPP) stops all loading: its walks use frame pointers.
 */
#ifndef LFR_RECORD_UNWIND_LOADER_H
#define LFR_RECORD_UNWIND_LOADER_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/lfr.h>

#include "lib/error.h"
#include "sym/unwind_cache.h"
#include "sym/unwind_table.h"

struct lfr_unwind_loader;

/* Hands one table to the session (lfr_ctl_unwind_add): 0 or a negative errno, with e filled. */
typedef int (*lfr_unwind_add_fn)(void *arg, int object_fd, const struct lfr_unwind_table *t,
                                 struct lfr_error *e);

struct lfr_unwind_loader_stats {
	uint64_t tables, bytes; /* tables the session took, and their size (header and rows) */
	uint64_t present;       /* objects whose table the session had already */
	uint64_t cached,
	    stored; /* tables read from the cache (of the tables taken); stored in it */
	uint64_t cache_problems; /* cache files refused or not written */
	char first_cache_problem[256];
	uint64_t failed;          /* objects left without a table */
	uint64_t dropped;         /* objects not queued: the queue was full */
	char first_failure[1024]; /* "PATH: why" of the first failure */
	bool unsupported;         /* the module has no unwind tables */
	char unsupported_why[512];
};

int lfr_unwind_loader_new(struct lfr_unwind_loader **out, lfr_unwind_add_fn add, void *arg);
/*
 * Tables come from the cache c (sym/unwind_cache.h) when it holds them, and are stored there when
 * built.  Before any loading; c stays the caller's, and is used until lfr_unwind_loader_stop().
 */
void lfr_unwind_loader_set_cache(struct lfr_unwind_loader *l, struct lfr_blob_cache *c);

/* Stops the thread if it runs. */
void lfr_unwind_loader_free(struct lfr_unwind_loader *l);

/*
 * Loads, now, the tables of program cmd (found on PATH), its dynamic linker and its libraries
 * (record/program_objects.h).  Before lfr_unwind_loader_start() only.  Returns how many objects
 * were tried, or -1 with a message in err when the program cannot be read.
 */
int lfr_unwind_loader_load_program(struct lfr_unwind_loader *l, const char *cmd, char *err,
                                   size_t errlen);
/* Loads, now, the table of the object file at path; as lfr_unwind_loader_load_program(). */
void lfr_unwind_loader_load_object(struct lfr_unwind_loader *l, const char *path);

/*
 * Queues the executable file mappings of process pid, read from /proc/PID/maps now.  Returns
 * how many were queued, or a negative errno when the maps cannot be read.
 */
int lfr_unwind_loader_queue_process(struct lfr_unwind_loader *l, uint32_t pid);

/*
 * Queues the object of an MMAP record (executable file mappings; others are ignored) unless it
 * was queued before.  For the thread that reads the rings: it copies, and never waits for work.
 * The queueing functions are for one thread at a time.
 */
void lfr_unwind_loader_queue_mmap(struct lfr_unwind_loader *l, const struct lfr_rec_mmap *m);

/* Starts the loading thread at priority nice.  Returns 0 or a negative errno. */
int lfr_unwind_loader_start(struct lfr_unwind_loader *l, int nice);

/*
 * Waits until everything queued so far is loaded.  For tests and for callers that want the
 * tables in before they go on; the thread keeps running.
 */
void lfr_unwind_loader_flush(struct lfr_unwind_loader *l);

/*
 * Ends the thread's use of the add function without waiting for the table it is building (at its
 * low priority, on a busy machine, that can take seconds): waits only for an add in progress.
 * Afterwards the add function is not called any more, so that the caller may use what it shares
 * (the control socket, to stop the session); the thread ends later, in lfr_unwind_loader_stop().
 */
void lfr_unwind_loader_quiesce(struct lfr_unwind_loader *l);

/*
 * Stops the thread: the object it is loading is finished, what is still queued is given up.
 * Afterwards nothing is loaded and the add function is not called any more.
 */
void lfr_unwind_loader_stop(struct lfr_unwind_loader *l);

void lfr_unwind_loader_get_stats(struct lfr_unwind_loader *l, struct lfr_unwind_loader_stats *st);

#endif

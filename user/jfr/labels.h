/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writer's lfr.Label events of processes: each process's labels are kept encoded, and told
 * (appended to a chunk's events) once per chunk, by the flush whose events first name one of the
 * process's threads in that chunk, so that every chunk carries the labels of the processes it
 * holds events of and stands alone (a repository's chunks are exported one by one).
 */
#ifndef LFR_JFR_LABELS_H
#define LFR_JFR_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "jfr/encode.h"
#include "lib/hashtab.h"

struct jfr_labels {
	struct hashtab by_pid; /* pid -> index + 1 into procs */
	struct jfr_proc_labels *procs;
	size_t n, cap;
	size_t nreleased; /* of them released, freed by jfr_labels_free_released() */
};

/*
 * Appends one lfr.Label event (size, type, ticks, pid, name, value) to b; type is the schema's
 * T_LABEL.
 */
void jfr_labels_put_event(struct jfr_buf *b, uint64_t ticks, uint32_t pid, const char *name,
                          const char *value);

/* Sets (replaces) the n key, value pairs of kv as the labels of pid; 0 or -ENOMEM. */
int jfr_labels_set(struct jfr_labels *t, uint32_t pid, const char *const *kv, size_t n);

/*
 * Appends pid's lfr.Label events to ev at ticks unless they were told in chunk already; returns
 * how many events it appended.
 */
size_t jfr_labels_tell(struct jfr_labels *t, uint32_t pid, uint32_t chunk, uint64_t ticks,
                       struct jfr_buf *ev);

/*
 * pid's labels will not be told again once the events buffered now are written (its process is
 * gone): freed by jfr_labels_free_released().  A later jfr_labels_set() of pid takes them back.
 */
void jfr_labels_release(struct jfr_labels *t, uint32_t pid);
/* Frees the labels released (after a flush, which told them with its events). */
void jfr_labels_free_released(struct jfr_labels *t);

void jfr_labels_free(struct jfr_labels *t);

#endif

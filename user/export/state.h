/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An export's position in a repository, and its counts: DIR/.export-KIND-ID (ID: a hash of the
 * target's URL), a text file of "key value" lines, written whole to DIR/.export-KIND-ID.tmp,
 * synced, renamed over the old one and the directory synced: a crash leaves the old position or
 * the new, never a mix.  It says which chunk was the last delivered whole (the chunk files'
 * names sort in time), how many parts of the next were delivered already, what was sent and
 * what was lost by reason, what waits, and the last error: lfr status prints it.
 */
#ifndef LFR_EXPORT_STATE_H
#define LFR_EXPORT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/target.h"
#include "jfr/repository.h"

#define LFR_EXPORT_STATE_PREFIX ".export-"

/* Why chunks were lost. */
enum lfr_export_loss {
	LFR_LOSS_EVICTED, /* the repository's limits removed it before it was delivered */
	LFR_LOSS_REFUSED, /* the backend refused its content (part of it, 4xx) */
	LFR_LOSS_DAMAGED, /* it does not parse */
	LFR_LOSS_COUNT,
};

struct lfr_export_state {
	char target[sizeof(((struct lfr_export_target *)0)->spec)]; /* KIND=URL */
	char done[LFR_JFR_REPO_NAME_MAX];    /* the last chunk delivered whole (or lost); "" none */
	char partial[LFR_JFR_REPO_NAME_MAX]; /* the next, of which parts were delivered */
	unsigned parts;                      /* how many */
	uint64_t sent_chunks, sent_bytes, sent_samples;
	uint64_t lost_chunks[LFR_LOSS_COUNT], lost_bytes[LFR_LOSS_COUNT];
	uint64_t pending_chunks, pending_bytes; /* waiting, as of the last write */
	uint64_t retries;                       /* requests that failed and were tried again */
	int64_t written;                        /* when this was written (epoch ns) */
	int64_t last_ok, last_error;            /* epoch ns of the last delivery, the last error */
	char error[512];                        /* the last error */
	uint32_t pid;                           /* the exporter that wrote it */
};

const char *lfr_export_loss_name(enum lfr_export_loss l);

/* The state file's name for target t (LFR_EXPORT_STATE_PREFIX "KIND-ID"), into buf (64 bytes). */
void lfr_export_state_name(const struct lfr_export_target *t, char *buf, size_t n);

/*
 * Reads the state of target t in the repository open at dirfd; a missing file is a fresh state
 * (0 as well).  Returns 0, or a negative errno with why set (a file that does not parse).
 */
int lfr_export_state_load(int dirfd, const struct lfr_export_target *t, struct lfr_export_state *st,
                          char *why, size_t whylen);

/* Writes it atomically (see above); sync: the file and the directory are synced too. */
int lfr_export_state_save(int dirfd, const struct lfr_export_target *t,
                          const struct lfr_export_state *st, bool sync, char *why, size_t whylen);

/* Reads the state file name (in dirfd) whatever its target: for lfr status. */
int lfr_export_state_read(int dirfd, const char *name, struct lfr_export_state *st, char *why,
                          size_t whylen);

#endif

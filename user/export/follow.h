/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exports that follow a continuous recording's repository (lfr record --repository DIR --export
 * KIND=URL): the repository is the spool.  A thread per target sends the finished chunk files
 * in order (by name: their start times), each once delivered never again, from the position its
 * state file keeps in the repository (export/state.h), so that what a recorder killed, stopped or
 * restarted had not delivered is delivered by the next.  A chunk that could not be sent is tried
 * again after a wait that doubles from 1 s up to a minute, with jitter (no two machines of a fleet
 * knock together once their backend is back), and nothing after it is sent before it: order is
 * kept.  What waits is bounded by the repository's own limits (--max-size, --max-age): a chunk
 * they remove before it is delivered is counted lost ("evicted"), the oldest first, as they
 * remove them.  A chunk whose content the backend refuses (4xx) is counted ("refused") and
 * skipped; one that does not parse, too ("damaged").
 *
 * The threads never touch the recording: they read the files the writer has finished, so a slow
 * or hostile backend delays only its own export (each request is bounded, export/transport.h);
 * they run at nice 10, behind the recorder's own threads on a busy machine.
 */
#ifndef LFR_EXPORT_FOLLOW_H
#define LFR_EXPORT_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "export/send.h"
#include "export/state.h"
#include "export/target.h"

#define LFR_FOLLOW_BACKOFF_MIN_NS 1000000000ull
#define LFR_FOLLOW_BACKOFF_MAX_NS 60000000000ull
#define LFR_FOLLOW_POLL_NS 60000000000ull

struct lfr_follow;

struct lfr_follow_opts {
	struct lfr_sender_opts send;
	uint64_t backoff_min_ns, backoff_max_ns; /* 0: the defaults above */
	/*
	 * How often an idle export lists the repository when the writer has not told of a finished
	 * chunk file (lfr_follow_chunk_finished()) meanwhile; 0: a minute.
	 */
	uint64_t poll_ns;
};

/*
 * Starts following dir for the n targets (each with its sender, its credentials read now).
 * Returns 0, or -1 with why (a target's credentials, libcurl, the repository).
 */
int lfr_follow_start(struct lfr_follow **out, const char *dir, const struct lfr_export_target *t,
                     size_t n, const struct lfr_follow_opts *o, char *why, size_t whylen);

/*
 * The writer's rotation hook (lfr_jfr_options.on_chunk_file): arg is the follow.  A chunk file was
 * finished: the exports wake to send it, instead of listing the repository every so often.
 */
void lfr_follow_chunk_finished(void *arg);

/* The writer's eviction hook (lfr_jfr_options.on_evict): arg is the follow. */
void lfr_follow_evicted(void *arg, const char *name, uint64_t bytes);

/*
 * The recording wrote its last chunk: until then the newest chunk file is the one being written
 * and is not sent; from now on every chunk is.
 */
void lfr_follow_recording_ended(struct lfr_follow *f);

/*
 * Stops: each thread first sends what waits, one try each, while they are delivered and for at
 * most drain_ns (0: no more), then ends; the positions stay for the next recorder.
 */
void lfr_follow_stop(struct lfr_follow *f, uint64_t drain_ns);
void lfr_follow_free(struct lfr_follow *f);

size_t lfr_follow_count(const struct lfr_follow *f);
/* Target i's state as of now. */
void lfr_follow_state(struct lfr_follow *f, size_t i, struct lfr_export_state *st);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Moving lfr's chunks onto another chunk's clock.  JDK 25's reader converts the ticks of every
 * chunk of a file with the first chunk's (startNanos, startTicks) pair; a JVM counts ticks from its
 * own start, lfr from boot, so lfr's chunks after a JVM's are shifted unless their ticks are
 * rebased onto the first chunk's origin.  A rebased chunk names the same instants with every
 * reader: its header's startTicks and every event's startTime (lfr's only ticks timestamp, see
 * schema.c) move by the same amount.
 */
#ifndef LFR_JFR_REBASE_H
#define LFR_JFR_REBASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jfr/encode.h"
#include "jfr/reader.h"

/* The only ticks rate rebasing moves between: lfr's and HotSpot's (ns). */
#define JFR_REBASE_TICKS_PER_SECOND 1000000000

/* Whether a loaded chunk is lfr's: its metadata declares lfr.SamplerSettings. */
bool jfr_chunk_is_lfr(const struct jfr_chunk *ch);

/*
 * The ticks to add to chunk c so that its ticks read with first's clock pair give the instants its
 * own pair gives: (c.startNanos - c.startTicks) - (first.startNanos - first.startTicks).  Both must
 * count 1e9 ticks per second (the caller checks).
 */
int64_t jfr_rebase_delta(const struct jfr_chunk *first, const struct jfr_chunk *c);

/*
 * Appends chunk ch of r to out with delta added to its header's startTicks and to the startTime of
 * every event (metadata and checkpoints included), each event re-encoded with its new size and the
 * rest of its bytes unchanged; the header's sizes and offsets and every checkpoint's delta to the
 * previous one follow the moved bytes.  Returns 0, or -1 with a message in err.
 */
int jfr_rebase_chunk(struct jfr_reader *r, const struct jfr_chunk *ch, int64_t delta,
                     struct jfr_buf *out, char *err, size_t errlen);

/*
 * Whether the event of type at absolute file offset off is copied (jfr_rebase_chunk_keep);
 * metadata and checkpoints always are.
 */
typedef bool jfr_keep_fn(void *arg, uint64_t off, uint64_t type);

/*
 * jfr_rebase_chunk() of the events keep() keeps: the chunk without the others (lfr export's
 * uploads of one process group's events, export/pyroscope.c).  keep NULL keeps every event.
 */
int jfr_rebase_chunk_keep(struct jfr_reader *r, const struct jfr_chunk *ch, int64_t delta,
                          jfr_keep_fn *keep, void *arg, struct jfr_buf *out, char *err,
                          size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A chunk of an lfr recording as uploads to Pyroscope's ingest API: POST /ingest?name=SERVICE{
 * LABEL=VALUE,...}&from=NS&until=NS&format=jfr&sampleRate=HZ&spyName=lfr, the body a
 * multipart/form-data form whose "jfr" field is the recording, gzipped (Pyroscope's JFR ingest,
 * pkg/og/convert/jfr, as its Java agent uploads).
 *
 * Pyroscope takes a series' labels from the upload's name, where they take precedence over a
 * sample's own (pprofsplit): a chunk is therefore uploaded once per label set of its processes
 * (service.name, then host.name, container.id, k8s.pod.uid and the recording's other labels,
 * report/labels.h), each upload the chunk as lfr wrote it without the events of the other
 * processes' threads (jfr_rebase_chunk_keep()): every sample reaches the series of its own
 * service and labels, once; an event of a process (its command line, its labels) goes with that
 * process's threads only.  When its series times its pools would be more than a few times the
 * chunk, an upload carries only the constants its own events reach (jfr/reach.h), not the chunk's
 * whole pools (nor the lfr.ObjectFile events): the bytes of a chunk's uploads grow with its events,
 * not with its series times its pools.  sampleRate is the recording's rate (1e9 / its sampling
 * period), which Pyroscope values each sample of a CPU profile by.  The uploads of a chunk come in
 * an order that only its content decides, so that a chunk whose first uploads were delivered is
 * resumed at the next one.
 */
#ifndef LFR_EXPORT_PYROSCOPE_H
#define LFR_EXPORT_PYROSCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "export/gzip.h"

struct lfr_pyroscope_part {
	unsigned index;     /* of the chunk's uploads, from 0 */
	unsigned count;     /* the chunk's uploads */
	const char *query;  /* after URL? */
	const char *series; /* SERVICE{LABEL=VALUE,...}, for messages */
	const uint8_t *jfr; /* the gzipped recording */
	size_t len;
	uint64_t samples;   /* its jdk.ExecutionSample events */
	uint64_t processes; /* its processes */
};

/*
 * Calls send for each upload of the chunk in data (len bytes; name for messages) from the
 * first-th on, in order, and stops at the first that does not return 0, whose value it returns.
 * meta keeps the metadata event deflated from one upload to the next, across chunks when the
 * caller keeps it (a recorder's chunks repeat one metadata), NULL: within the chunk.  Returns 0
 * when every upload was sent (none when the chunk holds no event of a thread), or -1 with why set
 * when the chunk does not parse or memory runs out.  cache: the metadata cache of its reader
 * (jfr/reader.h), or NULL.
 */
struct jfr_meta_cache;
int lfr_pyroscope_chunk(const uint8_t *data, size_t len, const char *name,
                        struct jfr_meta_cache *cache, unsigned first, struct lfr_gzip_piece *meta,
                        int (*send)(void *arg, const struct lfr_pyroscope_part *p), void *arg,
                        char *why, size_t whylen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace contexts of a recording's samples: lfr.TraceContext events name, for a thread and an
 * instant, the lfr.types.TraceContext (trace id, span id, attributes) every sample event of that
 * thread at that instant ran in.  Per chunk: its contexts (its pool) given dense indexes and
 * checked against --span/--trace once, its events read into (thread, instant) -> index, so that
 * each sample's context is one probe; at the merge, each index becomes a context of the report.
 */
#ifndef LFR_REPORT_CONTEXTS_H
#define LFR_REPORT_CONTEXTS_H

#include <stdbool.h>
#include <stdint.h>

#include "jfr/reader.h"
#include "lib/hashtab.h"
#include "report/report.h"

struct ctx_chunk {
	bool on; /* the chunk has lfr.TraceContext events and the options use them */
	bool filter;
	const struct jfr_type *ev, *ctx_type;
	int f_time, f_thread, f_ctx, nread;
	struct hashtab keys; /* pool key -> dense index */
	uint64_t *pool_keys; /* dense index -> pool key; index 0: none */
	uint8_t *pass;       /* dense index -> passes --span/--trace */
	uint32_t *global;    /* dense index -> index in report.contexts (at the merge) */
	size_t n;
	struct hashtab of; /* (thread key, ticks) -> dense index */
};

/* Whether the options use contexts at all (filters, views). */
bool report_ctx_wanted(const struct report_opts *o);
/* Whether the options filter by context. */
bool report_ctx_filtering(const struct report_opts *o);

/* Sequential, before the scan: the chunk's context types and pool.  0, or -1 when out of memory. */
int ctx_chunk_prepare(struct ctx_chunk *c, struct jfr_reader *r, const struct jfr_chunk *ch,
                      const struct report_opts *o);
/*
 * The chunk's lfr.TraceContext events (may run on a worker).  0, -1 when out of memory, 1 when
 * an event is malformed (r's error says where).
 */
int ctx_chunk_scan(struct ctx_chunk *c, struct jfr_reader *r, const struct jfr_chunk *ch);

/* The dense index of the context of thread key THREAD's samples at TICKS, 0 when none. */
static inline uint32_t ctx_chunk_of(const struct ctx_chunk *c, uint64_t thread, uint64_t ticks)
{
	const struct hashtab_slot *s = hashtab_get(&c->of, thread, ticks);

	return s ? (uint32_t)s->v : 0;
}

/*
 * Sequential, at the merge: the report's context of dense index i (interned in ids, bytes keys),
 * 0 when none; UINT32_MAX when out of memory.
 */
uint32_t ctx_chunk_global(struct ctx_chunk *c, struct report *rep, struct hashtab *ids,
                          struct jfr_reader *r, const struct jfr_chunk *ch, uint32_t i);

void ctx_chunk_free(struct ctx_chunk *c);
/* The report's contexts (their strings), for report_free(). */
void report_contexts_free(struct report *rep);

#endif

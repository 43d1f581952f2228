/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record decoding with complete loss accounting.  lfr_record_decode checks one ring record against
 * <linux/lfr.h> (sizes, counts, NUL-terminated strings) and gives typed views of it; struct
 * lfr_accounting adds up what a reader saw, and lfr_accounting_reconcile checks it against the
 * module's STATUS counters so that every tick is either in a committed sample or lost with a
 * reason.
 */
#ifndef LFR_LIB_RECORD_H
#define LFR_LIB_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/lfr.h>

#include "lib/control.h"

struct lfr_record {
	uint32_t type; /* enum lfr_rec_type; other values are records these tools do not know */
	uint32_t size;
	union {
		struct {
			const struct lfr_rec_sample *r;
			const __u64 *kernel_ips; /* r->nr_kernel, leaf first */
			const __u64 *user_ips;   /* r->nr_user, leaf first */
		} sample;
		struct {
			const struct lfr_rec_mmap *r;
			const char *path; /* NUL-terminated inside the record */
		} mmap;
		struct {
			const struct lfr_rec_comm *r;
			const char *comm; /* NUL-terminated inside the record */
		} comm;
		const struct lfr_rec_lost *lost;
		const struct lfr_rec_task *task;
		const struct lfr_rec_tick *tick;     /* ips: tick->nr_kernel kernel pcs */
		const struct lfr_rec_offcpu *offcpu; /* ips: offcpu->nr_kernel kernel pcs */
		const struct lfr_rec_latency *latency;
		struct {
			const struct lfr_rec_ustack *r;
			const __u64 *ips;   /* r->nr_user, leaf first */
			const __u64 *words; /* r->nr_words words of the stack from r->sp on */
		} ustack;
	};
};

/*
 * Whether a TICK, or a USTACK, record passes lfr_record_decode: inline, for the two records of
 * every sample (the reasons of a malformed one are the decoder's to tell).
 */
static inline bool lfr_record_tick_ok(const struct lfr_rec_header *h)
{
	const struct lfr_rec_tick *t = (const void *)h;

	return h->size >= sizeof(*t) && !(h->size % 8) &&
	       sizeof(*t) + (uint64_t)t->nr_kernel * sizeof(uint64_t) <= h->size;
}

static inline bool lfr_record_ustack_ok(const struct lfr_rec_header *h)
{
	const struct lfr_rec_ustack *u = (const void *)h;

	return h->size >= sizeof(*u) && !(h->size % 8) &&
	       sizeof(*u) + ((uint64_t)u->nr_user + u->nr_words) * sizeof(uint64_t) <= h->size &&
	       u->lost_reason <= LFR_LOST_MAX && (u->ticks || !(u->flags & LFR_USTACK_F_TICK));
}

/*
 * The thread context at the end of a USTACK record (LFR_USTACK_F_CTX), or NULL when it has none or
 * it does not fit in the record's size.
 */
static inline const struct lfr_ustack_ctx *lfr_ustack_ctx(const struct lfr_rec_ustack *u)
{
	uint64_t at = sizeof(*u) + ((uint64_t)u->nr_user + u->nr_words +
	                            (u->flags & LFR_USTACK_F_REGS ? LFR_USTACK_REGS : 0)) *
	                               sizeof(uint64_t);
	const struct lfr_ustack_ctx *c;

	if (!(u->flags & LFR_USTACK_F_CTX) || at + sizeof(*c) > u->hdr.size)
		return NULL;
	c = (const void *)((const char *)u + at);
	if (at + sizeof(*c) + c->attrs_len > u->hdr.size || c->attrs_len > LFR_CTX_ATTRS_MAX)
		return NULL;
	return c;
}

/* Returns 0, or -1 with the reason in WHY when the record is malformed. */
int lfr_record_decode(const struct lfr_rec_header *h, struct lfr_record *out, char *why,
                      size_t whylen);

/* Flag bits of lfr_rec_sample.flags counted by the accounting, in bit order. */
#define LFR_SAMPLE_NFLAGS 9
const char *lfr_sample_flag_name(unsigned int bit);

struct lfr_accounting {
	uint64_t records, bytes;
	uint64_t samples;      /* SAMPLE records, USTACK records with a stack */
	uint64_t sample_ticks; /* their weights, and the ticks of those USTACKs */
	uint64_t sample_flags[LFR_SAMPLE_NFLAGS];     /* samples with each LFR_SAMPLE_F_* bit */
	uint64_t ticks;                               /* TICK records */
	uint64_t missed;                              /* periods they say were missed */
	uint64_t ustacks;                             /* USTACK records */
	uint64_t latencies;                           /* LATENCY records */
	uint64_t ustack_lost_ticks[LFR_LOST_MAX + 1]; /* ticks of USTACKs without a stack */
	uint64_t mmaps, comms, pads, tasks;
	uint64_t lost_records;                 /* LOST records */
	uint64_t lost_count[LFR_LOST_MAX + 2]; /* their counts by reason; last = unknown reason */
	uint64_t lost_ticks[LFR_LOST_MAX + 2]; /* their ticks by reason */
	uint64_t unknown;   /* records of types these tools do not know (skipped by size) */
	uint64_t malformed; /* records that failed lfr_record_decode */
};

void lfr_accounting_add(struct lfr_accounting *a, const struct lfr_rec_header *h,
                        const struct lfr_record *r, bool malformed);

/*
 * Checks what the reader saw against the final STATUS counters TOTAL of a STOPPED session whose
 * rings were read to the end, and RING_LOST (lfr_rings_lost).  Prints one line per check to OUT:
 *   check NAME ok|FAIL LEFT=VALUE RIGHT=VALUE
 * Returns the number of failed checks.
 */
int lfr_accounting_reconcile(const struct lfr_accounting *a, const struct lfr_counters *total,
                             const uint64_t ring_lost[LFR_LOST_MAX + 1], FILE *out);

#endif

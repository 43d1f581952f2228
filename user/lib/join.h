/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Joining ticks with their user stacks.  The module writes one TICK record per tick (its instant
 * and kernel stack) and one USTACK record per user-stack walk; several ticks share a walk when the
 * thread stayed in the kernel between them.  The two can reach a reader in either order, on
 * different rings.  lfr_join holds each side until the other arrives and hands out one joined
 * sample per tick: the tick's time and kernel stack, the walk's user stack.  A USTACK record with
 * LFR_USTACK_F_TICK is its walk's first tick too (the module wrote no TICK record for it): that
 * tick is handed out as a TICK record made from it.
 */
#ifndef LFR_LIB_JOIN_H
#define LFR_LIB_JOIN_H

#include <stdint.h>

#include <linux/lfr.h>

struct lfr_join;

/* One tick with its user stack.  Valid only during the callback. */
struct lfr_joined {
	const struct lfr_rec_tick *tick;     /* or an OFFCPU record (tick->hdr.type), then: */
	const struct lfr_rec_offcpu *offcpu; /* the same record, else NULL */
	const struct lfr_rec_ustack *ustack;
	const __u64 *kernel_ips; /* tick->nr_kernel */
	const __u64 *user_ips;   /* ustack->nr_user */
	const __u64 *words;      /* ustack->nr_words words of the stack from ustack->sp on */
	uint32_t flags;          /* the sample's LFR_SAMPLE_F_*: the tick's and its walk's */
	uint32_t lost_reason;    /* != 0: the walk found no stack; the tick is lost for this */
};

typedef int (*lfr_join_fn)(void *ctx, const struct lfr_joined *j);

int lfr_join_new(struct lfr_join **out);
void lfr_join_free(struct lfr_join *j);

/*
 * Feed a TICK or a USTACK record (already checked by lfr_record_decode).  FN is called for every
 * tick whose pair is now complete; its non-zero return is passed back.  Returns 0, -ENOMEM, or
 * FN's value.  A tick may be held by its address, not copied: the caller's record must stay as
 * it is until another record is fed or lfr_join_keep() is called.
 */
int lfr_join_tick(struct lfr_join *j, const struct lfr_rec_tick *t, lfr_join_fn fn, void *ctx);
/* An OFFCPU record joins its walk like a tick: handed out with tick and offcpu set to it. */
int lfr_join_offcpu(struct lfr_join *j, const struct lfr_rec_offcpu *o, lfr_join_fn fn, void *ctx);
int lfr_join_ustack(struct lfr_join *j, const struct lfr_rec_ustack *u, lfr_join_fn fn, void *ctx);

/*
 * Copies what the join still holds of the records fed so far: call it before their memory is
 * reused or freed (a reader's batch of records, a ring's records consumed).
 */
void lfr_join_keep(struct lfr_join *j);

/*
 * Ticks still waiting for their walk: walks not yet run, given up by STOP, or whose USTACK record
 * was lost to a full ring (the module counts all of those as losses).
 */
uint64_t lfr_join_waiting(const struct lfr_join *j);

#endif

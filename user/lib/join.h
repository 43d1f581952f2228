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

#include <stddef.h>
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

/*
 * A full ring loses records of either side, and the other side would wait for ever: a recorder
 * that runs for ever (the service) would grow without bound.  The join gives a side up once no
 * record of its walk can still come, which the reader tells it:
 *
 * lfr_join_read(): every ring has been read, each up to where it stood at START_NS (the
 * CLOCK_MONOTONIC time the read began) or later, and every record read fed.  A walk's TICK and
 * OFFCPU records are written before its USTACK record; so a stack whose ticks have not all come
 * two such reads after it came lost them.  And a thread has one walk at a time, the next queued
 * only after the last one wrote its USTACK record: ticks still waiting for their stack two reads
 * after a record of a later walk of their thread came lost it.  A walk can wait for as long as
 * its thread stays in the kernel: those are held (one per thread), not given up.
 *
 * lfr_join_exit(): thread TID exited at TIME_NS (a TASK record of LFR_TASK_EXIT).  Ticks of it
 * that wait for their stack are given up at the first read that began LFR_JOIN_EXIT_GRACE_NS
 * after that: an exiting thread's walk runs (or is given up, with a USTACK record) in the exit's
 * last steps.  Returns 0, -ENOMEM or FN's value (ticks held by their address are settled).
 */
#define LFR_JOIN_EXIT_GRACE_NS (10 * 1000000000ull)
void lfr_join_read(struct lfr_join *j, uint64_t start_ns);
int lfr_join_exit(struct lfr_join *j, uint32_t tid, uint64_t time_ns, lfr_join_fn fn, void *ctx);

/* What the join gave up, by reason (the module counted each as lost already). */
struct lfr_join_lost {
	uint64_t ticks_superseded; /* ticks whose stack never came: their thread walked again */
	uint64_t ticks_exited;     /* ticks whose stack never came: their thread exited */
	uint64_t stacks;           /* stacks some of whose ticks never came */
	uint64_t stack_ticks;      /* the ticks those stacks still waited for */
};
void lfr_join_lost(const struct lfr_join *j, struct lfr_join_lost *out);
/* Walks the join holds (a tick, a stack or both each): bounded, whatever the rings lose. */
size_t lfr_join_held(const struct lfr_join *j);

#endif

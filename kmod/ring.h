/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: per-CPU rings (ring.c). */
#ifndef LFR_RING_H
#define LFR_RING_H

#include <linux/irq_work.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/lfr.h>

struct lfr_counters;
struct lfr_session;

/*
 * What a ring needs of its owner, given at allocation: the ring calls
 * nothing of the session's but @full.
 */
struct lfr_ring_owner {
	struct lfr_session *owner;	/* only passed to @full */
	/*
	 * The ring was found full, the first time since it last was not; on
	 * the ring's CPU, interrupts off (hard irq or a walk's commit).
	 */
	void (*full)(struct lfr_session *owner, u32 cpu);
	wait_queue_head_t *wq;		/* woken when wakeup_bytes are ready */
	struct lfr_counters __percpu *ctr;	/* RECORDS_LOST */
	u32 session_id;
	u32 pages;			/* of data, a power of two */
	u32 wakeup_bytes;
};

struct lfr_ring {
	struct lfr_session *owner;
	void (*full)(struct lfr_session *owner, u32 cpu);
	wait_queue_head_t *wq;
	struct lfr_counters __percpu *ctr;
	u32 wakeup_bytes;
	void *base;			/* vmalloc_user: ctrl page + data */
	struct lfr_ring_ctrl *ctrl;
	u8 *data;
	size_t map_size;
	u64 size;			/* data bytes, power of two */
	u64 head;			/* producer's private copy */
	u32 cpu;
	u64 lost_total[LFR_LOST_MAX + 1];	/* what ctrl->lost[] shows */
	u64 lost_count[LFR_LOST_MAX + 1];	/* not yet reported in band */
	u32 lost_pending;			/* reasons with lost_count set */
	u64 lost_ticks[LFR_LOST_MAX + 1];
	bool overflow;			/* OVERFLOW event sent, not yet cleared */
	struct irq_work wake;
};

struct lfr_ring *lfr_ring_alloc(const struct lfr_ring_owner *o, int cpu);
void lfr_ring_free(struct lfr_ring *r);
int lfr_ring_write(struct lfr_ring *r, const void *rec, u32 len);
void *lfr_ring_reserve(struct lfr_ring *r, u32 max);
void lfr_ring_publish(struct lfr_ring *r, u32 len);
void lfr_ring_lost(struct lfr_ring *r, int reason, u64 ticks);
bool lfr_ring_readable(struct lfr_ring *r);

#endif /* LFR_RING_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: per-CPU rings.  Every writer of a ring runs on its CPU with
 * interrupts disabled (the tick's handler, the walks' task_works, the task
 * events), so no two writes interleave and no lock is needed.  The reader
 * maps the ring (dev.c) and advances ctrl->tail.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include "counters.h"
#include "ring.h"
#include "ring_index.h"

static void lfr_ring_wake(struct irq_work *w)
{
	struct lfr_ring *r = container_of(w, struct lfr_ring, wake);

	wake_up_interruptible_all(r->wq);
}

/* @o: what the ring needs of its owner, copied into it. */
struct lfr_ring *lfr_ring_alloc(const struct lfr_ring_owner *o, int cpu)
{
	struct lfr_ring *r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);

	if (!r)
		return NULL;
	r->owner = o->owner;
	r->full = o->full;
	r->wq = o->wq;
	r->ctr = o->ctr;
	r->wakeup_bytes = o->wakeup_bytes;
	r->size = (u64)o->pages << PAGE_SHIFT;
	r->map_size = PAGE_SIZE + r->size;
	/*
	 * Zeroed (it is mapped to user space) and charged to the starter's
	 * memory cgroup; dev.c maps it page by page, so no VM_USERMAP.
	 */
	r->base = __vmalloc(r->map_size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!r->base) {
		kfree(r);
		return NULL;
	}
	r->ctrl = r->base;
	r->data = (u8 *)r->base + PAGE_SIZE;
	r->ctrl->magic = LFR_RING_MAGIC;
	r->ctrl->version = LFR_RING_VERSION;
	r->ctrl->session_id = o->session_id;
	r->ctrl->cpu = cpu;
	r->cpu = cpu;
	r->ctrl->data_offset = PAGE_SIZE;
	r->ctrl->data_size = r->size;
	r->ctrl->wakeup_bytes = o->wakeup_bytes;
	init_irq_work(&r->wake, lfr_ring_wake);
	return r;
}

void lfr_ring_free(struct lfr_ring *r)
{
	if (!r)
		return;
	irq_work_sync(&r->wake);
	vfree(r->base);
	kfree(r);
}

bool lfr_ring_readable(struct lfr_ring *r)
{
	/*
	 * Only the tail is read back from the control page, which the reader
	 * can write: everything else comes from the kernel's own copies.
	 */
	u64 head = READ_ONCE(r->head);
	u64 tail = READ_ONCE(r->ctrl->tail);
	u64 used = head - tail;

	return used && used <= r->size &&
	       used >= max_t(u64, r->wakeup_bytes, 1);
}

/*
 * A record's copy, word by word: records are a few hundred bytes, multiples
 * of 8, and memcpy() runs "rep movsb" on CPUs with ERMS, whose start-up
 * costs more than the loop at these sizes (and which QEMU's -icount counts
 * as one instruction per byte, see bench/cost).
 */
static __always_inline void lfr_ring_copy(void *dst, const void *src, u32 len)
{
	u64 *d = dst;
	const u64 *s = src;
	u32 i;

	for (i = 0; i < len / 8; i++)
		d[i] = s[i];
}

/*
 * A PAD record of @pad bytes (0: none) up to the end of the data, where a
 * record would not fit whole; published with the record after it.
 */
static void lfr_ring_pad(struct lfr_ring *r, u32 pad)
{
	struct lfr_rec_header *h;

	if (!pad)
		return;
	h = (void *)(r->data + (r->head & (r->size - 1)));
	h->type = LFR_REC_PAD;
	h->size = pad;
	r->head += pad;
}

/* Publishes the @len bytes written at the head to the reader. */
static void lfr_ring_advance(struct lfr_ring *r, u32 len)
{
	r->head += len;
	smp_store_release(&r->ctrl->head, r->head);	/* data before head */
}

/* After a record was written: the ring has room again; wake the reader at its mark. */
static void lfr_ring_written(struct lfr_ring *r)
{
	r->overflow = false;
	if (lfr_ring_used(r->head, READ_ONCE(r->ctrl->tail)) >=
	    max_t(u64, r->wakeup_bytes, 1))
		irq_work_queue(&r->wake);
}

/* Writes one record; interrupts are disabled by the caller. */
static int lfr_ring_put(struct lfr_ring *r, const void *rec, u32 len)
{
	u64 tail = READ_ONCE(r->ctrl->tail);
	u32 pad;
	int err;

	err = lfr_ring_plan(r->head, tail, r->size, len, &pad);
	if (err)
		return err;
	/* tail read before the data is written: control dependency above. */
	lfr_ring_pad(r, pad);
	lfr_ring_copy(r->data + (r->head & (r->size - 1)), rec, len);
	lfr_ring_advance(r, len);
	return 0;
}

static void lfr_ring_flush_lost(struct lfr_ring *r)
{
	struct lfr_rec_lost rec;
	int i;

	BUILD_BUG_ON(LFR_LOST_MAX >= 32);	/* lost_pending's bits */
	if (!r->lost_pending)
		return;
	for (i = 1; i <= LFR_LOST_MAX; i++) {
		if (!r->lost_count[i])
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.hdr.type = LFR_REC_LOST;
		rec.hdr.size = sizeof(rec);
		rec.time_ns = ktime_get_ns();
		rec.reason = i;
		rec.cpu = r->cpu;
		rec.count = r->lost_count[i];
		rec.ticks = r->lost_ticks[i];
		if (lfr_ring_put(r, &rec, sizeof(rec)))
			return;
		r->lost_count[i] = 0;
		r->lost_ticks[i] = 0;
		r->lost_pending &= ~BIT(i);
		lfr_counters_add(r->ctr, LFR_CTR_RECORDS_LOST, 1);
	}
}

/* Notes a record lost on this ring; reported in band at the next write. */
void lfr_ring_lost(struct lfr_ring *r, int reason, u64 ticks)
{
	r->lost_count[reason]++;
	r->lost_pending |= BIT(reason);
	r->lost_ticks[reason] += ticks;
	r->lost_total[reason]++;
	WRITE_ONCE(r->ctrl->lost[reason], r->lost_total[reason]);
}

/*
 * Commits @rec (its header filled in, @len a multiple of 8) to @r.
 * Interrupts are disabled by the caller, who runs on the ring's CPU.
 * Returns 0 or -ENOSPC (nothing written; the caller counts the loss).
 */
int lfr_ring_write(struct lfr_ring *r, const void *rec, u32 len)
{
	int err;

	lfr_ring_flush_lost(r);
	err = lfr_ring_put(r, rec, len);
	if (err) {
		if (!r->overflow) {
			r->overflow = true;
			r->full(r->owner, r->cpu);
		}
		return -ENOSPC;
	}
	lfr_ring_written(r);
	return 0;
}

/*
 * Room for one record of at most @max bytes, written in place at the
 * returned address by the caller, then published with lfr_ring_publish()
 * (or left: nothing is then published, and the next record takes the room).
 * The same caller's rules as lfr_ring_write(); the LOST records pending go
 * first.  NULL when the room is not there: nothing is counted (the caller
 * writes the record with lfr_ring_write(), which counts what it loses).
 */
void *lfr_ring_reserve(struct lfr_ring *r, u32 max)
{
	u32 pad;

	lfr_ring_flush_lost(r);
	if (r->lost_pending ||
	    lfr_ring_plan(r->head, READ_ONCE(r->ctrl->tail), r->size, max, &pad))
		return NULL;
	/* tail read before the data is written: control dependency above. */
	lfr_ring_pad(r, pad);
	return r->data + (r->head & (r->size - 1));
}

/* Publishes the record of @len bytes (a multiple of 8) written at the room. */
void lfr_ring_publish(struct lfr_ring *r, u32 len)
{
	lfr_ring_advance(r, len);
	lfr_ring_written(r);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the commit of a walk's records (see walk_commit.h): its MMAP, COMM
 * and LATENCY records, then its USTACK record (with the thread context),
 * to the ring of the CPU the walk runs on, with interrupts off; and the
 * counts of what was committed or lost.
 */
#include <linux/atomic.h>
#include <linux/compat.h>
#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include "arch_regs.h"
#include "core.h"
#include "ring.h"
#include "seen.h"
#include "session.h"
#include "thread_ctx.h"
#include "thread_ctx_read.h"
#include "threads.h"
#include "walk_commit.h"
#include "walk_known.h"
#include "walk_obj.h"
#include "walk_pool.h"
#include "walk_records.h"

/*
 * The header of @w's USTACK record; with @lost_reason it has no stack, and
 * its ticks are lost.
 */
static void lfr_ustack_header(const struct lfr_walk *w,
			      struct lfr_rec_ustack *r, int lost_reason)
{
	const struct lfr_snapshot *sn = &w->snap;

	u32 words = 0;

	if (lost_reason) {
		r->flags = sn->flags;
		r->nr_user = 0;
		r->nr_words = 0;
		r->sp = sn->sp;
	} else if (LFR_ARCH_USTACK_REGS) {
		/* the leaf rule's registers: its caller may be in x30 */
		u64 *regs = r->ips + r->nr_user + r->nr_words;
		u64 mask = lfr_user_pac_mask();

		regs[0] = lfr_ret_addr(LFR_ISA_NATIVE, mask, sn->lr);
		regs[1] = mask;
		r->flags |= LFR_USTACK_F_REGS;
		words = LFR_ARCH_USTACK_REGS;
	}
	if (sn->own_tick)
		r->flags |= LFR_USTACK_F_TICK;
	r->hdr.type = LFR_REC_USTACK;
	r->hdr.size = sizeof(*r) +
		      (r->nr_user + r->nr_words + words) * sizeof(u64);
	r->walk_id = sn->walk_id;
	r->time_ns = sn->time_ns;
	r->tgid = sn->tgid;
	r->tid = sn->tid;
	r->lost_reason = lost_reason;
}

/*
 * The thread context @c (thread_ctx.c) at the end of @r, whose header is
 * written: the record's flags and size say it is there.
 */
static void lfr_ustack_ctx(struct lfr_rec_ustack *r,
			   const struct lfr_ustack_ctx *c)
{
	u8 *at = (u8 *)r + r->hdr.size;
	u32 n = sizeof(*c) + c->attrs_len, size = lfr_ctx_rec_size(c);

	memcpy(at, c, n);
	memset(at + n, 0, size - n);
	r->flags |= LFR_USTACK_F_CTX;
	r->hdr.size += size;
}

/*
 * The sampling latency of @w's walk, when its tick interrupted the kernel
 * and the walk runs at least the session's minimum after it: filled in @l
 * (whose size stays 0 otherwise).  CLOCK_MONOTONIC, as the tick's time.
 */
static void lfr_fill_latency(const struct lfr_session *s,
			     const struct lfr_walk *w,
			     struct lfr_rec_latency *l)
{
	const struct lfr_snapshot *sn = &w->snap;
	u64 now;

	if (!s->cfg.latency_min_ns || !sn->in_kernel)
		return;
	now = ktime_get_ns();
	if (now < sn->time_ns || now - sn->time_ns < s->cfg.latency_min_ns)
		return;
	memset(l, 0, sizeof(*l));
	l->hdr.type = LFR_REC_LATENCY;
	l->hdr.size = sizeof(*l);
	l->time_ns = now;
	l->tick_ns = sn->time_ns;
	l->walk_id = sn->walk_id;
	l->tgid = sn->tgid;
	l->tid = sn->tid;
}

/* A USTACK record @r committed for @ticks ticks and @offcpu intervals. */
static void lfr_count_committed(struct lfr_session *s,
				const struct lfr_rec_ustack *r, u32 ticks,
				u32 offcpu)
{
	lfr_count(s, LFR_CTR_OFFCPU_COMMITTED, offcpu);
	lfr_count(s, LFR_CTR_RECORDS_USTACK, 1);
	lfr_count(s, LFR_CTR_SAMPLES_COMMITTED, 1);
	lfr_count(s, LFR_CTR_TICKS_COMMITTED, ticks);
	if (r->flags & LFR_SAMPLE_F_USER_FAULT)
		lfr_count(s, LFR_CTR_USER_FAULT, 1);
	if (r->flags & LFR_SAMPLE_F_USER_BAD_FRAME)
		lfr_count(s, LFR_CTR_USER_BAD_FRAME, 1);
	if (r->flags & LFR_SAMPLE_F_USER_TRUNCATED)
		lfr_count(s, LFR_CTR_USER_TRUNCATED, 1);
	if (r->flags & LFR_SAMPLE_F_USER_NO_CFI)
		lfr_count(s, LFR_CTR_USER_NO_CFI, 1);
	if (r->flags & LFR_SAMPLE_F_COMPAT)
		lfr_count(s, LFR_CTR_COMPAT, 1);
}

void lfr_commit(struct lfr_session *s, struct lfr_walk *w,
		struct lfr_walk_buf *b, int lost_reason,
		const struct lfr_ustack_ctx *ctx)
{
	struct lfr_thread *e = w->e;
	struct lfr_rec_ustack lost_rec __uninitialized, *r = b->rec;
	/*
	 * Written whole (lfr_fill_comm(), lfr_fill_latency()) when they are
	 * records; their size says whether they are: not zeroed at every walk.
	 */
	struct lfr_rec_comm comm __uninitialized;
	struct lfr_rec_latency lat __uninitialized;
	struct lfr_ring *ring;
	unsigned long flags;
	u32 off, ticks, offcpu, i;

	if (!r) {
		/* no buffer: the record of the loss only, from a clean one */
		memset(&lost_rec, 0, sizeof(lost_rec));
		r = &lost_rec;
	}
	comm.hdr.size = 0;
	lat.hdr.size = 0;
	if (!lost_reason) {
		lfr_fill_comm(e, w, &comm);
		lfr_fill_latency(s, w, &lat);
	}
	lfr_ustack_header(w, r, lost_reason);
	if (ctx && !lost_reason)
		lfr_ustack_ctx(r, ctx);

	/*
	 * Ticks of this thread come only on the CPU it runs on, this one:
	 * with interrupts off none can join the walk between the count
	 * read here and the claim's release.
	 */
	local_irq_save(flags);
	ticks = atomic_xchg(&w->ticks, 0);
	offcpu = atomic_xchg(&w->offcpu, 0);
	ring = s->rings[smp_processor_id()];
	r->ticks = ticks + offcpu;
	if (lost_reason) {
		lfr_count_lost(s, lost_reason, ticks);
		lfr_count(s, LFR_CTR_OFFCPU_LOST, offcpu);
		/* Tells readers to drop its TICK records; best effort. */
		if (r->ticks && !lfr_ring_write(ring, r, r->hdr.size))
			lfr_count(s, LFR_CTR_RECORDS_USTACK, 1);
		goto out;
	}
	for (off = 0, i = 0; off < b->maps_len; i++) {
		struct lfr_rec_header *h = (void *)(b->maps + off);

		if (lfr_ring_write(ring, h, h->size)) {
			lfr_ring_lost(ring, LFR_LOST_AUX_RING_FULL, 0);
			lfr_count_lost(s, LFR_LOST_AUX_RING_FULL, 1);
			lfr_seen_forget(s->seen, s->seen_mask, b->map_keys[i]);
			/* no thread may take its mapping as described */
			atomic_inc(&s->mmap_lost);
		} else {
			lfr_count(s, LFR_CTR_RECORDS_MMAP, 1);
		}
		off += h->size;
	}
	if (comm.hdr.size) {
		if (lfr_ring_write(ring, &comm, sizeof(comm))) {
			lfr_ring_lost(ring, LFR_LOST_AUX_RING_FULL, 0);
			lfr_count_lost(s, LFR_LOST_AUX_RING_FULL, 1);
			e->seen = false;	/* try again next sample */
		} else {
			lfr_count(s, LFR_CTR_RECORDS_COMM, 1);
		}
	}
	/* before the USTACK record, on its ring: a reader has it by then */
	if (lat.hdr.size) {
		lat.cpu = smp_processor_id();
		if (lfr_ring_write(ring, &lat, sizeof(lat))) {
			lfr_ring_lost(ring, LFR_LOST_AUX_RING_FULL, 0);
			lfr_count_lost(s, LFR_LOST_AUX_RING_FULL, 1);
			lfr_count(s, LFR_CTR_LATENCY_LOST, 1);
		} else {
			lfr_count(s, LFR_CTR_LATENCY, 1);
		}
	}
	if (lfr_ring_write(ring, r, r->hdr.size)) {
		lfr_ring_lost(ring, LFR_LOST_STACK_RING_FULL, ticks);
		lfr_count_lost(s, LFR_LOST_STACK_RING_FULL, ticks);
		lfr_count(s, LFR_CTR_OFFCPU_LOST, offcpu);
		goto out;
	}
	lfr_count_committed(s, r, ticks, offcpu);
out:
	/*
	 * The thread's next tick queues a new walk.  The walk's last access
	 * to the entry: once it reads NULL (acquire), a timer-mode reclaimer
	 * may give the entry to another thread (threads.c).
	 */
	smp_store_release(&e->walk, NULL);
	local_irq_restore(flags);
}

/*
 * The commit of a walk that needs no record but its USTACK one (the
 * thread's name unchanged, no latency to report) and no lookup
 * (lfr_walk_fast()): walked with interrupts off straight into the room it
 * takes in this CPU's ring, then published, with no copy.  Interrupts stay
 * off for at most LFR_IRQOFF_FRAMES frames and LFR_IRQOFF_PROBES steps of
 * row searches (perf takes its whole sample in an interrupt); a deeper
 * walk goes on with them on in a sample buffer, *@buf (LFR_DIRECT_WALKED),
 * which lfr_commit() commits: still one walk, one record.  Anything else
 * takes lfr_commit()'s way.
 */
enum lfr_direct lfr_commit_direct(struct lfr_session *s, struct lfr_walk *w,
				  const struct lfr_ustack_ctx *ctx,
				  struct lfr_rec_ustack **buf)
{
	const struct lfr_snapshot *sn = &w->snap;
	struct lfr_thread *e = w->e;
	u32 max = sizeof(struct lfr_rec_ustack) +
		  (s->cfg.user_depth + LFR_USTACK_WORDS) * sizeof(u64) +
		  (ctx ? lfr_ctx_rec_size(ctx) : 0);
	struct lfr_rec_ustack *r;
	/* set before it is read (lfr_walk_fast()): not zeroed at every walk */
	struct lfr_irqoff io __uninitialized;
	struct lfr_ring *ring;
	u32 ticks, offcpu;

	if (!e->seen || e->comm_hash != lfr_comm_now() ||
	    (s->cfg.latency_min_ns && sn->in_kernel))
		return LFR_DIRECT_NOT_TRIED;
	local_irq_save(io.flags);
	ring = s->rings[smp_processor_id()];
	r = lfr_ring_reserve(ring, max);
	if (!r) {
		local_irq_restore(io.flags);
		return LFR_DIRECT_NOT_TRIED;
	}
	if (!lfr_walk_fast(s, w, r, &io)) {
		/* nothing published: the room is taken again by the next record */
		if (io.buf)
			lfr_walk_pool_put(&s->walk_bufs, io.buf);
		else
			local_irq_restore(io.flags);
		return LFR_DIRECT_NOT_KNOWN;
	}
	if (io.buf) {
		/* interrupts are on: the room is another record's by now */
		*buf = io.buf;
		return LFR_DIRECT_WALKED;
	}
	lfr_ustack_header(w, r, 0);
	if (ctx)
		lfr_ustack_ctx(r, ctx);
	/* as in lfr_commit(): no tick can join the walk from here on */
	ticks = atomic_xchg(&w->ticks, 0);
	offcpu = atomic_xchg(&w->offcpu, 0);
	r->ticks = ticks + offcpu;
	lfr_ring_publish(ring, r->hdr.size);
	lfr_count_committed(s, r, ticks, offcpu);
	/* the walk's last access to the entry, as in lfr_commit() */
	smp_store_release(&e->walk, NULL);
	local_irq_restore(io.flags);
	return LFR_DIRECT_DONE;
}

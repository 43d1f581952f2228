// SPDX-License-Identifier: GPL-2.0
/*
 * A batch of records applied: names and mappings first (pass 0), then samples, off-CPU intervals
 * and losses (pass 1); the samples held back one batch for their mappings are applied with the
 * next one, those held for a perf map (JIT code) when it names them.
 */
#include <errno.h>

#include "record/recorder_internal.h"

/* Walks the records of B; pass 0 applies names and mappings, pass 1 writes samples and losses. */
static int apply_records(struct lfr_recorder *r, struct batch *b, int pass, bool final,
                         struct batch *hold)
{
	char why[128];

	/* for the samples' callbacks (on_joined(), take_sample()) */
	if (pass == 1) {
		r->hold = hold;
		r->final = final;
	}
	for (size_t off = 0; off + sizeof(struct lfr_rec_header) <= b->len;) {
		const struct lfr_rec_header *h = (const void *)(b->buf + off);
		struct lfr_record rec;
		int err = 0;

		off += h->size;
		/* the two records of every sample, checked inline, without the decoder's copy */
		if (pass == 1 && h->type == LFR_REC_TICK && lfr_record_tick_ok(h)) {
			if ((err = lfr_join_tick(r->join, (const void *)h, on_joined, r)))
				return err;
			continue;
		}
		if (pass == 1 && h->type == LFR_REC_USTACK && lfr_record_ustack_ok(h)) {
			if ((err = lfr_join_ustack(r->join, (const void *)h, on_joined, r)))
				return err;
			continue;
		}
		if (h->type == REC_CMDLINE) {
			if (pass == 0)
				apply_cmdline(r, (const struct rec_cmdline *)h);
			continue;
		}
		if (h->type == REC_READ) {
			/* in every batch's pass (pass 0 runs on batches that name something) */
			if (pass == 1) {
				forget_exited(r, ((const struct rec_read *)h)->start_ns);
				lfr_join_read(r->join, ((const struct rec_read *)h)->start_ns);
			}
			continue;
		}
		if (h->type == REC_CGROUP) {
			if (pass == 0 && (err = apply_cgroup(r, (const struct rec_cmdline *)h)))
				return err;
			continue;
		}
		/* each pass decodes only the records it applies (a bad one is counted once) */
		if (pass == 0 && h->type < 32 && (SAMPLE_TYPES >> h->type & 1))
			continue;
		if (pass == 1 && (h->type == LFR_REC_COMM || h->type == LFR_REC_MMAP))
			continue;
		if (lfr_record_decode(h, &rec, why, sizeof(why))) {
			r->st.malformed += pass == 0 || h->type == LFR_REC_TICK ||
			                   h->type == LFR_REC_OFFCPU || h->type == LFR_REC_USTACK ||
			                   h->type == LFR_REC_SAMPLE || h->type == LFR_REC_LOST ||
			                   h->type == LFR_REC_LATENCY;
			continue;
		}
		if (pass == 0) {
			if (rec.type == LFR_REC_COMM)
				err = apply_comm(r, rec.comm.r);
			else if (rec.type == LFR_REC_MMAP)
				err = apply_mmap(r, rec.mmap.r, rec.mmap.path);
			else if (rec.type == LFR_REC_TASK)
				err = apply_task(r, rec.task);
		} else if (rec.type == LFR_REC_SAMPLE) {
			err = take_sample(r, h, &rec);
		} else if (rec.type == LFR_REC_TICK) {
			err = lfr_join_tick(r->join, rec.tick, on_joined, r);
		} else if (rec.type == LFR_REC_OFFCPU) {
			err = lfr_join_offcpu(r->join, rec.offcpu, on_joined, r);
		} else if (rec.type == LFR_REC_USTACK) {
			err = lfr_join_ustack(r->join, rec.ustack.r, on_joined, r);
		} else if (rec.type == LFR_REC_LATENCY) {
			err = note_latency(r, rec.latency);
		} else if (rec.type == LFR_REC_LOST) {
			err = write_lost(r, rec.lost);
		} else if (rec.type == LFR_REC_TASK) {
			err = write_task(r, rec.task);
			/* ticks of the thread still waiting for a stack: given up in a while */
			if (!err && rec.task->kind == LFR_TASK_EXIT)
				err = lfr_join_exit(r->join, rec.task->tid, rec.task->time_ns,
				                    on_joined, r);
			else if (!err && task_left_id(rec.task))
				err = lfr_join_exit(r->join, rec.task->ptid, rec.task->time_ns,
				                    on_joined, r);
		}
		if (err)
			return err;
	}
	return 0;
}

static int apply(struct lfr_recorder *r, struct batch *b, int pass, bool final, struct batch *hold)
{
	int err = apply_records(r, b, pass, final, hold);

	/* the join may hold a tick of B by its address; B is reused or freed next */
	if (pass == 1)
		lfr_join_keep(r->join);
	return err;
}

/*
 * Held samples are named again when one of their processes' perf maps changed (read at once
 * when the process is gone: a JVM writes its map at exit) or a process is gone: those now named,
 * and every one of a gone process, are written, the others wait again (a map read while the JVM
 * writes it names only part of the code).  When they fill the limit, or at the end, all of them
 * are written as named as they will be.
 */
static int jit_release(struct lfr_recorder *r, bool final)
{
	const struct lfr_rec_header *h;
	struct batch held;
	bool all = final || r->jit_full, due = all;
	uint32_t last = 0;
	int err;

	for (size_t off = 0; off + sizeof(*h) <= r->jit_wait.len; off += h->size) {
		const struct lfr_rec_sample *s = (const void *)(r->jit_wait.buf + off);
		struct process *p;

		h = &s->hdr;
		if (s->tgid == last)
			continue;
		last = s->tgid;
		if (!(p = process_of(r, s->tgid)))
			return -ENOMEM;
		uint64_t serial = lfr_sym_perf_map_check(r->sym, s->tgid, p->gone || all);

		due |= serial != p->sym_serial || p->gone;
		p->sym_serial = serial;
	}
	if (!due || !r->jit_wait.len)
		return 0;
	held = r->jit_wait;
	r->jit_wait = (struct batch){0};
	r->jit_release = all;
	r->jit_again = true;
	r->jit_full = false;
	err = apply(r, &held, 1, true, NULL);
	r->jit_release = r->jit_again = false;
	batch_free(&held);
	return err;
}

/* Applies r->cur (the batch the reading side handed over last). */
int process_cur(struct lfr_recorder *r, bool final)
{
	/*
	 * Each batch holds its samples in the buffer the previous one's held samples were applied
	 * from: its pages are touched once, not faulted in and cleared again at every batch.
	 */
	struct batch held = r->waiting, next = r->spare_hold;
	int err;

	r->waiting = (struct batch){0};
	r->spare_hold = (struct batch){0};
	key_caches_check(r);
	/* Names and mappings of this batch first: held samples may need them. */
	err = r->cur.names ? apply(r, &r->cur, 0, final, NULL) : 0;
	if (!err)
		err = apply(r, &held, 1, true, NULL);
	if (!err)
		err = apply(r, &r->cur, 1, final, &next);
	batch_reset(&held);
	r->spare_hold = held;
	batch_reset(&r->cur);
	r->waiting = next;
	if (!err && final && r->waiting.len) {
		err = apply(r, &r->waiting, 1, true, NULL);
		r->waiting.len = 0;
	}
	r->hold = NULL;
	if (!err)
		err = jit_release(r, final);
	if (!err)
		err = write_batch_losses(r);
	lfr_join_lost(r->join, &r->st.join_lost);
	if (final) {
		r->st.unjoined = lfr_join_waiting(r->join);
		r->st.latency_unmatched += r->latencies.n;
		hashtab_clear(&r->latencies);
	}
	return err;
}

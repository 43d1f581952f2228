// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder: ring records -> symbolized, deduplicated JFR events.  See recorder.h.  This file
 * holds its life, the reading side's copy of records and the final accounts; recorder_internal.h
 * lists the files that do the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/recorder_internal.h"

/*
 * Held samples beyond this by default (a minute or two of a busy JVM's threads at 999 Hz with
 * their deep stacks) are all written as they are, unnamed frames and all.
 */
#define JIT_WAIT_MAX (64u << 20)

int lfr_recorder_new(struct lfr_recorder **out, struct lfr_jfr_writer *w, struct lfr_sym *sym)
{
	struct lfr_recorder *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->w = w;
	r->sym = sym;
	r->synth = malloc(sizeof(struct lfr_rec_sample) + MAX_FRAMES * sizeof(uint64_t) +
	                  sizeof(struct lfr_ustack_ctx) + LFR_CTX_ATTRS_MAX + 8);
	if (!r->synth || lfr_join_new(&r->join)) {
		free(r->synth);
		free(r);
		return -ENOMEM;
	}
	r->threads.elem = sizeof(struct thread);
	r->procs.elem = sizeof(struct process);
	/* keys the kernel chose (tids, tgids, tick times) or lfr's own (pointers, stack hashes):
	 * the unkeyed hash, on the path of every sample */
	hashtab_init_trusted(&r->threads.t, false);
	hashtab_init_trusted(&r->procs.t, false);
	hashtab_init_trusted(&r->latencies, false);
	hashtab_init_trusted(&r->stack_index, false);
	hashtab_init_trusted(&r->looked, false);
	hashtab_init_trusted(&r->methods, false);
	hashtab_init_trusted(&r->objects_told, false);
	r->jit_wait_max = JIT_WAIT_MAX;
	frame_memo_resize(r, FRAME_MEMO_MIN_BITS); /* without it, every frame is named */
	*out = r;
	return 0;
}

void lfr_recorder_free(struct lfr_recorder *r)
{
	if (!r)
		return;
	r->in.len = 0; /* what was not handed over is dropped, not named */
	stop_behind(r);
	batch_free(&r->in);
	free_batches(r->prepared);
	hashtab_free(&r->looked);
	hashtab_free(&r->latencies);
	batch_free(&r->cur);
	batch_free(&r->waiting);
	batch_free(&r->spare_hold);
	batch_free(&r->jit_wait);
	idmap_free(&r->threads, NULL);
	idmap_free(&r->procs, process_fini);
	exited_free(&r->exited);
	hashtab_free(&r->methods);
	hashtab_free(&r->objects_told);
	free(r->memo);
	hashtab_free(&r->stack_index);
	free(r->stacks);
	free(r->stack_ips);
	raw_stacks_free(&r->raw);
	free(r->synth);
	lfr_join_free(r->join);
	free(r);
}

/* in_push() of a record that does not fit: a full batch first goes to the naming thread. */
static __attribute__((noinline)) int in_push_full(struct lfr_recorder *r, const void *rec,
                                                  size_t size, bool names)
{
	if (r->behind && r->in.len) {
		int err = hand_over(r, false);

		if (err && err != -ENOMEM)
			return err; /* -ENOMEM: no batch to take; this one grows */
	}
	r->in.names |= names;
	return batch_push(&r->in, rec, size);
}

/*
 * A record copied by the reading side.  NAMES: the record names something (the batch it lands in
 * is marked).  Inline, the copy last: every record read comes here.
 */
static inline int in_push(struct lfr_recorder *r, const void *rec, size_t size, bool names)
{
	uint8_t *at;

	if (!batch_fits(&r->in, size))
		return in_push_full(r, rec, size, names);
	at = r->in.buf + r->in.len;
	r->in.len += size;
	r->in.names |= names;
	memcpy(at, rec, size);
	return 0;
}

/*
 * A process seen for the first time: read its command line now, while it most likely lives
 * (records arrive within a poll interval; their batch is applied a second or more later), and
 * pass it on in the batch.  Out of line: its buffer is not set up for every record that asks.
 */
static __attribute__((noinline)) int read_proc_file(struct lfr_recorder *r, uint32_t tgid,
                                                    const char *name, uint32_t type)
{
	char path[48];
	union {
		struct rec_cmdline rec;
		char bytes[sizeof(struct rec_cmdline) + 4096];
	} u;
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/%s", tgid, name);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, u.rec.args, sizeof(u.bytes) - sizeof(u.rec));
		close(fd);
	}
	if (n <= 0)
		return fd < 0; /* 1: no such process (any more) */
	u.rec.hdr.type = type;
	u.rec.hdr.size = (uint32_t)((sizeof(u.rec) + (size_t)n + 7) & ~(size_t)7);
	u.rec.tgid = tgid;
	u.rec.len = (uint32_t)n;
	return in_push(r, &u.rec, u.rec.hdr.size, true);
}

/*
 * A process that ended is looked at anew if its pid is used again, and the table holds the
 * living only (it held every process that ever ran: 64 bytes each, for ever).
 */
static void unlook(struct lfr_recorder *r, uint32_t tgid)
{
	struct hashtab_slot *seen = hashtab_get(&r->looked, tgid, 0);

	if (seen)
		hashtab_del(&r->looked, seen);
	if (r->looked_recent[tgid % LOOKED_RECENT] == tgid)
		r->looked_recent[tgid % LOOKED_RECENT] = 0;
}

/* Every record with a process asks (the command line is read on the process's first). */
static int look_at_process(struct lfr_recorder *r, uint32_t tgid)
{
	struct hashtab_slot *seen;
	bool fresh = false;
	int err;

	seen = hashtab_put(&r->looked, tgid, 0, &fresh);
	if (!seen)
		return 0;
	r->looked_recent[tgid % LOOKED_RECENT] = tgid;
	if (!fresh)
		return 0;
	err = read_proc_file(r, tgid, "cmdline", REC_CMDLINE);
	if (err > 0) {
		/* gone (a record read after its exit): not kept, so that the table holds the
		 * living; its next records pass while it is the recent one of its slot */
		hashtab_del(&r->looked, seen);
		return 0;
	}
	if (!err && r->labels && (err = read_proc_file(r, tgid, "cgroup", REC_CGROUP)) > 0)
		err = 0; /* gone since */
	return err;
}

/* lfr_recorder_add() of a record whose process was not looked at lately. */
static __attribute__((noinline)) int
add_looked_at(struct lfr_recorder *r, const struct lfr_rec_header *h, uint32_t tgid, bool names)
{
	int err = look_at_process(r, tgid);

	if (err)
		return err;
	r->added++;
	return in_push(r, h, h->size, names);
}

int lfr_recorder_read(struct lfr_recorder *r, uint64_t start_ns)
{
	struct rec_read m = {.hdr = {.type = REC_READ, .size = sizeof(m)}, .start_ns = start_ns};

	return in_push(r, &m, sizeof(m), false);
}

int lfr_recorder_add(struct lfr_recorder *r, const struct lfr_rec_header *h)
{
	uint32_t tgid = 0;
	bool names = false;

	if (h->type == LFR_REC_TICK && h->size >= sizeof(struct lfr_rec_tick)) {
		tgid = ((const struct lfr_rec_tick *)h)->tgid;
	} else if (h->type == LFR_REC_USTACK && h->size >= sizeof(struct lfr_rec_ustack)) {
		/*
		 * the other record of every sample, which names nothing; the only one of a thread
		 * that runs in user space, whose ticks queue its walks without a TICK record of
		 * their own: its process is looked at here, or never
		 */
		tgid = ((const struct lfr_rec_ustack *)h)->tgid;
	} else if (h->type == LFR_REC_OFFCPU && h->size >= sizeof(struct lfr_rec_offcpu)) {
		tgid = ((const struct lfr_rec_offcpu *)h)->tgid;
	} else if (h->type == LFR_REC_SAMPLE && h->size >= sizeof(struct lfr_rec_sample)) {
		tgid = ((const struct lfr_rec_sample *)h)->tgid;
	} else {
		if (h->type == LFR_REC_TASK && h->size >= sizeof(struct lfr_rec_task)) {
			const struct lfr_rec_task *k = (const struct lfr_rec_task *)h;
			int err;

			tgid = k->tgid;
			/* its labels again: runtimes move a process into its container's cgroup
			 * before it execs */
			if (k->kind == LFR_TASK_EXEC && r->labels &&
			    (err = read_proc_file(r, tgid, "cgroup", REC_CGROUP)) < 0)
				return err;
			if (k->kind == LFR_TASK_EXIT && k->tid == k->tgid) {
				unlook(r, tgid);
				tgid = 0;
			}
		}
		names = h->type >= 32 || !(SAMPLE_TYPES >> h->type & 1);
	}
	/* mostly of a process looked at lately: then no call but the push, at the end */
	if (tgid && r->looked_recent[tgid % LOOKED_RECENT] != tgid)
		return add_looked_at(r, h, tgid, names);
	r->added++;
	return in_push(r, h, h->size, names);
}

int lfr_recorder_process(struct lfr_recorder *r, bool final)
{
	struct behind *b = r->behind;
	int err;

	if (b && !final)
		return hand_over_now(b, &err) && !err ? hand_over(r, false) : err;
	if (b && (err = stop_behind(r)))
		return err;
	batch_swap(&r->in, &r->cur);
	return process_cur(r, final);
}

int lfr_recorder_account(struct lfr_recorder *r, const struct lfr_counters *total)
{
	for (unsigned int reason = 1; reason <= LFR_LOST_MAX; reason++) {
		unsigned int ctr = LFR_CTR_LOST_FIRST + reason;
		uint64_t counted, extra;
		int err;

		if (reason == LFR_LOST_AUX_RING_FULL || ctr > LFR_CTR_MAX || !total->present[ctr])
			continue;
		counted = total->v[ctr];
		if (counted <= r->st.lost_ticks[reason])
			continue;
		extra = counted - r->st.lost_ticks[reason];
		err = lfr_jfr_lost_samples(r->w, r->last_time ? r->last_time : lfr_jfr_now(),
		                           lfr_lost_reason_name(reason), extra);
		if (err)
			return err;
		r->st.lost_ticks[reason] += extra;
	}
	return 0;
}

int lfr_recorder_account_pending(struct lfr_recorder *r, const struct lfr_counters *total)
{
	uint64_t in_file = r->st.events + r->st.lost_pending, extra;
	int err;

	if (!total->present[LFR_CTR_TICKS_MATCHED])
		return 0;
	for (unsigned int reason = 0; reason <= LFR_LOST_MAX; reason++)
		in_file += r->st.lost_ticks[reason];
	if (total->v[LFR_CTR_TICKS_MATCHED] <= in_file)
		return 0;
	extra = total->v[LFR_CTR_TICKS_MATCHED] - in_file;
	err = lfr_jfr_lost_samples(r->w, r->last_time ? r->last_time : lfr_jfr_now(),
	                           LFR_LOST_WALK_PENDING_NAME, extra);
	if (err)
		return err;
	r->st.lost_pending += extra;
	return 0;
}

/* Adds one thread's counts to the n busiest in out (got of them so far). */
static void busiest_add(struct lfr_thread_rate *out, size_t n, size_t *got,
                        const struct lfr_thread_rate *t)
{
	size_t j;

	if (!(t->samples + t->missed) || (*got == n && t->samples <= out[n - 1].samples))
		return;
	j = *got < n ? (*got)++ : n - 1;
	for (; j > 0 && out[j - 1].samples < t->samples; j--)
		out[j] = out[j - 1];
	out[j] = *t;
}

size_t lfr_recorder_busiest(const struct lfr_recorder *r, struct lfr_thread_rate *out, size_t n)
{
	size_t got = 0;

	for (struct hashtab_slot *s = NULL; n && (s = hashtab_next(&r->threads.t, s));) {
		const struct thread *t = (const struct thread *)(uintptr_t)s->v;
		struct lfr_thread_rate rate = {
		    .tid = t->tid, .tgid = t->tgid, .samples = t->samples, .missed = t->missed};

		memcpy(rate.comm, t->comm, sizeof(rate.comm));
		busiest_add(out, n, &got, &rate);
	}
	/* and those forgotten since they exited */
	for (size_t i = 0; n && i < r->n_gone_busiest; i++)
		busiest_add(out, n, &got, &r->gone_busiest[i]);
	return got;
}

void lfr_recorder_set_period(struct lfr_recorder *r, uint64_t period_ns)
{
	r->period_ns = period_ns;
}

void lfr_recorder_set_wall(struct lfr_recorder *r, uint64_t off_cpu_min_ns)
{
	r->wall = true;
	r->off_cpu_min_ns = off_cpu_min_ns;
}

void lfr_recorder_jit_wait(struct lfr_recorder *r, size_t max_bytes)
{
	r->jit_wait_max = max_bytes;
}

void lfr_recorder_set_labels(struct lfr_recorder *r, const struct lfr_labels *user)
{
	r->labels = user;
}

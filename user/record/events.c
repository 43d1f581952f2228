// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's JFR events: of a sample whose stack is written (with its thread context and its
 * sampling latency), of an off-CPU interval (and its wall-clock samples), of processes, of threads
 * starting and ending, and of losses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "record/process_ctx.h"
#include "record/recorder_internal.h"

/* The key map of process p, read now when it may have grown since it was last read. */
static const struct lfr_key_map *key_map(struct process *p, bool refresh)
{
	uint64_t now;
	char why[256];

	if (p->keys && !refresh)
		return p->keys;
	now = lfr_mono_ns();
	if (p->keys_read_ns && now - p->keys_read_ns < 1000000000ull)
		return p->keys;
	p->keys_read_ns = now;
	if (!p->keys && !(p->keys = calloc(1, sizeof(*p->keys))))
		return NULL;
	if (lfr_process_ctx_key_map(p->tgid, p->keys, why, sizeof(why)) < 0)
		lfr_key_map_free(p->keys);
	return p->keys;
}

/*
 * The attributes of context C (entries: key index, value length, value) named by the key map of
 * process p into out: an index the map lacks is left out (OTEP 4947), after one more read of the
 * map; of an index given twice the last value stands.  Returns how many.
 */
static size_t ctx_attrs(struct lfr_recorder *r, const struct lfr_ustack_ctx *c, struct process *p,
                        struct lfr_jfr_attr *out)
{
	const struct lfr_key_map *m = key_map(p, false);
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++) {
		const uint8_t *a = c->attrs, *end = c->attrs + c->attrs_len;
		uint64_t missing = 0;

		n = 0;
		for (; end - a >= 2 && (size_t)(end - a - 2) >= a[1]; a += 2 + a[1]) {
			size_t i;

			if (!m || a[0] >= m->n) {
				missing++;
				continue;
			}
			for (i = 0; i < n && out[i].key != m->keys[a[0]]; i++)
				;
			out[i] = (struct lfr_jfr_attr){
			    .key = m->keys[a[0]],
			    .value = (const char *)a + 2,
			    .key_len = (uint8_t)strnlen(m->keys[a[0]], 255),
			    .value_len = a[1],
			};
			n += i == n;
		}
		if (!missing)
			break;
		if (pass) {
			r->st.ctx_attrs_unnamed +=
			    missing; /* still none after the map was read again */
			break;
		}
		m = key_map(p, true);
	}
	return n;
}

/* The lfr.TraceContext event of the sample of THREAD at TIME, when its walk read a context. */
__attribute__((noinline)) int write_context(struct lfr_recorder *r, uint64_t time, uint64_t thread,
                                            uint32_t tgid)
{
	const struct lfr_ustack_ctx *c = r->ctx;
	uint32_t len = (uint32_t)sizeof(*c) + c->attrs_len;
	struct lfr_jfr_attr attrs[LFR_CTX_ATTRS_MAX / 2];
	struct process *p;
	size_t n;
	int err;

	r->st.ctx[c->state < __LFR_CTX_STATE_MAX ? c->state : LFR_CTX_NONE]++;
	if (c->state != LFR_CTX_VALID)
		return 0;
	if (len != r->last_ctx_len || tgid != r->last_ctx_tgid || memcmp(c, r->last_ctx, len)) {
		if (!(p = process_of(r, tgid)))
			return -ENOMEM;
		n = c->attrs_len ? ctx_attrs(r, c, p, attrs) : 0;
		if ((err = lfr_jfr_context(r->w, c->trace_id, c->span_id, c->trace_flags, attrs, n,
		                           &r->last_ctx_key)))
			return err;
		memcpy(r->last_ctx, c, len);
		r->last_ctx_len = len;
		r->last_ctx_tgid = tgid;
	}
	return lfr_jfr_trace_context(r->w, time, thread, r->last_ctx_key);
}

/*
 * --wall: the wall-clock samples of off-CPU interval O of thread TH, one per period of the thread's
 * off-CPU time (its remainder carried to the thread's next interval), as profiler.WallClockSample
 * events with the interval's stack; a preempted thread is runnable, any other waits.  Its time on
 * the CPU is sampled by its CPU samples, one per period of CPU time, each written as a wall-clock
 * sample too (the writer's LFR_JFR_SAMPLE_WALL).
 */
static int write_wall(struct lfr_recorder *r, struct thread *th, const struct lfr_rec_offcpu *o,
                      uint64_t thread, uint64_t stack)
{
	uint64_t len = o->time_ns - o->start_ns, p = r->period_ns;
	enum lfr_jfr_thread_state state =
	    o->state == LFR_OFFCPU_PREEMPTED ? LFR_JFR_STATE_RUNNABLE : LFR_JFR_STATE_SLEEPING;
	uint64_t n, carry = th->wall_carry;
	int err;

	if (!p)
		return 0;
	n = (carry + len) / p;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t t = o->start_ns + (k + 1) * p - carry;

		if ((err = lfr_jfr_wall_sample(r->w, t, thread, stack, state)) ||
		    (r->ctx && (err = write_context(r, t, thread, o->tgid))))
			return err;
	}
	th->wall_carry = carry + len - n * p;
	r->st.wall_samples += n;
	return 0;
}

/* The lfr.SamplingLatency event of r->lat_ns, after its tick's sample. */
__attribute__((noinline)) int write_latency(struct lfr_recorder *r, uint64_t time, uint64_t thread,
                                            uint64_t stack)
{
	int err = lfr_jfr_sampling_latency(r->w, time, r->lat_ns, thread, stack);

	if (err)
		return err;
	r->st.latencies++;
	r->st.latency_ns += r->lat_ns;
	if (r->lat_ns > r->st.latency_max_ns)
		r->st.latency_max_ns = r->lat_ns;
	r->lat_ns = 0;
	return 0;
}

/* The events of off-CPU interval r->off of thread TH, whose stack is written. */
static int write_off_cpu(struct lfr_recorder *r, uint64_t stack, bool incomplete, struct thread *th,
                         struct process *p)
{
	static const char *const states[__LFR_OFFCPU_STATE_MAX] = {
	    "other", "sleeping", "uninterruptible", "preempted", "idle"};
	const struct lfr_rec_offcpu *o = r->off;
	uint64_t len = o->time_ns - o->start_ns, thread;
	int err;

	r->st.incomplete += incomplete;
	if ((!p->described && (err = describe_process(r, o->tgid, o->time_ns))) ||
	    (err = thread_key_of(r, th, p, o->tid, o->tgid, &thread)))
		return err;
	if (r->wall && (err = write_wall(r, th, o, thread, stack)))
		return err;
	if (len < r->off_cpu_min_ns) {
		/* --wall asked the module for every interval; --off-cpu's minimum is here */
		th->short_n++;
		th->short_ns += len;
		return 0;
	}
	err = lfr_jfr_off_cpu(r->w, o->start_ns, len, thread, stack,
	                      o->state < __LFR_OFFCPU_STATE_MAX ? states[o->state] : "other",
	                      o->short_count + th->short_n, o->short_ns + th->short_ns);
	if (!err && r->ctx)
		err = write_context(r, o->start_ns, thread, o->tgid);
	if (err)
		return err;
	r->st.off_cpu++;
	r->st.off_cpu_ns += o->time_ns - o->start_ns;
	if (o->time_ns > r->last_time)
		r->last_time = o->time_ns;
	return 0;
}

/*
 * The event of a sample (or of an off-CPU interval, r->off) whose stack is written; th and p are
 * its thread and process when the caller has them (else NULL: looked up).
 */
int write_event(struct lfr_recorder *r, const struct lfr_rec_sample *s, uint64_t stack,
                bool incomplete, struct thread *th, struct process *p)
{
	if (!th)
		th = idmap_get(&r->threads, s->tid);
	if (!p)
		p = process_of(r, s->tgid);
	if (!th || !p)
		return -ENOMEM;
	if (r->off)
		return write_off_cpu(r, stack, incomplete, th, p);
	return write_cpu_sample(r, s->time_ns, s->tid, s->tgid, s->weight, stack, incomplete, th,
	                        p);
}

/*
 * jdk.SystemProcess once per process image: the command line from the module's EXEC record, else
 * the parent's (a fork that did not exec), else /proc/PID/cmdline read when the process was first
 * seen; a process known by none of these is described by its name in brackets, as ps does.
 */
int describe_process(struct lfr_recorder *r, uint32_t tgid, uint64_t ticks)
{
	struct process *p = process_of(r, tgid);
	char line[LFR_COMM_LEN + 2];

	if (!p)
		return -ENOMEM;
	if (p->described)
		return 0;
	p->described = true;
	snprintf(line, sizeof(line), "[%s]", p->comm[0] ? p->comm : "?");
	r->st.processes++;
	return lfr_jfr_system_process(r->w, ticks, tgid, p->cmdline ? p->cmdline : line);
}

/*
 * jdk.ThreadStart (with the creating thread) and jdk.ThreadEnd: at an exit, and at an exec by a
 * thread other than the main one for the id it leaves (it runs on under the main one's).
 */
int write_task(struct lfr_recorder *r, const struct lfr_rec_task *k)
{
	uint32_t tid = k->tid;
	uint64_t thread, parent = 0;
	int err;

	if (task_left_id(k))
		tid = k->ptid;
	else if (k->kind != LFR_TASK_FORK && k->kind != LFR_TASK_EXIT)
		return 0;
	if ((err = describe_process(r, k->tgid, k->time_ns)) ||
	    (err = thread_key(r, tid, k->tgid, &thread)))
		return err;
	if (k->kind != LFR_TASK_FORK) {
		r->st.thread_ends++;
		return lfr_jfr_thread_end(r->w, k->time_ns, thread);
	}
	if (k->ptid && (err = thread_key(r, k->ptid, k->ptgid, &parent)))
		return err;
	r->st.thread_starts++;
	return lfr_jfr_thread_start(r->w, k->time_ns, thread, parent);
}

int write_lost(struct lfr_recorder *r, const struct lfr_rec_lost *l)
{
	/* AUX_RING_FULL counts mapping/name records, not ticks: those cost names, not samples. */
	uint64_t ticks = l->reason == LFR_LOST_AUX_RING_FULL ? 0 : l->ticks;

	if (l->reason > LFR_LOST_MAX || !ticks)
		return 0;
	r->st.lost_ticks[l->reason] += ticks;
	return lfr_jfr_lost_samples(r->w, l->time_ns, lfr_lost_reason_name(l->reason), ticks);
}

/* The per-tick losses of a batch, one event per reason. */
int write_batch_losses(struct lfr_recorder *r)
{
	for (unsigned int reason = 1; reason <= LFR_LOST_MAX; reason++) {
		uint64_t n = r->lost_batch[reason];
		int err;

		if (!n)
			continue;
		r->lost_batch[reason] = 0;
		r->st.lost_ticks[reason] += n;
		err = lfr_jfr_lost_samples(r->w, r->last_time ? r->last_time : lfr_jfr_now(),
		                           lfr_lost_reason_name(reason), n);
		if (err)
			return err;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The JFR writer's events of threads: samples (the hot path: one call per sample, measured to the
 * instruction, Documentation/benchmarks.md), off-CPU and latency spans, trace contexts, losses,
 * thread starts and ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/encode.h"
#include "jfr/pool.h"
#include "jfr/schema.h"
#include "jfr/writer_internal.h"

/* A reference to an entry that the current segment has not referenced yet. */
static int ref_new(struct lfr_jfr_writer *w, int pool, uint64_t key, struct pool_entry *e)
{
	e->seg = w->seg_seq;
	if (keyvec_push(&w->seg_refs[pool], key))
		return jfr_writer_nomem(w, "recording a reference");
	return 0;
}

/* Inline: every event refers to its thread and stack, mostly ones already referenced. */
static inline int ref(struct lfr_jfr_writer *w, int pool, uint64_t key, const char *what)
{
	struct pool_entry *e;

	if (!key)
		return 0;
	e = pool_get(&w->pools[pool], key);
	if (!e)
		return jfr_writer_fail(w, EINVAL, "unknown %s key %llu", what,
		                       (unsigned long long)key);
	return e->seg == w->seg_seq ? 0 : ref_new(w, pool, key, e);
}

/* An event of a few varints, less than 128 bytes in all: its size is one byte. */
#define SMALL_EVENT_MAX 127

/*
 * The bytes of a thread's sample of TYPE at the end of the events, after the checks: at most 1 + 2
 * + 4 x 9 + 2 bytes, encoded through one pointer after one check for room (by the caller): this
 * runs once per sample, and a buffer call per field was most of its cost.
 */
static inline void put_thread_sample(struct lfr_jfr_writer *w, uint16_t type, uint64_t ticks,
                                     uint64_t thread, uint64_t stack,
                                     enum lfr_jfr_thread_state state)
{
	uint8_t *at = w->ev.data + w->ev.len, *p;

	p = jfr_put_varint(at + 1, type);
	p = jfr_put_varint(p, ticks);
	p = jfr_put_varint(p, thread);
	p = jfr_put_varint(p, stack);
	p = jfr_put_varint(p, jfr_writer_states[state].key);
	if (type == T_WALL_CLOCK_SAMPLE) {
		*p++ = 1; /* samples: one period */
		*p++ = 0; /* timeSpan */
	}
	*at = (uint8_t)(p - at);
	w->ev.len += (size_t)(p - at);
	seg_ticks(w, ticks);
	w->st.samples += type == T_EXECUTION_SAMPLE;
}

/* thread_sample() when any check may fail or a reference is new to the segment. */
static __attribute__((noinline)) int thread_sample_checked(struct lfr_jfr_writer *w, uint16_t type,
                                                           uint64_t ticks, uint64_t thread,
                                                           uint64_t stack,
                                                           enum lfr_jfr_thread_state state)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if (state < 1 || state > LFR_JFR_STATE_COUNT)
		return jfr_writer_fail(w, EINVAL, "invalid thread state %d", (int)state);
	if ((err = ref(w, P_THREAD, thread, "thread")) || (err = ref(w, P_STACK, stack, "stack")))
		return err;
	if (w->ev.oom ||
	    (w->ev.len + SMALL_EVENT_MAX > w->ev.cap && !jfr_buf_reserve(&w->ev, SMALL_EVENT_MAX)))
		return jfr_writer_nomem(w, "buffering an event");
	put_thread_sample(w, type, ticks, thread, stack, state);
	return committed(w);
}

/* Whether KEY (0: none) is referenced by the current segment already. */
static inline bool ref_current(struct lfr_jfr_writer *w, int pool, uint64_t key)
{
	const struct pool_entry *e;

	return !key || ((e = pool_get(&w->pools[pool], key)) && e->seg == w->seg_seq);
}

/*
 * A thread's sample of TYPE (jdk.ExecutionSample; profiler.WallClockSample, which adds one period
 * and no time span): thread, stack, state.
 * Mostly every check passes and both references are known to the segment: that way has no call
 * but the flush, at the end, and saves only the registers the encoding needs.
 */
static int thread_sample(struct lfr_jfr_writer *w, uint16_t type, uint64_t ticks, uint64_t thread,
                         uint64_t stack, enum lfr_jfr_thread_state state)
{
	if (w->dead || state < 1 || state > LFR_JFR_STATE_COUNT ||
	    !ref_current(w, P_THREAD, thread) || !ref_current(w, P_STACK, stack) || w->ev.oom ||
	    w->ev.len + SMALL_EVENT_MAX > w->ev.cap)
		return thread_sample_checked(w, type, ticks, thread, stack, state);
	put_thread_sample(w, type, ticks, thread, stack, state);
	return committed(w);
}

int lfr_jfr_execution_sample(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                             uint64_t stack, enum lfr_jfr_thread_state state)
{
	return thread_sample(w, T_EXECUTION_SAMPLE, ticks, thread, stack, state);
}

int lfr_jfr_wall_sample(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread, uint64_t stack,
                        enum lfr_jfr_thread_state state)
{
	return thread_sample(w, T_WALL_CLOCK_SAMPLE, ticks, thread, stack, state);
}

/*
 * Begins a duration event of TYPE with a thread and a stack (lfr.OffCpu, lfr.SamplingLatency):
 * start, duration, eventThread, stackTrace; the caller adds its other fields and commits.
 */
static int begin_thread_span(struct lfr_jfr_writer *w, uint16_t type, uint64_t start,
                             uint64_t duration, uint64_t thread, uint64_t stack)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if ((err = ref(w, P_THREAD, thread, "thread")) || (err = ref(w, P_STACK, stack, "stack")))
		return err;
	begin(w, type, start);
	if (start + duration > w->seg_max_ticks)
		w->seg_max_ticks = start + duration;
	jfr_buf_varint(&w->tmp, duration);
	jfr_buf_varint(&w->tmp, thread);
	jfr_buf_varint(&w->tmp, stack);
	return 0;
}

/* lfr_jfr_off_cpu() when any check may fail, a reference is new to the segment or the state is
 * not a short ASCII name. */
static __attribute__((noinline)) int off_cpu_checked(struct lfr_jfr_writer *w, uint64_t start,
                                                     uint64_t duration, uint64_t thread,
                                                     uint64_t stack, const char *state,
                                                     uint64_t short_count, uint64_t short_ns)
{
	int err = begin_thread_span(w, T_OFF_CPU, start, duration, thread, stack);

	if (err)
		return err;
	jfr_buf_string(&w->tmp, state);
	jfr_buf_varint(&w->tmp, short_count);
	jfr_buf_varint(&w->tmp, short_ns);
	return commit(w);
}

/* A state name lfr_jfr_off_cpu() writes inline: ASCII, its length one varint byte. */
#define OFF_CPU_STATE_MAX 32
_Static_assert(1 + 3 + 6 * JFR_VARINT_MAX + 2 + OFF_CPU_STATE_MAX <= SMALL_EVENT_MAX,
               "an off-CPU event of the fast path fits the one-byte size");

/*
 * lfr.OffCpu: start, duration, eventThread, stackTrace, state, shortCount, shortDuration.  Every
 * interval of `--off-cpu` is one, mostly of a thread and stack the segment knows and a state of a
 * few ASCII letters: those bytes go through one pointer after one check for room, as a sample's
 * (put_thread_sample()); through the event buffer, a call per field and the state's UTF-8
 * check a character at a time, an event took 722 instructions (callgrind; 335 this way).
 */
int lfr_jfr_off_cpu(struct lfr_jfr_writer *w, uint64_t start, uint64_t duration, uint64_t thread,
                    uint64_t stack, const char *state, uint64_t short_count, uint64_t short_ns)
{
	size_t n = 0;
	uint8_t ascii = 0, *at, *p;

	if (!state)
		state = "other";
	for (; state[n] && n <= OFF_CPU_STATE_MAX; n++)
		ascii |= (uint8_t)state[n];
	if (w->dead || !n || n > OFF_CPU_STATE_MAX || ascii >= 0x80 ||
	    !ref_current(w, P_THREAD, thread) || !ref_current(w, P_STACK, stack) || w->ev.oom ||
	    w->ev.len + SMALL_EVENT_MAX > w->ev.cap)
		return off_cpu_checked(w, start, duration, thread, stack, state, short_count,
		                       short_ns);
	at = w->ev.data + w->ev.len;
	p = jfr_put_varint(at + 1, T_OFF_CPU);
	p = jfr_put_varint(p, start);
	p = jfr_put_varint(p, duration);
	p = jfr_put_varint(p, thread);
	p = jfr_put_varint(p, stack);
	*p++ = JFR_STR_UTF8;
	*p++ = (uint8_t)n;
	memcpy(p, state, n);
	p += n;
	p = jfr_put_varint(p, short_count);
	p = jfr_put_varint(p, short_ns);
	*at = (uint8_t)(p - at);
	w->ev.len += (size_t)(p - at);
	seg_ticks(w, start);
	if (start + duration > w->seg_max_ticks)
		w->seg_max_ticks = start + duration;
	return committed(w);
}

int lfr_jfr_sampling_latency(struct lfr_jfr_writer *w, uint64_t start, uint64_t duration,
                             uint64_t thread, uint64_t stack)
{
	return begin_thread_span(w, T_SAMPLING_LATENCY, start, duration, thread, stack)
	           ?: commit(w);
}

int lfr_jfr_trace_context(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                          uint64_t context)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if ((err = ref(w, P_THREAD, thread, "thread")) ||
	    (err = ref(w, P_CONTEXT, context, "trace context")))
		return err;
	begin(w, T_TRACE_CONTEXT, ticks);
	jfr_buf_varint(&w->tmp, thread);
	jfr_buf_varint(&w->tmp, context);
	w->st.contexts++;
	return commit(w);
}

/* Out of line: inlined, its registers were saved for every sample of the default. */
static __attribute__((noinline)) int
sample_events_of(struct lfr_jfr_writer *w, unsigned set, uint64_t ticks, uint64_t thread,
                 uint64_t stack, enum lfr_jfr_thread_state state, uint64_t period_ns);

int lfr_jfr_sample(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread, uint64_t stack,
                   enum lfr_jfr_thread_state state, uint64_t period_ns)
{
	unsigned set = sample_events(w);

	/* the default: one event, a call of its own (no registers saved for the other) */
	if (set == LFR_JFR_SAMPLE_EXECUTION)
		return thread_sample(w, T_EXECUTION_SAMPLE, ticks, thread, stack, state);
	return sample_events_of(w, set, ticks, thread, stack, state, period_ns);
}

/* lfr_jfr_sample() with the events of SET, the CPU-time or the wall-clock sample among them. */
static int sample_events_of(struct lfr_jfr_writer *w, unsigned set, uint64_t ticks, uint64_t thread,
                            uint64_t stack, enum lfr_jfr_thread_state state, uint64_t period_ns)
{
	int err;

	if (set & LFR_JFR_SAMPLE_EXECUTION) {
		if ((err = lfr_jfr_execution_sample(w, ticks, thread, stack, state)))
			return err;
	} else if ((err = check_live(w))) {
		return err;
	}
	if (set & LFR_JFR_SAMPLE_CPU_TIME) {
		/* the execution sample just written referenced the same thread and stack */
		if (!(set & LFR_JFR_SAMPLE_EXECUTION) &&
		    ((err = ref(w, P_THREAD, thread, "thread")) ||
		     (err = ref(w, P_STACK, stack, "stack"))))
			return err;
		/* startTime, stackTrace, eventThread, failed, samplingPeriod (ticks are ns), biased
		 */
		begin(w, T_CPU_TIME_SAMPLE, ticks);
		jfr_buf_varint(&w->tmp, stack);
		jfr_buf_varint(&w->tmp, thread);
		jfr_buf_u8(&w->tmp, !stack);
		jfr_buf_varint(&w->tmp, period_ns);
		jfr_buf_u8(&w->tmp, 0); /* a timer interrupt, not a safepoint: never biased */
		if (!(set & LFR_JFR_SAMPLE_EXECUTION))
			w->st.samples++;
		if ((err = commit(w)))
			return err;
	}
	/* a thread sampled on the CPU is a runnable thread's wall-clock sample too */
	if (set & LFR_JFR_SAMPLE_WALL)
		return thread_sample(w, T_WALL_CLOCK_SAMPLE, ticks, thread, stack,
		                     LFR_JFR_STATE_RUNNABLE);
	return 0;
}

int lfr_jfr_thread_samples_lost(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                                uint32_t count)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if (!(sample_events(w) & LFR_JFR_SAMPLE_CPU_TIME) || !count)
		return 0;
	if ((err = ref(w, P_THREAD, thread, "thread")))
		return err;
	begin(w, T_CPU_TIME_SAMPLES_LOST, ticks);
	jfr_buf_varint(&w->tmp, count);
	jfr_buf_varint(&w->tmp, thread);
	return commit(w);
}

int lfr_jfr_lost_samples(struct lfr_jfr_writer *w, uint64_t ticks, const char *reason,
                         uint64_t count)
{
	struct lost_reason *r = NULL;
	int err;

	if ((err = check_live(w)))
		return err;
	if (!reason || !*reason)
		return jfr_writer_fail(w, EINVAL, "lost samples need a reason");
	for (size_t i = 0; i < w->nlost; i++)
		if (!strcmp(w->lost[i].reason, reason))
			r = &w->lost[i];
	if (!r) {
		struct lost_reason *p = realloc(w->lost, (w->nlost + 1) * sizeof(*p));

		if (!p)
			return jfr_writer_nomem(w, "recording a loss reason");
		w->lost = p;
		r = &w->lost[w->nlost];
		r->reason = strdup(reason);
		r->total = 0;
		if (!r->reason)
			return jfr_writer_nomem(w, "recording a loss reason");
		w->nlost++;
	}
	r->total += count;
	begin(w, T_LOST_SAMPLES, ticks);
	jfr_buf_string(&w->tmp, reason);
	jfr_buf_varint(&w->tmp, count);
	jfr_buf_varint(&w->tmp, r->total);
	return commit(w);
}

int lfr_jfr_thread_start(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread, uint64_t parent)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if ((err = ref(w, P_THREAD, thread, "thread")) ||
	    (err = ref(w, P_THREAD, parent, "parent thread")))
		return err;
	begin(w, T_THREAD_START, ticks);
	jfr_buf_varint(&w->tmp, thread); /* eventThread */
	jfr_buf_varint(&w->tmp, 0);      /* stackTrace */
	jfr_buf_varint(&w->tmp, thread);
	jfr_buf_varint(&w->tmp, parent);
	return commit(w);
}

int lfr_jfr_thread_end(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread)
{
	int err;

	if ((err = check_live(w)))
		return err;
	if ((err = ref(w, P_THREAD, thread, "thread")))
		return err;
	begin(w, T_THREAD_END, ticks);
	jfr_buf_varint(&w->tmp, thread); /* eventThread */
	jfr_buf_varint(&w->tmp, thread);
	return commit(w);
}

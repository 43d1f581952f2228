/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the sampler (sampler.c): each session's per-CPU timers and state,
 * the sched_switch probe, CPU hotplug.
 */
#ifndef LFR_SAMPLER_H
#define LFR_SAMPLER_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/prandom.h>
#include <linux/types.h>
#include <linux/lfr.h>

struct lfr_session;
struct lfr_thread;

/* The largest OFFCPU record, built in place by the off-CPU irq_work. */
#define LFR_OFFCPU_REC_MAX \
	(sizeof(struct lfr_rec_offcpu) + LFR_MAX_KERNEL_STACK_DEPTH * sizeof(u64))

/* The largest TICK record, built in place by the timer handler. */
#define LFR_TICK_REC_MAX \
	(sizeof(struct lfr_rec_tick) + LFR_MAX_KERNEL_STACK_DEPTH * sizeof(u64))

struct lfr_pcpu {
	struct hrtimer timer;
	struct lfr_session *s;
	struct lfr_thread *cur;		/* per-task mode: target running here */
	/*
	 * Per-task mode, at cur's switch-in: ktime_get() and the scheduler's
	 * sum_exec_runtime of the thread (U64_MAX: unknown, see lfr_kick_cpu).
	 */
	ktime_t in_time;
	u64 in_runtime;
	struct rnd_state rnd;
	u64 walk_seq;			/* walk ids queued on this CPU */
	bool online;
	/*
	 * Off-CPU: the interval that ended at a target's switch-in, written
	 * by off_work (hard irq, right after the switch, current is that
	 * thread).  Per-task mode: off_e is the thread's entry (cur).  Timer
	 * mode: off_e only says one is pending (its entry may be taken over
	 * before off_work runs, which pins it again by off_key, the task).
	 */
	struct irq_work off_work;
	struct lfr_thread *off_e;
	unsigned long off_key;
	u64 off_start, off_end;
	u32 off_state;
	u64 tick_buf[LFR_TICK_REC_MAX / sizeof(u64)];
	u64 off_buf[LFR_OFFCPU_REC_MAX / sizeof(u64)];
};

/*
 * A period uniform in @p +- @j (ns), from @rnd: the offset is a random
 * fraction of the 2 @j + 1 values, a multiply and a shift (Lemire's
 * bound, no division).  Its bound passes 2^32 once 2 @j does (4.3 s: a
 * period over 4.3 s with 50 % jitter), where 32 random bits modulo it
 * never reached the longer periods; it takes 64 bits then.  Hard irq:
 * the per-CPU state, no lock.
 */
static inline u64 lfr_jittered_period(u64 p, u64 j, struct rnd_state *rnd)
{
	u64 r;

	if (!j)
		return p;
	r = (u64)prandom_u32_state(rnd) << 32;
	if (2 * j >= U32_MAX)
		r |= prandom_u32_state(rnd);
	return p - j + mul_u64_u64_shr(r, 2 * j + 1, 64);
}

int lfr_sampler_init(void);
void lfr_sampler_exit(void);
int lfr_sampler_hotplug_init(void);
void lfr_sampler_hotplug_exit(void);
int lfr_sampler_start(struct lfr_session *s);
void lfr_sampler_unpublish(struct lfr_session *s);
void lfr_sampler_stop(struct lfr_session *s);

#endif /* LFR_SAMPLER_H */

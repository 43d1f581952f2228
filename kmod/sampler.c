// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the sampler.  One hard-irq hrtimer per CPU and session.
 *
 * Per-task mode (tgid/tid targets), the shape of perf's task-clock: when a
 * target thread is switched in, the CPU's timer is armed with what is left
 * of that thread's budget; when it is switched out, the remainder is saved
 * and the timer cancelled.  Each thread is thus sampled once per period of
 * its own CPU time, whatever its scheduling.
 *
 * System-wide mode: the timer runs all the time on every online CPU and
 * samples whatever user thread it interrupts; it is cheaper than arming on
 * every context switch of every thread.
 *
 * The timer handler only snapshots: user registers, optional kernel stack,
 * time, ids; then queues the thread's task_work (unwind.c).  Nothing is
 * allocated; the only lock is the workqueue's raw pool lock, when the tick
 * takes its CPU's last walk object and queues the refill (walk_obj.c).
 */
#include <linux/cpuhotplug.h>
#include <linux/mm_types.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <asm/irq_regs.h>
#include "arch_regs.h"
#include "compat.h"
#include "core.h"
#include "cpu_share.h"
#include "kstack_cache.h"
#include "probes.h"
#include "ring.h"
#include "sampler.h"
#include "session.h"
#include "target.h"
#include "task_events.h"
#include "threads.h"
#include "unwind.h"
#include "walk_obj.h"

static struct tracepoint *lfr_tp_switch;

/*
 * The sched_switch probe is attached by the first session that needs it (a
 * per-task session, or a timer-mode one with off-CPU intervals) and stays
 * attached until the module is unloaded; per-task sessions come and go
 * through this table, by run index (lfr_for_each_published; the probe runs with
 * interrupts off).  Attaching and detaching rewrite __schedule's text (a
 * static key and a static call): done once per module lifetime instead of at
 * every START and STOP, while the machine's busiest code path runs on every
 * other CPU.  An idle attached probe reads one cache line per context switch.
 */
static struct lfr_session __rcu *lfr_switch_sessions[LFR_MAX_RUNNING];
static bool lfr_switch_attached;

/* Per-task sessions, and timer-mode ones with off-CPU intervals. */
static bool lfr_uses_switch(const struct lfr_session *s)
{
	return !lfr_timer_mode(s) || s->cfg.offcpu_min_ns;
}

static void lfr_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		lfr_tp_switch = tp;
}

int lfr_sampler_init(void)
{
	for_each_kernel_tracepoint(lfr_find_tp, NULL);
	if (!lfr_tp_switch) {
		pr_err("tracepoint sched_switch not found\n");
		return -ENOENT;
	}
	return lfr_task_events_init();
}

static u64 lfr_next_period(struct lfr_session *s, struct lfr_pcpu *pc)
{
	u64 p = s->cfg.period_ns;

	return lfr_jittered_period(p, div_u64(p * s->cfg.jitter_pct, 100),
				   &pc->rnd);
}

static bool lfr_user_thread(struct task_struct *t)
{
	return t->mm && !(t->flags & (LFR_PF_NOT_USER | PF_EXITING)) &&
	       !is_idle_task(t);
}

/*
 * Keeps only the frames from the interrupted ip on (drops lfr and irq entry);
 * *@truncated: the trace filled the buffer before that cut.
 */
static u32 lfr_kernel_stack(u64 *ips, struct pt_regs *regs, bool *truncated)
{
	unsigned long *buf = (unsigned long *)ips;
	u32 n = stack_trace_save(buf, LFR_MAX_KERNEL_STACK_DEPTH, 0);

	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));
	return lfr_kstack_trim(ips, n, LFR_MAX_KERNEL_STACK_DEPTH,
			       instruction_pointer(regs), truncated);
}

/*
 * Queues the user-stack walk of @e's thread (current) for this tick: the
 * snapshot of its user registers, walked by the thread itself on its way
 * back to user space (unwind.c).  Hard irq.  Returns the walk, or NULL with
 * the reason it could not be queued in *@lost.
 */
static struct lfr_walk *lfr_queue_walk(struct lfr_session *s,
				       struct lfr_pcpu *pc,
				       struct lfr_thread *e,
				       struct pt_regs *regs, u64 now, int *lost)
{
	struct task_struct *t = current;
	struct pt_regs *uregs = regs && user_mode(regs) ? regs : task_pt_regs(t);
	struct lfr_walk *w = lfr_walk_obj_get();
	struct lfr_snapshot *sn;

	if (!w) {
		*lost = LFR_LOST_NOMEM;
		return NULL;
	}
	sn = &w->snap;

	sn->flags = lfr_user_compat(uregs) ? LFR_SAMPLE_F_COMPAT : 0;
	sn->ip = instruction_pointer(uregs);
	sn->sp = user_stack_pointer(uregs);
	sn->bp = lfr_user_fp(uregs);
	sn->lr = lfr_user_lr(uregs);
	sn->in_kernel = uregs != regs;
	sn->own_tick = false;
	sn->time_ns = now;
	sn->walk_id = ((u64)smp_processor_id() << LFR_WALK_ID_CPU_SHIFT) |
		      ++pc->walk_seq;
	sn->tgid = lfr_rec_tgid(&s->user, t);
	sn->tid = lfr_rec_tid(&s->user, t);
	sn->mm = t->mm;
	sn->exec_id = t->self_exec_id;
	w->s = s;
	w->e = e;
	atomic_set(&w->ticks, 0);
	atomic_set(&w->offcpu, 0);
	lfr_walk_set_queued(w);

	/*
	 * The walk holds the session while it is queued or running; STOP
	 * giving it up drops these on its behalf.  Sampling holds a reference
	 * and a pending count too, so neither is ever the first; the session's
	 * pending count holds the module (session.c).
	 */
	refcount_inc(&s->ref);
	atomic_inc(&s->pending);
	init_task_work(&w->work, lfr_work_fn);
	if (task_work_add(t, &w->work, TWA_RESUME)) {
		atomic_dec(&s->pending);
		refcount_dec(&s->ref);
		*lost = LFR_LOST_TASK_WORK;
		goto out_unget;
	}
	smp_store_release(&e->walk, w);	/* after its state and owner */
	lfr_count(s, LFR_CTR_SAMPLES_TAKEN, 1);
	return w;
out_unget:
	lfr_walk_obj_unget(w);
	return NULL;
}

/* @n ticks of a target thread, every one lost for @reason. */
static void lfr_count_matched_lost(struct lfr_session *s, int reason, u64 n)
{
	lfr_count(s, LFR_CTR_TICKS_MATCHED, n);
	lfr_count_lost(s, reason, n);
}

/*
 * Hard irq, current == the thread of @e: one tick, one TICK record at this
 * instant.  Its user stack is the one the thread's walk will find: the walk
 * this tick queues or, when one is still queued or running (the thread has
 * not been back in user space since), that one.  @missed periods passed
 * without a tick (a late interrupt): counted lost, never given this stack.
 * @spent: this CPU's budget is spent, the tick is throttled.
 */
static void lfr_tick(struct lfr_session *s, struct lfr_thread *e, u32 missed,
		     ktime_t when, bool spent)
{
	struct lfr_pcpu *pc = this_cpu_ptr(s->pcpu);
	struct lfr_rec_tick *r = (struct lfr_rec_tick *)pc->tick_buf;
	struct pt_regs *regs = get_irq_regs();
	u64 now = ktime_to_ns(when);
	struct lfr_walk *w;
	bool ktrunc = false;
	int lost = 0;

	lfr_count(s, LFR_CTR_TICKS_MATCHED, 1 + (u64)missed);
	if (e->throttle_skip) {
		/* the periods its timer skipped over a spent budget, now passed */
		lfr_count_matched_lost(s, LFR_LOST_THROTTLED, e->throttle_skip);
		e->throttle_skip = 0;
	}
	if (spent) {
		lfr_count_lost(s, LFR_LOST_THROTTLED, 1 + (u64)missed);
		return;
	}
	/* Only this CPU, with interrupts off, sets or clears e->walk now. */
	w = READ_ONCE(e->walk);
	if (!w) {
		w = lfr_queue_walk(s, pc, e, regs, now, &lost);
		if (!w) {
			lfr_count_lost(s, lost, 1 + (u64)missed);
			return;
		}
		/*
		 * A tick of user code that queued its walk, nearly every one:
		 * all it would write is in the walk's snapshot, so its USTACK
		 * record carries it (LFR_USTACK_F_TICK) and nothing is written
		 * now.
		 */
		if (!missed && regs && user_mode(regs)) {
			w->snap.own_tick = true;
			atomic_inc(&w->ticks);
			return;
		}
	} else {
		lfr_count(s, LFR_CTR_MERGED, 1);
	}

	r->hdr.type = LFR_REC_TICK;
	r->time_ns = now;
	r->walk_id = w->snap.walk_id;
	r->cpu = smp_processor_id();
	r->tgid = lfr_rec_tgid(&s->user, current);
	r->tid = lfr_rec_tid(&s->user, current);
	r->flags = w->snap.flags;
	r->missed = missed;
	r->nr_kernel = 0;
	r->reserved = 0;
	if (!regs || !user_mode(regs)) {
		r->flags |= LFR_SAMPLE_F_IN_KERNEL;
		if (regs && s->cfg.kernel_stack)
			r->nr_kernel = lfr_kernel_stack(r->ips, regs, &ktrunc);
		if (ktrunc)
			r->flags |= LFR_SAMPLE_F_KERNEL_TRUNCATED;
	}
	r->hdr.size = sizeof(*r) + r->nr_kernel * sizeof(u64);
	/*
	 * Interrupts are off and this is the ring's CPU: the walks' commits,
	 * the ring's other writer here, run with interrupts off too.
	 */
	if (lfr_ring_write(s->rings[r->cpu], r, r->hdr.size)) {
		lfr_ring_lost(s->rings[r->cpu], LFR_LOST_RING_FULL, 1 + (u64)missed);
		lfr_count_lost(s, LFR_LOST_RING_FULL, 1 + (u64)missed);
		return;
	}
	/* Counted with the record that carries them, so readers see all. */
	if (missed)
		lfr_count_lost(s, LFR_LOST_MISSED, missed);
	atomic_inc(&w->ticks);
	lfr_count(s, LFR_CTR_RECORDS_TICK, 1);
}

/*
 * The off-CPU work since @t0 (local_clock()), in the probe or its irq_work:
 * counted, and charged to this CPU's budget like the timer handler's.
 */
static void lfr_offcpu_charge(struct lfr_session *s, u64 t0)
{
	u64 ns = local_clock() - t0;

	lfr_count(s, LFR_CTR_OFFCPU_PROBE_NS, ns);
	lfr_count(s, LFR_CTR_OFFCPU_PROBE_COUNT, 1);
	lfr_cpu_share_charge(ns);
}

/*
 * Hard irq, right after the switch-in that ended an off-CPU interval of
 * pc->off_e's thread, which is current (the work was queued with
 * interrupts off in that switch; it runs when finish_task_switch() enables
 * them).  One OFFCPU record: the interval, the kernel stack the thread
 * blocked with (taken in the switch, pc->off_buf) and the walk that gives
 * its user stack, like a tick's.
 */
static void lfr_offcpu_fn(struct irq_work *work)
{
	struct lfr_pcpu *pc = container_of(work, struct lfr_pcpu, off_work);
	struct lfr_rec_offcpu *r = (struct lfr_rec_offcpu *)pc->off_buf;
	struct lfr_session *s = pc->s;
	struct lfr_thread *e = pc->off_e;
	bool pinned = false;
	struct lfr_walk *w;
	int lost = 0;
	u64 t0;

	if (!e)
		return;
	t0 = local_clock();
	pc->off_e = NULL;
	if (atomic_read(&s->state) != LFR_STATE_RUNNING ||
	    !lfr_user_thread(current))
		goto lost;
	if (lfr_timer_mode(s)) {
		/* pinned as a tick pins it: the walk's owner */
		if (pc->off_key != (unsigned long)current)
			goto lost;
		e = lfr_thread_pin(s, current, pc->off_end);
		if (!e)
			goto lost;
		pinned = true;
	} else if (READ_ONCE(e->key) != (unsigned long)current) {
		goto lost;
	}
	w = READ_ONCE(e->walk);
	if (!w) {
		/* the user registers are the ones saved at kernel entry */
		w = lfr_queue_walk(s, pc, e, NULL, pc->off_end, &lost);
		if (!w)
			goto lost;
	}
	r->hdr.type = LFR_REC_OFFCPU;
	r->time_ns = pc->off_end;
	r->walk_id = w->snap.walk_id;
	r->cpu = smp_processor_id();
	r->tgid = lfr_rec_tgid(&s->user, current);
	r->tid = lfr_rec_tid(&s->user, current);
	r->flags |= w->snap.flags & LFR_SAMPLE_F_COMPAT;
	r->state = pc->off_state;
	r->reserved = 0;
	r->start_ns = pc->off_start;
	r->short_count = e->off_short_count;
	r->short_ns = e->off_short_ns;
	r->hdr.size = sizeof(*r) + r->nr_kernel * sizeof(u64);
	if (lfr_ring_write(s->rings[r->cpu], r, r->hdr.size)) {
		lfr_ring_lost(s->rings[r->cpu], LFR_LOST_AUX_RING_FULL, 0);
		goto lost;
	}
	atomic_inc(&w->offcpu);
	goto out;
lost:
	lfr_count(s, LFR_CTR_OFFCPU_LOST, 1);
out:
	if (pinned)
		lfr_thread_unpin(e);
	lfr_offcpu_charge(s, t0);
}

static u8 lfr_offcpu_state(bool preempt, unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return LFR_OFFCPU_PREEMPTED;
	if ((state & TASK_IDLE) == TASK_IDLE)
		return LFR_OFFCPU_IDLE;
	if (state & TASK_UNINTERRUPTIBLE)
		return LFR_OFFCPU_UNINTERRUPTIBLE;
	if (state & TASK_INTERRUPTIBLE)
		return LFR_OFFCPU_SLEEPING;
	return LFR_OFFCPU_OTHER;
}

/*
 * Irqs off: @e's thread @t is switched in at @now after being off the CPU
 * since its switch-out.  Long intervals are written by the CPU's off_work
 * once the switch is done; short ones are counted.  In timer mode @e is
 * pinned by the caller.
 */
static void lfr_offcpu_end(struct lfr_session *s, struct lfr_pcpu *pc,
			   struct lfr_thread *e, struct task_struct *t, u64 now)
{
	struct lfr_rec_offcpu *r = (struct lfr_rec_offcpu *)pc->off_buf;
	u64 start = e->off_start, len, t0;
	bool ktrunc;

	e->off_start = 0;
	if (!start || now < start)
		return;
	len = now - start;
	if (len < s->cfg.offcpu_min_ns) {
		e->off_short_count++;
		e->off_short_ns += len;
		lfr_count(s, LFR_CTR_OFFCPU_SHORT, 1);
		lfr_count(s, LFR_CTR_OFFCPU_SHORT_NS, len);
		return;
	}
	lfr_count(s, LFR_CTR_OFFCPU, 1);
	lfr_count(s, LFR_CTR_OFFCPU_NS, len);
	/* the previous one is written as soon as interrupts are on: never here */
	if (pc->off_e) {
		lfr_count(s, LFR_CTR_OFFCPU_LOST, 1);
		return;
	}
	/*
	 * The interval's kernel stack, its irq_work and the walk that irq_work
	 * queues are lfr's time on this CPU, as a tick and its walk are: none
	 * of it once the CPU budget is spent (the budget's clock, as the
	 * timer's: local_clock()).
	 */
	t0 = local_clock();
	if (lfr_cpu_share_spent(t0)) {
		lfr_count(s, LFR_CTR_OFFCPU_THROTTLED, 1);
		return;
	}
	r->nr_kernel = lfr_kstack_of(s, s->kstacks ?
				     s->kstacks[smp_processor_id()] : NULL,
				     t, r->ips, &ktrunc);
	r->flags = ktrunc ? LFR_SAMPLE_F_KERNEL_TRUNCATED : 0;
	pc->off_e = e;
	pc->off_key = (unsigned long)t;
	pc->off_start = start;
	pc->off_end = now;
	pc->off_state = e->off_state;
	irq_work_queue(&pc->off_work);
	lfr_offcpu_charge(s, t0);
}

/*
 * Timer mode with off-CPU intervals, irqs off, on this CPU: @prev leaves
 * it, @next comes.  A target's switch-out is stamped in its entry (made
 * now if it has none: a thread that waits before its first tick has its
 * interval too); its switch-in ends the interval if its entry is still
 * there (a full table may have taken it over: counted lost then).
 */
static void lfr_timer_switch(struct lfr_session *s, struct lfr_pcpu *pc,
			     struct task_struct *prev,
			     struct task_struct *next, bool preempt,
			     unsigned int prev_state)
{
	bool out = lfr_user_thread(prev) && lfr_is_target(s, prev);
	bool in = pc->online && lfr_user_thread(next) &&
		  lfr_is_target(s, next);
	struct lfr_thread *e;
	u64 now;

	if (!out && !in)
		return;
	now = ktime_get_ns();
	if (out) {
		e = lfr_thread_pin(s, prev, now);
		if (e) {
			e->off_start = now;
			e->off_state = lfr_offcpu_state(preempt, prev_state);
			lfr_thread_unpin(e);
		} else {
			lfr_count(s, LFR_CTR_SWITCH_NO_SLOT, 1);
		}
	}
	if (in) {
		e = lfr_thread_pin_found(s, next, now);
		if (e) {
			lfr_offcpu_end(s, pc, e, next, now);
			lfr_thread_unpin(e);
		}
	}
}

/*
 * Timer mode: any user thread, tracked from its first tick.  Its entry is
 * pinned for the tick: a full table takes over the entries of threads that
 * have not ticked for the longest time (threads.c), never one in use.
 */
static void lfr_sample_any(struct lfr_session *s, struct task_struct *t,
			   u32 missed, ktime_t now, bool spent)
{
	struct lfr_thread *e;

	if (spent) {
		lfr_count_matched_lost(s, LFR_LOST_THROTTLED, 1 + (u64)missed);
		return;
	}
	e = lfr_thread_pin(s, t, ktime_to_ns(now));
	if (e) {
		lfr_tick(s, e, missed, now, false);
		lfr_thread_unpin(e);
		return;
	}
	lfr_count_matched_lost(s, LFR_LOST_NO_THREAD_SLOT, 1 + (u64)missed);
}

/*
 * Hard irq, this CPU's budget spent: the timer, already forwarded one period,
 * skips the rest of the window, so that no interrupt is taken for periods
 * that would only be throttled (as perf stops a throttled event).  In
 * per-task mode they are @e's periods of CPU time: counted, matched and lost
 * as throttled, with its next tick, once it has spent them (a thread that
 * exits first never did); in timer mode they have no thread and are counted
 * as the session's skipped periods only.  Either way the session counts them
 * in TICKS_SKIPPED when it skips them.
 */
static void lfr_throttle_skip(struct lfr_session *s, struct hrtimer *timer,
			      ktime_t now, u64 t0, struct lfr_thread *e)
{
	u64 until = ktime_to_ns(now) + lfr_cpu_share_left_ns(t0);
	u64 k = lfr_share_skip(ktime_to_ns(hrtimer_get_expires(timer)), until,
			       s->cfg.period_ns);

	if (!k)
		return;
	hrtimer_add_expires_ns(timer, k * s->cfg.period_ns);
	lfr_count(s, LFR_CTR_TICKS_SKIPPED, k);
	if (e)
		e->throttle_skip += k;
}

static enum hrtimer_restart lfr_timer_fn(struct hrtimer *timer)
{
	struct lfr_pcpu *pc = container_of(timer, struct lfr_pcpu, timer);
	struct lfr_session *s = pc->s;
	struct task_struct *t = current;
	/*
	 * The handler's own time is measured with local_clock() (the TSC):
	 * ktime_get() reads the clocksource, which under virtualisation
	 * can be an emulated HPET costing microseconds per read.  It is read
	 * once, for both the timer's forwarding and the tick's timestamp
	 * (CLOCK_MONOTONIC, the timer's base).
	 */
	u64 t0 = local_clock(), overrun;
	struct lfr_thread *e = NULL;
	ktime_t now;
	u32 missed;
	bool spent;

	if (atomic_read(&s->state) != LFR_STATE_RUNNING)
		return HRTIMER_NORESTART;
	spent = lfr_cpu_share_spent(t0);	/* the budget's clock too: one read */
	lfr_count(s, LFR_CTR_TICKS, 1);
	/*
	 * A late interrupt (a long irq-off section, a stalled virtual CPU)
	 * missed periods.  They are counted, not given this tick's stack:
	 * that would pin the irq-off time on the instruction after it.  In
	 * per-task mode they were all spent by this thread, since the timer
	 * only runs while it is on the CPU.
	 */
	now = hrtimer_cb_get_time(timer);
	overrun = hrtimer_forward(timer, now, ns_to_ktime(lfr_next_period(s, pc)));
	missed = overrun > 1 ? min_t(u64, overrun - 1, U32_MAX) : 0;

	if (lfr_timer_mode(s)) {
		if (is_idle_task(t))
			lfr_count(s, LFR_CTR_SKIP_IDLE, 1);
		else if (!t->mm || (t->flags & LFR_PF_NOT_USER))
			lfr_count(s, LFR_CTR_SKIP_KTHREAD, 1);
		else if (t->flags & PF_EXITING)
			lfr_count(s, LFR_CTR_SKIP_EXITING, 1);
		else if (!s->cfg.system && !lfr_is_target(s, t))
			lfr_count(s, LFR_CTR_SKIP_NOT_TARGET, 1);
		else
			lfr_sample_any(s, t, missed, now, spent);
	} else {
		e = pc->cur;
		if (!e || READ_ONCE(e->key) != (unsigned long)t) {
			lfr_count(s, LFR_CTR_SKIP_NOT_TARGET, 1);
			goto out;
		}
		if (t->flags & PF_EXITING)
			lfr_count(s, LFR_CTR_SKIP_EXITING, 1);
		else
			lfr_tick(s, e, missed, now, spent);
	}
	if (spent)
		lfr_throttle_skip(s, timer, now, t0, e);
	t0 = local_clock() - t0;
	lfr_count(s, LFR_CTR_IRQ_NS, t0);
	lfr_count(s, LFR_CTR_IRQ_COUNT, 1);
	lfr_cpu_share_charge(t0);
	return HRTIMER_RESTART;
out:
	t0 = local_clock() - t0;
	lfr_count(s, LFR_CTR_IRQ_NS, t0);
	lfr_count(s, LFR_CTR_IRQ_COUNT, 1);
	lfr_cpu_share_charge(t0);
	return HRTIMER_NORESTART;
}

/*
 * Per-task mode, irqs off, on this CPU: @prev leaves it.
 *
 * The timer measures the thread's CPU time from this probe at its switch-in
 * to this probe at its switch-out; the scheduler charges it from where it
 * picked the thread to where it put it back, both earlier in __schedule.  The
 * two differ at each switch by the scheduler's work in between (a dequeue
 * when the thread blocks, none when it wakes on an idle CPU): microseconds on
 * a stock kernel, tens of them with lockdep and KASAN, and the counts of
 * threads that switch often drift from their CPU time.  So the budget left
 * is settled in the scheduler's terms: sum_exec_runtime is exact here (the
 * scheduler just updated it for @prev) and was at the switch-in.
 */
static void lfr_switch_out(struct lfr_session *s, struct lfr_pcpu *pc,
			   struct task_struct *prev, bool preempt,
			   unsigned int prev_state)
{
	struct lfr_thread *e = pc->cur;
	ktime_t now;
	s64 left;

	if (!e)
		return;
	pc->cur = NULL;
	now = ktime_get();
	left = ktime_to_ns(ktime_sub(hrtimer_get_expires(&pc->timer), now));
	hrtimer_try_to_cancel(&pc->timer);
	if (pc->in_runtime != U64_MAX && READ_ONCE(e->key) == (unsigned long)prev)
		left -= (s64)(prev->se.sum_exec_runtime - pc->in_runtime) -
			ktime_to_ns(ktime_sub(now, pc->in_time));
	/*
	 * A tick that was due but not yet delivered (interrupts are off
	 * here) leaves a negative budget: the thread owes that tick, and the
	 * time past it, to its next switch-in, so no CPU time goes uncounted.
	 */
	e->budget_ns = left ? left : -1;
	if (s->cfg.offcpu_min_ns && READ_ONCE(e->key) == (unsigned long)prev) {
		e->off_start = ktime_to_ns(now);
		e->off_state = lfr_offcpu_state(preempt, prev_state);
	}
}

/*
 * @next's sum_exec_runtime is exact when it is being switched in; @running
 * (the IPI that picks up a thread already on the CPU) is when it is not: the
 * scheduler last updated it at its last tick, so that first run is settled
 * by the timer alone.
 */
static void lfr_switch_in(struct lfr_session *s, struct lfr_pcpu *pc,
			  struct task_struct *next, bool running)
{
	struct lfr_thread *e;

	if (!pc->online || !lfr_user_thread(next) || !lfr_is_target(s, next))
		return;
	e = lfr_thread_get(s, next, true);
	if (!e) {
		/*
		 * No slot, so no budget: its ticks cannot be told apart from
		 * its switches.  Count the switch, not a made-up tick.
		 */
		lfr_count(s, LFR_CTR_SWITCH_NO_SLOT, 1);
		return;
	}
	if (!e->budget_ns)
		e->budget_ns = lfr_next_period(s, pc);
	pc->cur = e;
	pc->in_time = ktime_get();
	pc->in_runtime = running ? U64_MAX : next->se.sum_exec_runtime;
	if (s->cfg.offcpu_min_ns && !running)
		lfr_offcpu_end(s, pc, e, next, ktime_to_ns(pc->in_time));
	/* An owed tick expires in the past: it fires now and counts overrun. */
	hrtimer_start(&pc->timer, ktime_add_ns(pc->in_time, e->budget_ns),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

static void lfr_probe_switch(void *data, bool preempt, struct task_struct *prev,
			     struct task_struct *next, unsigned int prev_state)
{
	struct lfr_session *s;
	struct lfr_pcpu *pc;
	int i;

	lfr_for_each_published(lfr_switch_sessions, s, i) {
		if (atomic_read(&s->state) != LFR_STATE_RUNNING)
			continue;
		pc = this_cpu_ptr(s->pcpu);
		if (lfr_timer_mode(s)) {
			lfr_timer_switch(s, pc, prev, next, preempt,
					 prev_state);
			continue;
		}
		lfr_switch_out(s, pc, prev, preempt, prev_state);
		lfr_switch_in(s, pc, next, false);
	}
}

/* IPI: picks up a target that is already running when sampling starts. */
static void lfr_kick_cpu(void *data)
{
	struct lfr_session *s = data;
	struct lfr_pcpu *pc = this_cpu_ptr(s->pcpu);

	if (!pc->cur)
		lfr_switch_in(s, pc, current, true);
}

static int lfr_cpuhp_online(unsigned int cpu, struct hlist_node *node)
{
	struct lfr_session *s = hlist_entry(node, struct lfr_session, cpuhp_node);
	struct lfr_pcpu *pc = per_cpu_ptr(s->pcpu, cpu);

	local_irq_disable();
	pc->online = true;
	if (lfr_timer_mode(s) && atomic_read(&s->state) == LFR_STATE_RUNNING)
		hrtimer_start(&pc->timer, ns_to_ktime(lfr_next_period(s, pc)),
			      HRTIMER_MODE_REL_PINNED_HARD);
	local_irq_enable();
	return 0;
}

static int lfr_cpuhp_offline(unsigned int cpu, struct hlist_node *node)
{
	struct lfr_session *s = hlist_entry(node, struct lfr_session, cpuhp_node);
	struct lfr_pcpu *pc = per_cpu_ptr(s->pcpu, cpu);

	local_irq_disable();
	pc->online = false;
	pc->cur = NULL;
	local_irq_enable();
	hrtimer_cancel(&pc->timer);
	return 0;
}

/* The multi-instance hotplug state; each running session is an instance. */
static int lfr_cpuhp_state = -1;

/* Module init: the CPU-hotplug callbacks of every session's timers. */
int lfr_sampler_hotplug_init(void)
{
	int err = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "lfr:online",
					  lfr_cpuhp_online, lfr_cpuhp_offline);

	if (err < 0)
		return err;
	lfr_cpuhp_state = err;
	return 0;
}

/* Module exit, every session stopped. */
void lfr_sampler_hotplug_exit(void)
{
	cpuhp_remove_multi_state(lfr_cpuhp_state);
}

int lfr_sampler_start(struct lfr_session *s)
{
	int cpu, err;

	for_each_possible_cpu(cpu) {
		struct lfr_pcpu *pc = per_cpu_ptr(s->pcpu, cpu);

		pc->s = s;
		pc->off_e = NULL;
		pc->off_work = IRQ_WORK_INIT_HARD(lfr_offcpu_fn);
		prandom_seed_state(&pc->rnd, get_random_u64());
		lfr_hrtimer_setup(&pc->timer, lfr_timer_fn, CLOCK_MONOTONIC,
				  HRTIMER_MODE_REL_PINNED_HARD);
	}
	/*
	 * A freed task's thread slot is released by task_events.c's
	 * sched_process_free probe, which sees this session from before this
	 * start until after its stop (lfr_session_start/stop).
	 */
	lockdep_assert_held(&lfr_lock);
	if (lfr_uses_switch(s)) {
		if (!lfr_switch_attached) {
			err = tracepoint_probe_register(lfr_tp_switch,
							lfr_probe_switch, NULL);
			if (err)
				return err;
			lfr_switch_attached = true;
		}
		rcu_assign_pointer(lfr_switch_sessions[s->run_idx], s);
	}
	s->probes_on = true;
	err = cpuhp_state_add_instance(lfr_cpuhp_state, &s->cpuhp_node);
	if (err) {
		lfr_sampler_unpublish(s);
		synchronize_rcu();
		lfr_sampler_stop(s);
		return err;
	}
	s->cpuhp_added = true;
	if (!lfr_timer_mode(s))
		on_each_cpu(lfr_kick_cpu, s, 1);
	return 0;
}

/* Module exit, every session stopped: detaches the sched_switch probe. */
void lfr_sampler_exit(void)
{
	if (!lfr_switch_attached)
		return;
	tracepoint_probe_unregister(lfr_tp_switch, lfr_probe_switch, NULL);
	tracepoint_synchronize_unregister();
	lfr_switch_attached = false;
}

/* The probe stops working for @s once the caller's synchronize_rcu() returns. */
void lfr_sampler_unpublish(struct lfr_session *s)
{
	lockdep_assert_held(&lfr_lock);
	if (!s->probes_on)
		return;
	if (lfr_uses_switch(s))
		RCU_INIT_POINTER(lfr_switch_sessions[s->run_idx], NULL);
	s->probes_on = false;
}

/*
 * Process context, after lfr_sampler_unpublish() and a grace period; state
 * is no longer RUNNING, so nothing re-arms.
 */
void lfr_sampler_stop(struct lfr_session *s)
{
	int cpu;

	lockdep_assert_held(&lfr_lock);
	WARN_ON_ONCE(s->probes_on);
	if (s->cpuhp_added) {
		cpuhp_state_remove_instance(lfr_cpuhp_state, &s->cpuhp_node);
		s->cpuhp_added = false;
	}
	for_each_possible_cpu(cpu) {
		hrtimer_cancel(&per_cpu_ptr(s->pcpu, cpu)->timer);
		irq_work_sync(&per_cpu_ptr(s->pcpu, cpu)->off_work);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * nulltick: a timer interrupt that does nothing, for bench/account.
 *
 * Each CPU runs a pinned hard-irq hrtimer every period_ns whose handler only counts and
 * moves the expiry on by a period (a dozen instructions).  What a workload loses beside it is the price of a timer interrupt outside any
 * profiler's handler: the interrupt's entry and exit, hrtimer_interrupt() and the clock event's
 * re-programming.  That part runs with interrupts off, so a profile never samples it (its time
 * is charged to the code it interrupted); this measures it by the workload's rate instead.
 *
 *	insmod nulltick.ko period_ns=1001001; ...; cat /sys/module/nulltick/parameters/ticks
 */
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/smp.h>

static unsigned long period_ns = 1001001;	/* 999 Hz */
module_param(period_ns, ulong, 0444);
MODULE_PARM_DESC(period_ns, "the timer's period in ns (at least 10000)");

struct nulltick_cpu {
	struct hrtimer timer;
	unsigned long ticks;
};

static DEFINE_PER_CPU(struct nulltick_cpu, nulltick_cpus);

static enum hrtimer_restart nulltick_fn(struct hrtimer *t)
{
	struct nulltick_cpu *c = container_of(t, struct nulltick_cpu, timer);

	c->ticks++;
	/* next expiry by addition, no clock read: the handler stays a few instructions */
	hrtimer_add_expires_ns(t, period_ns);
	return HRTIMER_RESTART;
}

/* The handlers' calls on every CPU so far: the workload's loss is divided by these. */
static int ticks_get(char *buf, const struct kernel_param *kp)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&nulltick_cpus, cpu)->ticks);
	return sysfs_emit(buf, "%lu\n", sum);
}

static const struct kernel_param_ops ticks_ops = {
	.get = ticks_get,
};

module_param_cb(ticks, &ticks_ops, NULL, 0444);
MODULE_PARM_DESC(ticks, "the timer's expiries on all CPUs");

/* Runs on each CPU: a pinned timer must be started where it is to fire. */
static void nulltick_start(void *unused)
{
	struct nulltick_cpu *c = this_cpu_ptr(&nulltick_cpus);

	hrtimer_start(&c->timer, ns_to_ktime(period_ns), HRTIMER_MODE_REL_PINNED_HARD);
}

static int __init nulltick_init(void)
{
	int cpu;

	if (period_ns < 10000)
		return -EINVAL;
	for_each_possible_cpu(cpu) {
		struct nulltick_cpu *c = per_cpu_ptr(&nulltick_cpus, cpu);

		hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		c->timer.function = nulltick_fn;
	}
	on_each_cpu(nulltick_start, NULL, 1);
	return 0;
}

static void __exit nulltick_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&nulltick_cpus, cpu)->timer);
}

module_init(nulltick_init);
module_exit(nulltick_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A timer interrupt that does nothing, to price one (bench/account)");

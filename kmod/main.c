// SPDX-License-Identifier: GPL-2.0
/* lfr: Linux flight recorder — module entry points. */
#include <linux/cpuhotplug.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include "lfr_internal.h"

struct workqueue_struct *lfr_wq;
int lfr_cpuhp_state = -1;

static atomic_long_t lfr_puts_owed = ATOMIC_LONG_INIT(0);

/*
 * Drops the module references handed over: a session's, by whatever ended
 * its last pending count (often its last walk), and a given-up walk's.
 *
 * A walk (a task_work) cannot drop one itself: module_put() would let an
 * rmmod free the text it still has to return through.  It hands the
 * reference over instead, as the very last statement of lfr_work_fn(), after
 * everything that may sleep (refilling the walk cache, freeing the session);
 * a walk that does not hold the reference does not sleep after dropping the
 * pending count that kept the module:
 * from lfr_module_put_deferred() to the return into task_work_run(), it runs
 * only an atomic increment, queue_work() and function epilogues, none of
 * which sleeps.  This work then waits for an RCU-tasks grace period, which
 * ends only once every task has switched out voluntarily, run in user space
 * or idled since the hand-off; a task preempted in those instructions holds
 * it up, one that slept there would not, which is why nothing after the
 * hand-off may sleep.  Without CONFIG_TASKS_RCU, synchronize_rcu_tasks() is
 * synchronize_rcu(): on a kernel without preemption that is as good (the
 * instructions after the hand-off cannot be switched out); on a preemptible
 * one it is not, so such kernels are refused at build time.
 *
 * Commands (STOP, ABANDON, a failed START) hand the reference over too and
 * go on in module code, but module exit waits for them: it takes lfr_lock,
 * unregisters the socket-close notifier and then the family, which waits for
 * every command still running.  This work itself returns into module text
 * too, but module exit drains lfr_wq.
 */
#if IS_ENABLED(CONFIG_PREEMPTION) && !IS_ENABLED(CONFIG_TASKS_RCU)
#error "lfr needs CONFIG_TASKS_RCU on a preemptible kernel (its walks hand over the module reference)"
#endif

static void lfr_put_fn(struct work_struct *work)
{
	long n = atomic_long_xchg(&lfr_puts_owed, 0);

	if (!n)
		return;
	synchronize_rcu_tasks();
	while (n--)
		module_put(THIS_MODULE);
}

static DECLARE_WORK(lfr_put_work, lfr_put_fn);

/*
 * Hands a module reference over to lfr_put_work; any context.  A caller that
 * is not a command must make this its last statement and must not have
 * slept since giving up everything else (see above).
 */
void lfr_module_put_deferred(void)
{
	atomic_long_inc(&lfr_puts_owed);
	queue_work(lfr_wq, &lfr_put_work);
}

static int __init lfr_init(void)
{
	int err;

	err = lfr_sampler_init();
	if (err)
		return err;
	err = lfr_walk_objs_init();
	if (err)
		return err;
	lfr_wq = alloc_workqueue("lfr", WQ_UNBOUND, 0);
	if (!lfr_wq) {
		lfr_walk_objs_exit();
		return -ENOMEM;
	}
	err = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "lfr:online",
				      lfr_cpuhp_online, lfr_cpuhp_offline);
	if (err < 0)
		goto out_wq;
	lfr_cpuhp_state = err;
	err = lfr_dev_init();
	if (err)
		goto out_cpuhp;
	err = lfr_genl_init();
	if (err)
		goto out_dev;
	pr_info("loaded, version %s\n", LFR_VERSION);
	return 0;
out_dev:
	lfr_dev_exit();
out_cpuhp:
	cpuhp_remove_multi_state(lfr_cpuhp_state);
out_wq:
	destroy_workqueue(lfr_wq);
	lfr_walk_objs_exit();
	return err;
}

/*
 * Runs only once the module reference count is zero: no session runs or
 * drains (each holds a reference until STOPPED), no given-up walk is queued
 * and no /dev/lfr file is open.  The sessions kept for STATUS are freed
 * here; their last notifications are flushed before the family goes away.
 */
static void __exit lfr_exit(void)
{
	lfr_genl_quiesce();
	lfr_sessions_shutdown();
	lfr_sampler_exit();
	lfr_task_events_exit();
	drain_workqueue(lfr_wq);
	lfr_genl_exit();
	lfr_dev_exit();
	cpuhp_remove_multi_state(lfr_cpuhp_state);
	destroy_workqueue(lfr_wq);
	lfr_walk_objs_exit();
	pr_info("unloaded\n");
}

module_init(lfr_init);
module_exit(lfr_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The lfr developers");
MODULE_DESCRIPTION("lfr: Linux flight recorder, cooperative CPU sampling into JFR files");
MODULE_VERSION(LFR_VERSION);

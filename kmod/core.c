// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: what every part of the module may use: the control lock, the
 * module's workqueue and the hand-off of module references.  Calls nothing
 * else of the module.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include "core.h"

DEFINE_MUTEX(lfr_lock);
struct workqueue_struct *lfr_wq;

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

int lfr_core_init(void)
{
	lfr_wq = alloc_workqueue("lfr", WQ_UNBOUND, 0);
	return lfr_wq ? 0 : -ENOMEM;
}

/* Module exit, lfr_wq drained: nothing queues on it any more. */
void lfr_core_exit(void)
{
	destroy_workqueue(lfr_wq);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a walk waiting for its process's mapping lock, held by a writer,
 * stops waiting when its thread is killed (the sample is lost instead).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm_types.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include "../../kmod/walk_lock.h"

struct lock_waiter {
	struct mm_struct *mm;
	struct completion started, done;
	int ret;
};

static int lock_waiter_fn(void *data)
{
	struct lock_waiter *lw = data;

	allow_signal(SIGKILL);
	complete(&lw->started);
	lw->ret = lfr_walk_lock_mm(lw->mm);
	if (!lw->ret)
		mmap_read_unlock(lw->mm);
	flush_signals(current);
	complete(&lw->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void lfr_walk_lock_killable(struct kunit *test)
{
	struct lock_waiter *lw = kunit_kzalloc(test, sizeof(*lw), GFP_KERNEL);
	struct task_struct *t;
	bool ended;

	KUNIT_ASSERT_NOT_NULL(test, lw);
	lw->mm = kunit_kzalloc(test, sizeof(*lw->mm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lw->mm);
	mmap_init_lock(lw->mm);
	init_completion(&lw->started);
	init_completion(&lw->done);
	lw->ret = -1;

	mmap_write_lock(lw->mm);	/* a writer stuck in its I/O */
	t = kthread_run(lock_waiter_fn, lw, "lfr-lock-test");
	if (IS_ERR(t)) {
		mmap_write_unlock(lw->mm);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
		return;
	}
	get_task_struct(t);
	wait_for_completion(&lw->started);
	msleep(50);			/* let it block on the lock */
	send_sig(SIGKILL, t, 1);
	ended = wait_for_completion_timeout(&lw->done, 2 * HZ);
	mmap_write_unlock(lw->mm);
	if (!ended)			/* it waited for the writer */
		wait_for_completion(&lw->done);
	kthread_stop(t);
	put_task_struct(t);
	KUNIT_EXPECT_TRUE_MSG(test, ended, "the killed waiter still waits for the lock");
	KUNIT_EXPECT_EQ(test, lw->ret, LFR_LOST_MMAP_LOCK);
}

static struct kunit_case lfr_walk_lock_cases[] = {
	KUNIT_CASE(lfr_walk_lock_killable),
	{}
};

static struct kunit_suite lfr_walk_lock_suite = {
	.name = "lfr_walk_lock",
	.test_cases = lfr_walk_lock_cases,
};

kunit_test_suite(lfr_walk_lock_suite);

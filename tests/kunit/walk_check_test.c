// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: whether a walk may walk its snapshot (walk_check.h).  The snapshot
 * of a tick is walked only in the image it was taken in: not after the
 * thread began exiting, not after an exec.  execve switches the mm and
 * bumps self_exec_id in begin_new_exec(), well before the binary loader's
 * start_thread() gives the saved user registers the new image's entry
 * point: a tick in between snapshots the old image's registers with the
 * new mm and exec id.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include "walk_check.h"

/* Identities only: never dereferenced. */
#define OLD_MM	((struct mm_struct *)0x1000)
#define NEW_MM	((struct mm_struct *)0x2000)

struct lfr_exec_case {
	struct task_struct *t;
	struct pt_regs regs;		/* what the thread returns to */
	struct lfr_snapshot sn;		/* what the tick saw */
};

/* A 64-bit thread in the kernel at a tick, and its snapshot of that tick. */
static struct lfr_exec_case *lfr_exec_case(struct kunit *test)
{
	struct lfr_exec_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->t = kunit_kzalloc(test, sizeof(*c->t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->t);
	c->t->mm = OLD_MM;
	c->t->self_exec_id = 7;
	c->regs.ip = 0x55555555a123;
	c->regs.sp = 0x7ffc12345670;
	c->regs.bp = 0x7ffc123456a0;
	c->regs.cs = __USER_CS;
	c->regs.ss = __USER_DS;
	c->sn.ip = c->regs.ip;
	c->sn.sp = c->regs.sp;
	c->sn.bp = c->regs.bp;
	c->sn.mm = c->t->mm;
	c->sn.exec_id = c->t->self_exec_id;
	return c;
}

/* begin_new_exec(): the new mm, then the new exec id. */
static void lfr_exec_switch_image(struct lfr_exec_case *c)
{
	c->t->mm = NEW_MM;
	c->t->self_exec_id++;
}

/* start_thread() after ELF_PLAT_INIT: the new image's entry, no frame. */
static void lfr_exec_start_thread(struct lfr_exec_case *c)
{
	c->regs.ip = 0x7f0000001100;
	c->regs.sp = 0x7ffd00000f00;
	c->regs.bp = 0;
}

static void lfr_walk_check_same_image(struct kunit *test)
{
	struct lfr_exec_case *c = lfr_exec_case(test);

	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs), 0);
}

static void lfr_walk_check_exiting(struct kunit *test)
{
	struct lfr_exec_case *c = lfr_exec_case(test);

	c->t->flags |= PF_EXITING;
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs),
			LFR_LOST_EXIT);
	c->t->flags &= ~PF_EXITING;
	c->t->mm = NULL;	/* run from exit_task_work */
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs),
			LFR_LOST_EXIT);
}

/* A tick before begin_new_exec(): the old mm, walked after the exec. */
static void lfr_walk_check_tick_before_exec(struct kunit *test)
{
	struct lfr_exec_case *c = lfr_exec_case(test);

	lfr_exec_switch_image(c);
	lfr_exec_start_thread(c);
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs),
			LFR_LOST_EXEC);
}

/* A tick between the mm switch and the exec id bump. */
static void lfr_walk_check_tick_after_mm_switch(struct kunit *test)
{
	struct lfr_exec_case *c = lfr_exec_case(test);

	c->t->mm = NEW_MM;
	c->sn.mm = NEW_MM;
	c->t->self_exec_id++;
	lfr_exec_start_thread(c);
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs),
			LFR_LOST_EXEC);
}

/*
 * A tick after begin_new_exec() and before start_thread(): the new mm and
 * exec id, the old image's registers.  Walked, they name pcs of the old
 * image in the new one.
 */
static void lfr_walk_check_tick_in_exec_window(struct kunit *test)
{
	struct lfr_exec_case *c = lfr_exec_case(test);

	lfr_exec_switch_image(c);
	c->sn.mm = c->t->mm;
	c->sn.exec_id = c->t->self_exec_id;
	lfr_exec_start_thread(c);
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs),
			LFR_LOST_EXEC);
}

/* A tick after start_thread(): the new image's entry, walked in it. */
static void lfr_walk_check_tick_after_start_thread(struct kunit *test)
{
	struct lfr_exec_case *c = lfr_exec_case(test);

	lfr_exec_switch_image(c);
	lfr_exec_start_thread(c);
	c->sn.mm = c->t->mm;
	c->sn.exec_id = c->t->self_exec_id;
	c->sn.ip = c->regs.ip;
	c->sn.sp = c->regs.sp;
	c->sn.bp = c->regs.bp;
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs), 0);
}

/* Each register on its own, and a 64-bit image replaced by a 32-bit one. */
static void lfr_walk_check_each_register(struct kunit *test)
{
	struct lfr_exec_case *c = lfr_exec_case(test);

	c->regs.ip += 1;
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs),
			LFR_LOST_EXEC);
	c->regs.ip -= 1;
	c->regs.sp -= 8;
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs),
			LFR_LOST_EXEC);
	c->regs.sp += 8;
	c->regs.bp = 0;
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs),
			LFR_LOST_EXEC);
	c->regs.bp = c->sn.bp;
	c->regs.cs = __USER32_CS;
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs),
			LFR_LOST_EXEC);
	c->sn.flags |= LFR_SAMPLE_F_COMPAT;
	KUNIT_EXPECT_EQ(test, lfr_walk_check(&c->sn, c->t, &c->regs), 0);
}

static struct kunit_case lfr_walk_check_cases[] = {
	KUNIT_CASE(lfr_walk_check_same_image),
	KUNIT_CASE(lfr_walk_check_exiting),
	KUNIT_CASE(lfr_walk_check_tick_before_exec),
	KUNIT_CASE(lfr_walk_check_tick_after_mm_switch),
	KUNIT_CASE(lfr_walk_check_tick_in_exec_window),
	KUNIT_CASE(lfr_walk_check_tick_after_start_thread),
	KUNIT_CASE(lfr_walk_check_each_register),
	{}
};

static struct kunit_suite lfr_walk_check_suite = {
	.name = "lfr_walk_check",
	.test_cases = lfr_walk_check_cases,
};

kunit_test_suite(lfr_walk_check_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the per-CPU caches of walk objects.  A tick (hard irq) never
 * allocates: once its CPU's cache is empty it gets nothing, and the refill
 * work tops the cache up from process context.
 */
#include <kunit/test.h>
#include "../../kmod/walk_obj.c"

#define TRIES (2 * LFR_WALK_CACHE)

static void lfr_walk_obj_empty_allocates_nothing(struct kunit *test)
{
	struct lfr_walk **got;
	unsigned int n = 0, i, left;
	int cpu;

	got = kunit_kcalloc(test, TRIES, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_EQ(test, lfr_walk_objs_init(), 0);
	/* as the timer handler: interrupts off, on one CPU */
	local_irq_disable();
	cpu = smp_processor_id();
	for (i = 0; i < TRIES; i++) {
		got[n] = lfr_walk_obj_get();
		if (got[n])
			n++;
	}
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, n, (unsigned int)LFR_WALK_CACHE / 2);
	/* the refill ran in process context and filled that CPU's cache */
	flush_work(per_cpu_ptr(&lfr_walk_refill, cpu));
	left = per_cpu_ptr(&lfr_walk_cache, cpu)->nr;
	if (cpu_online(cpu))
		KUNIT_EXPECT_GE(test, left, (unsigned int)LFR_WALK_CACHE / 2);
	for (i = 0; i < n; i++)
		kfree(got[i]);
	lfr_walk_objs_exit();
}

static struct kunit_case lfr_walk_obj_cases[] = {
	KUNIT_CASE(lfr_walk_obj_empty_allocates_nothing),
	{}
};

static struct kunit_suite lfr_walk_obj_suite = {
	.name = "lfr_walk_obj",
	.test_cases = lfr_walk_obj_cases,
};

kunit_test_suite(lfr_walk_obj_suite);

// SPDX-License-Identifier: GPL-2.0
/* lfr: Linux flight recorder — module entry points. */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/workqueue.h>
#include "core.h"
#include "dev.h"
#include "genl.h"
#include "mm_watch.h"
#include "kstack_cache.h"
#include "registry.h"
#include "sampler.h"
#include "task_events.h"
#include "walk_obj.h"

static int __init lfr_init(void)
{
	int err;

	err = lfr_sampler_init();
	if (err)
		return err;
	err = lfr_kstack_cache_init();
	if (err)
		return err;
	err = lfr_walk_objs_init();
	if (err)
		goto out_kstack;
	err = lfr_core_init();
	if (err) {
		lfr_walk_objs_exit();
		goto out_kstack;
	}
	err = lfr_sampler_hotplug_init();
	if (err)
		goto out_wq;
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
	lfr_sampler_hotplug_exit();
out_wq:
	lfr_core_exit();
	lfr_walk_objs_exit();
out_kstack:
	lfr_kstack_cache_exit();
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
	lfr_sampler_hotplug_exit();
	lfr_core_exit();
	lfr_walk_objs_exit();
	lfr_mm_watch_exit();
	lfr_kstack_cache_exit();
	pr_info("unloaded\n");
}

module_init(lfr_init);
module_exit(lfr_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The lfr developers");
MODULE_DESCRIPTION("lfr: Linux flight recorder, cooperative CPU sampling into JFR files");
MODULE_VERSION(LFR_VERSION);

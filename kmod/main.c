// SPDX-License-Identifier: GPL-2.0
/* lfr: Linux flight recorder — module entry points. */
#include <linux/module.h>
#include <linux/init.h>

static int __init lfr_init(void)
{
	pr_info("loaded, version %s\n", LFR_VERSION);
	return 0;
}

static void __exit lfr_exit(void)
{
	pr_info("unloaded\n");
}

module_init(lfr_init);
module_exit(lfr_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The lfr developers");
MODULE_DESCRIPTION("lfr: Linux flight recorder, cooperative CPU sampling into JFR files");
MODULE_VERSION(LFR_VERSION);

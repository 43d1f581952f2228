// SPDX-License-Identifier: GPL-2.0
/* Triggers one kernel WARNING when loaded: tests/vm/run must fail the run that loads it. */
#include <linux/module.h>
#include <linux/bug.h>

static int __init selftest_warn_init(void)
{
	WARN(1, "lfr harness selftest: deliberate warning\n");
	return 0;
}

static void __exit selftest_warn_exit(void)
{
}

module_init(selftest_warn_init);
module_exit(selftest_warn_exit);
MODULE_LICENSE("GPL");

/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the module's tunables, each an unsigned int under /sys/module/lfr/parameters. */
#ifndef LFR_PARAMS_H
#define LFR_PARAMS_H

#include <linux/moduleparam.h>

/* @name, @value until root writes another (0644), described by @desc. */
#define LFR_PARAM_UINT(name, value, desc)		\
	static unsigned int name = value;		\
	module_param(name, uint, 0644);			\
	MODULE_PARM_DESC(name, desc)

#endif /* LFR_PARAMS_H */

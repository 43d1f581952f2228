/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: what every part of the module may use (core.c): the control lock,
 * the module's workqueue and the hand-off of module references.
 */
#ifndef LFR_CORE_H
#define LFR_CORE_H

#include <linux/mutex.h>
#include <linux/workqueue.h>

/* Commands, the sessions kept, the probes' tables, /dev/lfr's binding. */
extern struct mutex lfr_lock;
/* Notifications and the hand-off below; drained at module exit. */
extern struct workqueue_struct *lfr_wq;

int lfr_core_init(void);
void lfr_core_exit(void);

/*
 * Hands a module reference over; any context.  A caller that is not a
 * command must make this its last statement and must not have slept since
 * giving up everything else (core.c).
 */
void lfr_module_put_deferred(void);

#endif /* LFR_CORE_H */

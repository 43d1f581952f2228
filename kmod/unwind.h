/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the deferred walk of a user stack (unwind.c). */
#ifndef LFR_UNWIND_H
#define LFR_UNWIND_H

struct callback_head;

/* The task_work of a queued walk (struct lfr_walk's work). */
void lfr_work_fn(struct callback_head *work);

#endif /* LFR_UNWIND_H */

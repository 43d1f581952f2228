/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the probes on the life of target threads (task_events.c). */
#ifndef LFR_TASK_EVENTS_H
#define LFR_TASK_EVENTS_H

struct lfr_session;

int lfr_task_events_init(void);
int lfr_task_events_start(struct lfr_session *s);
void lfr_task_events_unpublish(struct lfr_session *s);
void lfr_task_events_exit(void);

#endif /* LFR_TASK_EVENTS_H */

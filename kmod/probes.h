/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the probes' tables of running sessions (sampler.c's sched_switch
 * probe, task_events.c's probes), indexed by a running session's run index
 * (registry.c).
 */
#ifndef LFR_PROBES_H
#define LFR_PROBES_H

#include <linux/rcupdate.h>

struct lfr_session;

/*
 * Sessions sampling at once.  Each running session holds one run index, the
 * index of its pointer in the probes' tables.
 */
#define LFR_MAX_RUNNING		8

/*
 * A probe's table of running sessions: a session's pointer is published under
 * lfr_lock and read by the probes under RCU-sched (they run with preemption
 * or interrupts off); after clearing it, a synchronize_rcu() makes sure no
 * probe still works for that session.  The first session published in
 * @table at or after index *@i, or NULL:
 */
static inline struct lfr_session *
lfr_next_published(struct lfr_session __rcu **table, int *i)
{
	struct lfr_session *s;

	for (; *i < LFR_MAX_RUNNING; (*i)++) {
		s = rcu_dereference_sched(table[*i]);
		if (s)
			return s;
	}
	return NULL;
}

#define lfr_for_each_published(table, s, i)				\
	for ((i) = 0; ((s) = lfr_next_published(table, &(i))); (i)++)

#endif /* LFR_PROBES_H */

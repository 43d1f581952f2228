/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: which threads a session samples (target.c). */
#ifndef LFR_TARGET_H
#define LFR_TARGET_H

#include <linux/types.h>

struct lfr_session;
struct netlink_ext_ack;
struct pid;
struct task_struct;

/* Process and thread targets, by identity. */
struct lfr_targets {
	struct pid **tgids;		/* sorted by address, references held */
	struct pid **tids;
	u32 nr_tgids, nr_tids;
};

int lfr_targets_get(struct lfr_session *s, struct netlink_ext_ack *extack);
void lfr_targets_put(struct lfr_session *s);
bool lfr_is_target(struct lfr_session *s, struct task_struct *t);

#endif /* LFR_TARGET_H */

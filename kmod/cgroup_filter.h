/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: cgroup v2 targets (cgroup_filter.c). */
#ifndef LFR_CGROUP_FILTER_H
#define LFR_CGROUP_FILTER_H

#include <linux/types.h>

struct lfr_session;
struct netlink_ext_ack;
struct task_struct;

int lfr_cgroups_get(struct lfr_session *s, struct netlink_ext_ack *extack);
void lfr_cgroups_put(struct lfr_session *s);
bool lfr_cgroup_match(const struct lfr_session *s, struct task_struct *t);

#endif /* LFR_CGROUP_FILTER_H */

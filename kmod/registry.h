/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the registry of sessions and the commands on them (registry.c).
 * "Under lfr_lock": the caller holds it (core.h).
 */
#ifndef LFR_REGISTRY_H
#define LFR_REGISTRY_H

#include <linux/types.h>

struct lfr_config;
struct lfr_session;
struct net;
struct netlink_ext_ack;

struct lfr_session *lfr_session_create(struct lfr_config *cfg, u32 portid,
				       struct netlink_ext_ack *extack);
int lfr_session_start(struct lfr_session *s, struct netlink_ext_ack *extack);
void lfr_session_stop(struct lfr_session *s);
void lfr_session_abandon(struct lfr_session *s);
struct lfr_session *lfr_session_find(u32 id);	/* under lfr_lock */
void lfr_session_drop_finished(void);		/* under lfr_lock */
void lfr_sessions_release_portid(const struct net *net, u32 portid);
bool lfr_portid_owns_session(const struct net *net, u32 portid); /* lock-free */
/* Every session kept, newest first: NULL starts, NULL ends.  Under lfr_lock. */
struct lfr_session *lfr_session_next(struct lfr_session *prev);
void lfr_sessions_shutdown(void);

#endif /* LFR_REGISTRY_H */

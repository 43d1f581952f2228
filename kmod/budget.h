/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: what a session may cost, and the charge of its rings (budget.c). */
#ifndef LFR_BUDGET_H
#define LFR_BUDGET_H

#include <linux/types.h>

struct lfr_config;
struct lfr_session;
struct mm_struct;
struct netlink_ext_ack;
struct user_struct;

/* Locked memory charged for the rings. */
struct lfr_charge {
	struct user_struct *user;	/* user->locked_vm, reference held */
	unsigned long user_pages;
	struct mm_struct *mm;		/* mm->pinned_vm beyond the allowance */
	unsigned long mm_pages;
	u64 bytes;			/* in the module's total (max_total_mb) */
};

/* Everything a session may allocate, unwind tables up to their cap. */
u64 lfr_session_bytes(const struct lfr_config *cfg);
int lfr_budget_charge(struct lfr_session *s, struct netlink_ext_ack *extack);
void lfr_budget_uncharge(struct lfr_session *s);

#endif /* LFR_BUDGET_H */

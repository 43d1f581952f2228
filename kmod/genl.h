/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the generic netlink family (genl.c). */
#ifndef LFR_GENL_H
#define LFR_GENL_H

int lfr_genl_init(void);
void lfr_genl_quiesce(void);
void lfr_genl_exit(void);

#endif /* LFR_GENL_H */

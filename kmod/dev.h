/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: /dev/lfr (dev.c). */
#ifndef LFR_DEV_H
#define LFR_DEV_H

int lfr_dev_init(void);
void lfr_dev_exit(void);

#endif /* LFR_DEV_H */

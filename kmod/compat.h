/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: kernel API differences, chosen by the header probes in Kbuild
 * (LFR_HAVE_*), never by version numbers: distribution kernels carry
 * backports.
 */
#ifndef LFR_COMPAT_H
#define LFR_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/sched.h>

static inline void lfr_hrtimer_setup(struct hrtimer *t,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef LFR_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

/* Threads that have an mm but never return to a user stack of their own. */
#ifdef PF_USER_WORKER
#define LFR_PF_NOT_USER	(PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)
#else
#define LFR_PF_NOT_USER	(PF_KTHREAD | PF_IO_WORKER)
#endif

#endif /* LFR_COMPAT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the kernel stacks of off-CPU intervals, kept per CPU by the words of
 * the stack their unwind read (kstack_cache.c).
 */
#ifndef LFR_KSTACK_CACHE_H
#define LFR_KSTACK_CACHE_H

#include <linux/types.h>
#include "config.h"
#include "kstack.h"

struct lfr_session;
struct task_struct;

/* Frames of a stack kept: deeper ones are unwound every time. */
#define LFR_KSTACK_CACHED_MAX	32
#define LFR_KSTACK_CACHE_ENTRIES 16

struct lfr_kstack_entry {
	u32 gen;	/* lfr_kstack_gen when kept; 0: empty */
	u8 nr_ips, nr_checks;
	u16 off[LFR_KSTACK_CHECKS_MAX];
	u64 val[LFR_KSTACK_CHECKS_MAX];
	u64 ips[LFR_KSTACK_CACHED_MAX];
};

/* One CPU's: read and written only there, with interrupts off. */
struct lfr_kstack_cache {
	struct lfr_kstack_entry e[LFR_KSTACK_CACHE_ENTRIES];
	u8 last;	/* the entry found last: looked at first */
	u8 next;	/* the entry the next new stack takes */
	struct lfr_kstack_checks fill;	/* of the unwind that missed */
};

/* Whether a session of @cfg keeps kernel stacks: off-CPU intervals, x86-64. */
static inline bool lfr_kstack_cache_of(const struct lfr_config *cfg)
{
	return lfr_task_kstack_cacheable && cfg->offcpu_min_ns;
}

/*
 * lfr_task_kstack() of @t (being switched in on this CPU, interrupts off),
 * from @c when its words there are those an earlier unwind read (NULL:
 * no cache).
 */
u32 lfr_kstack_of(struct lfr_session *s, struct lfr_kstack_cache *c,
		  struct task_struct *t, u64 *ips, bool *truncated);

int lfr_kstack_cache_init(void);
void lfr_kstack_cache_exit(void);

#endif /* LFR_KSTACK_CACHE_H */

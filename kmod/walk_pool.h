/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the sample buffers of a session's walks, reused (walk_pool.c). */
#ifndef LFR_WALK_POOL_H
#define LFR_WALK_POOL_H

#include <linux/cpumask.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct lfr_walk_pool {
	raw_spinlock_t lock;
	void **free;
	u32 nr, cap;
	size_t size;
};

/*
 * The buffers of a session: a few per CPU, for the walks that wait (on
 * their mapping lock) holding one while others run.
 */
static inline u32 lfr_walk_pool_cap(void)
{
	return 4 * num_possible_cpus() + 4;
}

int lfr_walk_pool_init(struct lfr_walk_pool *p, size_t size);
void *lfr_walk_pool_get(struct lfr_walk_pool *p);
void lfr_walk_pool_put(struct lfr_walk_pool *p, void *buf);
void lfr_walk_pool_free(struct lfr_walk_pool *p);

#endif /* LFR_WALK_POOL_H */

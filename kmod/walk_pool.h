/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the sample buffers of a session's walks, reused (walk_pool.c). */
#ifndef LFR_WALK_POOL_H
#define LFR_WALK_POOL_H

#include <linux/spinlock.h>
#include <linux/types.h>

struct lfr_walk_pool {
	spinlock_t lock;
	void **free;
	u32 nr, cap;
	size_t size;
};

int lfr_walk_pool_init(struct lfr_walk_pool *p, size_t size);
void *lfr_walk_pool_get(struct lfr_walk_pool *p);
void lfr_walk_pool_put(struct lfr_walk_pool *p, void *buf);
void lfr_walk_pool_free(struct lfr_walk_pool *p);

#endif /* LFR_WALK_POOL_H */

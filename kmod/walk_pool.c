// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the sample buffers of the deferred walks.  A walk runs in its thread's
 * context and may sleep (page faults), so it cannot borrow a per-CPU buffer;
 * a kmalloc per walk costs an allocation and, on kernels with init_on_alloc
 * (Debian's), zeroing its whole size.  Buffers that walks give back are kept
 * in a small stack, up to about two per CPU, and handed out again as they
 * are: after the first walks no allocation happens at all.
 */
#include <linux/cpumask.h>
#include <linux/slab.h>
#include "walk_pool.h"

int lfr_walk_pool_init(struct lfr_walk_pool *p, size_t size)
{
	spin_lock_init(&p->lock);
	p->size = size;
	p->nr = 0;
	p->cap = 2 * num_possible_cpus() + 2;
	p->free = kcalloc(p->cap, sizeof(*p->free), GFP_KERNEL_ACCOUNT);
	return p->free ? 0 : -ENOMEM;
}

/* Process context.  NULL when memory is short. */
void *lfr_walk_pool_get(struct lfr_walk_pool *p)
{
	void *buf = NULL;

	spin_lock(&p->lock);
	if (p->nr)
		buf = p->free[--p->nr];
	spin_unlock(&p->lock);
	return buf ?: kmalloc(p->size, GFP_KERNEL);
}

void lfr_walk_pool_put(struct lfr_walk_pool *p, void *buf)
{
	if (!buf)
		return;
	spin_lock(&p->lock);
	if (p->nr < p->cap) {
		p->free[p->nr++] = buf;
		buf = NULL;
	}
	spin_unlock(&p->lock);
	kfree(buf);
}

/* When no walk can run any more (the session is being freed). */
void lfr_walk_pool_free(struct lfr_walk_pool *p)
{
	if (!p->free)
		return;
	while (p->nr)
		kfree(p->free[--p->nr]);
	kfree(p->free);
	p->free = NULL;
}

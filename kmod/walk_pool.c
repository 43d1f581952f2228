// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the sample buffers of the deferred walks.  A walk runs in its thread's
 * context and may sleep (page faults), so it cannot borrow a per-CPU buffer;
 * a kmalloc per walk costs an allocation and, on kernels with init_on_alloc
 * (Debian's), zeroing its whole size.  A session's buffers are allocated at
 * START, charged to the starter's memory cgroup and counted in the
 * session's memory (lfr_walk_pool_cap()), and lent to walks and given back
 * as they are: no walk allocates one, and a walk that finds every one lent
 * (walks asleep on their mapping lock hold theirs) loses its sample as
 * NOMEM.  The lock is raw: a commit in place takes a buffer with interrupts
 * off when its walk goes on with them on (unwind.c).
 */
#include <linux/cpumask.h>
#include <linux/slab.h>
#include "walk_pool.h"

int lfr_walk_pool_init(struct lfr_walk_pool *p, size_t size)
{
	raw_spin_lock_init(&p->lock);
	p->size = size;
	p->nr = 0;
	p->cap = lfr_walk_pool_cap();
	p->free = kcalloc(p->cap, sizeof(*p->free), GFP_KERNEL_ACCOUNT);
	if (!p->free)
		return -ENOMEM;
	for (; p->nr < p->cap; p->nr++) {
		p->free[p->nr] = kmalloc(size, GFP_KERNEL_ACCOUNT);
		if (!p->free[p->nr])
			return -ENOMEM;
	}
	return 0;
}

/* Any context.  NULL when every buffer is lent. */
void *lfr_walk_pool_get(struct lfr_walk_pool *p)
{
	unsigned long flags;
	void *buf = NULL;

	raw_spin_lock_irqsave(&p->lock, flags);
	if (p->nr)
		buf = p->free[--p->nr];
	raw_spin_unlock_irqrestore(&p->lock, flags);
	return buf;
}

void lfr_walk_pool_put(struct lfr_walk_pool *p, void *buf)
{
	unsigned long flags;

	if (!buf)
		return;
	raw_spin_lock_irqsave(&p->lock, flags);
	if (!WARN_ON_ONCE(p->nr >= p->cap)) {
		p->free[p->nr++] = buf;
		buf = NULL;
	}
	raw_spin_unlock_irqrestore(&p->lock, flags);
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

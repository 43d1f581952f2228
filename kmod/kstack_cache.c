// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the kernel stacks of off-CPU intervals without the unwinder, where
 * an unwind is expensive (x86-64's ORC: about 2 500 instructions for the
 * seven frames of a pipe read, a third of what an interval costs).
 *
 * A thread that waits again where it waited before has the same frames at
 * the same places of its stack.  An unwind of a task that is not running
 * depends on its saved stack pointer, on the words of its stack it reads
 * return addresses and frames' stack pointers from (kstack.h), and on the
 * kernel's text and unwind data.  Each CPU keeps its last unwinds by those
 * words, each by its distance from the saved stack pointer or, past the
 * frame of random size a system call begins with, from the top of the
 * stack; a task whose stack holds the same values at the same places gets
 * the same frames, read from the cache after comparing a word or two per
 * frame.  A frame pointer that the unwinder reads on the way is where its
 * frame lies, so the same places give the same one.  Module text comes and
 * goes: any module loaded or unloaded empties every cache (lfr_kstack_gen).
 * With kstack_check set, each stack found in the cache is unwound too, and
 * a difference counted (KSTACK_MISMATCH): the tests run so.
 */
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include "kstack_cache.h"
#include "params.h"
#include "session.h"

LFR_PARAM_UINT(kstack_check, 0, "1: unwind every off-CPU kernel stack found in the cache again and count the differences in kstack_mismatch (default 0: tests set it)");

static atomic_t lfr_kstack_gen = ATOMIC_INIT(1);

static int lfr_kstack_module_event(struct notifier_block *nb,
				   unsigned long action, void *data)
{
	/* 0 is an empty entry's */
	if (atomic_inc_return(&lfr_kstack_gen) == 0)
		atomic_inc(&lfr_kstack_gen);
	return NOTIFY_DONE;
}

static struct notifier_block lfr_kstack_module_nb = {
	.notifier_call = lfr_kstack_module_event,
};

int lfr_kstack_cache_init(void)
{
	return register_module_notifier(&lfr_kstack_module_nb);
}

void lfr_kstack_cache_exit(void)
{
	unregister_module_notifier(&lfr_kstack_module_nb);
}

static bool lfr_kstack_entry_holds(const struct lfr_kstack_entry *e,
				   unsigned long sp0, unsigned long top)
{
	unsigned long addr;
	unsigned int i;

	for (i = 0; i < e->nr_checks; i++) {
		addr = e->off[i] & LFR_KSTACK_FROM_TOP ?
		       top - (e->off[i] & ~LFR_KSTACK_FROM_TOP) :
		       sp0 + e->off[i];
		if (addr < sp0 || addr > top - sizeof(long) ||
		    READ_ONCE_NOCHECK(*(unsigned long *)addr) != e->val[i])
			return false;
	}
	return true;
}

static const struct lfr_kstack_entry *
lfr_kstack_find(struct lfr_kstack_cache *c, struct task_struct *t, u32 gen)
{
	unsigned long top = (unsigned long)task_stack_page(t) + THREAD_SIZE;
	unsigned long sp0 = lfr_task_kstack_sp(t);
	unsigned int i, k;

	if (sp0 <= top - THREAD_SIZE || sp0 >= top)
		return NULL;
	for (i = 0; i < LFR_KSTACK_CACHE_ENTRIES; i++) {
		k = (c->last + i) % LFR_KSTACK_CACHE_ENTRIES;
		if (c->e[k].gen == gen &&
		    lfr_kstack_entry_holds(&c->e[k], sp0, top)) {
			c->last = k;
			return &c->e[k];
		}
	}
	return NULL;
}

static void lfr_kstack_keep(struct lfr_kstack_cache *c,
			    const struct lfr_kstack_checks *ck, const u64 *ips,
			    u32 n, u32 gen)
{
	struct lfr_kstack_entry *e = &c->e[c->next];
	unsigned int i;

	c->last = c->next;
	c->next = (c->next + 1) % LFR_KSTACK_CACHE_ENTRIES;
	e->gen = gen;
	e->nr_ips = n;
	e->nr_checks = ck->n;
	for (i = 0; i < ck->n; i++)
		e->off[i] = i < ck->from_top ? ck->addr[i] - ck->sp0 :
			    (ck->top - ck->addr[i]) | LFR_KSTACK_FROM_TOP;
	memcpy(e->val, ck->val, ck->n * sizeof(e->val[0]));
	memcpy(e->ips, ips, n * sizeof(*ips));
}

u32 lfr_kstack_of(struct lfr_session *s, struct lfr_kstack_cache *c,
		  struct task_struct *t, u64 *ips, bool *truncated)
{
	struct lfr_kstack_checks *ck = c ? &c->fill : NULL;
	const struct lfr_kstack_entry *e;
	u32 gen, n;

	if (!c)
		return lfr_task_kstack(t, ips, truncated, NULL);
	gen = atomic_read(&lfr_kstack_gen);
	e = lfr_kstack_find(c, t, gen);
	if (e) {
		lfr_count(s, LFR_CTR_KSTACK_CACHED, 1);
		if (!READ_ONCE(kstack_check)) {
			memcpy(ips, e->ips, e->nr_ips * sizeof(*ips));
			*truncated = false;
			return e->nr_ips;
		}
	}
	n = lfr_task_kstack(t, ips, truncated, e ? NULL : ck);
	if (e) {
		if (n != e->nr_ips || *truncated ||
		    memcmp(ips, e->ips, n * sizeof(*ips)))
			lfr_count(s, LFR_CTR_KSTACK_MISMATCH, 1);
		return n;
	}
	if (ck->ok && n <= LFR_KSTACK_CACHED_MAX)
		lfr_kstack_keep(c, ck, ips, n, gen);
	return n;
}

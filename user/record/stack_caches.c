// SPDX-License-Identifier: GPL-2.0
/*
 * The stack caches' life: each process counts its entries in them; when most entries are of
 * processes forgotten or remapped (found again by nothing), both caches start over and give back
 * the pages written beyond their prepared part, so that an always-on recorder's caches hold what
 * the living processes use, not the high-water mark of every process that ever ran; within the
 * prepared part they start over once an eighth of it is of the dead, and use its pages again.
 */
#include <string.h>

#include "lib/pages.h"
#include "record/recorder_internal.h"

void stack_cached(struct lfr_recorder *r, struct process *p)
{
	if (p->cached_epoch != r->stack_epoch) {
		p->cached_epoch = r->stack_epoch;
		p->cached = 0;
	}
	p->cached++;
}

void stack_caches_clear(struct lfr_recorder *r, bool release)
{
	hashtab_clear(&r->stack_index);
	r->stacks_used = r->stack_ips_used = 0;
	raw_stacks_clear(&r->raw, release);
	r->stack_epoch++;
	r->stale_cached = 0;
	r->st.stack_cache_restarts++;
	if (!release)
		return;
	/* the index back to its prepared size (a failed allocation leaves it empty: it grows) */
	if (r->stack_index.cap > 2 * PREPARED_STACKS) {
		hashtab_free(&r->stack_index);
		hashtab_prepare(&r->stack_index, PREPARED_STACKS);
	}
	if (r->stacks) {
		pages_release(r->stacks, PREPARED_STACKS * sizeof(*r->stacks),
		              r->stacks_peak * sizeof(*r->stacks));
		pages_release(r->stack_ips, PREPARED_STACK_IPS * sizeof(*r->stack_ips),
		              r->stack_ips_peak * sizeof(*r->stack_ips));
	}
	r->stacks_peak = r->stack_ips_peak = 0;
	r->st.stack_cache_releases++;
}

void stack_cache_stale(struct lfr_recorder *r, struct process *p)
{
	if (p->cached_epoch != r->stack_epoch || !p->cached)
		return;
	r->stale_cached += p->cached;
	p->cached = 0;
	/*
	 * Most of what they hold is of the dead: start over, what the live processes had there
	 * named once more.  Past the prepared part, the pages beyond it are given back.  Within
	 * it, its pages are kept but used again once the dead hold an eighth of it (2 048 of the
	 * two caches' 16 384 entries), or every new stack would write one more page of it until it
	 * is full (a process started every few seconds fills it in hours); an eighth makes a
	 * restart's cost, clearing the indexes, small beside naming the stacks that led to it.
	 */
	if (2 * r->stale_cached <= r->raw.used + r->stacks_used)
		return;
	if (raw_stacks_grown(&r->raw) || r->stacks_peak > PREPARED_STACKS ||
	    r->stack_ips_peak > PREPARED_STACK_IPS || r->stack_index.cap > 2 * PREPARED_STACKS)
		stack_caches_clear(r, true);
	else if (r->stale_cached >= STALE_RESTART)
		stack_caches_clear(r, false);
}

void key_caches_check(struct lfr_recorder *r)
{
	uint64_t sweeps = lfr_jfr_pool_sweeps(r->w);

	if (sweeps == r->pool_sweeps)
		return;
	r->pool_sweeps = sweeps;
	stack_caches_clear(r, false);
	hashtab_clear(&r->methods);
	if (r->memo) {
		memset(r->memo, 0, ((size_t)1 << r->memo_bits) * sizeof(*r->memo));
		r->memo_used = 0;
	}
	r->named_ok = false;
	r->last_ctx_len = 0;
	r->st.key_cache_restarts++;
}

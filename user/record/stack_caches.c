// SPDX-License-Identifier: GPL-2.0
/*
 * The stack caches' life: each process counts its entries in them; when most entries are of
 * processes forgotten or remapped (found again by nothing), both caches start over and give back
 * the pages written beyond their prepared part, so that an always-on recorder's caches hold what
 * the living processes use, not the high-water mark of every process that ever ran.
 */
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
	 * Most of what they hold is of the dead: start over.  Only past the prepared part, which
	 * keeps its pages anyway: what the live processes had there is named once more.
	 */
	if (2 * r->stale_cached > r->raw.used + r->stacks_used &&
	    (raw_stacks_grown(&r->raw) || r->stacks_peak > PREPARED_STACKS ||
	     r->stack_ips_peak > PREPARED_STACK_IPS || r->stack_index.cap > 2 * PREPARED_STACKS))
		stack_caches_clear(r, true);
}

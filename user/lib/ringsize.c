// SPDX-License-Identifier: GPL-2.0
/* Default ring sizes from the rate and depth (ringsize.h says how). */
#include "lib/ringsize.h"

#include <linux/lfr.h>

#define TICK_BYTES 48u   /* sizeof(struct lfr_rec_tick) */
#define USTACK_BYTES 56u /* sizeof(struct lfr_rec_ustack) */

void lfr_ring_size_choose(const struct lfr_ring_size_in *in, struct lfr_ring_size *out)
{
	uint32_t depth = in->user_depth ? in->user_depth : LFR_DEFAULT_USER_STACK_DEPTH;
	uint64_t page = in->page_size ? in->page_size : 4096;
	uint64_t ncpus = in->ncpus ? in->ncpus : 1;
	uint64_t need, cap, pages = LFR_DEFAULT_RING_PAGES;
	double rate;

	if (in->period_ns)
		rate = 1e9 / (double)in->period_ns;
	else
		rate = in->freq_hz ? in->freq_hz : LFR_DEFAULT_FREQ_HZ;
	/* the module jitters each period by up to LFR_DEFAULT_JITTER_PCT: shorter periods too */
	rate *= 1.0 + LFR_DEFAULT_JITTER_PCT / 100.0;
	out->rate_hz = rate;
	out->rec_bytes = TICK_BYTES + USTACK_BYTES + 8ull * (depth + LFR_USTACK_WORDS);
	if (in->kernel_stack)
		out->rec_bytes += 8ull * LFR_MAX_KERNEL_STACK_DEPTH;

	need = (uint64_t)(rate * LFR_RING_BUDGET_S * (double)out->rec_bytes) / page + 1;
	/* never below the module's default: small rates keep the rings they always had */
	while (pages < need && pages < LFR_MAX_RING_PAGES)
		pages <<= 1;
	cap = LFR_RING_BUDGET_TOTAL / (ncpus * page);
	/* locked memory: each ring's control page counts too */
	if (in->budget && in->budget / (ncpus * page) <= cap)
		cap = in->budget / (ncpus * page) > 1 ? in->budget / (ncpus * page) - 1 : 1;
	out->capped = pages >= LFR_MAX_RING_PAGES && pages < need;
	while (pages > LFR_DEFAULT_RING_PAGES && pages > cap) {
		pages >>= 1;
		out->capped = true;
	}
	out->ring_pages = (uint32_t)pages;
	out->wakeup_bytes = (uint32_t)(pages * page / LFR_RING_WAKEUP_DIV);
	out->seconds = (double)(pages * page) / (rate * (double)out->rec_bytes);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: the set of mapping records already written, per session.  Lock-free:
 * walks on every CPU insert with compare-and-swap; a probe sequence is at
 * most 8 slots, and a crowded one overwrites (a record may then be written
 * twice, never lost).
 */
#include <linux/atomic.h>
#include <linux/compiler.h>
#include "seen.h"

/* Whether a (process image, key) was written already. */
bool lfr_seen(const u64 *seen, u32 mask, u64 h)
{
	u32 i = h & mask, n;

	h |= 1;
	for (n = 0; n < 8; n++) {
		u64 old = READ_ONCE(seen[(i + n) & mask]);

		if (old == h)
			return true;
		if (!old)
			return false;
	}
	return false;
}

/* A record marked written did not make it to the ring: a later walk retries. */
void lfr_seen_forget(u64 *seen, u32 mask, u64 h)
{
	u32 i = h & mask, n;

	h |= 1;
	for (n = 0; n < 8; n++) {
		u64 *slot = &seen[(i + n) & mask];

		if (READ_ONCE(*slot) == h) {
			cmpxchg64(slot, h, LFR_SEEN_GONE);
			return;
		}
	}
	/* Overwritten in a crowded table (lfr_seen_first): nothing to forget. */
}

/* Mark a (process image, key) as written; true when it was new. */
bool lfr_seen_first(u64 *seen, u32 mask, u64 h)
{
	u32 i = h & mask, n;

	h |= 1;			/* never 0: 0 is an empty slot */
	for (n = 0; n < 8; n++) {
		u64 *slot = &seen[(i + n) & mask];
		u64 old = READ_ONCE(*slot);

		if (old == h)
			return false;
		if (!old && cmpxchg64(slot, 0, h) == 0)
			return true;
	}
	/* Table crowded: overwrite, at worst a record is written twice. */
	WRITE_ONCE(seen[i], h);
	return true;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: the set of mapping records already written (seen.c). */
#ifndef LFR_SEEN_H
#define LFR_SEEN_H

#include <linux/types.h>

/*
 * Slots hold keys with bit 0 set; 0 is an empty slot and LFR_SEEN_GONE a key
 * that was taken back, which lookups step over.  mask = slots - 1.
 */
#define LFR_SEEN_GONE	2ULL

/* The slots of a session's table (session.c allocates it, budget.c counts it). */
#define LFR_SEEN_SLOTS	16384

bool lfr_seen(const u64 *seen, u32 mask, u64 h);
/* Marks @h; true when it was not marked before. */
bool lfr_seen_first(u64 *seen, u32 mask, u64 h);
/* Takes a mark back (its record did not reach the ring): a later walk retries. */
void lfr_seen_forget(u64 *seen, u32 mask, u64 h);

#endif /* LFR_SEEN_H */

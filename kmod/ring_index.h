/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: ring position arithmetic (free-running head/tail, no-wrap records). */
#ifndef LFR_RING_INDEX_H
#define LFR_RING_INDEX_H

#include <linux/types.h>

/*
 * Plans writing a record of @len bytes at @head of a ring of @size bytes
 * (power of two) whose reader is at @tail.  On success returns 0 and sets
 * *@pad to the bytes of padding to write first (0 when the record fits
 * before the end of the data area).  -ENOSPC: not enough free space (the
 * record is dropped, nothing is overwritten); -EINVAL: @tail is not within
 * [head - size, head] (a corrupt consumer); -E2BIG: larger than the ring.
 */
int lfr_ring_plan(u64 head, u64 tail, u64 size, u32 len, u32 *pad);

static inline u64 lfr_ring_used(u64 head, u64 tail)
{
	return head - tail;
}

#endif /* LFR_RING_INDEX_H */

// SPDX-License-Identifier: GPL-2.0
/* lfr: ring position arithmetic.  Pure logic, tested by KUnit. */
#include <linux/errno.h>
#include "ring_index.h"

int lfr_ring_plan(u64 head, u64 tail, u64 size, u32 len, u32 *pad)
{
	u64 used = head - tail, off, p = 0;

	*pad = 0;
	if (used > size)
		return -EINVAL;
	if (!len || len > size)
		return -E2BIG;
	off = head & (size - 1);
	if (off + len > size)
		p = size - off;
	if (used + p + len > size)
		return -ENOSPC;
	*pad = p;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* Memory given back to the system without unmapping it. */
#ifndef LFR_LIB_PAGES_H
#define LFR_LIB_PAGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The whole pages of BASE[FROM, TO) (bytes) given back: they read as zeros and take no memory
 * until written again.  Pages shared with bytes outside the range are kept, so BASE may be any
 * allocation (a heap chunk's header lies outside it).  Only a hint: an error changes nothing.
 */
static inline void pages_release(void *base, size_t from, size_t to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)base + from + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)base + to) & ~(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

#endif

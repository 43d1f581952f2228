/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stable sort of records by an unsigned 64-bit key: least significant digit first, a byte per
 * pass over the bytes in which the keys (less the smallest) differ, so three passes for the
 * addresses of one object.  For the tables a recording builds while its command starts (symbols,
 * unwind-table spans), where a comparison sort paid a call per comparison and n log n of them.
 * Inline: with the record's size and the key's offset constants, the moves are plain copies.
 */
#ifndef LFR_LIB_RADIX_H
#define LFR_LIB_RADIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t radix_key(const void *rec, size_t key_off)
{
	uint64_t k;

	memcpy(&k, (const char *)rec + key_off, sizeof(k));
	return k;
}

/*
 * Sorts the N records of SIZE bytes at BASE by the uint64_t at KEY_OFF in each, keeping the order
 * of records with equal keys.  False, BASE untouched, without the memory for a copy of them.
 */
static inline bool radix_sort_u64(void *base, size_t n, size_t size, size_t key_off)
{
	char *tmp = malloc(n * size + 1), *src = base, *dst = tmp;
	uint64_t lo = UINT64_MAX, diff = 0;

	if (!tmp)
		return false;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = radix_key(src + i * size, key_off);

		if (k < lo)
			lo = k;
	}
	for (size_t i = 0; i < n; i++)
		diff |= radix_key(src + i * size, key_off) - lo;
	for (unsigned int shift = 0; shift < 64 && diff >> shift; shift += 8) {
		size_t at[256] = {0}, sum = 0;

		for (size_t i = 0; i < n; i++)
			at[((radix_key(src + i * size, key_off) - lo) >> shift) & 0xff]++;
		for (size_t d = 0; d < 256; d++) {
			size_t c = at[d];

			at[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			size_t d = ((radix_key(src + i * size, key_off) - lo) >> shift) & 0xff;

			memcpy(dst + at[d]++ * size, src + i * size, size);
		}
		char *done = dst;

		dst = src;
		src = done;
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(tmp);
	return true;
}

#endif /* LFR_LIB_RADIX_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacks already written, keyed by their addresses exactly as the module recorded them (leaf pc
 * included): a sample that repeats one is written without naming a frame, fixing its leaf or
 * hashing named frames.  Only stacks whose naming depends on nothing but those addresses and the
 * process's mappings are kept (the caller decides); the cache is dropped whole when it fills.
 */
#ifndef LFR_RECORD_RAW_STACKS_H
#define LFR_RECORD_RAW_STACKS_H

#include <stdbool.h>
#include <stdint.h>

/* The raw key of a stack: its process and mapping generation, flags, then its addresses. */
struct raw_stack_key {
	uint32_t tgid, map_gen, flags;
	uint16_t nr_kernel, nr_user;
	const uint64_t *kernel_ips, *user_ips;
	const uint64_t *words; /* the stack words the walk copied, for the leaf rule */
	uint32_t nr_words;
	uint64_t hash; /* raw_stack_hash() */
};

/* What a stack was written as. */
struct raw_stack_val {
	uint64_t stack;   /* JFR stack key */
	uint32_t frames;  /* frames written */
	uint32_t unnamed; /* of those, frames that kept their address */
	bool incomplete;  /* written with truncated = true */
	uint8_t leaf_fix; /* what the leaf rule did (enum lfr_leaf_fix) */
};

struct raw_stacks {
	struct raw_stack_slot *index; /* by hash, open addressing */
	struct raw_stack_entry *entries;
	uint64_t *ips;
	uint32_t used, ips_used;
	uint32_t peak, ips_peak; /* the most used since its pages were last given back */
	unsigned int slot_bits;  /* the index has 1 << slot_bits slots */
};

void raw_stack_hash(struct raw_stack_key *k);
/* The value of k, or NULL. */
const struct raw_stack_val *raw_stacks_find(const struct raw_stacks *c,
                                            const struct raw_stack_key *k);
/*
 * Remembers k (found absent) as v.  word: the stack word the leaf rule read (an index into
 * k->words, or -1); a later key matches only with the same value there, or with the same lack of
 * it.  A failed allocation only loses the shortcut.  Returns whether it was kept.
 */
bool raw_stacks_add(struct raw_stacks *c, const struct raw_stack_key *k,
                    const struct raw_stack_val *v, int word);
/* Whether k fits without starting over (raw_stacks_add() drops the cache whole when full). */
bool raw_stacks_room(const struct raw_stacks *c, const struct raw_stack_key *k);
/*
 * Forgets every stack; with RELEASE also gives back the pages written beyond the prepared part
 * (an always-on recorder's cache, filled by processes long gone, keeps no memory).
 */
void raw_stacks_clear(struct raw_stacks *c, bool release);
/* Whether it holds, or held since its last release, more than its prepared part. */
bool raw_stacks_grown(const struct raw_stacks *c);
/*
 * Allocates the cache and writes its index and its first entries' pages before the recording:
 * the first stacks of a recording then take no fresh pages.  Returns 0 or -ENOMEM.
 */
int raw_stacks_prepare(struct raw_stacks *c);
void raw_stacks_free(struct raw_stacks *c);

#endif

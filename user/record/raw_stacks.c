// SPDX-License-Identifier: GPL-2.0
/* Stacks already written, by their raw addresses (see raw_stacks.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashtab.h"
#include "lib/pages.h"
#include "record/raw_stacks.h"

#define RAW_ENTRIES (1u << 15)
#define RAW_IPS (1u << 20)
/*
 * The index: at least twice as many slots as entries, found by the top bits of the key's hash (a
 * product's best mixed bits), the next slot on a collision.  Entries are never removed one by one,
 * only all at once.  It starts small and doubles as it fills: a slot is read before it is written,
 * and a page of a large index read first is faulted twice (the zero page, then a copy), at random
 * (by hash) across all of it, in a recording's first seconds; the always-on service's few hundred
 * distinct stacks fit in the smallest.
 */
#define RAW_SLOT_BITS_MIN 10
#define RAW_SLOT_BITS_MAX 16
_Static_assert((1u << RAW_SLOT_BITS_MAX) >= 2 * RAW_ENTRIES, "the index stays at most half full");

struct raw_stack_slot {
	uint64_t hash;
	uint32_t e; /* entry index + 1; 0: empty */
};

struct raw_stack_entry {
	struct raw_stack_val v;
	uint32_t tgid, map_gen, flags;
	uint16_t nr_kernel, nr_user;
	uint32_t ips_off; /* kernel then user addresses in c->ips */
	int32_t word;     /* the stack word the leaf rule read, or -1 */
	bool had_word;    /* it was copied: its value was word_val */
	uint64_t word_val;
};

#define RAW_MIX 0x9e3779b97f4a7c15ull

/*
 * One multiply per two addresses, four addresses per turn of the loop, which a pointer counts: the
 * first of a pair is mixed in before the multiply, the second added after it and mixed by the next
 * one (the caller multiplies once more at the end).  Weaker than a multiply per address, but a
 * collision costs only a probe: the addresses are compared in full.  This runs for every sample;
 * the loop's own count and branch, then the index kept apart from the pointer, were a third of its
 * instructions once; it is inlined, two calls per sample cost 8 more.
 */
static inline __attribute__((always_inline)) uint64_t mix_words(uint64_t h, const uint64_t *w,
                                                                uint32_t n)
{
	const uint64_t *end = w + n, *end4 = w + (n & ~3u);

	for (; w != end4; w += 4) {
		h = (h ^ w[0]) * RAW_MIX + w[1];
		h = (h ^ w[2]) * RAW_MIX + w[3];
	}
	for (; w != end; w++)
		h = (h ^ *w) * RAW_MIX;
	return h;
}

void raw_stack_hash(struct raw_stack_key *k)
{
	uint64_t h =
	    hashtab_hash((uint64_t)k->tgid << 32 | k->map_gen,
	                 (uint64_t)k->flags << 32 | (uint64_t)k->nr_kernel << 16 | k->nr_user);

	h = mix_words(h, k->kernel_ips, k->nr_kernel);
	h = mix_words(h, k->user_ips, k->nr_user) * RAW_MIX;
	k->hash = h ^ h >> 29;
}

static bool same(const struct raw_stacks *c, const struct raw_stack_entry *e,
                 const struct raw_stack_key *k)
{
	const uint64_t *ips = c->ips + e->ips_off;

	if (e->word >= 0 &&
	    ((uint32_t)e->word < k->nr_words ? !e->had_word || k->words[e->word] != e->word_val
	                                     : e->had_word))
		return false;
	return e->tgid == k->tgid && e->map_gen == k->map_gen && e->flags == k->flags &&
	       e->nr_kernel == k->nr_kernel && e->nr_user == k->nr_user &&
	       /* most stacks have no kernel part: no call for it */
	       (!k->nr_kernel || !memcmp(ips, k->kernel_ips, k->nr_kernel * sizeof(uint64_t))) &&
	       !memcmp(ips + k->nr_kernel, k->user_ips, k->nr_user * sizeof(uint64_t));
}

const struct raw_stack_val *raw_stacks_find(const struct raw_stacks *c,
                                            const struct raw_stack_key *k)
{
	uint32_t mask = (1u << c->slot_bits) - 1;

	if (!c->index)
		return NULL;
	for (uint32_t i = (uint32_t)(k->hash >> (64 - c->slot_bits));; i = (i + 1) & mask) {
		const struct raw_stack_slot *s = &c->index[i];

		if (!s->e)
			return NULL;
		if (s->hash == k->hash && same(c, &c->entries[s->e - 1], k))
			return &c->entries[s->e - 1].v;
	}
}

/* The index with 1 << BITS slots, what it held placed again: 0, or -ENOMEM (nothing changed). */
static int index_resize(struct raw_stacks *c, unsigned int bits)
{
	struct raw_stack_slot *to = calloc((size_t)1 << bits, sizeof(*to));
	uint32_t mask = (1u << bits) - 1;

	if (!to)
		return -ENOMEM;
	for (uint32_t j = 0; c->index && j < 1u << c->slot_bits; j++) {
		uint32_t i;

		if (!c->index[j].e)
			continue;
		for (i = (uint32_t)(c->index[j].hash >> (64 - bits)); to[i].e; i = (i + 1) & mask)
			;
		to[i] = c->index[j];
	}
	free(c->index);
	c->index = to;
	c->slot_bits = bits;
	return 0;
}

/* Entries and addresses are written in order: their pages are taken as they fill. */
static int alloc(struct raw_stacks *c)
{
	c->entries = malloc(RAW_ENTRIES * sizeof(*c->entries));
	c->ips = malloc(RAW_IPS * sizeof(*c->ips));
	if (c->entries && c->ips && !index_resize(c, RAW_SLOT_BITS_MIN))
		return 0;
	raw_stacks_free(c);
	return -ENOMEM;
}

/* The part written before the recording: about 6 000 stacks of 40 frames. */
#define RAW_PREPARED_ENTRIES (1u << 13)
#define RAW_PREPARED_IPS (1u << 18)
_Static_assert(RAW_PREPARED_ENTRIES <= RAW_ENTRIES && RAW_PREPARED_IPS <= RAW_IPS,
               "the prepared part lies within the cache");

/* The index's size for the prepared entries, at most half full. */
static unsigned int prepared_bits(void)
{
	unsigned int bits = RAW_SLOT_BITS_MIN;

	while ((1u << bits) < 2 * RAW_PREPARED_ENTRIES)
		bits++;
	return bits;
}

int raw_stacks_prepare(struct raw_stacks *c)
{
	unsigned int bits = prepared_bits();

	if (!c->entries && alloc(c))
		return -ENOMEM;
	if (c->used)
		return 0; /* in use: its pages are written already */
	/* the index is probed anywhere: all of it, at the size the prepared entries need; entries
	 * and addresses fill from the start */
	if (bits > c->slot_bits && index_resize(c, bits))
		return -ENOMEM;
	memset(c->index, 0, ((size_t)1 << c->slot_bits) * sizeof(*c->index));
	memset(c->entries, 0, RAW_PREPARED_ENTRIES * sizeof(*c->entries));
	memset(c->ips, 0, RAW_PREPARED_IPS * sizeof(*c->ips));
	return 0;
}

bool raw_stacks_room(const struct raw_stacks *c, const struct raw_stack_key *k)
{
	uint32_t n = (uint32_t)k->nr_kernel + k->nr_user;

	return !c->entries || n > RAW_IPS || (c->used < RAW_ENTRIES && c->ips_used + n <= RAW_IPS);
}

bool raw_stacks_add(struct raw_stacks *c, const struct raw_stack_key *k,
                    const struct raw_stack_val *v, int word)
{
	uint32_t n = (uint32_t)k->nr_kernel + k->nr_user, i, mask;

	if (!c->entries && alloc(c))
		return false;
	if (n > RAW_IPS)
		return false;
	if (!raw_stacks_room(c, k))
		/* Full: start over (the JFR pools keep every stack; only the shortcut is lost). */
		raw_stacks_clear(c, false);
	/* at most half full; a failed growth only keeps it smaller (a shortcut lost, at worst) */
	if (2 * (c->used + 1) > 1u << c->slot_bits &&
	    (c->slot_bits == RAW_SLOT_BITS_MAX || index_resize(c, c->slot_bits + 1)))
		return false;
	mask = (1u << c->slot_bits) - 1;
	for (i = (uint32_t)(k->hash >> (64 - c->slot_bits)); c->index[i].e; i = (i + 1) & mask)
		;
	memcpy(c->ips + c->ips_used, k->kernel_ips, k->nr_kernel * sizeof(uint64_t));
	memcpy(c->ips + c->ips_used + k->nr_kernel, k->user_ips, k->nr_user * sizeof(uint64_t));
	c->entries[c->used] = (struct raw_stack_entry){
	    .v = *v,
	    .tgid = k->tgid,
	    .map_gen = k->map_gen,
	    .flags = k->flags,
	    .nr_kernel = k->nr_kernel,
	    .nr_user = k->nr_user,
	    .ips_off = c->ips_used,
	    .word = word,
	    .had_word = word >= 0 && (uint32_t)word < k->nr_words,
	    .word_val = word >= 0 && (uint32_t)word < k->nr_words ? k->words[word] : 0,
	};
	c->index[i] = (struct raw_stack_slot){.hash = k->hash, .e = ++c->used};
	c->ips_used += n;
	if (c->used > c->peak)
		c->peak = c->used;
	if (c->ips_used > c->ips_peak)
		c->ips_peak = c->ips_used;
	return true;
}

bool raw_stacks_grown(const struct raw_stacks *c)
{
	return c->peak > RAW_PREPARED_ENTRIES || c->ips_peak > RAW_PREPARED_IPS ||
	       (c->index && c->slot_bits > prepared_bits());
}

void raw_stacks_clear(struct raw_stacks *c, bool release)
{
	if (!c->index)
		return;
	memset(c->index, 0, ((size_t)1 << c->slot_bits) * sizeof(*c->index));
	c->used = c->ips_used = 0;
	if (!release)
		return;
	/* the prepared part stays written; a failed shrink keeps the larger index, cleared */
	if (c->slot_bits > prepared_bits())
		index_resize(c, prepared_bits());
	pages_release(c->entries, RAW_PREPARED_ENTRIES * sizeof(*c->entries),
	              c->peak * sizeof(*c->entries));
	pages_release(c->ips, RAW_PREPARED_IPS * sizeof(*c->ips), c->ips_peak * sizeof(*c->ips));
	c->peak = c->ips_peak = 0;
}

void raw_stacks_free(struct raw_stacks *c)
{
	free(c->index);
	free(c->entries);
	free(c->ips);
	*c = (struct raw_stacks){0};
}

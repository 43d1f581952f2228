// SPDX-License-Identifier: GPL-2.0
/* The one hash table (see hashtab.h). */
#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "lib/hashtab.h"

/* This process's random tables and key of the keyed hashes, drawn before main(). */
uint64_t hashtab_tables[16][256];
static unsigned char sip_key[crypto_shorthash_KEYBYTES];

/*
 * libsodium's random source, for sodium_init() (its guard pages' canary) and whoever else asks
 * libsodium for random bytes (lfr does not): its own probes getrandom() in blocking mode, which
 * would hold a service started before the kernel's pool is ready.  GRND_INSECURE never blocks
 * (Linux 5.6 and later; before, the blocking call).
 */
static void rng_buf(void *const buf, const size_t size)
{
	unsigned int flags = GRND_INSECURE;

	for (size_t done = 0; done < size;) {
		ssize_t n = getrandom((char *)buf + done, size - done, flags);

		if (n < 0 && errno == EINVAL && flags) {
			flags = 0;
			continue;
		}
		if (n < 0 && errno != EINTR)
			abort();
		done += n > 0 ? (size_t)n : 0;
	}
}

static uint32_t rng_random(void)
{
	uint32_t v;

	rng_buf(&v, sizeof(v));
	return v;
}

static const char *rng_name(void)
{
	return "getrandom";
}

static randombytes_implementation rng = {
    .implementation_name = rng_name,
    .random = rng_random,
    .buf = rng_buf,
};

__attribute__((constructor)) static void draw_keys(void)
{
	unsigned char seed[randombytes_SEEDBYTES];
	struct {
		unsigned char at_random[16];
		struct timespec t;
		pid_t pid;
	} m;
	ssize_t n;

	/* GRND_NONBLOCK: a service started before the kernel's pool is ready must not wait */
	do
		n = getrandom(seed, sizeof(seed), GRND_NONBLOCK);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(seed)) {
		/* then the 16 random bytes the kernel gave this exec, hashed with the time, pid */
		memset(&m, 0, sizeof(m));
		if (getauxval(AT_RANDOM))
			memcpy(m.at_random, (const void *)(uintptr_t)getauxval(AT_RANDOM),
			       sizeof(m.at_random));
		clock_gettime(CLOCK_MONOTONIC, &m.t);
		m.pid = getpid();
		memset(seed, 0, sizeof(seed));
		for (size_t i = 0; i < sizeof(seed); i += crypto_shorthash_BYTES)
			crypto_shorthash(seed + i, (const unsigned char *)&m, sizeof(m), seed);
	}
	/*
	 * the tables and the key, a stream of libsodium's generator from the seed; sodium_init()
	 * picks the generator's vector code for this CPU (without it, the portable code: 600 000
	 * instructions at every start of lfr instead of 140 000)
	 */
	randombytes_set_implementation(&rng);
	if (sodium_init() < 0)
		abort();
	randombytes_buf_deterministic(hashtab_tables, sizeof(hashtab_tables), seed);
	seed[0] ^= 1;
	randombytes_buf_deterministic(sip_key, sizeof(sip_key), seed);
	sodium_memzero(seed, sizeof(seed));
}

uint64_t hashtab_keyed_bytes(const void *data, size_t n)
{
	uint64_t h;

	crypto_shorthash((unsigned char *)&h, data, n, sip_key);
	return h;
}

uint64_t hashtab_hash_bytes(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
	uint64_t v;

	while (n >= 8) {
		memcpy(&v, p, 8);
		h = (h ^ (v * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	v = 0;
	memcpy(&v, p, n);
	h = (h ^ (v * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;
	return h ^ h >> 32;
}

/* Where the probe for the entry in s starts. */
static size_t home(const struct hashtab *t, const struct hashtab_slot *s)
{
	return (t->bytes ? s->a : hashtab_slot_hash(t, s->a, s->b)) & (t->cap - 1);
}

/* Every entry placed again in a table of CAP slots: 0, or -1 on ENOMEM (nothing changed). */
static int resize(struct hashtab *t, size_t cap)
{
	struct hashtab old = *t;
	struct hashtab_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	t->slots = slots;
	t->cap = cap;
	for (size_t i = 0; i < old.cap; i++) {
		struct hashtab_slot *s = &old.slots[i];
		if (!s->n)
			continue;
		size_t j = home(t, s);
		while (slots[j].n)
			j = (j + 1) & (cap - 1);
		slots[j] = *s;
	}
	free(old.slots);
	return 0;
}

static int grow(struct hashtab *t)
{
	return resize(t, t->cap ? t->cap * 2 : 256);
}

int hashtab_shrink(struct hashtab *t)
{
	size_t cap = 256;

	while (cap < 4 * t->n)
		cap *= 2;
	return cap < t->cap ? resize(t, cap) : 0;
}

int hashtab_shrink_sparse(struct hashtab *t)
{
	return t->n * 16 < t->cap ? hashtab_shrink(t) : 0;
}

int hashtab_reserve(struct hashtab *t, size_t n)
{
	while ((t->n + n) * 2 > t->cap)
		if (grow(t) < 0)
			return -1;
	return 0;
}

int hashtab_prepare(struct hashtab *t, size_t n)
{
	if (hashtab_reserve(t, n))
		return -1;
	/* a write of each page's first word as it is: an atomic add of 0, one fault per page */
	for (size_t off = 0; off < t->cap * sizeof(*t->slots); off += 4096)
		__atomic_fetch_add((uint64_t *)((char *)t->slots + off), 0, __ATOMIC_RELAXED);
	return 0;
}

struct hashtab_slot *hashtab_put(struct hashtab *t, uint64_t a, uint64_t b, bool *fresh)
{
	return hashtab_put_hashed(t, a, b, hashtab_slot_hash(t, a, b), fresh);
}

struct hashtab_slot *hashtab_put_hashed(struct hashtab *t, uint64_t a, uint64_t b, uint64_t h,
                                        bool *fresh)
{
	if ((t->n + 1) * 2 > t->cap && grow(t) < 0)
		return NULL;
	size_t mask = t->cap - 1, i = h & mask;
	for (;; i = (i + 1) & mask) {
		struct hashtab_slot *s = &t->slots[i];
		if (!s->n) {
			*s = (struct hashtab_slot){a, b, 0, 1};
			t->n++;
			*fresh = true;
			return s;
		}
		if (s->a == a && s->b == b) {
			*fresh = false;
			return s;
		}
	}
}

struct hashtab_slot *hashtab_put_bytes(struct hashtab *t, const void *key, size_t len, bool *fresh)
{
	/* hashed once, for the probe and, when absent, for its slot */
	uint64_t h = hashtab_slot_hash_bytes(t, key, len);
	size_t mask = t->cap - 1, i = h & mask;
	struct hashtab_slot *s;

	/*
	 * The kind of key decides where growth re-homes an entry: a zeroed table takes the kind of
	 * its first key, and byte keys in a table of integer keys are a bug, not a miss.
	 */
	if (!t->bytes) {
		if (t->n)
			abort();
		t->bytes = true;
	}
	if (t->cap)
		for (; t->slots[i].n; i = (i + 1) & mask) {
			s = &t->slots[i];
			if (s->a == h && s->n == len + 1 &&
			    !memcmp((const void *)(uintptr_t)s->b, key, len)) {
				*fresh = false;
				return s;
			}
		}
	if ((t->n + 1) * 2 > t->cap) {
		if (grow(t) < 0)
			return NULL;
		mask = t->cap - 1;
		for (i = h & mask; t->slots[i].n; i = (i + 1) & mask)
			;
	}
	s = &t->slots[i];
	*s = (struct hashtab_slot){h, (uint64_t)(uintptr_t)key, 0, len + 1};
	t->n++;
	*fresh = true;
	return s;
}

void hashtab_del(struct hashtab *t, struct hashtab_slot *s)
{
	size_t mask = t->cap - 1, hole = (size_t)(s - t->slots);

	/* Backward shift: an entry after the hole moves into it unless its probe starts after the
	 * hole (cyclically), so that every entry stays reachable from its home without tombstones.
	 */
	for (size_t j = (hole + 1) & mask; t->slots[j].n; j = (j + 1) & mask) {
		size_t k = home(t, &t->slots[j]);
		bool stays = hole <= j ? hole < k && k <= j : hole < k || k <= j;

		if (!stays) {
			t->slots[hole] = t->slots[j];
			hole = j;
		}
	}
	t->slots[hole] = (struct hashtab_slot){0};
	t->n--;
}

void hashtab_clear(struct hashtab *t)
{
	if (t->n)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->n = 0;
}

void hashtab_free(struct hashtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->n = 0;
}

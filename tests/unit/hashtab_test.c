// SPDX-License-Identifier: GPL-2.0
/*
 * The one hash table: integer and byte keys, growth, a table prepared beforehand, deletion by
 * backward shift (checked against a plain array as the model, with keys forced into long collision
 * runs), iteration, shrinking; keys made to share a slot of the unkeyed mix, spread by the keyed
 * hash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "lib/hashtab.h"

static void test_integer_keys(void **state)
{
	struct hashtab t = {0};
	bool fresh;

	(void)state;
	assert_null(hashtab_get(&t, 1, 2));
	for (uint64_t i = 0; i < 10000; i++) {
		struct hashtab_slot *s = hashtab_put(&t, i, i * 7, &fresh);

		assert_non_null(s);
		assert_true(fresh);
		assert_int_equal(s->n, 1);
		s->v = i + 100;
	}
	assert_int_equal(t.n, 10000);
	assert_true(t.cap >= 2 * t.n);
	for (uint64_t i = 0; i < 10000; i++) {
		struct hashtab_slot *s = hashtab_get(&t, i, i * 7);

		assert_non_null(s);
		assert_int_equal(s->v, i + 100);
		assert_null(hashtab_get(&t, i, i * 7 + 1));
		assert_ptr_equal(hashtab_put(&t, i, i * 7, &fresh), s);
		assert_false(fresh);
	}
	hashtab_clear(&t);
	assert_int_equal(t.n, 0);
	assert_null(hashtab_get(&t, 5, 35));
	hashtab_free(&t);
}

/*
 * A table grown for many keys and emptied is made small again, its keys still found: at most a
 * quarter full, never under 256 slots, never grown by a shrink.
 */
static void test_shrink(void **state)
{
	struct hashtab t = {0};
	bool fresh;

	(void)state;
	assert_int_equal(hashtab_shrink(&t), 0);
	assert_int_equal(t.cap, 0);
	for (uint64_t i = 0; i < 10000; i++) {
		struct hashtab_slot *s = hashtab_put(&t, i, 0, &fresh);

		assert_non_null(s);
		s->v = i;
	}
	assert_int_equal(t.cap, 32768);
	for (uint64_t i = 100; i < 10000; i++)
		hashtab_del(&t, hashtab_get(&t, i, 0));
	assert_int_equal(hashtab_shrink(&t), 0);
	assert_int_equal(t.cap, 512);
	assert_int_equal(t.n, 100);
	for (uint64_t i = 0; i < 10000; i++) {
		struct hashtab_slot *s = hashtab_get(&t, i, 0);

		if (i < 100)
			assert_true(s && s->v == i);
		else
			assert_null(s);
	}
	assert_int_equal(hashtab_shrink(&t), 0);
	assert_int_equal(t.cap, 512);
	hashtab_clear(&t);
	assert_int_equal(hashtab_shrink(&t), 0);
	assert_int_equal(t.cap, 256);
	hashtab_free(&t);
}

/*
 * A table prepared for n keys (its slots' pages written beforehand) takes them without growing,
 * and keeps what it held when prepared again.
 */
static void test_prepared_table(void **state)
{
	struct hashtab t = {0};
	struct hashtab_slot *slots;
	size_t cap;
	bool fresh;

	(void)state;
	assert_int_equal(hashtab_prepare(&t, 5000), 0);
	assert_int_equal(t.n, 0);
	assert_true(t.cap >= 2 * 5000);
	slots = t.slots;
	cap = t.cap;
	for (uint64_t i = 0; i < 5000; i++)
		hashtab_put(&t, i, ~i, &fresh)->v = i;
	assert_ptr_equal(t.slots, slots); /* not grown */
	assert_int_equal(t.cap, cap);
	assert_int_equal(hashtab_prepare(&t, 5000), 0);
	assert_true(t.cap >= 2 * 10000);
	for (uint64_t i = 0; i < 5000; i++) {
		struct hashtab_slot *s = hashtab_get(&t, i, ~i);

		assert_non_null(s);
		assert_int_equal(s->v, i);
	}
	assert_int_equal(t.n, 5000);
	hashtab_free(&t);
}

static void test_byte_keys(void **state)
{
	struct hashtab t;
	char keys[500][16];
	bool fresh;

	(void)state;
	hashtab_init_bytes(&t);
	for (int i = 0; i < 500; i++) {
		snprintf(keys[i], sizeof(keys[i]), "key-%d", i);
		struct hashtab_slot *s = hashtab_put_bytes(&t, keys[i], strlen(keys[i]), &fresh);

		assert_true(fresh);
		assert_ptr_equal((const char *)(uintptr_t)s->b, keys[i]);
		s->v = (uint64_t)i;
	}
	for (int i = 0; i < 500; i++) {
		char probe[16];

		/* equal bytes elsewhere find the entry */
		snprintf(probe, sizeof(probe), "key-%d", i);
		struct hashtab_slot *s = hashtab_get_bytes(&t, probe, strlen(probe));
		assert_non_null(s);
		assert_int_equal(s->v, i);
		/* a prefix is another key */
		assert_null(hashtab_get_bytes(&t, probe, 4));
		hashtab_put_bytes(&t, probe, strlen(probe), &fresh);
		assert_false(fresh);
	}
	assert_non_null(hashtab_put_bytes(&t, "", 0, &fresh));
	assert_true(fresh);
	assert_non_null(hashtab_get_bytes(&t, "", 0));
	hashtab_free(&t);
	assert_true(t.bytes);
}

/* A zeroed table takes the kind of its first key: byte keys stay found across every growth. */
static void test_zeroed_table_takes_byte_keys(void **state)
{
	struct hashtab t = {0};
	char keys[2000][16];
	bool fresh;

	(void)state;
	for (int i = 0; i < 2000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		assert_non_null(hashtab_put_bytes(&t, keys[i], strlen(keys[i]), &fresh));
		assert_true(fresh);
	}
	assert_true(t.bytes);
	for (int i = 0; i < 2000; i++) {
		char probe[16];

		snprintf(probe, sizeof(probe), "k%d", i);
		assert_ptr_equal(
		    (const char *)(uintptr_t)hashtab_get_bytes(&t, probe, strlen(probe))->b,
		    keys[i]);
	}
	hashtab_free(&t);
}

/* Deletion must keep every other key reachable, also inside runs of colliding homes. */
static void test_delete_against_model(void **state)
{
	enum { N = 3000 };
	struct hashtab t = {0};
	static bool present[N];
	uint64_t seed = 42;
	bool fresh;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t k = (seed >> 33) % N;
		struct hashtab_slot *s = hashtab_get(&t, k, 0);

		assert_int_equal(s != NULL, present[k]);
		if (present[k] && (seed & 1)) {
			assert_int_equal(s->v, k * 3);
			hashtab_del(&t, s);
			present[k] = false;
		} else if (!present[k]) {
			s = hashtab_put(&t, k, 0, &fresh);
			assert_true(fresh);
			s->v = k * 3;
			present[k] = true;
		}
		if (round % 1000 == 0) {
			size_t live = 0;

			for (uint64_t i = 0; i < N; i++) {
				s = hashtab_get(&t, i, 0);
				assert_int_equal(s != NULL, present[i]);
				if (s)
					assert_int_equal(s->v, i * 3), live++;
			}
			assert_int_equal(live, t.n);
		}
	}
	/* iteration visits every live entry once */
	size_t seen = 0;
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&t, s));) {
		assert_true(present[s->a]);
		seen++;
	}
	assert_int_equal(seen, t.n);
	hashtab_free(&t);
}

/* Deleting every other key of a byte table keeps the others, with their values. */
static void test_delete_byte_keys(void **state)
{
	struct hashtab t;
	char keys[64][12];
	bool fresh;

	(void)state;
	hashtab_init_bytes(&t);
	assert_int_equal(hashtab_reserve(&t, 64), 0);
	for (int i = 0; i < 64; i++) {
		snprintf(keys[i], sizeof(keys[i]), "%d", i);
		hashtab_put_bytes(&t, keys[i], strlen(keys[i]), &fresh)->v = (uint64_t)i;
	}
	for (int i = 0; i < 64; i += 2)
		hashtab_del(&t, hashtab_get_bytes(&t, keys[i], strlen(keys[i])));
	for (int i = 0; i < 64; i++) {
		struct hashtab_slot *s = hashtab_get_bytes(&t, keys[i], strlen(keys[i]));

		if (i % 2)
			assert_true(s && s->v == (uint64_t)i);
		else
			assert_null(s);
	}
	assert_int_equal(t.n, 32);
	hashtab_free(&t);
}

/* c^-1 mod 2^64 for an odd c, and x with x ^ x >> s == y: hashtab_hash() undone step by step. */
static uint64_t inverse(uint64_t c)
{
	uint64_t x = c;

	for (int i = 0; i < 6; i++)
		x *= 2 - c * x;
	return x;
}

static uint64_t unxorshift(uint64_t y, int s)
{
	uint64_t x = y;

	for (int i = 0; i < 64 / s + 1; i++)
		x = y ^ x >> s;
	return x;
}

/* A b whose hashtab_hash(a, b) is h. */
static uint64_t preimage(uint64_t a, uint64_t h)
{
	h = unxorshift(h, 29) * inverse(0xff51afd7ed558ccdull);
	h = unxorshift(h, 31) ^ a * 0x9e3779b97f4a7c15ull;
	return h * inverse(0xc2b2ae3d27d4eb4full) - 0x632be59bd9b4e019ull;
}

/* The longest run of occupied slots: what a probe may have to walk. */
static size_t longest_run(const struct hashtab *t)
{
	size_t run = 0, best = 0;

	for (size_t i = 0; i < 2 * t->cap; i++) {
		run = t->slots[i % t->cap].n ? run + 1 : 0;
		best = run > best ? run : best;
	}
	return best < t->cap ? best : t->cap;
}

/*
 * Keys chosen so that the unkeyed mix gives them all one slot (what a file can do to a table that
 * hashes its keys with it): a trusted table puts them in one run, which every probe walks; a table
 * of the default kind hashes them with its random tables and they spread as any keys do.
 */
static void test_keys_made_to_collide(void **state)
{
	enum { N = 4096 };
	struct hashtab fast, keyed = {0};
	uint64_t seed = 7;
	bool fresh;

	(void)state;
	hashtab_init_trusted(&fast, false);
	for (int i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t k = preimage(11, seed << 24); /* the low 24 bits of its hash: 0 */

		assert_int_equal(hashtab_hash(11, k) & 0xffffff, 0);
		assert_non_null(hashtab_put(&fast, 11, k, &fresh));
		assert_non_null(hashtab_put(&keyed, 11, k, &fresh));
		assert_true(fresh);
	}
	assert_int_equal(longest_run(&fast), N);
	/* 4096 random homes in 8192 or more slots: runs of tens at most */
	assert_true(longest_run(&keyed) < 100);
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&fast, s));)
		assert_non_null(hashtab_get(&keyed, s->a, s->b));
	hashtab_free(&fast);
	hashtab_free(&keyed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_integer_keys),
	    cmocka_unit_test(test_prepared_table),
	    cmocka_unit_test(test_shrink),
	    cmocka_unit_test(test_byte_keys),
	    cmocka_unit_test(test_zeroed_table_takes_byte_keys),
	    cmocka_unit_test(test_delete_against_model),
	    cmocka_unit_test(test_delete_byte_keys),
	    cmocka_unit_test(test_keys_made_to_collide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks by their raw addresses (record/raw_stacks): a stack added is found again by the same
 * addresses, process, mapping generation and flags, not by others, also when many keys share a
 * hash; the word the leaf rule read must match; a full cache starts over; the index grows from
 * small; a cache prepared beforehand starts empty.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/raw_stacks.h"

static uint64_t user[4], kern[2], words[2];

/* The key of stack I: its user leaf is I. */
static struct raw_stack_key key(uint64_t i)
{
	user[0] = 0x400000 + i;
	user[1] = 0x400100;
	user[2] = 0x400200;
	user[3] = 0x400300;
	kern[0] = 0xffffffff81000000ull;
	kern[1] = 0xffffffff81000100ull;
	return (struct raw_stack_key){.tgid = 7,
	                              .map_gen = 1,
	                              .nr_kernel = 2,
	                              .nr_user = 4,
	                              .kernel_ips = kern,
	                              .user_ips = user,
	                              .words = words,
	                              .nr_words = 2};
}

/* Adds stack I, its value I + 1. */
static void add(struct raw_stacks *c, uint64_t i)
{
	struct raw_stack_val v = {.stack = i + 1};
	struct raw_stack_key k = key(i);

	raw_stack_hash(&k);
	raw_stacks_add(c, &k, &v, -1);
}

static void found_by_the_same_key_only(void **state)
{
	struct raw_stacks c = {0};
	struct raw_stack_key k;

	(void)state;
	k = key(1);
	raw_stack_hash(&k);
	assert_null(raw_stacks_find(&c, &k));
	/* many stacks of one hash: told apart by their addresses */
	for (uint64_t i = 0; i < 100; i++) {
		struct raw_stack_val v = {.stack = 1000 + i, .frames = 6};

		k = key(i);
		k.hash = 42;
		assert_null(raw_stacks_find(&c, &k));
		raw_stacks_add(&c, &k, &v, -1);
	}
	for (uint64_t i = 0; i < 100; i++) {
		const struct raw_stack_val *v;

		k = key(i);
		k.hash = 42;
		v = raw_stacks_find(&c, &k);
		assert_non_null(v);
		assert_int_equal(v->stack, 1000 + i);
	}
	k = key(100);
	k.hash = 42;
	assert_null(raw_stacks_find(&c, &k));
	/* another process, generation, flag or kernel pc is another stack */
	k = key(5);
	k.hash = 42;
	k.tgid = 8;
	assert_null(raw_stacks_find(&c, &k));
	k = key(5);
	k.hash = 42;
	k.map_gen = 2;
	assert_null(raw_stacks_find(&c, &k));
	k = key(5);
	k.hash = 42;
	k.flags = 1;
	assert_null(raw_stacks_find(&c, &k));
	k = key(5);
	k.hash = 42;
	kern[1]++;
	assert_null(raw_stacks_find(&c, &k));
	raw_stacks_free(&c);
}

static void the_leaf_rules_word_must_match(void **state)
{
	struct raw_stacks c = {0};
	struct raw_stack_val v = {.stack = 9};
	struct raw_stack_key k = key(1);

	(void)state;
	raw_stack_hash(&k);
	words[1] = 0x400123;
	raw_stacks_add(&c, &k, &v, 1);
	assert_non_null(raw_stacks_find(&c, &k));
	words[1] = 0x400124;
	assert_null(raw_stacks_find(&c, &k));
	k.nr_words = 1; /* the word not copied at all */
	assert_null(raw_stacks_find(&c, &k));
	raw_stacks_free(&c);
}

static void a_full_cache_starts_over(void **state)
{
	struct raw_stacks c = {0};
	struct raw_stack_key k;
	const uint64_t n = 100000;

	(void)state;
	for (uint64_t i = 0; i < n; i++)
		add(&c, i);
	k = key(n - 1);
	raw_stack_hash(&k);
	assert_non_null(raw_stacks_find(&c, &k));
	assert_int_equal(raw_stacks_find(&c, &k)->stack, n);
	k = key(0); /* dropped when the cache filled */
	raw_stack_hash(&k);
	assert_null(raw_stacks_find(&c, &k));
	raw_stacks_free(&c);
}

/*
 * The index starts small (a recording with few distinct stacks touches few of its pages) and
 * doubles as it fills, at most half full, each stack found again after every doubling.
 */
static void the_index_grows_and_keeps_what_it_held(void **state)
{
	struct raw_stacks c = {0};
	struct raw_stack_key k;
	const uint64_t n = 20000;
	unsigned int first = 0;

	(void)state;
	for (uint64_t i = 0; i < n; i++) {
		add(&c, i);
		if (!i)
			first = c.slot_bits;
		assert_true(2 * c.used <= 1u << c.slot_bits);
	}
	assert_int_equal(first, 10);
	assert_int_equal(c.slot_bits, 16);
	for (uint64_t i = 0; i < n; i++) {
		k = key(i);
		raw_stack_hash(&k);
		assert_non_null(raw_stacks_find(&c, &k));
		assert_int_equal(raw_stacks_find(&c, &k)->stack, i + 1);
	}
	raw_stacks_free(&c);
}

/*
 * A cache prepared before the recording holds nothing yet and takes stacks as a fresh one does;
 * prepared again once in use, it keeps them.
 */
static void a_prepared_cache_starts_empty(void **state)
{
	struct raw_stacks c = {0};
	struct raw_stack_val v = {.stack = 3};
	struct raw_stack_key k = key(1);

	(void)state;
	assert_int_equal(raw_stacks_prepare(&c), 0);
	raw_stack_hash(&k);
	assert_null(raw_stacks_find(&c, &k));
	raw_stacks_add(&c, &k, &v, -1);
	assert_non_null(raw_stacks_find(&c, &k));
	assert_int_equal(raw_stacks_find(&c, &k)->stack, 3);
	assert_int_equal(c.used, 1);
	/* prepared again once in use: what it holds stays */
	assert_int_equal(raw_stacks_prepare(&c), 0);
	assert_non_null(raw_stacks_find(&c, &k));
	assert_int_equal(raw_stacks_find(&c, &k)->stack, 3);
	raw_stacks_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(found_by_the_same_key_only),
	    cmocka_unit_test(the_leaf_rules_word_must_match),
	    cmocka_unit_test(a_full_cache_starts_over),
	    cmocka_unit_test(the_index_grows_and_keeps_what_it_held),
	    cmocka_unit_test(a_prepared_cache_starts_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Which removed chunk files an export lost: the chunk removed between its listing and the
 * writer's telling, while a newer one was delivered, is lost; a delivered one is not; one found
 * gone is counted once; what came before the export's start is never counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "export/ledger.h"

static struct lfr_export_ledger *fresh(const char *done)
{
	static struct lfr_export_ledger l;

	lfr_ledger_init(&l, done);
	return &l;
}

/* A gone before the listing, B delivered, then the telling of A: A is lost. */
static void removed_behind_the_position(void **state)
{
	struct lfr_export_ledger *l = fresh("");

	(void)state;
	lfr_ledger_delivered(l, "b.jfr");
	assert_true(lfr_ledger_removed(l, "a.jfr"));
	assert_false(lfr_ledger_removed(l, "b.jfr"));
	assert_true(lfr_ledger_removed(l, "c.jfr"));
}

static void delivered_are_not_lost(void **state)
{
	struct lfr_export_ledger *l = fresh("");

	(void)state;
	lfr_ledger_delivered(l, "a.jfr");
	lfr_ledger_delivered(l, "c.jfr");
	assert_false(lfr_ledger_removed(l, "a.jfr"));
	assert_true(lfr_ledger_removed(l, "b.jfr")); /* skipped between two delivered */
	assert_false(lfr_ledger_removed(l, "c.jfr"));
	/* the writer tells each once; what is not delivered after the last is lost */
	assert_true(lfr_ledger_removed(l, "d.jfr"));
}

static void found_gone_counted_once(void **state)
{
	struct lfr_export_ledger *l = fresh("");

	(void)state;
	lfr_ledger_found_gone(l, "a.jfr");
	assert_false(lfr_ledger_removed(l, "a.jfr"));
	assert_true(lfr_ledger_removed(l, "b.jfr"));
}

static void before_the_start(void **state)
{
	struct lfr_export_ledger *l = fresh("b.jfr");

	(void)state;
	assert_false(lfr_ledger_removed(l, "a.jfr"));
	assert_false(lfr_ledger_removed(l, "b.jfr"));
	assert_true(lfr_ledger_removed(l, "c.jfr"));
}

/* Delivered without removal (no limits): the ledger stays bounded, the oldest become the floor. */
static void bounded(void **state)
{
	struct lfr_export_ledger *l = fresh("");
	char name[32];

	(void)state;
	for (int i = 0; i < 3 * LFR_LEDGER_DELIVERED_MAX; i++) {
		snprintf(name, sizeof(name), "%06d.jfr", 2 * i);
		lfr_ledger_delivered(l, name);
	}
	assert_int_equal(l->n, LFR_LEDGER_DELIVERED_MAX);
	assert_false(lfr_ledger_removed(l, "000000.jfr"));
	snprintf(name, sizeof(name), "%06d.jfr", 2 * (3 * LFR_LEDGER_DELIVERED_MAX - 2) + 1);
	assert_true(lfr_ledger_removed(l, name));
	snprintf(name, sizeof(name), "%06d.jfr", 2 * (3 * LFR_LEDGER_DELIVERED_MAX - 1));
	assert_false(lfr_ledger_removed(l, name));
	assert_int_equal(l->n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(removed_behind_the_position),
	    cmocka_unit_test(delivered_are_not_lost),
	    cmocka_unit_test(found_gone_counted_once),
	    cmocka_unit_test(before_the_start),
	    cmocka_unit_test(bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

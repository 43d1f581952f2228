// SPDX-License-Identifier: GPL-2.0
/*
 * The strict checker on small hand-built files: one defect at a time in an otherwise valid
 * recording (a pool key with two values in two chunks, a dangling constant-pool reference, a
 * checkpoint whose size does not match its content, an empty pool, metadata JMC rejects, a class
 * name JMC cannot convert), each rejected with its reason, and the valid files accepted with every
 * count right.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jfr/check.h"
#include "jfr/encode.h"

/* type ids of the hand-built metadata */
enum { T_LONG = 20, T_STRING = 21, T_THING = 22, T_EVENT = 23 };

/* What one chunk holds: its Thing pool (key -> name), and one event referring to key ref. */
struct chunk_spec {
	uint64_t keys[2];
	const char *names[2];
	unsigned nthings; /* entries of the pool (0: an empty pool) */
	uint64_t ref;
	bool no_region;       /* metadata without its region element */
	bool bad_element;     /* a "field" element directly in "metadata" */
	bool thing_is_class;  /* the Thing type named java.lang.Class */
	int checkpoint_slack; /* added to the checkpoint's size field */
};

/* clang-format off */
static const char *const strs[] = {
    "root",      "metadata", "region",     "class",           "field",
    "id",        "name",     "superType",  "class",           "constantPool",
    "true",      "20",       "long",       "21",              "java.lang.String",
    "22",        "Thing",    "23",         "test.Event",      "jdk.jfr.Event",
    "startTime", "thing",    "simpleType", "java.lang.Class",
};
/* clang-format on */
enum {
	S_ROOT,
	S_METADATA,
	S_REGION,
	S_CLASS,
	S_FIELD,
	S_ID,
	S_NAME,
	S_SUPER,
	S_FCLASS,
	S_CP,
	S_TRUE,
	S_20,
	S_LONG,
	S_21,
	S_STRING,
	S_22,
	S_THING,
	S_23,
	S_EVENT,
	S_JDK_EVENT,
	S_START,
	S_THINGF,
	S_SIMPLE,
	S_JCLASS,
};

/* An element: name, attribute pairs (k, v string indexes), then its children count. */
static void element(struct jfr_buf *b, unsigned name, unsigned nattr, const unsigned *kv,
                    unsigned nchildren)
{
	jfr_buf_varint(b, name);
	jfr_buf_varint(b, nattr);
	for (unsigned i = 0; i < 2 * nattr; i++)
		jfr_buf_varint(b, kv[i]);
	jfr_buf_varint(b, nchildren);
}

/* An event of type at the end of b: a 5-byte size patched by end_event(). */
static size_t begin_event(struct jfr_buf *b, uint64_t type)
{
	size_t at = jfr_buf_varint_padded(b, 0, 5);

	jfr_buf_varint(b, type);
	return at;
}

static void end_event(struct jfr_buf *b, size_t at, int slack)
{
	jfr_patch_varint(b, at, b->len - at + slack, 5);
}

static void metadata(struct jfr_buf *b, const struct chunk_spec *s)
{
	size_t at = begin_event(b, 0);

	jfr_buf_varint(b, 0); /* start */
	jfr_buf_varint(b, 0); /* duration */
	jfr_buf_varint(b, 1); /* metadata id */
	jfr_buf_varint(b, sizeof(strs) / sizeof(strs[0]));
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		jfr_buf_string(b, strs[i]);
	element(b, S_ROOT, 0, NULL, s->no_region ? 1 : 2);
	element(b, S_METADATA, 0, NULL, 4 + s->bad_element);
	element(b, S_CLASS, 2, (const unsigned[]){S_ID, S_20, S_NAME, S_LONG}, 0);
	element(b, S_CLASS, 2, (const unsigned[]){S_ID, S_21, S_NAME, S_STRING}, 0);
	element(b, S_CLASS, 2,
	        (const unsigned[]){S_ID, S_22, S_NAME, s->thing_is_class ? S_JCLASS : S_THING}, 1);
	element(b, S_FIELD, 2, (const unsigned[]){S_NAME, S_NAME, S_FCLASS, S_21}, 0);
	element(b, S_CLASS, 3,
	        (const unsigned[]){S_ID, S_23, S_NAME, S_EVENT, S_SUPER, S_JDK_EVENT}, 2);
	element(b, S_FIELD, 2, (const unsigned[]){S_NAME, S_START, S_FCLASS, S_20}, 0);
	element(b, S_FIELD, 3, (const unsigned[]){S_NAME, S_THINGF, S_FCLASS, S_22, S_CP, S_TRUE},
	        0);
	if (s->bad_element)
		element(b, S_FIELD, 2, (const unsigned[]){S_NAME, S_START, S_FCLASS, S_20}, 0);
	if (!s->no_region)
		element(b, S_REGION, 0, NULL, 0);
	end_event(b, at, 0);
}

static void chunk(struct jfr_buf *b, const struct chunk_spec *s, bool final)
{
	size_t off = b->len;
	uint8_t h[68] = {'F', 'L', 'R', 0, 0, 2, 0, 1};

	jfr_put_be64(h + 56, 1000000000); /* ticks per second */
	jfr_put_be16(h + 66, final ? 2 : 0);
	jfr_buf_put(b, h, sizeof(h));

	size_t ev = begin_event(b, T_EVENT);
	jfr_buf_varint(b, 100 + off); /* startTime */
	jfr_buf_varint(b, s->ref);
	end_event(b, ev, 0);

	uint64_t cp = b->len - off;
	size_t at = begin_event(b, 1);
	jfr_buf_varint(b, 0); /* start */
	jfr_buf_varint(b, 0); /* duration */
	jfr_buf_varint(b, 0); /* delta: the last checkpoint */
	jfr_buf_u8(b, 1);     /* type flags */
	jfr_buf_varint(b, 1); /* one pool */
	jfr_buf_varint(b, T_THING);
	jfr_buf_varint(b, s->nthings);
	for (unsigned i = 0; i < s->nthings; i++) {
		jfr_buf_varint(b, s->keys[i]);
		jfr_buf_string(b, s->names[i]);
	}
	end_event(b, at, s->checkpoint_slack);

	/* last, as JMC's walk ends at the metadata event */
	uint64_t meta = b->len - off;
	metadata(b, s);

	assert_false(b->oom);
	jfr_put_be64(b->data + off + 8, b->len - off);
	jfr_put_be64(b->data + off + 16, cp);
	jfr_put_be64(b->data + off + 24, meta);
}

static const struct chunk_spec good = {
    .keys = {1, 2}, .names = {"one", "two"}, .nthings = 2, .ref = 1};

/* Builds chunk a, then b2 unless NULL, and checks the file. */
static int check2(const struct chunk_spec *a, const struct chunk_spec *b2,
                  struct lfr_jfr_check_result *r, char *err, size_t n)
{
	struct jfr_buf b = {0};

	chunk(&b, a, !b2);
	if (b2)
		chunk(&b, b2, true);
	int rc = lfr_jfr_check_buffer(b.data, b.len, r, err, n);
	jfr_buf_free(&b);
	return rc;
}

static void expect_reject(const struct chunk_spec *a, const struct chunk_spec *b, const char *why)
{
	struct lfr_jfr_check_result r;
	char err[512];

	if (!check2(a, b, &r, err, sizeof(err)))
		fail_msg("accepted, expected \"%s\"", why);
	if (!strstr(err, why))
		fail_msg("rejected with \"%s\", expected \"%s\"", err, why);
}

static void valid_files_accepted(void **state)
{
	struct lfr_jfr_check_result r;
	char err[512];

	(void)state;
	if (check2(&good, NULL, &r, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(r.chunks, 1);
	assert_int_equal(r.events, 1);
	assert_int_equal(r.jmc_events, 1);
	assert_int_equal(r.checkpoints, 1);
	assert_int_equal(r.pool_entries, 2);
	assert_int_equal(r.references, 1);
	assert_int_equal(lfr_jfr_check_count(&r, "test.Event"), 1);
	assert_true(r.last_chunk_final);

	/* the same key with the same value in two chunks */
	struct chunk_spec b = good;
	b.ref = 2;
	if (check2(&good, &b, &r, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(r.chunks, 2);
	assert_int_equal(r.pool_entries, 4);
	assert_true(r.time_ordered);
}

static void pool_key_with_two_values(void **state)
{
	struct chunk_spec b = good;

	(void)state;
	b.names[0] = "uno";
	expect_reject(&good, &b, "pool 22 key 1 reused with a different value");
	/* in one chunk too */
	b = good;
	b.keys[1] = 1;
	expect_reject(&b, NULL, "pool 22 key 1 reused with a different value");
}

static void dangling_reference(void **state)
{
	struct chunk_spec a = good, b = good;

	(void)state;
	a.ref = 3;
	expect_reject(&a, NULL, "reference to key 3 of type 22 not in this chunk's pools");
	/* a key of the previous chunk's pool does not resolve in the next */
	b.keys[0] = 5;
	b.ref = 1;
	expect_reject(&good, &b, "reference to key 1 of type 22 not in this chunk's pools");
}

static void checkpoint_size_mismatch(void **state)
{
	struct chunk_spec a = good;

	(void)state;
	a.checkpoint_slack = 1;
	expect_reject(&a, NULL, "checkpoint");
	a.checkpoint_slack = -1;
	expect_reject(&a, NULL, "past the end");
}

static void empty_pool(void **state)
{
	struct chunk_spec a = good;

	(void)state;
	a.nthings = 0;
	a.ref = 0;
	expect_reject(&a, NULL, "empty pool of type 22");
}

static void metadata_jmc_rejects(void **state)
{
	struct chunk_spec a = good;

	(void)state;
	a.no_region = true;
	expect_reject(&a, NULL, "without the region element");
	a = good;
	a.bad_element = true;
	expect_reject(&a, NULL, "metadata element \"field\" inside \"metadata\"");
}

/*
 * JMC converts a class name that starts with '[' as an array's field descriptor, and throws on
 * one that is not ("[kernel.kallsyms]"): lfr must never write one.
 */
static void class_name_jmc_cannot_read(void **state)
{
	struct chunk_spec a = good;
	struct lfr_jfr_check_result r;
	char err[512];

	(void)state;
	a.thing_is_class = true;
	a.names[0] = "[kernel.kallsyms]";
	expect_reject(&a, NULL, "java.lang.Class name \"[kernel.kallsyms]\": JMC reads");
	a.names[0] = "[";
	expect_reject(&a, NULL, "java.lang.Class name \"[\"");
	a.names[0] = "[Ljava/lang/Object";
	expect_reject(&a, NULL, "java.lang.Class name \"[Ljava/lang/Object\"");
	/* array descriptors and names without the bracket are what JMC reads */
	a.names[0] = "[[Ljava/lang/Object;";
	a.names[1] = "[I";
	if (check2(&a, NULL, &r, err, sizeof(err)))
		fail_msg("%s", err);
	a.names[0] = "kernel.kallsyms";
	a.names[1] = "libc.so.6";
	if (check2(&a, NULL, &r, err, sizeof(err)))
		fail_msg("%s", err);
}

static void chunk_after_final(void **state)
{
	struct jfr_buf b = {0};
	struct lfr_jfr_check_result r;
	char err[512];

	(void)state;
	chunk(&b, &good, true);
	chunk(&b, &good, true);
	assert_int_equal(lfr_jfr_check_buffer(b.data, b.len, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "after the chunk flagged final"));
	jfr_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(valid_files_accepted), cmocka_unit_test(pool_key_with_two_values),
	    cmocka_unit_test(dangling_reference),   cmocka_unit_test(checkpoint_size_mismatch),
	    cmocka_unit_test(empty_pool),           cmocka_unit_test(metadata_jmc_rejects),
	    cmocka_unit_test(chunk_after_final),    cmocka_unit_test(class_name_jmc_cannot_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

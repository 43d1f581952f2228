// SPDX-License-Identifier: GPL-2.0
/* The protobuf wire encoder behind `lfr report --format pprof`: exact bytes per field kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "report/protobuf.h"

static void expect_bytes(const struct pb_buf *b, const uint8_t *want, size_t n)
{
	assert_false(b->oom);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->data, want, n);
}

static void varints_and_keys(void **state)
{
	struct pb_buf b = {0};
	(void)state;

	pb_uint(&b, 1, 150); /* the protobuf documentation's example: 08 96 01 */
	pb_uint(&b, 9, 0);   /* written even when 0 */
	pb_uint(&b, 16, UINT64_MAX);
	static const uint8_t want[] = {0x08, 0x96, 0x01, 0x48, 0x00, 0x80, 0x01, 0xff, 0xff,
	                               0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	expect_bytes(&b, want, sizeof(want));
	pb_free(&b);
}

static void strings_messages_packed(void **state)
{
	struct pb_buf b = {0}, m = {0};
	(void)state;

	pb_string(&b, 2, "testing"); /* 12 07 74 65 73 74 69 6e 67 */
	pb_string(&b, 6, "");
	pb_uint(&m, 1, 3);
	pb_message(&b, 3, &m);
	uint64_t v[] = {3, 270, 86942};
	pb_packed(&b, 4, v, 3); /* 22 06 03 8e 02 9e a7 05 */
	static const uint8_t want[] = {0x12, 0x07, 't',  'e',  's',  't',  'i',  'n',
	                               'g',  0x32, 0x00, 0x1a, 0x02, 0x08, 0x03, 0x22,
	                               0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05};
	expect_bytes(&b, want, sizeof(want));
	pb_reset(&b);
	assert_int_equal(b.len, 0);
	pb_free(&b);
	pb_free(&m);
}

/* fixed64: wire type 1, eight bytes little-endian; packed, eight bytes per value */
static void fixed64(void **state)
{
	struct pb_buf b = {0};
	uint64_t v[] = {1, 0x0102030405060708ull};
	(void)state;

	pb_fixed64(&b, 3, 0x1122334455667788ull); /* 19 88 77 66 55 44 33 22 11 */
	pb_packed_fixed64(&b, 5, v, 2);           /* 2a 10 01 00 .. 08 07 .. 01 */
	static const uint8_t want[] = {0x19, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	                               0x2a, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	                               0x00, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
	expect_bytes(&b, want, sizeof(want));
	pb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(varints_and_keys),
	    cmocka_unit_test(strings_messages_packed),
	    cmocka_unit_test(fixed64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

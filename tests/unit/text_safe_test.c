// SPDX-License-Identifier: GPL-2.0
/*
 * Names as text outputs show them (report/text_safe.c): control characters (C0, DEL, C1) become
 * one space each, bytes that are not UTF-8 '?', printable text and UTF-8 characters stay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/text_safe.h"

static void expect(const char *in, const char *want)
{
	struct text_safe ts = {0};
	char *put = NULL, *copy = strdup(in);
	size_t len = 0;
	FILE *f = open_memstream(&put, &len);

	assert_non_null(f);
	assert_non_null(copy);
	text_safe_put(f, in);
	fclose(f);
	assert_string_equal(put, want);
	assert_string_equal(text_safe(&ts, in), want);
	assert_int_equal(text_safe_in_place(copy), strlen(want));
	assert_string_equal(copy, want);
	assert_int_equal(text_safe_clean(in), !strcmp(in, want));
	free(put);
	free(copy);
	text_safe_free(&ts);
}

static void test_controls(void **state)
{
	(void)state;
	expect("a\x1b[2Jb", "a [2Jb");
	expect("\x1b]0;title\x07", " ]0;title ");
	expect("line\r\nnext\ttab", "line  next tab");
	expect("del\x7f", "del ");
	/* C1: CSI (U+009B) is one character, one space; NBSP (U+00A0) is text */
	expect("c1\xc2\x9b"
	       "2J",
	       "c1 2J");
	expect("\xc2\x80\xc2\x9f", "  ");
	expect("nb\xc2\xa0sp", "nb\xc2\xa0sp");
}

static void test_utf8(void **state)
{
	(void)state;
	/* kept: 2, 3 and 4-byte characters */
	expect("caf\xc3\xa9 \xe2\x82\xac \xe4\xb8\xad \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac "
	                                                                 "\xe4\xb8\xad "
	                                                                 "\xf0\x9f\x98\x80");
	/* stray bytes, overlong forms, surrogates (CESU-8), past U+10FFFF, cut sequences */
	expect("\xff\xfe", "??");
	expect("\xc0\xaf", "??");
	expect("\xe0\x80\xaf", "???");
	expect("\xed\xa0\xbd\xed\xb8\x80", "??????");
	expect("\xf4\x90\x80\x80", "????");
	expect("end\xe2\x82", "end??");
	expect("\x80x", "?x");
}

/* text_safe() gives the string itself when clean, and keeps TEXT_SAFE_BUFS copies at once. */
static void test_buffers(void **state)
{
	struct text_safe ts = {0};
	const char *clean = "plain", *r[TEXT_SAFE_BUFS];
	char in[TEXT_SAFE_BUFS][16];

	(void)state;
	assert_ptr_equal(text_safe(&ts, clean), clean);
	assert_null(text_safe(&ts, NULL));
	for (int i = 0; i < TEXT_SAFE_BUFS; i++) {
		snprintf(in[i], sizeof(in[i]), "%d\x1b", i);
		r[i] = text_safe(&ts, in[i]);
	}
	for (int i = 0; i < TEXT_SAFE_BUFS; i++) {
		char want[16];

		snprintf(want, sizeof(want), "%d ", i);
		assert_string_equal(r[i], want);
	}
	text_safe_free(&ts);
}

/* text_safe_write(): a length that cuts a character, a NUL inside. */
static void test_write(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_non_null(f);
	text_safe_write(f, "\xe2\x82\xac", 2);
	text_safe_write(f, "a\0b", 3);
	fclose(f);
	assert_int_equal(len, 5);
	assert_memory_equal(out, "??a b", 5);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_controls),
	    cmocka_unit_test(test_utf8),
	    cmocka_unit_test(test_buffers),
	    cmocka_unit_test(test_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

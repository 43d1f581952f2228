// SPDX-License-Identifier: GPL-2.0
/*
 * Finding the thread context variable in an object (sym/tls_var.c): defined, another thread-local
 * variable only, no thread-local storage at all (decided from the program headers alone), and
 * files that are no ELF objects.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/lfr.h>

#include "sym/tls_var.h"

static int find(const char *path, struct lfr_tls_var *v, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	assert_true(fd >= 0);
	ret = lfr_tls_var_find(fd, v, why, whylen);
	close(fd);
	return ret;
}

static void test_defined(void **state)
{
	struct lfr_tls_var v;
	char why[256] = "";

	(void)state;
	assert_int_equal(find(LFR_SYMDATA "/libtlsvar.so", &v, why, sizeof(why)), 1);
	assert_int_equal(v.access, LFR_CTX_ACCESS_DTV_SLOT);
	assert_true(v.slot_vaddr != 0);
	assert_false(v.executable);
	assert_true(v.nloads >= 2);
}

static void test_other_tls(void **state)
{
	struct lfr_tls_var v;
	char why[256] = "";

	(void)state;
	assert_int_equal(find(LFR_SYMDATA "/libtlsother.so", &v, why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

/* no PT_TLS: not opened with libelf at all, the same answer */
static void test_no_tls(void **state)
{
	struct lfr_tls_var v;
	char why[256] = "";

	(void)state;
	assert_int_equal(find(LFR_SYMDATA "/libsymfix.so", &v, why, sizeof(why)), 0);
	assert_int_equal(find(LFR_SYMDATA "/symfix_pie", &v, why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

static void test_not_elf(void **state)
{
	char path[] = "/tmp/lfr-tls-var-XXXXXX", why[256] = "";
	struct lfr_tls_var v;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	assert_int_equal(find(path, &v, why, sizeof(why)), -1);
	assert_true(why[0] != '\0');
	/* empty: cut short before any header */
	fd = open(path, O_WRONLY | O_TRUNC);
	close(fd);
	assert_int_equal(find(path, &v, why, sizeof(why)), -1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defined),
	    cmocka_unit_test(test_other_tls),
	    cmocka_unit_test(test_no_tls),
	    cmocka_unit_test(test_not_elf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

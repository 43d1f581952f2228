// SPDX-License-Identifier: GPL-2.0
/*
 * Where exports go (KIND=URL: the kind's path added, refusals with their reasons) and their
 * credentials (a private file's lines per kind, the environment, refusals of a file others
 * may read).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "export/credentials.h"
#include "export/target.h"

static void targets(void **state)
{
	struct lfr_export_target v[LFR_EXPORT_TARGETS_MAX];
	size_t n = 0;
	char why[512];

	(void)state;
	assert_int_equal(lfr_export_targets_parse("otlp=http://collector:4318, "
	                                          "pyroscope=https://pyro.example/",
	                                          v, &n, LFR_EXPORT_TARGETS_MAX, why, sizeof(why)),
	                 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].kind, LFR_EXPORT_OTLP);
	assert_string_equal(v[0].url, "http://collector:4318/v1development/profiles");
	assert_int_equal(v[1].kind, LFR_EXPORT_PYROSCOPE);
	assert_string_equal(v[1].url, "https://pyro.example/ingest");
	/* a path that ends with the kind's stays; another is a prefix */
	assert_int_equal(lfr_export_targets_parse("otlp=http://h/v1development/profiles "
	                                          "pyroscope=http://h:4040/pyro",
	                                          v, &n, LFR_EXPORT_TARGETS_MAX, why, sizeof(why)),
	                 0);
	assert_string_equal(v[2].url, "http://h/v1development/profiles");
	assert_string_equal(v[3].url, "http://h:4040/pyro/ingest");
	assert_int_not_equal(v[2].id, v[0].id);
	/* empty: none */
	assert_int_equal(
	    lfr_export_targets_parse("", v, &n, LFR_EXPORT_TARGETS_MAX, why, sizeof(why)), 0);
	assert_int_equal(n, 4);
	static const char *const bad[][2] = {
	    {"otlp=ftp://h", "not an http://"},
	    {"jaeger=http://h", "KIND=URL"},
	    {"http://h:4318", "KIND=URL"},
	    {"otlp=http://user:secret@h:4318", "user name or password"},
	    {"otlp=http://h/x?a=b", "query"},
	    {"otlp=http://", "names no host"},
	    {"otlp=http://collector:4318", "given twice"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t m = 1;

		assert_int_equal(lfr_export_targets_parse(bad[i][0], v, &m, LFR_EXPORT_TARGETS_MAX,
		                                          why, sizeof(why)),
		                 -1);
		if (!strstr(why, bad[i][1]))
			fail_msg("%s: %s", bad[i][0], why);
	}
}

static char *write_file(const char *text, mode_t mode)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/lfr-cred-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	chmod(path, mode);
	return path;
}

static bool has_header(const struct lfr_export_auth *a, const char *h)
{
	for (size_t i = 0; i < a->nheaders; i++)
		if (!strcmp(a->headers[i], h))
			return true;
	return false;
}

static void credentials(void **state)
{
	const char *text = "# tokens\n"
	                   "\n"
	                   "bearer all-token\n"
	                   "pyroscope: basic user:pw\n"
	                   "otlp: header X-Scope-OrgID: tenant-1\r\n"
	                   "  otlp: bearer otlp-token\n";
	char *path = write_file(text, 0600), why[512];
	struct lfr_export_auth a;

	(void)state;
	unsetenv("LFR_EXPORT_CREDENTIALS");
	unsetenv("LFR_EXPORT_BEARER_TOKEN");
	unsetenv("LFR_EXPORT_BASIC_AUTH");
	unsetenv("LFR_EXPORT_HEADERS");
	assert_int_equal(lfr_export_auth_load(&a, LFR_EXPORT_OTLP, path, why, sizeof(why)), 0);
	assert_null(a.basic);
	/* otlp's own token replaces the one for every kind */
	assert_true(has_header(&a, "Authorization: Bearer otlp-token"));
	assert_false(has_header(&a, "Authorization: Bearer all-token"));
	assert_true(has_header(&a, "X-Scope-OrgID: tenant-1"));
	lfr_export_auth_free(&a);
	assert_int_equal(lfr_export_auth_load(&a, LFR_EXPORT_PYROSCOPE, path, why, sizeof(why)), 0);
	/* pyroscope's basic authentication replaces the bearer token for every kind */
	assert_string_equal(a.basic, "user:pw");
	assert_false(has_header(&a, "Authorization: Bearer all-token"));
	assert_int_equal(a.nheaders, 0);
	lfr_export_auth_free(&a);
	/* readable by others: refused, and the secret not repeated */
	chmod(path, 0644);
	assert_int_equal(lfr_export_auth_load(&a, LFR_EXPORT_OTLP, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "chmod 600"));
	unlink(path);
	/* a line that is no item: its number, not its text */
	path = write_file("bearer ok\ntoken secret-value\n", 0600);
	assert_int_equal(lfr_export_auth_load(&a, LFR_EXPORT_OTLP, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "line 2"));
	unlink(path);
	/* the environment, and $LFR_EXPORT_CREDENTIALS for the file */
	setenv("LFR_EXPORT_BEARER_TOKEN", "env-token", 1);
	setenv("LFR_EXPORT_HEADERS", "A: 1\nB: 2", 1);
	assert_int_equal(lfr_export_auth_load(&a, LFR_EXPORT_OTLP, NULL, why, sizeof(why)), 0);
	assert_true(has_header(&a, "Authorization: Bearer env-token"));
	assert_true(has_header(&a, "B: 2"));
	lfr_export_auth_free(&a);
	setenv("LFR_EXPORT_HEADERS", "Bad Name: 1", 1);
	assert_int_equal(lfr_export_auth_load(&a, LFR_EXPORT_OTLP, NULL, why, sizeof(why)), -1);
	unsetenv("LFR_EXPORT_HEADERS");
	unsetenv("LFR_EXPORT_BEARER_TOKEN");
	setenv("LFR_EXPORT_CREDENTIALS", "/nonexistent/lfr-credentials", 1);
	assert_int_equal(lfr_export_auth_load(&a, LFR_EXPORT_OTLP, NULL, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "/nonexistent/lfr-credentials"));
	unsetenv("LFR_EXPORT_CREDENTIALS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(targets),
	    cmocka_unit_test(credentials),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

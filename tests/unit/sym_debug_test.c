// SPDX-License-Identifier: GPL-2.0
/* Symbolizer: stripped objects named from separate debug files (build-id, debuglink). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>

#include "sym_test_util.h"

#define FAKE_PID 91001u

/* debug_dir: fixture directories, ':'-separated. */
static struct lfr_sym *new_sym(const char *debug_dir)
{
	char dirs[2048] = "";
	struct lfr_sym_opts o = {.debug_dirs = dirs};
	char *copy = strdup(debug_dir), *save = NULL;

	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
		snprintf(dirs + strlen(dirs), sizeof(dirs) - strlen(dirs), "%s%s",
		         dirs[0] ? ":" : "", fixture(d));
	free(copy);
	struct lfr_sym *sym = NULL;

	assert_int_equal(lfr_sym_new(&sym, &o), 0);
	return sym;
}

static void resolve(struct lfr_sym *sym, uint64_t pc, struct lfr_frame *f)
{
	lfr_sym_resolve_user(sym, FAKE_PID, pc, f);
}

static void count_object(const struct lfr_sym_object *obj, void *arg)
{
	struct lfr_sym_object *last = arg;

	*last = *obj;
}

/* Found under DEBUGDIR/.build-id/xx/yyyy.debug; without it only .dynsym names remain. */
static void test_build_id(void **state)
{
	void *h = fixture_dlopen("libsymbid.so");
	struct lfr_sym *sym = new_sym("nodebug:debug");
	struct lfr_sym_stats st;
	struct lfr_frame f;
	uint64_t hidden, api;

	(void)state;
	assert_non_null(h);
	hidden = fixture_addr(h, "bid_hidden_addr");
	api = fixture_sym(h, "bid_api");
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymbid.so", 0) >= 1);
	resolve(sym, hidden + 2, &f);
	assert_true(f.resolved);
	assert_string_equal(f.method, "bid_hidden");
	assert_string_equal(f.class_name, "libsymbid.so");
	assert_int_equal(f.offset, 2);
	resolve(sym, api, &f);
	assert_string_equal(f.method, "bid_api");
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.debug_files, 1);
	{
		struct lfr_sym_object obj = {0};

		lfr_sym_foreach_object(sym, count_object, &obj);
		assert_non_null(obj.path);
		assert_true(obj.ok);
		assert_int_equal(obj.build_id_len, 20);
		assert_true(obj.symbols >= 3);
		assert_non_null(obj.debug_path);
		assert_non_null(strstr(obj.debug_path, "/debug/.build-id/"));
	}
	lfr_sym_free(sym);

	sym = new_sym("nodebug");
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymbid.so", 0) >= 1);
	resolve(sym, hidden + 2, &f);
	assert_false(f.resolved);
	assert_string_equal(f.class_name, "libsymbid.so");
	resolve(sym, api, &f);
	assert_true(f.resolved);
	assert_string_equal(f.method, "bid_api");
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.debug_files, 0);
	lfr_sym_free(sym);
	dlclose(h);
}

/* The build-id of the only file under debug/.build-id/, read from its name. */
static size_t fixture_build_id(uint8_t *bid)
{
	char dir[600], hex[600];
	struct dirent *d1 = NULL, *d2 = NULL;
	DIR *top, *sub;
	size_t n = 0;

	snprintf(dir, sizeof(dir), "%s", fixture("debug/.build-id"));
	top = opendir(dir);
	assert_non_null(top);
	while ((d1 = readdir(top)) && d1->d_name[0] == '.')
		;
	assert_non_null(d1);
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/%s", d1->d_name);
	sub = opendir(dir);
	assert_non_null(sub);
	while ((d2 = readdir(sub)) && d2->d_name[0] == '.')
		;
	assert_non_null(d2);
	snprintf(hex, sizeof(hex), "%s%s", d1->d_name, d2->d_name);
	*strstr(hex, ".debug") = '\0';
	for (; hex[2 * n] && n < 64; n++)
		sscanf(hex + 2 * n, "%2hhx", &bid[n]);
	closedir(sub);
	closedir(top);
	return n;
}

/* The object file is gone (process exited, package upgraded): the record's build-id finds the
 * debug file. */
static void test_build_id_file_gone(void **state)
{
	void *h = fixture_dlopen("libsymbid.so");
	struct lfr_sym *sym = new_sym("debug");
	uint8_t bid[64];
	size_t len = fixture_build_id(bid);
	struct lfr_frame f;
	uint64_t hidden;
	char line[512];
	FILE *maps;

	(void)state;
	assert_int_equal(len, 20);
	assert_non_null(h);
	hidden = fixture_addr(h, "bid_hidden_addr");
	/* Re-issue the library's mappings with a path that does not exist and the build-id. */
	maps = fopen("/proc/self/maps", "r");
	assert_non_null(maps);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long s, e, off;
		char perms[8];
		struct lfr_sym_mapping m = {.pid = FAKE_PID};

		if (!strstr(line, "/libsymbid.so") ||
		    sscanf(line, "%llx-%llx %7s %llx", &s, &e, perms, &off) != 4 ||
		    !strchr(perms, 'x'))
			continue;
		m.start = s;
		m.end = e;
		m.pgoff = off;
		m.path = "/nonexistent/libsymbid.so";
		m.build_id = bid;
		m.build_id_len = len;
		assert_int_equal(lfr_sym_add_mapping(sym, &m), 0);
	}
	fclose(maps);
	resolve(sym, hidden + 1, &f);
	assert_true(f.resolved);
	assert_string_equal(f.method, "bid_hidden");
	assert_string_equal(f.class_name, "libsymbid.so");
	assert_int_equal(f.offset, 1);
	lfr_sym_free(sym);
	dlclose(h);
}

/* Found through .gnu_debuglink in .debug/ next to the object (no build-id in it). */
static void test_debuglink(void **state)
{
	void *h = fixture_dlopen("libsymdl.so");
	struct lfr_sym *sym = new_sym("nodebug");
	struct lfr_sym_stats st;
	struct lfr_frame f;
	uint64_t hidden;

	(void)state;
	assert_non_null(h);
	hidden = fixture_addr(h, "dl_hidden_addr");
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymdl.so", 0) >= 1);
	resolve(sym, hidden, &f);
	assert_true(f.resolved);
	assert_string_equal(f.method, "dl_hidden");
	assert_string_equal(f.class_name, "libsymdl.so");
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.debug_files, 1);
	lfr_sym_free(sym);
	dlclose(h);
}

/* A debug file whose CRC does not match the debuglink is another build's and is refused. */
static void test_debuglink_crc_mismatch(void **state)
{
	void *h = fixture_dlopen("libsymcrc.so");
	struct lfr_sym *sym = new_sym("nodebug");
	struct lfr_sym_stats st;
	struct lfr_frame f;
	uint64_t hidden, api;

	(void)state;
	assert_non_null(h);
	hidden = fixture_addr(h, "crc_hidden_addr");
	api = fixture_sym(h, "crc_api");
	assert_true(add_maps_as(sym, getpid(), FAKE_PID, "/libsymcrc.so", 0) >= 1);
	resolve(sym, hidden, &f);
	assert_false(f.resolved);
	assert_string_equal(f.class_name, "libsymcrc.so");
	resolve(sym, api, &f);
	assert_true(f.resolved);
	assert_string_equal(f.method, "crc_api");
	lfr_sym_get_stats(sym, &st);
	assert_int_equal(st.debug_files, 0);
	lfr_sym_free(sym);
	dlclose(h);
}

int main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_build_id_file_gone),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_debuglink_crc_mismatch),
	};
	/* clang-format on */

	return cmocka_run_group_tests_name("sym_debug", tests, NULL, NULL);
}

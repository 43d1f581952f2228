// SPDX-License-Identifier: GPL-2.0
/*
 * lfr report's naming of the frames a recording left unnamed (report_name_frames): "0x..." frames
 * of an object of an lfr.ObjectFile event named from its debug file found by build-id, frames of
 * one function merged, and the line that lists the objects left unnamed with the reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <link.h>

#include "jfr/writer.h"
#include "report/report.h"
#include "sym_test_util.h"

static char path[512];

/* The build-id of a file, read with libdw. */
static size_t file_build_id(const char *file, uint8_t *out)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	Elf *e;
	const void *p;
	ssize_t n = 0;

	elf_version(EV_CURRENT);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e)
		n = dwelf_elf_gnu_build_id(e, &p);
	if (n > 0)
		memcpy(out, p, n);
	elf_end(e);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

/* ELF addresses of libsymbid.so's hidden function and its exported one. */
static void fixture_vaddrs(uint64_t *hidden, uint64_t *api)
{
	void *h = fixture_dlopen("libsymbid.so");
	struct link_map *lm = NULL;

	assert_non_null(h);
	assert_int_equal(dlinfo(h, RTLD_DI_LINKMAP, &lm), 0);
	*hidden = fixture_addr(h, "bid_hidden_addr") - lm->l_addr;
	*api = fixture_sym(h, "bid_api") - lm->l_addr;
	assert_true(*hidden >= 0x400000 && *api >= 0x400000);
}

/*
 * One thread; libsymbid.so frames at hidden+2 (3 samples), hidden+4 (2) and api (1), a frame of
 * a gone object (1); each with its lfr.ObjectFile.
 */
static void write_recording(uint64_t hidden, uint64_t api)
{
	static const uint8_t gone_bid[] = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04};
	struct lfr_jfr_writer *w = NULL;
	uint8_t bid[64];
	size_t bid_len = file_build_id(fixture("libsymbid.so"), bid);
	struct {
		const char *object;
		uint64_t addr;
		int n;
	} frames[] = {
	    {"libsymbid.so", hidden + 2, 3},
	    {"libsymbid.so", hidden + 4, 2},
	    {"libsymbid.so", api, 1},
	    {"gone.so", 0x10, 1},
	};
	uint64_t thread, t = 1000;

	assert_int_equal(bid_len, 20);
	snprintf(path, sizeof(path), "/tmp/lfr-names-test-%d.jfr", (int)getpid());
	assert_int_equal(lfr_jfr_open(&w, path, NULL), 0);
	assert_int_equal(lfr_jfr_thread(w, 7, 7, "main", "prog", &thread), 0);
	assert_int_equal(
	    lfr_jfr_object_file(w, t, "libsymbid.so", fixture("libsymbid.so"), bid, bid_len), 0);
	assert_int_equal(lfr_jfr_object_file(w, t, "gone.so", "/nonexistent/gone.so", gone_bid,
	                                     sizeof(gone_bid)),
	                 0);
	for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
		char name[32];
		uint64_t m, s;

		snprintf(name, sizeof(name), "0x%" PRIx64, frames[i].addr);
		assert_int_equal(
		    lfr_jfr_method(w, frames[i].object, name, LFR_JFR_FRAME_NATIVE, &m), 0);
		assert_int_equal(lfr_jfr_stack(w, &m, 1, false, &s), 0);
		for (int k = 0; k < frames[i].n; k++)
			assert_int_equal(
			    lfr_jfr_execution_sample(w, ++t, thread, s, LFR_JFR_STATE_RUNNABLE), 0);
	}
	assert_int_equal(lfr_jfr_close(w, NULL, 0), 0);
}

static struct report *read_named(const char *debug_dir, bool debuginfod)
{
	static struct report_opts o;
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	struct report *rep = NULL;

	assert_non_null(r);
	report_opts_init(&o);
	assert_int_equal(report_read(r, &o, &rep), 0);
	jfr_close(r);
	assert_int_equal(rep->nobjects, 2);
	assert_int_equal(report_name_frames(rep, debug_dir, debuginfod), 0);
	return rep;
}

/* Samples whose leaf frame is named NAME. */
static uint64_t leaf_samples(const struct report *rep, const char *name, size_t *frames_named)
{
	uint64_t n = 0;

	*frames_named = 0;
	for (size_t i = 0; i < rep->nframes; i++)
		*frames_named += !strcmp(rep->frames[i].name, name);
	for (size_t i = 0; i < rep->nsamples; i++) {
		const struct report_stack *st = &rep->stacks[rep->samples[i].stack];

		if (!strcmp(rep->frames[rep->stack_frames[st->first]].name, name))
			n += rep->samples[i].value;
	}
	return n;
}

static void test_named_from_debug_file(void **state)
{
	uint64_t hidden, api;
	struct report *rep;
	size_t nf;

	(void)state;
	fixture_vaddrs(&hidden, &api);
	write_recording(hidden, api);
	rep = read_named(fixture("debug"), false);
	/* hidden+2 and hidden+4 are one function now: one frame, 5 samples */
	assert_int_equal(leaf_samples(rep, "bid_hidden", &nf), 5);
	assert_int_equal(nf, 1);
	assert_int_equal(leaf_samples(rep, "bid_api", &nf), 1);
	assert_int_equal(nf, 1);
	assert_int_equal(rep->frames_named, 3);
	assert_int_equal(leaf_samples(rep, "0x10", &nf), 1);
	assert_non_null(rep->unnamed);
	assert_string_equal(rep->unnamed,
	                    "1 object unnamed: /nonexistent/gone.so (build-id deadbeef..): no "
	                    ".symtab and no debug file (by build-id or .gnu_debuglink); "
	                    "debuginfod not asked");
	report_free(rep);
	unlink(path);
}

/* No debug file: frames keep their address but for .dynsym's, both objects are listed. */
static void test_unnamed_listed(void **state)
{
	uint64_t hidden, api;
	struct report *rep;
	char want[64];
	size_t nf;

	(void)state;
	fixture_vaddrs(&hidden, &api);
	write_recording(hidden, api);
	unsetenv("DEBUGINFOD_URLS");
	rep = read_named(fixture("nodebug"), true);
	/* the exported function keeps its .dynsym name; the hidden one its address */
	assert_int_equal(rep->frames_named, 1);
	assert_int_equal(leaf_samples(rep, "bid_api", &nf), 1);
	snprintf(want, sizeof(want), "0x%" PRIx64, hidden + 2);
	assert_int_equal(leaf_samples(rep, want, &nf), 3);
	assert_non_null(rep->unnamed);
	assert_true(!strncmp(rep->unnamed, "2 objects unnamed: ", 19));
	print_message("%s\n", rep->unnamed);
	assert_non_null(strstr(rep->unnamed, "libsymbid.so (build-id "));
	assert_non_null(
	    strstr(rep->unnamed, "): no debug file found locally, DEBUGINFOD_URLS unset; "));
	assert_non_null(strstr(rep->unnamed, "/nonexistent/gone.so (build-id deadbeef..): no debug "
	                                     "file found locally, DEBUGINFOD_URLS unset"));
	report_free(rep);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_named_from_debug_file),
	    cmocka_unit_test(test_unnamed_listed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

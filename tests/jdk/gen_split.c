// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a recording shaped like one of tests/workloads/split.c, for the host checker
 * tests/vm/scenarios/split-check.py: the loop thread (tid 2000) with 500, 300 and 200 samples in
 * split_a, split_b and split_c under split_loop, and the chain thread (tid 2001) with 100 samples
 * of the 40-frame chain chain40 .. chain01 under chain_main.
 *
 *   gen_split FILE [good|nocaller|chain]
 *
 * nocaller: the split_* samples lack split_loop, as a frame-pointer walk from gcc's frameless
 * leaves has them; chain: one chain sample lacks chain17.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/writer.h"

#define CHECK(call)                                                                                \
	do {                                                                                       \
		if ((call) < 0) {                                                                  \
			fprintf(stderr, "gen_split: %s: %s\n", #call, lfr_jfr_strerror(w));        \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static struct lfr_jfr_writer *w;

static uint64_t method(const char *cls, const char *name)
{
	uint64_t m;

	CHECK(lfr_jfr_method(w, cls, name, LFR_JFR_FRAME_NATIVE, &m));
	return m;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "good";
	static const unsigned n[3] = {500, 300, 200};
	static const char *const leaf[3] = {"split_a", "split_b", "split_c"};
	uint64_t loop_thread, chain_thread, chain[42], key, t = 0;
	struct lfr_jfr_options opt = {0};

	if (argc < 2 ||
	    (strcmp(mode, "good") && strcmp(mode, "nocaller") && strcmp(mode, "chain"))) {
		fprintf(stderr, "usage: gen_split FILE [good|nocaller|chain]\n");
		return 2;
	}
	if (lfr_jfr_open(&w, argv[1], &opt) < 0) {
		fprintf(stderr, "gen_split: %s\n", lfr_jfr_strerror(w));
		return 1;
	}
	t = lfr_jfr_now();
	CHECK(lfr_jfr_thread(w, 2000, 2000, "split-loop", "split-gcc", &loop_thread));
	CHECK(lfr_jfr_thread(w, 2001, 2000, "split-chain", "split-gcc", &chain_thread));
	for (int i = 0; i < 3; i++) {
		uint64_t frames[4] = {
		    method("split-gcc", leaf[i]), method("split-gcc", "split_loop"),
		    method("split-gcc", "main"), method("libc.so.6", "__libc_start_call_main")};
		bool skip = !strcmp(mode, "nocaller");

		if (skip)
			frames[1] = frames[0];
		CHECK(lfr_jfr_stack(w, frames + skip, 4 - skip, false, &key));
		for (unsigned k = 0; k < n[i]; k++)
			CHECK(lfr_jfr_execution_sample(w, t += 1000000, loop_thread, key,
			                               LFR_JFR_STATE_CPU));
	}
	for (int i = 0; i < 40; i++) {
		char name[16];

		snprintf(name, sizeof(name), "chain%02d", 40 - i);
		chain[i] = method("split-gcc", name);
	}
	chain[40] = method("split-gcc", "chain_main");
	chain[41] = method("libc.so.6", "start_thread");
	CHECK(lfr_jfr_stack(w, chain, 42, false, &key));
	for (unsigned k = 0; k < 100; k++) {
		if (k == 50 && !strcmp(mode, "chain")) {
			uint64_t bad[41], bad_key;

			/* chain17 is frame 40 - 17 = 23 */
			memcpy(bad, chain, 23 * sizeof(*bad));
			memcpy(bad + 23, chain + 24, 18 * sizeof(*bad));
			CHECK(lfr_jfr_stack(w, bad, 41, false, &bad_key));
			CHECK(lfr_jfr_execution_sample(w, t += 1000000, chain_thread, bad_key,
			                               LFR_JFR_STATE_CPU));
			continue;
		}
		CHECK(lfr_jfr_execution_sample(w, t += 1000000, chain_thread, key,
		                               LFR_JFR_STATE_CPU));
	}
	{
		char err[512];

		if (lfr_jfr_close(w, err, sizeof(err)) < 0) {
			fprintf(stderr, "gen_split: close: %s\n", err);
			return 1;
		}
	}
	return 0;
}

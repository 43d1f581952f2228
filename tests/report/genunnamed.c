// SPDX-License-Identifier: GPL-2.0
/*
 * Writes, with lfr's own JFR writer, the recording lfr record makes of a stripped program: native
 * frames it could not name ("0x" and the object-relative address, of class the object's base
 * name) and one lfr.ObjectFile event with the object's path and build-id.
 *
 *   genunnamed OUT.jfr PATH BUILD-ID-HEX ADDR:COUNT...
 *
 * Each ADDR:COUNT (hex address, decimal count) is a one-frame stack sampled COUNT times.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/writer.h"

static uint64_t now;
static uint64_t test_clock(void)
{
	return now;
}

static int die(struct lfr_jfr_writer *w, const char *what)
{
	fprintf(stderr, "genunnamed: %s: %s\n", what, w ? lfr_jfr_strerror(w) : "failed");
	return 1;
}

int main(int argc, char **argv)
{
	struct lfr_jfr_options opt = {.clock = test_clock, .clock_realtime0 = 1700000000000000000};
	struct lfr_jfr_writer *w = NULL;
	uint8_t bid[64];
	size_t bid_len = strlen(argc > 3 ? argv[3] : "") / 2;
	const char *base;
	uint64_t thread;
	char err[256];

	if (argc < 5 || bid_len > sizeof(bid)) {
		fprintf(stderr, "usage: genunnamed OUT.jfr PATH BUILD-ID-HEX ADDR:COUNT...\n");
		return 2;
	}
	for (size_t i = 0; i < bid_len; i++) {
		unsigned v;

		if (sscanf(argv[3] + 2 * i, "%2x", &v) != 1)
			return 2;
		bid[i] = (uint8_t)v;
	}
	base = strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2];
	now = 1000000000;
	if (lfr_jfr_open(&w, argv[1], &opt))
		return die(w, "open");
	if (lfr_jfr_thread(w, 4242, 4242, base, base, &thread) ||
	    lfr_jfr_object_file(w, now, base, argv[2], bid, bid_len))
		return die(w, "thread/object");
	for (int i = 4; i < argc; i++) {
		char *colon, method[32];
		uint64_t addr = strtoull(argv[i], &colon, 16), mkey, skey;
		long count = *colon == ':' ? strtol(colon + 1, NULL, 10) : 0;

		if (count <= 0)
			return 2;
		snprintf(method, sizeof(method), "0x%" PRIx64, addr);
		if (lfr_jfr_method(w, base, method, LFR_JFR_FRAME_NATIVE, &mkey) ||
		    lfr_jfr_stack(w, &mkey, 1, false, &skey))
			return die(w, "method/stack");
		for (long k = 0; k < count; k++) {
			now += 1000000;
			if (lfr_jfr_execution_sample(w, now, thread, skey, LFR_JFR_STATE_CPU))
				return die(w, "sample");
		}
	}
	if (lfr_jfr_close(w, err, sizeof(err))) {
		fprintf(stderr, "genunnamed: close: %s\n", err);
		return 1;
	}
	return 0;
}

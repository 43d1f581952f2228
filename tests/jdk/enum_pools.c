// SPDX-License-Identifier: GPL-2.0
/*
 * Prints the entries of the one-string constant pools of a JFR file, chunk by chunk, as readers
 * that go by the key rather than the name see them (async-profiler's converter reads frame types
 * by key):
 *
 *   enum_pools FILE     "CHUNK TYPE KEY VALUE" lines for jdk.types.FrameType and
 *                       jdk.types.ThreadState, in file order
 *
 * tests/jdk/run compares lfr's keys with those of a file HotSpot wrote and with async-profiler's.
 * Exit status: 0, or 1 with the reader's error when the file does not parse.
 */
#include <stdio.h>
#include <string.h>

#include "jfr/reader.h"

struct walk {
	struct jfr_reader *r;
	unsigned chunk;
};

static int entry(void *arg, const struct jfr_chunk *ch, const struct jfr_type *t, uint64_t key,
                 uint64_t voff, uint64_t vend)
{
	struct walk *w = arg;
	struct jfr_cur c;
	char value[256];

	if (strcmp(t->name, "jdk.types.FrameType") && strcmp(t->name, "jdk.types.ThreadState"))
		return 0;
	if (t->nfields != 1 || t->fields[0].type != ch->meta->string_type)
		return jfr_fail(w->r, voff, "%s is not a one-string type", t->name);
	jfr_cur_init(&c, w->r, voff, vend);
	if (jfr_read_string(&c, ch, value, sizeof(value)) < 0)
		strcpy(value, "(null)");
	printf("%u %s %llu %s\n", w->chunk, t->name, (unsigned long long)key, value);
	return c.bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	char err[512];
	struct walk w = {0};
	struct jfr_hooks hooks = {.entry = entry, .arg = &w};
	struct jfr_chunk ch;

	if (argc != 2) {
		fprintf(stderr, "usage: enum_pools FILE\n");
		return 2;
	}
	w.r = jfr_open_file(argv[1], err, sizeof(err));
	if (!w.r) {
		fprintf(stderr, "enum_pools: %s\n", err);
		return 1;
	}
	w.r->hooks = &hooks;
	for (uint64_t off = 0; off < w.r->size; off = ch.off + ch.size, w.chunk++) {
		if (jfr_chunk_load(w.r, off, &ch)) {
			fprintf(stderr, "enum_pools: %s\n", w.r->err);
			jfr_close(w.r);
			return 1;
		}
		jfr_chunk_release(&ch);
	}
	jfr_close(w.r);
	return 0;
}

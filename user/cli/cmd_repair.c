// SPDX-License-Identifier: GPL-2.0
/*
 * lfr repair: makes a recording whose recorder was killed at one of the two short moments that
 * leave bytes after its last complete chunk (while a chunk grows or ends) readable again, by
 * cutting those bytes.  Everything up to the last flush stays.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "jfr/writer.h"

#define PROG "lfr repair"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: lfr repair FILE.jfr...\n\n"
	    "Cuts what follows the last complete chunk of a recording whose recorder was\n"
	    "killed while a chunk grew or ended, so that `jfr` and JMC read it again, and\n"
	    "ends at its chunk's end a filler that a recorder killed while it started a new\n"
	    "chunk left past it.  Every chunk kept is read as lfr report reads it first.  A\n"
	    "file that needs nothing is left as it is, and so is one damaged inside a chunk\n"
	    "(lfr merge -o NEW.jfr FILE.jfr copies its other chunks) or whose damaged chunk\n"
	    "has complete chunks after it (only a tail that reaches the end of the file is\n"
	    "cut).  Do not run it on a file being recorded.\n\n"
	    "Exit status: 0 when every file is readable now, 6 when one could not be repaired.\n");
}

int cmd_repair(int argc, char **argv)
{
	int ret = LFR_EXIT_OK;

	if (argc < 2) {
		usage(stderr);
		return LFR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return LFR_EXIT_OK;
	}
	for (int i = 1; i < argc; i++) {
		char err[512] = "";
		int r = lfr_jfr_repair(argv[i], err, sizeof(err));

		if (r < 0) {
			fprintf(stderr, "%s: %s: %s\n", PROG, argv[i], err[0] ? err : strerror(-r));
			ret = LFR_EXIT_IO;
		} else if (r == 0) {
			printf("%s: nothing to repair\n", argv[i]);
		} else {
			printf("%s: repaired: %s\n", argv[i], err);
		}
	}
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/* lfr: the command-line front end.  Each subcommand lives in its own cli/cmd_*.c file. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static const struct lfr_command commands[] = {
    {"version", cmd_version, "print the version of the lfr tools"},
    {"record", cmd_record, "sample threads into a JFR file (or, always on, a repository)"},
    {"report", cmd_report, "show top functions, threads, flame graphs of a JFR file"},
    {"top", cmd_top, "a live view of the hottest functions (perf top's)"},
    {"repair", cmd_repair, "make a recording cut short by a crash readable again"},
    {"dump", cmd_dump, "write a continuous recording's recent history to a JFR file"},
    {"merge", cmd_merge, "join a JVM's recording and lfr's into one JFR file on one timeline"},
    {"export", cmd_export, "send recordings to fleet backends (OpenTelemetry, Pyroscope)"},
    {"status", cmd_status, "show the recording sessions and the module's counters"},
    {"stop", cmd_stop, "stop a recording session"},
    {"raw", cmd_raw, "sample, print every ring record as text, check the accounting"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: lfr [--help] [--version] COMMAND [ARGS...]\n\n"
	             "lfr, the Linux flight recorder: records what threads do into JFR files.\n\n"
	             "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\nRun 'lfr COMMAND --help' for the options of one command; see lfr(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return LFR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	/*
	 * A file past RLIMIT_FSIZE is a write error (EFBIG) to report and clean up after, not a
	 * signal that kills the command with its temporary file left behind.
	 */
	signal(SIGXFSZ, SIG_IGN);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			char prog[32];

			/* getopt's messages start with argv[0]: "lfr report: ...", not "report: "
			 */
			snprintf(prog, sizeof(prog), "lfr %s", commands[i].name);
			argv[1] = prog;
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "lfr: '%s' is not a command; run 'lfr --help' for the list\n", argv[1]);
	return LFR_EXIT_USAGE;
}

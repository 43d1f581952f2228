/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line options as a table: each entry names an option (its long name, its letter and
 * further letters that mean the same), how its argument is read (the cli_parse_* readers of
 * ctl_util.h, whose messages name the option as --NAME) and where the value goes.  One call
 * builds getopt_long's tables from it and parses; what a table cannot say (options that
 * exclude each other, defaults that depend on others) stays with the command, after the call.
 */
#ifndef LFR_CLI_OPTIONS_H
#define LFR_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum cli_opt_type {
	CLI_OPT_SET,     /* bool *: true */
	CLI_OPT_CLEAR,   /* bool *: false */
	CLI_OPT_U32,     /* uint32_t *: a number in [min, max] */
	CLI_OPT_U64,     /* uint64_t *: a number in [min, max] */
	CLI_OPT_INT,     /* int *: a number in [min, max] */
	CLI_OPT_SIZE32,  /* uint32_t *: a size with K, M, G suffixes in [min, max] */
	CLI_OPT_SECONDS, /* double *: a duration with units, [min, max] in ns, stored in s */
	CLI_OPT_MS,      /* uint64_t *: milliseconds, or a duration with units, up to max ms */
	CLI_OPT_IDS,     /* struct cli_ids *: a comma-separated list of ids, appended */
	CLI_OPT_STRING,  /* const char **: the argument itself */
	CLI_OPT_CALL,    /* parse(argument, dst): the command's own reader */
	CLI_OPT_HELP,    /* the usage on standard output, exit status 0 */
};

/* The destination of CLI_OPT_IDS. */
struct cli_ids {
	uint32_t **ids;
	size_t *n;
};

struct cli_opt {
	const char *name;    /* the long name, without "--" */
	int letter;          /* its short letter, 0 for none */
	const char *aliases; /* further short letters with the same meaning ("P" for -c), or NULL */
	enum cli_opt_type type;
	void *dst;
	uint64_t min, max;
	bool *given; /* when not NULL: set when the option is given */
	/* CLI_OPT_CALL: reads the argument into dst; non-zero after its own message */
	int (*parse)(const char *arg, void *dst);
};

/*
 * Parses argv[1..] against the n options of t, getopt_long's way; with stop_at_command, the
 * first argument that is not an option ends them (it starts a COMMAND).  Returns -1 when the
 * options are read (optind then indexes the first argument left), else the exit status the
 * command returns: LFR_EXIT_OK after --help, LFR_EXIT_USAGE after a bad option or value (its
 * message printed, and for an unknown option the usage on standard error).
 */
int cli_parse_options(const char *prog, const struct cli_opt *t, size_t n, bool stop_at_command,
                      int argc, char **argv, void (*usage)(FILE *out));

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line options as a table: each entry names an option (its long name, its letter and
 * further letters that mean the same), how its argument is read (the cli_parse_* readers of
 * ctl_util.h, whose messages name the option as its entry says, --NAME by default) and where the
 * value goes.  One call builds getopt_long's tables from it and parses; what a table cannot say
 * (options that exclude each other, defaults that depend on others) stays with the command,
 * after the call.
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
	CLI_OPT_SIZE,    /* uint64_t *: the same */
	CLI_OPT_SECONDS, /* double *: a duration with units, [min, max] in ns, stored in s */
	CLI_OPT_NS,      /* uint64_t *: a duration with units in [min, max] ns */
	CLI_OPT_MS,      /* uint64_t *: milliseconds, or a duration with units, up to max ms */
	CLI_OPT_IDS,     /* struct cli_ids *: a comma-separated list of ids, appended */
	CLI_OPT_STRING,  /* const char **: the argument itself */
	CLI_OPT_CALL,    /* parse(flag, argument, dst): the command's own reader */
	CLI_OPT_HELP,    /* the usage on standard output, exit status 0 */
};

/* How an option's messages name it: the flag its reader is given. */
enum cli_opt_named {
	CLI_NAMED_LONG,     /* --NAME (-L for an option without a long name) */
	CLI_NAMED_LETTER,   /* -L, however it was given */
	CLI_NAMED_AS_GIVEN, /* -L after a letter, --NAME after a long name */
};

/* The destination of CLI_OPT_IDS. */
struct cli_ids {
	uint32_t **ids;
	size_t *n;
};

/*
 * An entry whose letter an earlier entry has is a further long name of that option: only its
 * name and letter are read, and messages name the earlier one.
 */
struct cli_opt {
	const char *name;    /* the long name, without "--"; NULL for a letter alone */
	int letter;          /* its short letter, 0 for none */
	const char *aliases; /* further short letters with the same meaning ("P" for -c), or NULL */
	enum cli_opt_type type;
	void *dst;
	uint64_t min, max;
	bool *given; /* when not NULL: set when the option is given */
	/*
	 * CLI_OPT_CALL: reads the argument into dst, FLAG naming the option; returns 0, -1 after
	 * its own message (exit status LFR_EXIT_USAGE), or an exit status of its own.  ARG is
	 * NULL for an option given without its argument (optional, takes).
	 */
	int (*parse)(const char *flag, const char *arg, void *dst);
	enum cli_opt_named named;
	/* The argument may be left out: only --NAME=ARG and -LARG give one (getopt's optional). */
	bool optional;
	/*
	 * When not NULL, the letter may also stand alone (perf's -g, which takes no number): a
	 * word of its own after it is the argument only when takes(word), else it is read as what
	 * follows the option.  With CLI_OWN_MESSAGES, a missing argument (the option last, by
	 * letter or long name) leaves it out as well.  Left out, an argument is not read: only
	 * CLI_OPT_CALL's reader is called, with NULL.
	 */
	bool (*takes)(const char *word);
};

/* cli_parse_options' flags */
enum {
	/* the first argument that is not an option ends them (it starts a COMMAND) */
	CLI_STOP_AT_COMMAND = 1,
	/*
	 * an unknown option, or one without its argument: "PROG: unknown option WORD" or "PROG:
	 * WORD needs a value", then the usage on standard error, for getopt's message
	 */
	CLI_OWN_MESSAGES = 2,
};

/*
 * Parses argv[1..] against the n options of t, getopt_long's way, as the CLI_* flags say.
 * Returns -1 when the options are read (optind then indexes the first argument left), else the
 * exit status the command returns: LFR_EXIT_OK after --help, LFR_EXIT_USAGE after a bad option
 * or value (its message printed, and for an unknown option the usage on standard error), or
 * what a reader returned.
 */
int cli_parse_options(const char *prog, const struct cli_opt *t, size_t n, int flags, int argc,
                      char **argv, void (*usage)(FILE *out));

#endif

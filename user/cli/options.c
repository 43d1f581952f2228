// SPDX-License-Identifier: GPL-2.0
/* Command-line options as a table: see options.h. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "cli/options.h"

/* getopt_long's value of option i: its letter, else a value above every character. */
#define LONG_ONLY(i) (256 + (int)(i))

static int value_of(const struct cli_opt *o, size_t i)
{
	return o->letter ? o->letter : LONG_ONLY(i);
}

/* The option of getopt_long's value c: by letter, alias or long-only index; NULL when none. */
static const struct cli_opt *find(const struct cli_opt *t, size_t n, int c)
{
	if (c >= LONG_ONLY(0))
		return (size_t)(c - LONG_ONLY(0)) < n ? &t[c - LONG_ONLY(0)] : NULL;
	for (size_t i = 0; i < n; i++)
		if (t[i].letter == c || (t[i].aliases && c > 0 && strchr(t[i].aliases, c)))
			return &t[i];
	return NULL;
}

static bool takes_argument(const struct cli_opt *o)
{
	return o->type != CLI_OPT_SET && o->type != CLI_OPT_CLEAR && o->type != CLI_OPT_HELP;
}

/* The option as its messages name it (enum cli_opt_named), given as letter c or a long name. */
static void flag_of(char *buf, size_t len, const struct cli_opt *o, int c, bool long_form)
{
	if (o->name &&
	    (o->named == CLI_NAMED_LONG || (o->named == CLI_NAMED_AS_GIVEN && long_form)))
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->named == CLI_NAMED_AS_GIVEN ? c : o->letter);
}

/* Reads the argument of o into its destination; 0, -1 after the reader's message, or a status. */
static int store(const char *prog, const struct cli_opt *o, const char *flag, const char *arg)
{
	uint64_t v;

	if (!arg && takes_argument(o) && o->type != CLI_OPT_CALL)
		return 0; /* left out (optional, takes): nothing to read */
	switch (o->type) {
	case CLI_OPT_SET:
	case CLI_OPT_CLEAR:
		*(bool *)o->dst = o->type == CLI_OPT_SET;
		return 0;
	case CLI_OPT_U32:
	case CLI_OPT_U64:
	case CLI_OPT_INT:
		if (cli_parse_u64(prog, flag, arg, o->min, o->max, &v))
			return -1;
		if (o->type == CLI_OPT_U32)
			*(uint32_t *)o->dst = (uint32_t)v;
		else if (o->type == CLI_OPT_U64)
			*(uint64_t *)o->dst = v;
		else
			*(int *)o->dst = (int)v;
		return 0;
	case CLI_OPT_SIZE32:
	case CLI_OPT_SIZE:
		if (cli_parse_size(prog, flag, arg, o->min, o->max, &v))
			return -1;
		if (o->type == CLI_OPT_SIZE32)
			*(uint32_t *)o->dst = (uint32_t)v;
		else
			*(uint64_t *)o->dst = v;
		return 0;
	case CLI_OPT_SECONDS:
	case CLI_OPT_NS:
		if (cli_parse_duration(prog, flag, arg, o->min, o->max, &v) < 0)
			return -1;
		if (o->type == CLI_OPT_SECONDS)
			*(double *)o->dst = (double)v / 1e9;
		else
			*(uint64_t *)o->dst = v;
		return 0;
	case CLI_OPT_MS:
		return cli_parse_ms(prog, flag, arg, o->max, (uint64_t *)o->dst) ? -1 : 0;
	case CLI_OPT_IDS: {
		const struct cli_ids *ids = o->dst;

		return cli_parse_ids(prog, flag, arg, ids->ids, ids->n) ? -1 : 0;
	}
	case CLI_OPT_STRING:
		*(const char **)o->dst = arg;
		return 0;
	case CLI_OPT_CALL:
		return o->parse(flag, arg, o->dst);
	case CLI_OPT_HELP:
		return 0;
	}
	return -1;
}

int cli_parse_options(const char *prog, const struct cli_opt *t, size_t n, int flags, int argc,
                      char **argv, void (*usage)(FILE *out))
{
	struct option *longopts = calloc(n + 1, sizeof(*longopts));
	bool own = flags & CLI_OWN_MESSAGES;
	char *shortopts, flag[64];
	size_t k = 0, nlong = 0, len = 3;
	int c, li, ret = -1;

	/* "+:", then each option's letter and aliases, each followed by ':' or "::" for a value */
	for (size_t i = 0; i < n; i++)
		len += 3 * (1 + (t[i].aliases ? strlen(t[i].aliases) : 0));
	shortopts = malloc(len);
	if (!longopts || !shortopts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		ret = LFR_EXIT_FAILURE;
		goto out;
	}
	if (flags & CLI_STOP_AT_COMMAND)
		shortopts[k++] = '+';
	if (own)
		shortopts[k++] = ':'; /* getopt silent, a missing argument told apart */
	for (size_t i = 0; i < n; i++) {
		/* a further long name of an earlier option is that option to getopt */
		const struct cli_opt *o = t[i].letter ? find(t, n, t[i].letter) : &t[i];
		int has_arg = !takes_argument(o) ? no_argument
		              : o->optional      ? optional_argument
		                                 : required_argument;
		const char *a = o->aliases ? o->aliases : "";

		if (t[i].name)
			longopts[nlong++] =
			    (struct option){t[i].name, has_arg, NULL, value_of(o, (size_t)(o - t))};
		for (int l = o == &t[i] ? o->letter : 0; l; l = *a ? *a++ : 0) {
			shortopts[k++] = (char)l;
			for (int colons = has_arg; colons > 0; colons--)
				shortopts[k++] = ':';
		}
	}
	shortopts[k] = '\0';
	optind = 1;
	while ((li = -1, c = getopt_long(argc, argv, shortopts, longopts, &li)) != -1) {
		bool missing = own && c == ':';
		const struct cli_opt *o = find(t, n, missing ? optopt : c);
		const char *arg = optarg;
		bool long_form = li >= 0;
		int err;

		if (missing && o && o->takes) {
			arg = NULL; /* at the end: the option alone */
			long_form = !strncmp(argv[optind - 1], "--", 2);
		} else if (missing || !o) {
			if (missing)
				fprintf(stderr, "%s: %s needs a value\n", prog, argv[optind - 1]);
			else if (own)
				fprintf(stderr, "%s: unknown option %s\n", prog, argv[optind - 1]);
			usage(stderr);
			ret = LFR_EXIT_USAGE;
			break;
		}
		if (o->type == CLI_OPT_HELP) {
			usage(stdout);
			ret = LFR_EXIT_OK;
			break;
		}
		if (arg && o->takes && !long_form && arg == argv[optind - 1] && !o->takes(arg)) {
			optind--; /* a word of its own that it does not take: read next */
			arg = NULL;
		}
		flag_of(flag, sizeof(flag), o, missing ? optopt : c, long_form);
		if ((err = store(prog, o, flag, arg))) {
			ret = err > 0 ? err : LFR_EXIT_USAGE;
			break;
		}
		if (o->given)
			*o->given = true;
	}
out:
	free(longopts);
	free(shortopts);
	return ret;
}

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

/* Reads the argument of o into its destination; 0, or -1 after the reader's message. */
static int store(const char *prog, const struct cli_opt *o, const char *arg)
{
	char flag[64];
	uint64_t v;

	snprintf(flag, sizeof(flag), "--%s", o->name);
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
		if (cli_parse_size(prog, flag, arg, o->min, o->max, &v))
			return -1;
		*(uint32_t *)o->dst = (uint32_t)v;
		return 0;
	case CLI_OPT_SECONDS:
		if (cli_parse_duration(prog, flag, arg, o->min, o->max, &v) < 0)
			return -1;
		*(double *)o->dst = (double)v / 1e9;
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
		return o->parse(arg, o->dst) ? -1 : 0;
	case CLI_OPT_HELP:
		return 0;
	}
	return -1;
}

int cli_parse_options(const char *prog, const struct cli_opt *t, size_t n, bool stop_at_command,
                      int argc, char **argv, void (*usage)(FILE *out))
{
	struct option *longopts = calloc(n + 1, sizeof(*longopts));
	char *shortopts;
	size_t k = 0, len = 2;
	int c, ret = -1;

	/* '+', then each option's letter and aliases, each followed by ':' when it takes a value */
	for (size_t i = 0; i < n; i++)
		len += 2 * (1 + (t[i].aliases ? strlen(t[i].aliases) : 0));
	shortopts = malloc(len);
	if (!longopts || !shortopts) {
		fprintf(stderr, "%s: out of memory\n", prog);
		ret = LFR_EXIT_FAILURE;
		goto out;
	}
	if (stop_at_command)
		shortopts[k++] = '+';
	for (size_t i = 0; i < n; i++) {
		bool arg = t[i].type != CLI_OPT_SET && t[i].type != CLI_OPT_CLEAR &&
		           t[i].type != CLI_OPT_HELP;
		const char *a = t[i].aliases ? t[i].aliases : "";

		longopts[i] = (struct option){t[i].name, arg ? required_argument : no_argument,
		                              NULL, value_of(&t[i], i)};
		for (int l = t[i].letter; l; l = *a ? *a++ : 0) {
			shortopts[k++] = (char)l;
			if (arg)
				shortopts[k++] = ':';
		}
	}
	shortopts[k] = '\0';
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct cli_opt *o = find(t, n, c);

		if (!o) {
			usage(stderr);
			ret = LFR_EXIT_USAGE;
			break;
		}
		if (o->type == CLI_OPT_HELP) {
			usage(stdout);
			ret = LFR_EXIT_OK;
			break;
		}
		if (store(prog, o, optarg)) {
			ret = LFR_EXIT_USAGE;
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

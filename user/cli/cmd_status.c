// SPDX-License-Identifier: GPL-2.0
/* lfr status: the state and counters of the current (or a given) recording session. */
#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: lfr status [-S ID] [-A] [-m]\n\n"
	    "Shows the state of the newest recording session (or session ID) and the module's\n"
	    "counters: ticks, samples taken and committed, samples lost by reason, stack walks\n"
	    "pending, and the time spent in the timer interrupt and in the stack walks.\n\n"
	    "  -S, --session ID   the session to show (default: the newest)\n"
	    "  -A, --per-cpu      also show every CPU's counters (perf stat's -A)\n"
	    "  -m, --machine      one 'status KEY=VALUE...' line (and 'status_cpu' lines),\n"
	    "                     for scripts\n"
	    "  -h, --help         this text\n\n"
	    "Exit status: 0, 3 if lfr.ko is not loaded, 4 without CAP_PERFMON/CAP_SYS_ADMIN.\n");
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"session", required_argument, NULL, 'S'},
	    {"per-cpu", no_argument, NULL, 'A'},
	    {"machine", no_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int64_t session = -1;
	bool per_cpu = false, machine = false;
	struct lfr_error e;
	struct lfr_status st;
	struct lfr_ctl ctl;
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "S:Amh", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			if (cli_parse_u64("lfr status", "--session", optarg, 0, LFR_MAX_SESSION_ID,
			                  &v))
				return LFR_EXIT_USAGE;
			session = (int64_t)v;
			break;
		case 'A':
			per_cpu = true;
			break;
		case 'm':
			machine = true;
			break;
		case 'h':
			usage(stdout);
			return LFR_EXIT_OK;
		default:
			usage(stderr);
			return LFR_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "lfr status: unexpected argument '%s'\n", argv[optind]);
		return LFR_EXIT_USAGE;
	}
	if (lfr_ctl_open(&ctl, &e) < 0)
		return cli_fail("lfr status", &e);
	if (lfr_ctl_status(&ctl, session, &st, &e) < 0) {
		lfr_ctl_close(&ctl);
		return cli_fail("lfr status", &e);
	}
	if (machine)
		cli_print_status_machine(stdout, &st, per_cpu);
	else
		cli_print_status_human(stdout, &st, per_cpu);
	lfr_status_free(&st);
	lfr_ctl_close(&ctl);
	return LFR_EXIT_OK;
}

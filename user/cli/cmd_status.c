// SPDX-License-Identifier: GPL-2.0
/* lfr status: the sessions the module keeps, and the state and counters of the newest (or one). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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
	    "pending, and the time spent in the timer interrupt and in the stack walks.  When the\n"
	    "module keeps several sessions (up to 8 run at once), a line for each comes first.\n\n"
	    "  -S, --session ID   the session to show (default: the newest)\n"
	    "  -A, --per-cpu      also show every CPU's counters (perf stat's -A)\n"
	    "  -m, --machine      one 'status KEY=VALUE...' line (and 'status_cpu' lines),\n"
	    "                     for scripts; with several sessions, a 'session KEY=VALUE...'\n"
	    "                     line for each first\n"
	    "  -h, --help         this text\n\n"
	    "Exit status: 0, 3 if lfr.ko is not loaded, 4 without CAP_PERFMON/CAP_SYS_ADMIN.\n");
}

/* One line per session the module keeps, newest first; nothing when it keeps one or none. */
static int list_sessions(struct lfr_ctl *ctl, const struct lfr_status *newest, bool machine)
{
	if (newest->nsessions < 2)
		return 0;
	if (!machine)
		printf("%zu sessions (newest first):\n  %5s  %-8s  %9s  %5s  %-8s  %10s  %8s\n",
		       newest->nsessions, "id", "state", "rate", "depth", "control", "samples",
		       "lost");
	for (size_t i = 0; i < newest->nsessions; i++) {
		const struct lfr_session_info *in;
		struct lfr_status one;
		struct lfr_error e;
		uint64_t lost;

		if (lfr_ctl_status(ctl, newest->sessions[i], &one, &e) < 0) {
			if (e.code == ENOENT)
				continue; /* forgotten since the list was made */
			return cli_fail("lfr status", &e);
		}
		in = &one.info;
		lost = lfr_counters_lost(&one.total);
		if (machine)
			printf("session id=%u state=%s period_ns=%" PRIu64
			       " user_depth=%u detached=%d "
			       "samples_committed=%" PRIu64 " ticks_lost=%" PRIu64 "\n",
			       in->id, lfr_state_name(in->state), in->period_ns, in->user_depth,
			       in->detached, one.total.v[LFR_CTR_SAMPLES_COMMITTED], lost);
		else
			printf("  %5u  %-8s  %6.1f Hz  %5u  %-8s  %10" PRIu64 "  %8" PRIu64 "\n",
			       in->id, lfr_state_name(in->state),
			       in->period_ns ? 1e9 / (double)in->period_ns : 0.0, in->user_depth,
			       in->detached ? "detached" : "attached",
			       one.total.v[LFR_CTR_SAMPLES_COMMITTED], lost);
		lfr_status_free(&one);
	}
	if (!machine)
		printf("\n");
	return 0;
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
	if (session < 0 && (c = list_sessions(&ctl, &st, machine))) {
		lfr_status_free(&st);
		lfr_ctl_close(&ctl);
		return c;
	}
	if (machine)
		cli_print_status_machine(stdout, &st, per_cpu);
	else
		cli_print_status_human(stdout, &st, per_cpu);
	lfr_status_free(&st);
	lfr_ctl_close(&ctl);
	return LFR_EXIT_OK;
}

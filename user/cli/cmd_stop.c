// SPDX-License-Identifier: GPL-2.0
/* lfr stop: stops a running recording session and waits until it has drained. */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: lfr stop [-S ID] [--no-wait | --timeout T] [-m]\n\n"
	    "Stops the running recording session (or session ID): sampling ends at once, then the\n"
	    "session drains (stack walks already queued run when their threads next return to\n"
	    "user space) and becomes stopped.  The recorder reading its rings then finishes.\n"
	    "Walks still queued after the timeout belong to threads blocked in the kernel since\n"
	    "their tick (in a system-wide session, possibly the shell waiting for this command):\n"
	    "they are given up and their ticks counted lost as 'abandoned'.\n\n"
	    "  -S, --session ID   the session to stop (default: the running one)\n"
	    "      --no-wait      return once sampling has stopped, without waiting for the drain\n"
	    "      --timeout T    wait at most T for the drain: ms, or with a unit (2s, 1m;\n"
	    "                     default 2000 ms)\n"
	    "  -m, --machine      print the final state as a 'status KEY=VALUE...' line\n"
	    "  -h, --help         this text\n\n"
	    "Exit status: 0, 1 if the session did not stop, 3 if lfr.ko is not loaded,\n"
	    "4 without CAP_PERFMON/CAP_SYS_ADMIN.\n");
}

int cmd_stop(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"session", required_argument, NULL, 'S'}, {"no-wait", no_argument, NULL, 'n'},
	    {"timeout", required_argument, NULL, 't'}, {"machine", no_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	int64_t session = -1;
	bool wait = true, machine = false;
	uint64_t timeout_ms = 2000, abandoned = 0;
	struct lfr_session_info info;
	struct lfr_error e;
	struct lfr_status st;
	struct lfr_ctl ctl;
	int c;

	while ((c = getopt_long(argc, argv, "S:mh", opts, NULL)) != -1) {
		if (c == 'n')
			wait = false;
		else if (c == 't') {
			if (cli_parse_ms("lfr stop", "--timeout", optarg, 86400000, &timeout_ms))
				return LFR_EXIT_USAGE;
		} else if ((c = cli_session_opt("lfr stop", c, optarg, &session, &machine,
		                                usage)) >= 0)
			return c;
	}
	if ((c = cli_no_operands("lfr stop", argc, argv)))
		return c;
	if (lfr_ctl_open(&ctl, &e) < 0)
		return cli_fail("lfr stop", &e);
	if (lfr_ctl_stop(&ctl, session, &info, &e) < 0) {
		lfr_ctl_close(&ctl);
		return cli_fail("lfr stop", &e);
	}
	if (!wait || info.state == LFR_STATE_STOPPED) {
		if (machine)
			printf("status session=%u state=%s\n", info.id, lfr_state_name(info.state));
		else
			printf("session %u: %s\n", info.id, lfr_state_name(info.state));
		lfr_ctl_close(&ctl);
		return LFR_EXIT_OK;
	}
	if (!machine)
		printf("session %u: %s\n", info.id, lfr_state_name(info.state));
	if (lfr_ctl_wait_stopped(&ctl, info.id, (int)timeout_ms, &st, &e) < 0) {
		struct lfr_status last;

		if (e.code != ETIMEDOUT || lfr_ctl_status(&ctl, info.id, &last, &e) < 0) {
			lfr_ctl_close(&ctl);
			return cli_fail("lfr stop", &e);
		}
		abandoned = last.total.v[LFR_CTR_WORKS_PENDING];
		lfr_status_free(&last);
		/* what is still queued waits for threads blocked in the kernel: give it up */
		if (lfr_ctl_abandon(&ctl, info.id, NULL, &e) < 0 ||
		    lfr_ctl_wait_stopped(&ctl, info.id, 5000, &st, &e) < 0) {
			lfr_ctl_close(&ctl);
			return cli_fail("lfr stop", &e);
		}
	}
	if (machine)
		cli_print_status_machine(stdout, &st, false);
	else if (abandoned)
		printf("session %u: %s (gave up %" PRIu64 " stack walks still queued after %" PRIu64
		       " ms: %" PRIu64 " ticks lost as 'abandoned')\n",
		       info.id, lfr_state_name(st.info.state), abandoned, timeout_ms,
		       (uint64_t)st.total.v[LFR_CTR_LOST_ABANDONED]);
	else
		printf("session %u: %s\n", info.id, lfr_state_name(st.info.state));
	lfr_status_free(&st);
	lfr_ctl_close(&ctl);
	return LFR_EXIT_OK;
}

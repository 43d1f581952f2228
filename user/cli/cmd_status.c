// SPDX-License-Identifier: GPL-2.0
/* lfr status: the sessions the module keeps, and the state and counters of the newest (or one). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "export/state.h"
#include "jfr/repository.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: lfr status [-S ID] [-A] [-m] [-R DIR]\n\n"
	    "Shows the state of the newest recording session (or session ID) and the module's\n"
	    "counters: ticks, samples taken and committed, samples lost by reason, stack walks\n"
	    "pending, and the time spent in the timer interrupt and in the stack walks.  When the\n"
	    "module keeps several sessions (up to 8 run at once), a line for each comes first.\n"
	    "The exports of the repository (lfr record --export) come before: for each backend\n"
	    "the chunks waiting, sent and lost by reason, and its last error.\n\n"
	    "  -S, --session ID   the session to show (default: the newest)\n"
	    "  -A, --per-cpu      also show every CPU's counters (perf stat's -A)\n"
	    "  -m, --machine      one 'status KEY=VALUE...' line (and 'status_cpu' lines),\n"
	    "                     for scripts; with several sessions, a 'session KEY=VALUE...'\n"
	    "                     line for each first\n"
	    "  -R, --repository DIR  the repository whose exports to show (default: the\n"
	    "                     service's, " LFR_DEFAULT_REPOSITORY ", when it is there)\n"
	    "  -h, --help         this text\n\n"
	    "Exit status: 0, 3 if lfr.ko is not loaded, 4 without CAP_PERFMON/CAP_SYS_ADMIN, 6\n"
	    "if the repository of -R cannot be read.\n");
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

/* seconds from then (epoch ns) to now, for "N s ago" */
static double ago(int64_t then)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((double)ts.tv_sec * 1e9 + (double)ts.tv_nsec - (double)then) / 1e9;
}

static void print_export(const struct lfr_export_state *st, bool machine)
{
	if (machine) {
		printf("export target=%s pending_chunks=%" PRIu64 " pending_bytes=%" PRIu64
		       " sent_chunks=%" PRIu64 " sent_bytes=%" PRIu64 " sent_samples=%" PRIu64,
		       st->target, st->pending_chunks, st->pending_bytes, st->sent_chunks,
		       st->sent_bytes, st->sent_samples);
		for (int k = 0; k < LFR_LOSS_COUNT; k++)
			printf(" lost_%s=%" PRIu64, lfr_export_loss_name((enum lfr_export_loss)k),
			       st->lost_chunks[k]);
		printf(" retries=%" PRIu64 " pid=%" PRIu32 " done=%s\n", st->retries, st->pid,
		       st->done[0] ? st->done : "-");
		return;
	}
	printf("  %s: %" PRIu64 " chunks waiting (%" PRIu64 " bytes), %" PRIu64 " sent (%" PRIu64
	       " CPU samples)",
	       st->target, st->pending_chunks, st->pending_bytes, st->sent_chunks,
	       st->sent_samples);
	for (int k = 0; k < LFR_LOSS_COUNT; k++)
		if (st->lost_chunks[k])
			printf(", %" PRIu64 " lost (%s)", st->lost_chunks[k],
			       lfr_export_loss_name((enum lfr_export_loss)k));
	if (st->last_ok)
		printf("; the last sent %.0f s ago", ago(st->last_ok));
	printf("\n");
	if (st->error[0] && st->last_error > st->last_ok)
		printf("    last error %.0f s ago: %s\n", ago(st->last_error), st->error);
}

/*
 * The exports' state files of repository dir (quietly none when it is the default and is not
 * there): 0, or an exit status after saying why.
 */
static int list_exports(const char *dir, bool given, bool machine)
{
	char why[512];
	int dfd = lfr_jfr_repo_open_trusted(dir, true, why, sizeof(why)), n = 0;
	struct dirent *de;
	DIR *d;

	if (dfd < 0) {
		if (!given && dfd == -ENOENT)
			return 0;
		fprintf(stderr, "lfr status: %s\n", why);
		return LFR_EXIT_IO;
	}
	d = fdopendir(dfd);
	while (d && (de = readdir(d))) {
		struct lfr_export_state st;
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, LFR_EXPORT_STATE_PREFIX, strlen(LFR_EXPORT_STATE_PREFIX)) ||
		    (len > 4 && !strcmp(de->d_name + len - 4, ".tmp")) ||
		    lfr_export_state_read(dirfd(d), de->d_name, &st, why, sizeof(why)))
			continue;
		if (!n++ && !machine)
			printf("Exports of %s:\n", dir);
		print_export(&st, machine);
	}
	if (d)
		closedir(d);
	else
		close(dfd);
	if (n && !machine)
		printf("\n");
	return 0;
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"session", required_argument, NULL, 'S'}, {"per-cpu", no_argument, NULL, 'A'},
	    {"machine", no_argument, NULL, 'm'},       {"repository", required_argument, NULL, 'R'},
	    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	int64_t session = -1;
	bool per_cpu = false, machine = false;
	const char *repository = NULL;
	struct lfr_error e;
	struct lfr_status st;
	struct lfr_ctl ctl;
	int c;

	while ((c = getopt_long(argc, argv, "S:AmR:h", opts, NULL)) != -1) {
		if (c == 'A')
			per_cpu = true;
		else if (c == 'R')
			repository = optarg;
		else if ((c = cli_session_opt("lfr status", c, optarg, &session, &machine,
		                              usage)) >= 0)
			return c;
	}
	if ((c = cli_no_operands("lfr status", argc, argv)))
		return c;
	if ((c = list_exports(repository ? repository : LFR_DEFAULT_REPOSITORY, repository,
	                      machine)))
		return c;
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

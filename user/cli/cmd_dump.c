// SPDX-License-Identifier: GPL-2.0
/*
 * lfr dump: writes the recent history of a continuous recording (`lfr record --repository DIR`,
 * the lfr service) to one JFR file, while it keeps recording or after it ended or crashed.  It
 * joins the repository's chunk files that cover the span asked, the newest one as of its last
 * flush, into one recording: what JFR calls a dump.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "jfr/repository.h"

#define PROG "lfr dump"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: lfr dump [--last TIME] [-o FILE] [REPOSITORY]\n\n"
	        "Writes what a continuous recording kept (lfr record --repository, the lfr\n"
	        "service) to one JFR file that jfr, JDK Mission Control and lfr report read.\n"
	        "The recording goes on; a recording that ended or was killed can be dumped too,\n"
	        "up to its last flush (at most about a second before).  A chunk file whose\n"
	        "events do not parse (a block a crash zeroed) is left out and named on stderr,\n"
	        "as is one that cannot be read (its permissions, an I/O error, a FIFO).\n\n"
	        "  REPOSITORY            the recording's repository directory (default %s)\n"
	        "      --last TIME       only the last TIME (30s, 10m, 1h): whole chunks, so the\n"
	        "                        file starts up to one chunk age earlier (default: all)\n"
	        "  -o, --output FILE     the file to write (default lfr-dump-DATE-TIME.jfr; -\n"
	        "                        standard output), a new file renamed over FILE once\n"
	        "                        complete, mode 0640; a FILE that is no regular file\n"
	        "                        (a FIFO, a link), or another user's in a sticky\n"
	        "                        directory such as /tmp, is refused\n"
	        "  -q, --quiet           no summary\n\n"
	        "Examples:\n"
	        "  lfr dump --last 5m -o incident.jfr\n"
	        "  lfr dump /var/lib/lfr-repo -o all.jfr && lfr report all.jfr\n\n"
	        "Exit status: 0; 1 when no chunk covers the span; 2 bad usage; 6 the repository\n"
	        "or the file could not be read or written, or no chunk file of the span could\n"
	        "be read; 8 every chunk of the span is damaged; 10 chunk files of the span that\n"
	        "could not be read were left out (named on stderr), the others written.\n",
	        LFR_DEFAULT_REPOSITORY);
}

static void utc(char *buf, size_t n, int64_t nanos)
{
	time_t secs = (time_t)(nanos / 1000000000);
	struct tm tm;

	if (!gmtime_r(&secs, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, n, "?");
}

/* What was written to out (- standard output), on standard output unless the recording is there. */
static void print_summary(const char *out, const struct lfr_jfr_dump_stats *s)
{
	char from[40], to[40];

	/* the recording itself may be on standard output */
	FILE *say = strcmp(out, "-") ? stdout : stderr;
	utc(from, sizeof(from), s->start_nanos);
	utc(to, sizeof(to), s->end_nanos);
	fprintf(say, "%s: wrote %s: %" PRIu64 " chunk%s, %" PRIu64 " bytes, %.1f s from %s to %s\n",
	        PROG, strcmp(out, "-") ? out : "standard output", s->chunks,
	        s->chunks == 1 ? "" : "s", s->bytes, (double)(s->end_nanos - s->start_nanos) / 1e9,
	        from, to);
	if (s->skipped)
		fprintf(say,
		        "  %" PRIu64 " chunk file%s evicted while the dump read the repository\n",
		        s->skipped, s->skipped == 1 ? " was" : "s were");
	if (s->rebased)
		fprintf(say,
		        "  %" PRIu64
		        " chunk%s counting from another clock origin (an earlier boot, "
		        "a clock step) rebased onto the first chunk's clock\n",
		        s->rebased, s->rebased == 1 ? "" : "s");
	if (s->unrebased)
		fprintf(
		    say,
		    "  %" PRIu64 " chunk%s of another clock origin copied as %s (not readable to "
		    "rebase): JDK 25 misplaces %s events\n",
		    s->unrebased, s->unrebased == 1 ? "" : "s",
		    s->unrebased == 1 ? "it is" : "they are", s->unrebased == 1 ? "its" : "their");
	if (strcmp(out, "-"))
		fprintf(say, "  look at it: lfr report %s  |  jfr summary %s\n", out, out);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"last", required_argument, NULL, 'l'},
	    {"output", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *dir = LFR_DEFAULT_REPOSITORY, *out = NULL;
	char defout[64], err[512] = "";
	struct lfr_jfr_dump_stats st;
	uint64_t last_ns = 0;
	int64_t since = 0;
	bool quiet = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (cli_parse_duration(PROG, "--last", optarg, 1000000,
			                       366 * 86400000000000ull, &last_ns) < 0)
				return LFR_EXIT_USAGE;
			break;
		default:
			if ((ret = cli_output_option("dump", c, &out, &quiet, usage)) >= 0)
				return ret;
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "%s: one repository at a time ('%s' is one too many)\n", PROG,
		        argv[optind]);
		return LFR_EXIT_USAGE;
	}
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (!out) {
		struct tm tm;

		gmtime_r(&now.tv_sec, &tm);
		strftime(defout, sizeof(defout), "lfr-dump-%Y%m%d-%H%M%S.jfr", &tm);
		out = defout;
	}
	if (last_ns)
		since = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - (int64_t)last_ns;
	ret = lfr_jfr_repo_dump(dir, out, since, &st, err, sizeof(err));
	if (ret == -ENOENT && st.chunks == 0 && strstr(err, "no chunk")) {
		fprintf(stderr,
		        "%s: %s\n  hint: is a continuous recording writing there? (lfr record "
		        "--repository DIR, or systemctl status lfr)\n",
		        PROG, err);
		return LFR_EXIT_FAILURE;
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return ret == -EUCLEAN ? LFR_EXIT_FORMAT : LFR_EXIT_IO;
	}
	if (st.damaged)
		fprintf(stderr, "%s: left out %" PRIu64 " damaged chunk file%s: %s (%s%s)\n", PROG,
		        st.damaged, st.damaged == 1 ? "" : "s", st.damaged_names, st.damaged_why,
		        st.damaged == 1 ? "" : ", the first");
	/* nothing is lost: what could not be read is named, and the exit status says so */
	if (st.unreadable)
		fprintf(stderr,
		        "%s: left out %" PRIu64
		        " chunk file%s that could not be read: %s; the dump "
		        "holds the others (exit %d): make them readable and dump again for all\n",
		        PROG, st.unreadable, st.unreadable == 1 ? "" : "s", st.unreadable_names,
		        LFR_EXIT_PARTIAL);
	ret = st.unreadable ? LFR_EXIT_PARTIAL : LFR_EXIT_OK;
	if (quiet)
		return ret;
	print_summary(out, &st);
	return ret;
}

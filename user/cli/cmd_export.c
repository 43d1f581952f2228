// SPDX-License-Identifier: GPL-2.0
/*
 * lfr export: recordings on disk sent to fleet backends, chunk by chunk, each target on its own:
 * a chunk a backend does not take now is tried again (a wait that doubles, with jitter) until
 * --retry-for has passed, and the command ends with what was not delivered.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "cli/export_opts.h"
#include "cli/options.h"
#include "jfr/reader.h"
#include "jfr/repository.h"

#define PROG "lfr export"
#define RETRY_FOR_NS (120 * 1000000000ull)

/* What became of one target's chunks. */
struct outcome {
	struct lfr_sender *s;
	uint64_t sent, samples, bytes, refused, damaged, undelivered;
	bool stopped;   /* gave up: the rest is undelivered */
	char why[1024]; /* why it gave up, or why the last chunk was refused */
	char from[300]; /* the first chunk not delivered */
};

struct job {
	struct cli_export x;
	uint64_t retry_for_ns;
	bool quiet;
	struct outcome out[LFR_EXPORT_TARGETS_MAX];
	int status; /* the worst input status: LFR_EXIT_IO, LFR_EXIT_FORMAT */
	uint64_t rng;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: lfr export --to KIND=URL [--to KIND=URL...] [options] FILE|DIR...\n\n"
	        "Sends recordings on disk to fleet backends, one chunk at a time: JFR files\n"
	        "(lfr record -o, lfr dump) and continuous recordings' repositories (every chunk\n"
	        "file, oldest first).  A backend that does not take a chunk now (no answer, a\n"
	        "timeout, 429, 5xx) gets it again after a wait that doubles from 1 s up to a\n"
	        "minute, until --retry-for has passed; a chunk whose content it refuses (400,\n"
	        "413, 422) is reported and skipped; an answer every upload would get (401,\n"
	        "403, 404, a redirect) ends that target's export.  What each got, and what it\n"
	        "did not, is printed at the end.\n\n");
	cli_export_usage(out, "--to KIND=URL");
	fprintf(
	    out,
	    "      --retry-for TIME   how long a chunk is tried again (default 2m; 0: once)\n"
	    "      --timeout TIME     the limit of each request (default 30s)\n"
	    "  -q, --quiet            only errors and the summary of what was not delivered\n\n"
	    "Exit status: 0 every chunk delivered; 11 chunks not delivered (refused, or the\n"
	    "backend gave up on); 2 bad command line; 6 an input not readable; 8 an input\n"
	    "not a recording, or a chunk of one that does not parse (the others are sent).\n"
	    "Examples:\n"
	    "  lfr export --to otlp=http://collector:4318 app.jfr\n"
	    "  lfr export --to pyroscope=https://pyroscope.example:4040 /var/lib/lfr/repository\n");
}

static void usage_or_hint(FILE *out)
{
	if (out == stdout)
		usage(stdout);
	else
		fprintf(stderr, "Run 'lfr export --help' for the options.\n");
}

/* Sleeps ns in slices, stopping early on Ctrl-C. */
static void nap(uint64_t ns)
{
	uint64_t until = lfr_mono_ns() + ns;

	while (!interrupted && lfr_mono_ns() < until) {
		struct timespec ts = {0, 50000000};

		nanosleep(&ts, NULL);
	}
}

/* The wait before try attempt + 1: 1 s doubled each time up to 60 s, between half and all. */
static uint64_t backoff(struct job *j, unsigned attempt)
{
	uint64_t d = 1000000000ull;

	for (unsigned i = 0; i < attempt && d < 60000000000ull; i++)
		d *= 2;
	if (d > 60000000000ull)
		d = 60000000000ull;
	j->rng ^= j->rng << 13;
	j->rng ^= j->rng >> 7;
	j->rng ^= j->rng << 17;
	return d / 2 + j->rng % (d / 2 + 1);
}

/* One chunk to one target, tried again while the backend says later and --retry-for lasts. */
static void send_one(struct job *j, size_t i, const uint8_t *data, size_t len, const char *name)
{
	struct outcome *o = &j->out[i];
	struct lfr_send_report rep;
	uint64_t first_fail = 0;
	unsigned parts = 0, attempt = 0;

	for (;;) {
		enum lfr_send_result r =
		    lfr_sender_chunk(o->s, data, len, name, &parts, NULL, NULL, &rep);

		if (r == LFR_SEND_DONE) {
			o->sent += !rep.refused;
			o->samples += rep.samples;
			o->bytes += rep.bytes;
			if (rep.refused) {
				o->refused++;
				snprintf(o->why, sizeof(o->why), "%s", rep.why);
				fprintf(stderr, "%s: %s refused %u part%s of %s: %s\n", PROG,
				        j->x.t[i].spec, rep.refused, rep.refused == 1 ? "" : "s",
				        name, rep.why);
			}
			return;
		}
		if (r == LFR_SEND_DAMAGED) {
			o->damaged++;
			if (!j->status)
				j->status = LFR_EXIT_FORMAT;
			fprintf(stderr, "%s: %s is not readable, left out: %s\n", PROG, name,
			        rep.why);
			return;
		}
		if (!first_fail)
			first_fail = lfr_mono_ns();
		if (r != LFR_SEND_RETRY || interrupted ||
		    lfr_mono_ns() - first_fail >= j->retry_for_ns) {
			snprintf(o->why, sizeof(o->why), "%.900s%s", rep.why,
			         r == LFR_SEND_CONFIG
			             ? " (every upload gets this answer: check the "
			               "URL and the credentials)"
			         : interrupted ? " (interrupted)"
			                       : "");
			snprintf(o->from, sizeof(o->from), "%s", name);
			o->stopped = true;
			o->undelivered++;
			return;
		}
		uint64_t wait = backoff(j, attempt++);

		if (!j->quiet)
			fprintf(stderr, "%s: %s: %s; trying %s again in %.1f s\n", PROG,
			        j->x.t[i].spec, rep.why, name, (double)wait / 1e9);
		nap(wait);
	}
}

/* A chunk to every target still going. */
static void send_all(struct job *j, const uint8_t *data, size_t len, const char *name)
{
	for (size_t i = 0; i < j->x.n; i++) {
		if (j->out[i].stopped)
			j->out[i].undelivered++;
		else
			send_one(j, i, data, len, name);
	}
}

/* Every chunk of a JFR file; 0, or an exit status after saying why. */
static int send_file(struct job *j, const char *path)
{
	char err[512], name[320];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	unsigned k = 0;

	if (!r) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return LFR_EXIT_IO;
	}
	if (!r->size) {
		fprintf(stderr, "%s: %s: empty file: not a JFR recording\n", PROG, path);
		jfr_close(r);
		return LFR_EXIT_FORMAT;
	}
	for (uint64_t off = 0; off < r->size; k++) {
		struct jfr_chunk ch;
		unsigned at;

		if (jfr_chunk_header(&ch, r->data + off, r->size - off, err, sizeof(err), &at)) {
			fprintf(stderr, "%s: %s: offset %llu: %s%s\n", PROG, path,
			        (unsigned long long)(off + at), err,
			        off ? "; the chunks before it were sent" : ": not a JFR recording");
			jfr_close(r);
			return LFR_EXIT_FORMAT;
		}
		snprintf(name, sizeof(name), "%.280s chunk %u", path, k + 1);
		send_all(j, r->data + off, (size_t)ch.size, name);
		off += ch.size;
	}
	jfr_close(r);
	return 0;
}

/* Every chunk file of a repository, oldest first; 0, or an exit status after saying why. */
static int send_repository(struct job *j, const char *dir)
{
	struct lfr_jfr_repo_chunk *v;
	size_t n;
	char err[512];
	int dfd = lfr_jfr_repo_open_trusted(dir, true, err, sizeof(err)), rc = 0;

	if (dfd < 0 || lfr_jfr_repo_list(dir, &v, &n, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		if (dfd >= 0)
			close(dfd);
		return LFR_EXIT_IO;
	}
	for (size_t i = 0; i < n && !interrupted; i++) {
		uint8_t *data;
		uint64_t len;
		/* not walked: each sender reads every event and takes one that does not parse as
		 * damage */
		int got = lfr_jfr_repo_read(dfd, v[i].name, &data, &len, err, sizeof(err));

		if (got == 2) {
			fprintf(stderr, "%s: %s/%s is damaged, left out: %s\n", PROG, dir,
			        v[i].name, err);
			if (!j->status)
				j->status = LFR_EXIT_FORMAT;
		}
		if (got < 0) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			rc = LFR_EXIT_IO;
			break;
		}
		if (got)
			continue;
		send_all(j, data, (size_t)len, v[i].name);
		free(data);
	}
	free(v);
	close(dfd);
	return rc;
}

/* What each target got; the exit status. */
static int summary(const struct job *j)
{
	int rc = j->status;

	for (size_t i = 0; i < j->x.n; i++) {
		const struct outcome *o = &j->out[i];

		if (!j->quiet || o->undelivered || o->refused || o->damaged)
			fprintf(stderr,
			        "%s: %s: %" PRIu64 " chunk%s sent (%" PRIu64
			        " CPU samples, %" PRIu64 " bytes), %" PRIu64 " refused, %" PRIu64
			        " damaged, %" PRIu64 " not delivered\n",
			        PROG, j->x.t[i].spec, o->sent, o->sent == 1 ? "" : "s", o->samples,
			        o->bytes, o->refused, o->damaged, o->undelivered);
		if (o->undelivered)
			fprintf(stderr, "  not delivered from %s on: %s\n", o->from, o->why);
		if (o->undelivered || o->refused)
			rc = rc ? rc : LFR_EXIT_UNDELIVERED;
	}
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct job j = {.x.prog = PROG, .retry_for_ns = RETRY_FOR_NS};
	uint64_t timeout_ns = 0;
	const struct cli_opt opts[] = {
	    {"to", 0, NULL, CLI_OPT_CALL, &j.x, .parse = cli_export_target_opt},
	    {"ca-file", 0, NULL, CLI_OPT_CALL, &j.x, .parse = cli_export_ca_opt},
	    {"export-credentials", 0, NULL, CLI_OPT_CALL, &j.x,
	     .parse = cli_export_credentials_opt},
	    {"retry-for", 0, NULL, CLI_OPT_NS, &j.retry_for_ns, 0, 7 * 86400000000000ull},
	    {"timeout", 0, NULL, CLI_OPT_NS, &timeout_ns, 1000000000, 3600000000000ull},
	    {"quiet", 'q', NULL, CLI_OPT_SET, &j.quiet},
	    {"help", 'h', NULL, CLI_OPT_HELP},
	};
	char why[768];
	int rc = cli_parse_options(PROG, opts, sizeof(opts) / sizeof(opts[0]), CLI_OWN_MESSAGES,
	                           argc, argv, usage_or_hint);

	if (rc >= 0)
		return rc;
	if (!j.x.n || optind == argc) {
		fprintf(stderr, "%s: %s\nRun 'lfr export --help' for the options.\n", PROG,
		        !j.x.n ? "say where to: --to otlp=URL or --to pyroscope=URL"
		               : "say what: a JFR file or a repository");
		return LFR_EXIT_USAGE;
	}
	j.x.send.timeout_s = (long)(timeout_ns / 1000000000ull);
	j.rng = lfr_mono_ns() ^ (uint64_t)getpid() << 32;
	for (size_t i = 0; i < j.x.n; i++)
		if (lfr_sender_new(&j.out[i].s, &j.x.t[i], &j.x.send, why, sizeof(why))) {
			fprintf(stderr, "%s: %s\n", PROG, why);
			for (size_t k = 0; k < i; k++)
				lfr_sender_free(j.out[k].s);
			return LFR_EXIT_FAILURE;
		}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (int a = optind; a < argc; a++) {
		struct stat st;
		int r;

		if (stat(argv[a], &st)) {
			fprintf(stderr, "%s: %s: %s\n", PROG, argv[a], strerror(errno));
			r = LFR_EXIT_IO;
		} else {
			r = S_ISDIR(st.st_mode) ? send_repository(&j, argv[a])
			                        : send_file(&j, argv[a]);
		}
		if (r && !j.status)
			j.status = r;
	}
	rc = summary(&j);
	for (size_t i = 0; i < j.x.n; i++)
		lfr_sender_free(j.out[i].s);
	return rc;
}

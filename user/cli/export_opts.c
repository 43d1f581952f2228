// SPDX-License-Identifier: GPL-2.0
/* lfr record's and lfr export's export options; see export_opts.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/export_opts.h"
#include "export/credentials.h"

int cli_export_target_opt(const char *flag, const char *arg, void *dst)
{
	struct cli_export *x = dst;
	char why[768];

	if (lfr_export_targets_parse(arg, x->t, &x->n, LFR_EXPORT_TARGETS_MAX, why, sizeof(why))) {
		fprintf(stderr, "%s: %s: %s\n", x->prog, flag, why);
		return -1;
	}
	return 0;
}

int cli_export_ca_opt(const char *flag, const char *arg, void *dst)
{
	struct cli_export *x = dst;
	struct stat st;
	int fd = open(arg, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s: %s is not a readable file of certificates (PEM)%s%s\n",
		        x->prog, flag, arg, fd < 0 ? ": " : "", fd < 0 ? strerror(errno) : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	x->send.ca_file = arg;
	return 0;
}

int cli_export_credentials_opt(const char *flag, const char *arg, void *dst)
{
	struct cli_export *x = dst;
	struct lfr_export_auth a;
	char why[768];

	if (!*arg) /* none (the service's setting when it names none) */
		return 0;
	/* read now, so that a file refused is said before anything starts */
	if (lfr_export_auth_load(&a, LFR_EXPORT_OTLP, arg, why, sizeof(why))) {
		fprintf(stderr, "%s: %s: %s\n", x->prog, flag, why);
		return -1;
	}
	lfr_export_auth_free(&a);
	x->send.credentials = arg;
	return 0;
}

void cli_export_usage(FILE *out, const char *flag)
{
	fprintf(out,
	        "  %-20s send to a fleet backend (repeatable): otlp=http(s)://HOST:PORT, an\n"
	        "                         OpenTelemetry Collector's OTLP/HTTP receiver (POST\n"
	        "                         /v1development/profiles; 4318 by default), or\n"
	        "                         pyroscope=http(s)://HOST:PORT, Pyroscope's ingest API\n"
	        "                         (POST /ingest; 4040 by default)\n"
	        "      --ca-file FILE     check TLS certificates against FILE's authorities (PEM)\n"
	        "                         instead of the system's\n"
	        "      --export-credentials FILE\n"
	        "                         a bearer token, basic authentication or headers, one a\n"
	        "                         line ('bearer TOKEN', 'basic USER:PASSWORD', 'header\n"
	        "                         NAME: VALUE', each may start with 'otlp:' or\n"
	        "                         'pyroscope:'); mode 600.  Also $LFR_EXPORT_CREDENTIALS,\n"
	        "                         $LFR_EXPORT_BEARER_TOKEN, $LFR_EXPORT_BASIC_AUTH,\n"
	        "                         $LFR_EXPORT_HEADERS; never on the command line\n",
	        flag);
}

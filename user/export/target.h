/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an export goes: KIND=URL, KIND being otlp (OpenTelemetry's profiles signal over OTLP/HTTP,
 * POST URL/v1development/profiles, an OpenTelemetry Collector's otlp receiver) or pyroscope (a
 * Pyroscope server's ingest API, POST URL/ingest).  A URL is http:// or https://, a host and an
 * optional port and path; it carries no user name or password (credentials come from a file or
 * the environment, export/credentials.h, never from a command line another user can read).
 */
#ifndef LFR_EXPORT_TARGET_H
#define LFR_EXPORT_TARGET_H

#include <stddef.h>
#include <stdint.h>

#define LFR_EXPORT_URL_MAX 512
#define LFR_EXPORT_TARGETS_MAX 8
#define LFR_OTLP_PATH "/v1development/profiles"
#define LFR_PYROSCOPE_PATH "/ingest"

enum lfr_export_kind {
	LFR_EXPORT_OTLP,
	LFR_EXPORT_PYROSCOPE,
};

struct lfr_export_target {
	enum lfr_export_kind kind;
	char spec[LFR_EXPORT_URL_MAX + 16]; /* KIND=URL as given */
	char url[LFR_EXPORT_URL_MAX + 32];  /* where the requests go: URL and the kind's path */
	uint32_t id;                        /* a hash of spec: names its state file */
};

const char *lfr_export_kind_name(enum lfr_export_kind k);

/*
 * Appends the KIND=URL words of arg (separated by blanks or commas; an empty arg adds none) to
 * v[*n..max).  A URL whose path is empty or "/" gets the kind's path; one that ends with it keeps
 * it; any other path is a prefix the kind's path is added to.  Returns 0, or -1 with what is
 * wrong in why.
 */
int lfr_export_targets_parse(const char *arg, struct lfr_export_target *v, size_t *n, size_t max,
                             char *why, size_t whylen);

#endif

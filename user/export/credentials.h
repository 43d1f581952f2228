/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An export's credentials: a bearer token, HTTP basic authentication and extra headers (a tenant
 * id, an API key), from a file (--export-credentials FILE, or $LFR_EXPORT_CREDENTIALS) and from
 * the environment ($LFR_EXPORT_BEARER_TOKEN, $LFR_EXPORT_BASIC_AUTH = USER:PASSWORD,
 * $LFR_EXPORT_HEADERS = NAME: VALUE lines), never from the command line, which other users read
 * in /proc.  The file holds one item a line, for every export or, after "otlp:" or "pyroscope:",
 * for the exports of that kind:
 *
 *     # comments and blank lines are skipped
 *     bearer TOKEN
 *     pyroscope: basic USER:PASSWORD
 *     otlp: header X-Scope-OrgID: tenant-1
 *
 * The lines for a kind replace those for every kind, whatever their order; of a bearer token and
 * basic authentication the later (or the kind's) is used.  The file must be a regular file of its
 * reader's (or root's), readable and writable by nobody else (chmod 600): a token another user
 * can read is given away.
 */
#ifndef LFR_EXPORT_CREDENTIALS_H
#define LFR_EXPORT_CREDENTIALS_H

#include <stddef.h>

#include "export/target.h"

#define LFR_CREDENTIALS_MAX_HEADERS 16
#define LFR_CREDENTIALS_FILE_MAX (64u << 10)

struct lfr_export_auth {
	char *basic;                                    /* USER:PASSWORD, or NULL */
	char *headers[LFR_CREDENTIALS_MAX_HEADERS + 1]; /* "Name: value", the bearer's too */
	size_t nheaders;
};

/*
 * The credentials of the exports of kind from file (NULL: $LFR_EXPORT_CREDENTIALS, or none) and
 * the environment (which the file's lines follow, and may replace).  Returns 0, or -1 with what is
 * wrong in why (the file's name and line).
 */
int lfr_export_auth_load(struct lfr_export_auth *a, enum lfr_export_kind kind, const char *file,
                         char *why, size_t whylen);
void lfr_export_auth_free(struct lfr_export_auth *a);

#endif

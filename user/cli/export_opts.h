/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of an export, as lfr record (--export) and lfr export (--to) take them: the targets
 * (KIND=URL, export/target.h), the TLS authorities and the credentials file.  Readers for
 * cli_opt's CLI_OPT_CALL, whose dst is a struct cli_export.
 */
#ifndef LFR_CLI_EXPORT_OPTS_H
#define LFR_CLI_EXPORT_OPTS_H

#include <stddef.h>

#include "export/send.h"
#include "export/target.h"

struct cli_export {
	struct lfr_export_target t[LFR_EXPORT_TARGETS_MAX];
	size_t n;
	struct lfr_sender_opts send;
	const char *prog;
};

/* --export / --to KIND=URL[,...] (repeatable; empty adds none) */
int cli_export_target_opt(const char *flag, const char *arg, void *dst);
/* --ca-file FILE: a readable regular file */
int cli_export_ca_opt(const char *flag, const char *arg, void *dst);
/* --export-credentials FILE: checked as the exports will read it (export/credentials.h) */
int cli_export_credentials_opt(const char *flag, const char *arg, void *dst);

/* The usage lines of these options, for a command's --help (flag: --export or --to). */
void cli_export_usage(FILE *out, const char *flag);

#endif

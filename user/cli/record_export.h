/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr record --export: the exports that follow its repository (export/follow.h), from the
 * writer's first chunk to a last try at what waits when the recording ends.
 */
#ifndef LFR_CLI_RECORD_EXPORT_H
#define LFR_CLI_RECORD_EXPORT_H

#include <stdio.h>

#include "cli/export_opts.h"
#include "export/follow.h"
#include "jfr/writer.h"

/*
 * At the end, how long the exports may still send what waits (one try each): within the 60 s
 * lfr.service gives the recorder to stop.
 */
#define RECORD_EXPORT_DRAIN_NS 30000000000ull

struct record_export {
	struct cli_export opts; /* --export, --ca-file, --export-credentials */
	struct lfr_follow *follow;
};

/* Sets the writer's hooks (evictions, finished chunk files) to tell the exports once they run. */
void record_export_hooks(struct record_export *x, struct lfr_jfr_options *o);
/* Starts following dir, once the writer has made it; 0, or an exit status after saying why. */
int record_export_start(struct record_export *x, const char *dir);
/* "  export: N waiting, N sent, N lost" for the status line; nothing without exports. */
void record_export_status(struct record_export *x, FILE *out);
/* The recording's last chunk is written: what waits is sent, for a while (see above). */
void record_export_end(struct record_export *x);
/* Each export's counts, for the summary. */
void record_export_summary(struct record_export *x, FILE *out);
void record_export_free(struct record_export *x);

#endif

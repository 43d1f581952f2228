// SPDX-License-Identifier: GPL-2.0
/* lfr record --export; see record_export.h. */
#include <inttypes.h>

#include "cli/commands.h"
#include "cli/record_export.h"

/* the exports told once they run */
static void on_evict(void *arg, const char *name, uint64_t bytes)
{
	struct record_export *x = arg;

	/* the writer's first evictions come after its first flush, when the exports run */
	if (x->follow)
		lfr_follow_evicted(x->follow, name, bytes);
}

static void on_chunk_file(void *arg)
{
	struct record_export *x = arg;

	if (x->follow)
		lfr_follow_chunk_finished(x->follow);
}

void record_export_hooks(struct record_export *x, struct lfr_jfr_options *o)
{
	o->on_evict = on_evict;
	o->on_evict_arg = x;
	o->on_chunk_file = on_chunk_file;
	o->on_chunk_file_arg = x;
}

int record_export_start(struct record_export *x, const char *dir)
{
	struct lfr_follow_opts o = {.send = x->opts.send};
	char why[768];

	if (!x->opts.n)
		return 0;
	if (lfr_follow_start(&x->follow, dir, x->opts.t, x->opts.n, &o, why, sizeof(why))) {
		fprintf(stderr, "%s: --export: %s\n", x->opts.prog, why);
		return LFR_EXIT_FAILURE;
	}
	return 0;
}

void record_export_status(struct record_export *x, FILE *out)
{
	uint64_t pending = 0, sent = 0, lost = 0;
	struct lfr_export_state st;

	if (!x->follow)
		return;
	for (size_t i = 0; i < lfr_follow_count(x->follow); i++) {
		lfr_follow_state(x->follow, i, &st);
		pending += st.pending_chunks;
		sent += st.sent_chunks;
		for (int k = 0; k < LFR_LOSS_COUNT; k++)
			lost += st.lost_chunks[k];
	}
	fprintf(out, "  export: %" PRIu64 " waiting, %" PRIu64 " sent, %" PRIu64 " lost", pending,
	        sent, lost);
}

void record_export_end(struct record_export *x)
{
	if (!x->follow)
		return;
	lfr_follow_recording_ended(x->follow);
	lfr_follow_stop(x->follow, RECORD_EXPORT_DRAIN_NS);
}

void record_export_summary(struct record_export *x, FILE *out)
{
	struct lfr_export_state st;

	for (size_t i = 0; x->follow && i < lfr_follow_count(x->follow); i++) {
		lfr_follow_state(x->follow, i, &st);
		fprintf(out,
		        "  export %s: %" PRIu64 " chunks sent (%" PRIu64 " CPU samples), %" PRIu64
		        " waiting for the next start",
		        st.target, st.sent_chunks, st.sent_samples, st.pending_chunks);
		for (int k = 0; k < LFR_LOSS_COUNT; k++)
			if (st.lost_chunks[k])
				fprintf(out, ", %" PRIu64 " lost (%s)", st.lost_chunks[k],
				        lfr_export_loss_name((enum lfr_export_loss)k));
		fputc('\n', out);
		if (st.error[0] && st.last_error > st.last_ok)
			fprintf(out, "    last error: %s\n", st.error);
	}
}

void record_export_free(struct record_export *x)
{
	lfr_follow_free(x->follow);
	x->follow = NULL;
}

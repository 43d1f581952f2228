// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the JFR reader, every `lfr report` view and its filters, the HTML page of
 * several views, the strict checker built on the same reader, `lfr report --diff`, and `lfr
 * merge`'s rebasing of chunks: any input must either be read or be rejected with an error naming
 * an offset, without crashing, leaking or reading out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jfr/check.h"
#include "jfr/reader.h"
#include "jfr/rebase.h"
#include "report/diff.h"
#include "report/html_views.h"
#include "report/report.h"

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The same input through the report's filters (thread, process, time range) and its other views
 * (objects, sample times, the value by state, pprof, speedscope), with filter values taken from
 * the input so that the fuzzer steers them; and `lfr report --diff` of the whole read (as BASE)
 * and the filtered one.
 */
static void filtered(const uint8_t *data, size_t size, const struct report *whole)
{
	static const char *names[] = {"1", "main", "worker", "", "java", "0", "4294967295"};
	struct jfr_reader *r = jfr_open_mem(data, size, "fuzz");
	uint8_t k = size ? data[size / 2] : 0;
	struct report_opts o;
	struct report *rep = NULL;

	if (!r)
		return;
	report_opts_init(&o);
	o.events[o.nevents++] = "all";
	o.threads[o.nthreads++] = names[k % 7];
	if (k & 8)
		o.processes[o.nprocesses++] = names[(k >> 4) % 7];
	o.from_ns = (k & 16) ? -1 : (int64_t)(size % 997) * 1000000;
	o.to_ns = (k & 32) ? -1 : o.from_ns + (int64_t)k * 10000000;
	o.sort_objects = true;
	o.timeline = true;
	o.states = true;
	o.jobs = 1 + (k & 1);
	if (report_read(r, &o, &rep) < 0 && (!strstr(r->err, ": offset ") || !r->failed))
		abort();
	if (rep) {
		uint64_t sum = 0;
		for (size_t i = 0; i < rep->nstates; i++)
			sum += rep->states[i].value;
		if (rep->nstates && sum != rep->total)
			abort(); /* the rows by state add up to the total */
		report_print_text(rep, &o, sink);
		report_print_collapsed(rep, &o, sink);
		report_print_pprof(rep, &o, sink);
		report_print_speedscope(rep, &o, sink);
		if (whole) {
			report_print_diff_text(whole, rep, &o, sink);
			if (report_print_diff_collapsed(whole, rep, &o, sink))
				abort();
			report_print_html_diff(whole, rep, &o, sink);
			if (report_print_pprof_diff(whole, rep, &o, sink))
				abort();
		}
	}
	report_free(rep);
	jfr_close(r);
}

/*
 * The HTML page of `lfr report -f html` without a view option: the CPU samples and the off-CPU and
 * wall views the input has events for, each read in a pass of its own over the same reader.
 */
static void views(const uint8_t *data, size_t size)
{
	struct jfr_reader *r = jfr_open_mem(data, size, "fuzz");
	struct report_html_views vs;
	struct report_opts o;
	struct report *rep = NULL;

	if (!r)
		return;
	report_opts_init(&o);
	if (report_read(r, &o, &rep) == 0) {
		if (report_html_views_read(r, rep, &o, &vs) < 0 &&
		    (!strstr(r->err, ": offset ") || !r->failed))
			abort();
		report_print_html_views(vs.v, vs.n, sink);
		report_html_views_free(&vs);
	}
	report_free(rep);
	jfr_close(r);
}

/*
 * Every chunk the reader loads rebased as `lfr merge` does, by a delta the input picks (0, small,
 * or one that changes the varints' lengths): it is rebuilt or refused with a message.
 */
static void rebased(const uint8_t *data, size_t size)
{
	static const int64_t deltas[] = {0, -1, 123456789, -600000000123, INT64_MAX / 3};
	struct jfr_reader *r = jfr_open_mem(data, size, "fuzz");
	int64_t delta = deltas[(size ? data[0] : 0) % 5];
	struct jfr_buf out = {0};
	uint64_t off = 0;
	char err[256];

	if (!r)
		return;
	while (off < r->size) {
		struct jfr_chunk ch;

		if (jfr_chunk_load(r, off, &ch))
			break;
		err[0] = 0;
		if (jfr_rebase_chunk(r, &ch, delta, &out, err, sizeof(err)) && !err[0])
			abort(); /* a refusal says why */
		off += ch.size;
		jfr_chunk_release(&ch);
	}
	jfr_buf_free(&out);
	jfr_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jfr_reader *r = jfr_open_mem(data, size, "fuzz");
	struct report_opts o;
	struct report *rep = NULL;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!r)
		return 0;
	report_opts_init(&o);
	o.events[o.nevents++] = "all";
	o.value_field = "weight";
	o.jobs = 2; /* exercise the parallel scan and the in-order merge */
	int rc = report_read(r, &o, &rep);
	if (rc < 0 && (!strstr(r->err, ": offset ") || !r->failed))
		abort(); /* every failure must name an offset */
	if (rep) {
		report_print_text(rep, &o, sink);
		report_print_summary(rep, sink);
		report_print_collapsed(rep, &o, sink);
		o.thread_roots = true;
		report_print_collapsed(rep, &o, sink);
		report_print_html(rep, &o, sink);
	}
	filtered(data, size, rep);
	report_free(rep);
	jfr_close(r);
	views(data, size);
	rebased(data, size);

	/* the reader with the checker's hooks (not a subset of the report's reading: the checker
	 * accepts a filler reaching past its chunk once JMC has stopped) */
	static struct lfr_jfr_check_result cr;
	char err[512];
	if (lfr_jfr_check_buffer(data, size, &cr, err, sizeof(err)) < 0 && size &&
	    strncmp(err, "offset ", 7))
		abort(); /* every rejection names an offset */
	return 0;
}

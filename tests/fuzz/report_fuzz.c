// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the JFR reader and every `lfr report` view: any input must either be read or
 * be rejected with an error naming an offset, without crashing, leaking or reading out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/jfr_reader.h"
#include "report/report.h"

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	report_free(rep);
	jfr_close(r);
	return 0;
}

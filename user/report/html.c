// SPDX-License-Identifier: GPL-2.0
#include "report/report.h"
void report_print_html(const struct report *rep, const struct report_opts *o, FILE *out)
{
	(void)rep;
	(void)o;
	(void)out;
}

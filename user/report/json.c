// SPDX-License-Identifier: GPL-2.0
/* JSON strings for the report formats that embed names (html, speedscope). */
#include "report/report.h"

void report_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

// SPDX-License-Identifier: GPL-2.0
/* JSON strings for the report formats that embed names (html, speedscope). */
#include <string.h>

#include "jfr/encode.h"
#include "report/report.h"

void report_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);

	fputc('"', out);
	while (p < end) {
		unsigned k = jfr_utf8_char(p, (size_t)(end - p));

		if (!k)
			fputs("\\ufffd", out), p++; /* not UTF-8: the replacement character */
		else if (k > 1)
			fwrite(p, 1, k, out), p += k;
		else if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p++);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f)
			fprintf(out, "\\u%04x", *p++);
		else
			fputc(*p++, out);
	}
	fputc('"', out);
}

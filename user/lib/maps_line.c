// SPDX-License-Identifier: GPL-2.0
/* One line of /proc/PID/maps (maps_line.h). */
#include <string.h>

#include "lib/maps_line.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void skip_blanks(const char **p)
{
	while (blank(**p))
		(*p)++;
}

/* At least one digit of base 16 or 10; false on none or on overflow. */
static bool number(const char **p, unsigned int base, uint64_t *v)
{
	const char *s = *p;
	uint64_t r = 0;

	for (;; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			break;
		if (r > (UINT64_MAX - d) / base)
			return false;
		r = r * base + d;
	}
	if (s == *p)
		return false;
	*p = s;
	*v = r;
	return true;
}

bool lfr_maps_line_parse(const char *line, struct lfr_maps_line *m)
{
	const char *p = line;
	uint64_t maj, min;
	size_t n = 0;

	if (!number(&p, 16, &m->start) || *p++ != '-' || !number(&p, 16, &m->end))
		return false;
	skip_blanks(&p);
	while (*p && !blank(*p) && n < sizeof(m->perms) - 1)
		m->perms[n++] = *p++;
	m->perms[n] = '\0';
	if (!n || (*p && !blank(*p)))
		return false;
	skip_blanks(&p);
	if (!number(&p, 16, &m->pgoff))
		return false;
	skip_blanks(&p);
	if (!number(&p, 16, &maj) || *p++ != ':' || !number(&p, 16, &min) || maj > UINT32_MAX ||
	    min > UINT32_MAX)
		return false;
	skip_blanks(&p);
	if (!number(&p, 10, &m->ino))
		return false;
	skip_blanks(&p);
	m->maj = (unsigned int)maj;
	m->min = (unsigned int)min;
	m->path = p;
	m->path_len = strcspn(p, "\n");
	return true;
}

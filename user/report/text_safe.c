// SPDX-License-Identifier: GPL-2.0
/* Names from a recording as plain text may show them.  See text_safe.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/text_safe.h"

/*
 * The character at p: its length in bytes (1 to 4), and in *repl what replaces it, or 0 when it
 * is kept.  UTF-8 as RFC 3629 has it: no overlong form, no surrogate, nothing past U+10FFFF.
 */
static size_t next_char(const unsigned char *p, char *repl)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	*repl = 0;
	if (c < 0x20 || c == 0x7f) {
		*repl = ' ';
		return 1;
	}
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		n = 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (size_t i = 1; i < n; i++) {
		if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xbf)) {
			n = 0;
			break;
		}
	}
	if (!n) {
		*repl = '?';
		return 1;
	}
	/* C1 controls: U+0080 to U+009F, 0xc2 0x80 to 0xc2 0x9f */
	if (c == 0xc2 && p[1] <= 0x9f)
		*repl = ' ';
	return n;
}

bool text_safe_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char repl;

	while (*p) {
		/* printable ASCII, nearly every name, one comparison a byte */
		if (*p >= 0x20 && *p < 0x7f) {
			p++;
			continue;
		}
		p += next_char(p, &repl);
		if (repl)
			return false;
	}
	return true;
}

void text_safe_write(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		char repl;
		size_t n = next_char(p, &repl);

		if (n > (size_t)(end - p)) { /* a character cut at len */
			repl = '?';
			n = 1;
		}
		if (repl)
			fputc(repl, out);
		else
			fwrite(p, 1, n, out);
		p += n;
	}
}

void text_safe_put(FILE *out, const char *s)
{
	text_safe_write(out, s, strlen(s));
}

size_t text_safe_in_place(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t w = 0;

	while (*p) {
		char repl;
		size_t n = next_char(p, &repl);

		if (repl) {
			s[w++] = repl;
		} else {
			memmove(s + w, p, n);
			w += n;
		}
		p += n;
	}
	s[w] = '\0';
	return w;
}

const char *text_safe(struct text_safe *t, const char *s)
{
	unsigned k = t->next;
	size_t len;

	if (!s || text_safe_clean(s))
		return s;
	len = strlen(s) + 1;
	if (t->cap[k] < len) {
		char *b = realloc(t->buf[k], len);

		if (!b)
			return "?";
		t->buf[k] = b;
		t->cap[k] = len;
	}
	t->next = (k + 1) % TEXT_SAFE_BUFS;
	memcpy(t->buf[k], s, len);
	text_safe_in_place(t->buf[k]);
	return t->buf[k];
}

void text_safe_free(struct text_safe *t)
{
	for (unsigned k = 0; k < TEXT_SAFE_BUFS; k++)
		free(t->buf[k]);
	memset(t, 0, sizeof(*t));
}

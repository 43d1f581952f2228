/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names from a recording as plain text may show them (the text report, --diff, lfr top, folded
 * stacks, messages): a name is the file's, and a terminal acts on the control characters in what
 * it is shown (ESC starts a sequence that moves the cursor, clears the screen or sets the
 * window's title; CR and LF start lines).  Every control character (C0, DEL, and C1, U+0080 to
 * U+009F) becomes a space, as one character, and every byte that is not part of a UTF-8
 * character becomes '?'; the rest (printable ASCII and UTF-8 characters) is kept.
 */
#ifndef LFR_REPORT_TEXT_SAFE_H
#define LFR_REPORT_TEXT_SAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether s is written as it is (nothing to replace). */
bool text_safe_clean(const char *s);
/* Writes s to out, its control characters and stray bytes replaced. */
void text_safe_put(FILE *out, const char *s);
/* The same of the len bytes at s (which may hold a NUL: it becomes a space). */
void text_safe_write(FILE *out, const char *s, size_t len);
/* Replaces in s itself (never longer): returns its new length. */
size_t text_safe_in_place(char *s);

/*
 * Buffers for names passed to printf: text_safe() returns s itself when it is clean, else its
 * safe copy in the next of TEXT_SAFE_BUFS buffers (reused in turn), so at most that many of its
 * results may be used at once.  Free the buffers with text_safe_free().
 */
#define TEXT_SAFE_BUFS 4
struct text_safe {
	char *buf[TEXT_SAFE_BUFS];
	size_t cap[TEXT_SAFE_BUFS];
	unsigned next;
};
/* s, or its safe copy; "?" when out of memory for the copy.  NULL stays NULL. */
const char *text_safe(struct text_safe *t, const char *s);
void text_safe_free(struct text_safe *t);

#endif

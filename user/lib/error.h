/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liblfr errors: what failed (the kernel's own extack text, verbatim, when it gave one) and a hint
 * that tells the user what to do about it.
 */
#ifndef LFR_LIB_ERROR_H
#define LFR_LIB_ERROR_H

#include <stdio.h>

struct lfr_error {
	int code;       /* positive errno; 0 = no error */
	char what[256]; /* the operation that failed, e.g. "START" or "open /dev/lfr" */
	char msg[512];  /* the kernel's extack message verbatim, or a message of liblfr's own */
	char hint[256]; /* what to do about it; may be empty */
	int bad_attr; /* type of the attribute the kernel pointed at (NLMSGERR_ATTR_OFFS), or -1 */
	unsigned int bad_attr_off; /* its offset in the request */
	char attr_name[64];        /* its name, when the caller knows the family's attributes */
	int missing_attr;          /* type of a required attribute the kernel missed, or -1 */
	char warning[512];         /* an extack message that came with a successful reply */
	int no_module;             /* the failure means the lfr module is not loaded */
};

void lfr_error_clear(struct lfr_error *e);

/* Sets code and what (printf-style); msg and hint are left for the caller or filled by default. */
void lfr_error_set(struct lfr_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fills hint from the errno and the operation when no more specific hint was set. */
void lfr_error_default_hint(struct lfr_error *e);

/*
 * Prints "lfr: WHAT: MESSAGE (strerror)" and, on the next line, "  hint: HINT".  prog prefixes the
 * first line ("lfr status").
 */
void lfr_error_print(FILE *out, const char *prog, const struct lfr_error *e);

#endif

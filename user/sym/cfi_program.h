/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of one FDE in a single pass over its CFA instructions, for the three rules an unwind
 * table keeps: the CFA as register + offset, the caller's frame pointer and its return address.
 *
 * libdw answers one pc at a time: each dwarf_cfi_addrframe() finds the FDE in its search tree,
 * copies the CIE's state, runs the FDE's instructions from its start up to the pc and allocates
 * the row, about 2 400 instructions a row over the C library, which made loading unwind tables
 * most of a recording's start-up.  An FDE's rows in order are one run of its program.  Anything
 * outside the common subset (DW_CFA_set_loc, a vendor opcode, a CFA expression that is a single
 * register + offset, a CIE with an augmentation it cannot skip, a malformed program) is left to
 * libdw: the caller walks that FDE the slow way, so the rows are libdw's either way
 * (tests/unit/sym_unwind_test.c compares both over every object it finds).
 */
#ifndef LFR_SYM_CFI_PROGRAM_H
#define LFR_SYM_CFI_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "sym/cfi_rule.h"

/* A CIE, ready for its FDEs' programs (cfi_program_cie). */
struct cfi_program_cie {
	bool usable;            /* false: its FDEs are libdw's to walk */
	bool z;                 /* FDEs carry a ULEB128-sized augmentation */
	bool signal;            /* 'S': a signal frame */
	int ra_reg;             /* its return-address column */
	uint64_t caf;           /* code alignment factor */
	int64_t daf;            /* data alignment factor */
	struct cfi_row initial; /* the ABI's defaults, then the CIE's initial instructions */
};

/* Reads CIE c of an object whose registers are regs. */
void cfi_program_cie(const Dwarf_CIE *c, const struct cfi_regs *regs, struct cfi_program_cie *out);

/* Called for each row [start, end) of an FDE, in address order; non-zero stops the run. */
typedef int (*cfi_row_fn)(void *arg, uint64_t start, uint64_t end, const struct cfi_row *row);

#define CFI_PROGRAM_LIBDW 1 /* cfi_program_rows: not in the subset */

/*
 * Runs the FDE whose bytes after its address range are [p, end), covering [lo, hi), calling fn
 * for each row with lo <= start < end <= hi.  Returns 0, fn's non-zero value, or
 * CFI_PROGRAM_LIBDW when the FDE needs libdw: the caller then drops the rows fn was given for it.
 */
int cfi_program_rows(const struct cfi_program_cie *cie, const struct cfi_regs *regs,
                     const uint8_t *p, const uint8_t *end, uint64_t lo, uint64_t hi, cfi_row_fn fn,
                     void *arg);

#endif

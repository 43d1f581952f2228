/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unwind table of one object file: its call frame information (CFI) reduced to the rows the
 * kernel's walk uses to unwind user stacks without frame pointers (LFR_CMD_UNWIND_ADD,
 * struct lfr_unwind_row in linux/lfr.h).
 *
 * Built from the object's .eh_frame and, for code that it does not describe, its .debug_frame
 * (objects built with -fno-asynchronous-unwind-tables -g), read with libdw: every row of every
 * FDE becomes one table row at the row's file offset, with the CFA as sp + k or fp + k, the
 * caller's frame pointer (rbp, x29) unchanged, saved at CFA + n or unknown, and the return address
 * at CFA - 8 (x86-64) or, on arm64, still in x30 or saved below the CFA; any other rule (a DWARF
 * expression as in PLT stubs, a register kept in another register, a signal frame) is a NONE
 * row, as are the gaps between FDEs and the end of the last one.  Rows that differ in nothing but
 * their start are merged.  x86-64 and arm64 objects, by the same code (cfi_rule.h).
 * Documentation/unwinding.md.
 */
#ifndef LFR_SYM_UNWIND_TABLE_H
#define LFR_SYM_UNWIND_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/lfr.h>

struct lfr_unwind_table {
	struct lfr_unwind_hdr hdr;   /* magic, version, nr_rows, the file's ctime */
	struct lfr_unwind_row *rows; /* hdr.nr_rows rows, strictly increasing starts; malloc'ed */
	void *map; /* or, when set, inside this read-only mapping (a kept table) */
	size_t map_len;
};

/*
 * Builds the table of the ELF file open at FD (read, not moved: its offset is left alone); the
 * header's ctime is the fstat of FD.  Returns 0, or a negative errno with a message in err:
 * -ENOEXEC for a file that is not a 64-bit x86-64 or arm64 ELF object, -ENODATA for an object
 * without CFI, -EFBIG for code beyond the 4 GiB the rows' 32-bit offsets reach, -ENOMEM.
 */
int lfr_unwind_table_build(int fd, struct lfr_unwind_table *t, char *err, size_t errlen);

/* How the FDEs of a table were read: in one pass (cfi_program.h), or by libdw a row at a time. */
struct lfr_unwind_build_info {
	uint64_t fdes_one_pass, fdes_libdw;
};

/*
 * lfr_unwind_table_build, and how its FDEs were read (info may be NULL).  With libdw_only, every
 * row comes from libdw, a pc at a time: the same table, four times the instructions; the
 * reference the tests compare the one-pass reading with.
 */
int lfr_unwind_table_build_ex(int fd, struct lfr_unwind_table *t, bool libdw_only,
                              struct lfr_unwind_build_info *info, char *err, size_t errlen);

void lfr_unwind_table_free(struct lfr_unwind_table *t);

/* The bytes of the table as the kernel is given it: the header and the rows. */
size_t lfr_unwind_table_bytes(const struct lfr_unwind_table *t);

/* The row that covers file offset off (the last whose start is <= off), or NULL: no row. */
const struct lfr_unwind_row *lfr_unwind_table_find(const struct lfr_unwind_table *t, uint64_t off);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One line of /proc/PID/maps, "START-END PERMS PGOFF MAJ:MIN INODE   PATH", read by the symbolizer,
 * the unwind-table loader and the thread-context finder alike.  By hand, not by sscanf: a
 * system-wide recording reads every process's maps when it starts, and sscanf's format
 * interpreter took about ten times the instructions of the line itself.
 */
#ifndef LFR_LIB_MAPS_LINE_H
#define LFR_LIB_MAPS_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lfr_maps_line {
	uint64_t start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8];    /* "r-xp" */
	const char *path; /* in the line, after the blanks; "" for an anonymous mapping */
	size_t path_len;  /* up to the line's end or its newline */
};

/* Reads line; false when it does not have the seven fields. */
bool lfr_maps_line_parse(const char *line, struct lfr_maps_line *m);

#endif

// SPDX-License-Identifier: GPL-2.0
/* The fallback source of mappings for live processes: /proc/PID/maps. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "lib/maps_line.h"
#include "sym/internal.h"

/* "START-END PERMS PGOFF MAJ:MIN INODE   PATH"; fills m and returns true for executable lines. */
static bool parse_line(char *line, struct lfr_sym_mapping *m)
{
	struct lfr_maps_line l;
	char *path;

	if (!lfr_maps_line_parse(line, &l) || !strchr(l.perms, 'x'))
		return false;
	path = line + (l.path - line);
	path[l.path_len] = '\0';
	m->start = l.start;
	m->end = l.end;
	m->pgoff = l.pgoff;
	m->dev = makedev(l.maj, l.min);
	m->ino = l.ino;
	m->build_id = NULL;
	m->build_id_len = 0;
	m->path = path;
	return true;
}

int procmaps_load(const char *proc_dir, uint32_t pid, procmaps_add_fn *add, void *arg, char *err,
                  size_t errlen)
{
	char path[256], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", proc_dir, pid);
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s%s", path, strerror(-ret),
		         ret == -ENOENT   ? " (the process has exited)"
		         : ret == -EACCES ? " (run as root or as the process's owner)"
		                          : "");
		return ret;
	}
	while (getline(&line, &cap, f) > 0) {
		struct lfr_sym_mapping m = {.pid = pid};

		if (!parse_line(line, &m))
			continue;
		ret = add(arg, &m);
		if (ret)
			break;
	}
	free(line);
	fclose(f);
	return ret;
}

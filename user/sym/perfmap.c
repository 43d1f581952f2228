// SPDX-License-Identifier: GPL-2.0
/*
 * JIT symbols from perf map files (/tmp/perf-PID.map, "START SIZE NAME" in hex, one a line),
 * written by JIT compilers for perf.  The file grows while the process runs, so it is read again
 * when its size or time stamp changed; of two lines for one start address the later one counts.
 *
 * The file is input from anyone who can write /tmp, read by a recorder that runs as root: it is
 * opened without following a link and without blocking (a FIFO would hang the recorder), and
 * only a regular file owned by the target's user or by root is read (the rule perf applies).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym/internal.h"

static int parse(struct symtab *t, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	while (!err && (len = getline(&line, &cap, f)) > 0) {
		unsigned long long start, size;
		char *p = line, *end;

		/* LF or CRLF line ends: neither is part of the name */
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		start = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue; /* not a map line: skipped, the rest still counts */
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || !size)
			continue;
		err = symtab_add(t, start, size, 0, end + 1, strlen(end + 1), 0, SYMF_GLOBAL);
	}
	free(line);
	return err;
}

FILE *perfmap_open(const char *path, uid_t owner, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || (st->st_uid != owner && st->st_uid != 0)) {
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

bool perfmap_refresh(struct perfmap *pm, const char *path, uid_t owner)
{
	struct symtab t = {0};
	struct stat st;
	FILE *f;
	int64_t mtime;

	pm->tried = true;
	pm->checked_ns = sym_now_ns();
	f = perfmap_open(path, owner, &st);
	if (!f)
		return false;
	mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if (pm->syms.n && mtime == pm->mtime_ns && st.st_size == pm->size) {
		fclose(f);
		return false;
	}
	if (parse(&t, f)) {
		fclose(f);
		symtab_fini(&t);
		return false;
	}
	fclose(f);
	/* JIT code space is reused: a later line for the same start describes the live code. */
	symtab_keep_last(&t);
	symtab_finish(&t);
	symtab_fini(&pm->syms);
	pm->syms = t;
	pm->mtime_ns = mtime;
	pm->size = st.st_size;
	return true;
}

void perfmap_fini(struct perfmap *pm)
{
	symtab_fini(&pm->syms);
	memset(pm, 0, sizeof(*pm));
}

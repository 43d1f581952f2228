// SPDX-License-Identifier: GPL-2.0
/*
 * JIT symbols from perf map files (/tmp/perf-PID.map, "START SIZE NAME" in hex, one a line),
 * written by JIT compilers for perf.  The file grows while the process runs, so it is looked at
 * again when its size or time stamp changed: while it is the same file and has only grown, only
 * the complete lines appended since are read (a JVM's map reaches millions of lines); a file
 * replaced or cut is read again whole.  Of two lines for one start address the later one counts.
 * A map larger than PERFMAP_MAX_BYTES is not read.
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

#include "lib/clock.h"
#include "sym/internal.h"

/*
 * The lines of F from its position on into T; *end is advanced past the last complete line
 * (ended by LF): a last line without one (perhaps still being written) counts as it is and is
 * read again, whole, with what is appended to it.
 */
static int parse(struct symtab *t, FILE *f, off_t *end)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	while (!err && (len = getline(&line, &cap, f)) > 0) {
		unsigned long long start, size;
		char *p = line, *e;

		if (line[len - 1] == '\n')
			*end += len;
		/* LF or CRLF line ends: neither is part of the name */
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		start = strtoull(p, &e, 16);
		if (e == p || *e != ' ')
			continue; /* not a map line: skipped, the rest still counts */
		p = e + 1;
		size = strtoull(p, &e, 16);
		if (e == p || *e != ' ' || !size)
			continue;
		err = symtab_add(t, start, size, 0, e + 1, strlen(e + 1), 0, SYMF_GLOBAL);
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
	off_t end;
	bool grown;

	pm->tried = true;
	pm->checked_ns = lfr_mono_ns();
	f = perfmap_open(path, owner, &st);
	if (!f)
		return false;
	mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if ((pm->syms.n && mtime == pm->mtime_ns && st.st_size == pm->size) ||
	    st.st_size > PERFMAP_MAX_BYTES) {
		fclose(f);
		return false;
	}
	grown =
	    pm->syms.n && st.st_dev == pm->dev && st.st_ino == pm->ino && st.st_size >= pm->parsed;
	if (grown) {
		/* appended lines come after the table's own: later lines count (symtab_keep_last)
		 */
		size_t n0 = pm->syms.n;

		end = pm->parsed;
		if (fseeko(f, end, SEEK_SET) || parse(&pm->syms, f, &end)) {
			fclose(f);
			pm->syms.n = n0; /* the table as it was: its new entries are dropped */
			return false;
		}
		fclose(f);
		pm->mtime_ns = mtime;
		pm->size = st.st_size;
		pm->parsed = end;
		if (pm->syms.n == n0)
			return false;
		symtab_keep_last(&pm->syms);
		symtab_finish(&pm->syms);
		free(pm->syms.out); /* names by entry index: the entries moved */
		pm->syms.out = NULL;
		return true;
	}
	end = 0;
	if (parse(&t, f, &end)) {
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
	pm->parsed = end;
	pm->dev = st.st_dev;
	pm->ino = st.st_ino;
	return true;
}

void perfmap_fini(struct perfmap *pm)
{
	symtab_fini(&pm->syms);
	memset(pm, 0, sizeof(*pm));
}

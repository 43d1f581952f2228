// SPDX-License-Identifier: GPL-2.0
/* The objects a program maps at its start (program_objects.h), read with libelf. */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include "lib/regular_file.h"
#include "record/program_objects.h"
#include "sym/cfi_rule.h"

#define MAX_OBJECTS 1024
/* The dynamic linker's own list on Debian (x86-64, arm64), and the generic ones. */
#if defined(__aarch64__)
#define DEFAULT_DIRS                                                                               \
	"/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib"
#else
#define DEFAULT_DIRS                                                                               \
	"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib"
#endif

/* What the dynamic linker reads of one object. */
struct dyn {
	char *interp;
	char **needed;
	size_t nneeded;
	char *rpath, *runpath;
};

static void dyn_free(struct dyn *d)
{
	for (size_t i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->interp);
	free(d->rpath);
	free(d->runpath);
	memset(d, 0, sizeof(*d));
}

/* An object of the machine lfr runs on: the only ones its walk unwinds. */
static Elf *open_native(const char *path, int *fd)
{
	struct stat st;
	Elf *e;

	/* a path the program's own RPATH may name: a regular file only */
	*fd = lfr_open_regular(path, O_RDONLY, &st);
	if (*fd < 0) {
		*fd = -1;
		return NULL;
	}
	/* read, not mapped: a file cut meanwhile is an error, not SIGBUS (sym/elfobj.c) */
	e = elf_begin(*fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && cfi_regs_of(e) && cfi_regs_of(e) == cfi_regs_native())
		return e;
	if (e)
		elf_end(e);
	close(*fd);
	*fd = -1;
	return NULL;
}

static bool is_native_elf(const char *path)
{
	int fd;
	Elf *e = open_native(path, &fd);

	if (!e)
		return false;
	elf_end(e);
	close(fd);
	return true;
}

/* PT_INTERP, and the DT_NEEDED, DT_RPATH and DT_RUNPATH strings of its dynamic section. */
static int read_dyn(const char *path, struct dyn *d)
{
	Elf_Scn *scn = NULL;
	size_t nph;
	int fd, ret = 0;
	Elf *e = open_native(path, &fd);

	memset(d, 0, sizeof(*d));
	if (!e)
		return -1;
	for (size_t i = 0; !d->interp && !elf_getphdrnum(e, &nph) && i < nph; i++) {
		char interp[PATH_MAX];
		GElf_Phdr ph;

		/* the interpreter's path alone, read from the file (not the whole file into memory)
		 */
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP && ph.p_filesz &&
		    ph.p_filesz <= sizeof(interp) && ph.p_offset <= INT64_MAX &&
		    pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz)
			d->interp = strndup(interp, ph.p_filesz);
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dy;
			const char *s;
			char **grown;

			if (!gelf_getdyn(data, (int)i, &dy) || dy.d_tag == DT_NULL)
				break;
			if (dy.d_tag != DT_NEEDED && dy.d_tag != DT_RPATH && dy.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(e, sh.sh_link, dy.d_un.d_val);
			if (!s)
				continue;
			if (dy.d_tag == DT_RPATH && !d->rpath) {
				d->rpath = strdup(s);
			} else if (dy.d_tag == DT_RUNPATH && !d->runpath) {
				d->runpath = strdup(s);
			} else if (dy.d_tag == DT_NEEDED) {
				grown = realloc(d->needed, (d->nneeded + 1) * sizeof(*grown));
				if (!grown || !(grown[d->nneeded] = strdup(s))) {
					d->needed = grown ? grown : d->needed;
					ret = -1;
					break;
				}
				d->needed = grown;
				d->nneeded++;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

/* dir/name into out when it is an ELF file of this machine; $ORIGIN in dir is origin. */
static bool try_dir(const char *dir, size_t dirlen, const char *origin, const char *name, char *out,
                    size_t outlen)
{
	char d[PATH_MAX];
	size_t n = 0;

	for (size_t i = 0; i < dirlen && n < sizeof(d) - 1;) {
		size_t skip = !strncmp(dir + i, "${ORIGIN}", 9) ? 9
		              : !strncmp(dir + i, "$ORIGIN", 7) ? 7
		                                                : 0;

		if (skip && i + skip <= dirlen) {
			n += (size_t)snprintf(d + n, sizeof(d) - n, "%s", origin);
			i += skip;
		} else {
			d[n++] = dir[i++];
		}
	}
	if (n >= sizeof(d) - 1)
		return false;
	d[n] = '\0';
	if ((size_t)snprintf(out, outlen, "%s/%s", n ? d : ".", name) >= outlen)
		return false;
	return is_native_elf(out);
}

/* The first dir of the colon-separated list where name is an ELF file of this machine. */
static bool search(const char *list, const char *origin, const char *name, char *out, size_t outlen)
{
	while (list && *list) {
		size_t len = strcspn(list, ":");

		if (try_dir(list, len, origin, name, out, outlen))
			return true;
		list += len + (list[len] == ':');
	}
	return false;
}

struct closure {
	char *paths[MAX_OBJECTS]; /* real paths, in the order found */
	size_t n;
};

/* Adds the object at path (by its real path, once); false when it was there or is not added. */
static bool add(struct closure *c, const char *path)
{
	char *real = realpath(path, NULL);

	if (!real)
		return false;
	for (size_t i = 0; i < c->n; i++) {
		if (!strcmp(c->paths[i], real)) {
			free(real);
			return false;
		}
	}
	if (c->n == MAX_OBJECTS) {
		free(real);
		return false;
	}
	c->paths[c->n++] = real;
	return true;
}

/* Where the dynamic linker finds needed name for object (path, its dyn); prog_rpath: the program's.
 */
static bool find_needed(const char *name, const char *path, const struct dyn *d,
                        const char *prog_rpath, const char *prog_origin, char *out, size_t outlen)
{
	char origin[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		return is_native_elf(out);
	}
	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - path) : 1,
	         slash ? path : ".");
	if (!d->runpath && (search(d->rpath, origin, name, out, outlen) ||
	                    search(prog_rpath, prog_origin, name, out, outlen)))
		return true;
	return search(getenv("LD_LIBRARY_PATH"), origin, name, out, outlen) ||
	       search(d->runpath, origin, name, out, outlen) ||
	       search(DEFAULT_DIRS, origin, name, out, outlen);
}

/* cmd as execvp finds it: a path as it is, a name on PATH. */
static bool find_program(const char *cmd, char *out, size_t outlen)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/')) {
		snprintf(out, outlen, "%s", cmd);
		return access(out, X_OK) == 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		struct stat st;

		if ((size_t)snprintf(out, outlen, "%.*s/%s", len ? (int)len : 1, len ? path : ".",
		                     cmd) < outlen &&
		    !access(out, X_OK) && !stat(out, &st) && S_ISREG(st.st_mode))
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* A "#!" script's interpreter (the kernel runs that, with the script as its argument). */
static bool script_interpreter(const char *path, char *out, size_t outlen)
{
	char line[256];
	ssize_t n;
	int fd = lfr_open_regular(path, O_RDONLY, NULL);
	size_t start, len;

	if (fd < 0)
		return false;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return false;
	line[n] = '\0';
	start = 2 + strspn(line + 2, " \t");
	len = strcspn(line + start, " \t\n");
	if (!len || len >= outlen)
		return false;
	snprintf(out, outlen, "%.*s", (int)len, line + start);
	return true;
}

int lfr_program_objects(const char *cmd, void (*fn)(const char *path, void *arg), void *arg,
                        char *err, size_t errlen)
{
	char prog[PATH_MAX], found[PATH_MAX], prog_origin[PATH_MAX];
	struct closure *c = calloc(1, sizeof(*c));
	struct dyn pd;
	int n;

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	elf_version(EV_CURRENT);
	if (!find_program(cmd, prog, sizeof(prog))) {
		snprintf(err, errlen, "%s: not found on PATH or not executable", cmd);
		free(c);
		return -1;
	}
	if (!is_native_elf(prog) && script_interpreter(prog, found, sizeof(found)))
		snprintf(prog, sizeof(prog), "%s", found);
	if (!is_native_elf(prog) || !add(c, prog)) {
		snprintf(err, errlen, "%s: not an ELF program of this machine (x86-64 or arm64)",
		         prog);
		free(c);
		return -1;
	}
	if (read_dyn(c->paths[0], &pd))
		memset(&pd, 0, sizeof(pd));
	snprintf(prog_origin, sizeof(prog_origin), "%s", c->paths[0]);
	*strrchr(prog_origin, '/') = '\0';
	if (pd.interp)
		add(c, pd.interp);
	/* breadth first, as the dynamic linker loads them */
	for (size_t i = 0; i < c->n; i++) {
		struct dyn d;

		if (read_dyn(c->paths[i], &d))
			continue;
		for (size_t k = 0; k < d.nneeded; k++)
			if (find_needed(d.needed[k], c->paths[i], &d, pd.rpath, prog_origin, found,
			                sizeof(found)))
				add(c, found);
		dyn_free(&d);
	}
	dyn_free(&pd);
	for (size_t i = 0; i < c->n; i++) {
		fn(c->paths[i], arg);
		free(c->paths[i]);
	}
	n = (int)c->n;
	free(c);
	return n;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the symbolizer tests: fixture paths, fixture processes, mapping records. */
#ifndef LFR_TESTS_SYM_TEST_UTIL_H
#define LFR_TESTS_SYM_TEST_UTIL_H

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sym/sym.h"

#ifndef LFR_SYMDATA
#error "LFR_SYMDATA must name the directory of the built fixtures"
#endif

static inline const char *fixture(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", LFR_SYMDATA, name);
	return p;
}

/* A fixture program running with a pipe on stdin (it exits when the pipe closes). */
struct child {
	pid_t pid;
	int in_fd;
	char line[256];
};

static inline int child_start(struct child *c, const char *path)
{
	int in[2], out[2];
	FILE *f;

	if (pipe(in) || pipe(out))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in_fd = in[1];
	f = fdopen(out[0], "r");
	if (!f || !fgets(c->line, sizeof(c->line), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Lets the child exit and reaps it: its /proc entry is gone afterwards. */
static inline int child_finish(struct child *c)
{
	int status = 0;

	close(c->in_fd);
	if (waitpid(c->pid, &status, 0) != c->pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The value of "key=0x..." in the child's line. */
static inline uint64_t child_addr(const struct child *c, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "%s=", key);
	p = strstr(c->line, pat);
	return p ? strtoull(p + strlen(pat), NULL, 16) : 0;
}

/*
 * Feeds the executable mappings of real_pid whose path ends with suffix to the symbolizer as
 * explicit records for as_pid, the way the kernel module reports them.  Returns the count.
 */
static inline int add_maps_as(struct lfr_sym *sym, pid_t real_pid, uint32_t as_pid,
                              const char *suffix, uint64_t ino_delta)
{
	char path[64], line[1024];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)real_pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off, ino;
		unsigned maj, min;
		char perms[8], file[512] = "";
		struct lfr_sym_mapping m = {.pid = as_pid};
		size_t len;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %511s", &s, &e, perms, &off, &maj,
		           &min, &ino, file) < 8 ||
		    !strchr(perms, 'x'))
			continue;
		len = strlen(file);
		if (len < strlen(suffix) || strcmp(file + len - strlen(suffix), suffix))
			continue;
		m.start = s;
		m.end = e;
		m.pgoff = off;
		m.dev = makedev(maj, min);
		m.ino = ino + ino_delta;
		m.path = file;
		if (lfr_sym_add_mapping(sym, &m))
			break;
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Like add_maps_as, but the records name the file path instead of its real path (the file as
 * another mount namespace sees it, or a file removed since).  Returns the count.
 */
static inline int add_maps_renamed(struct lfr_sym *sym, uint32_t as_pid, const char *suffix,
                                   const char *path, uint64_t *start, uint64_t *end)
{
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off, ino;
		unsigned maj, min;
		char perms[8], file[512] = "";
		struct lfr_sym_mapping m = {.pid = as_pid};
		size_t len;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %511s", &s, &e, perms, &off, &maj,
		           &min, &ino, file) < 8 ||
		    !strchr(perms, 'x'))
			continue;
		len = strlen(file);
		if (len < strlen(suffix) || strcmp(file + len - strlen(suffix), suffix))
			continue;
		m.start = *start = s;
		m.end = *end = e;
		m.pgoff = off;
		m.dev = makedev(maj, min);
		m.ino = ino;
		m.path = path;
		if (lfr_sym_add_mapping(sym, &m))
			break;
		n++;
	}
	fclose(f);
	return n;
}

static inline void *fixture_dlopen(const char *name)
{
	void *h = dlopen(fixture(name), RTLD_NOW | RTLD_LOCAL);

	if (!h)
		fprintf(stderr, "dlopen %s: %s\n", name, dlerror());
	return h;
}

/* Calls a fixture function returning an address ("give me the address of my static function"). */
static inline uint64_t fixture_addr(void *h, const char *fn)
{
	void *(*get)(void);

	*(void **)&get = dlsym(h, fn);
	return get ? (uint64_t)(uintptr_t)get() : 0;
}

static inline uint64_t fixture_sym(void *h, const char *name)
{
	return (uint64_t)(uintptr_t)dlsym(h, name);
}

static inline char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/lfr-symtest-XXXXXX";
	char *d = mkdtemp(tmpl);

	return d ? strdup(d) : NULL;
}

static inline void remove_tmpdir(char *dir, const char *const *files)
{
	char p[512];

	for (; files && *files; files++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *files);
		unlink(p);
	}
	rmdir(dir);
	free(dir);
}

static inline int write_file(const char *dir, const char *name, const char *text, const char *mode)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, mode);
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the commands that handle a file lfr did not just write: `lfr repair`,
 * `lfr merge` and `lfr dump`, called as the command line calls them, on files in a directory of
 * their own.  Each must end with an exit status, never a crash, a leak or undefined behaviour,
 * and:
 *   - repair may only cut a tail and end a writer's filler at its chunk's end: what is left is a
 *     prefix of the input but for such 5-byte size fields, each now smaller;
 *   - merge and dump leave no temporary file beside their output, and an output they wrote is
 *     JFR that lfr's reader reads to its end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <libgen.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "jfr/reader.h"
#include "jfr/writer.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[PATH_MAX];
static char in[PATH_MAX + 32], in2[PATH_MAX + 32], repaired[PATH_MAX + 32], merged[PATH_MAX + 32],
    repo[PATH_MAX + 32], chunk[PATH_MAX + 80], dumped[PATH_MAX + 32];
/* standard error as it was before libFuzzer closed it for the commands (-close_fd_mask=3) */
static FILE *diag;

static void put(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd))
		abort();
}

static uint8_t *get(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		abort();
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/* A command as main() runs it: getopt starts over. */
static int run(int (*cmd)(int, char **), int argc, char **argv)
{
	optind = 0;
	return cmd(argc, argv);
}

/* Anything but the names the test itself made in d is a file a command left behind. */
static void no_strays(const char *d, const char *const *keep, size_t nkeep)
{
	DIR *dh = opendir(d);
	struct dirent *de;

	if (!dh)
		abort();
	while ((de = readdir(dh))) {
		bool known = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");

		for (size_t i = 0; i < nkeep && !known; i++)
			known = !strcmp(de->d_name, keep[i]);
		if (!known) {
			fprintf(diag, "left behind: %s/%s\n", d, de->d_name);
			abort();
		}
	}
	closedir(dh);
}

/* An output a command wrote reads to its end. */
static void reads(const char *path)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	struct jfr_chunk ch;
	uint64_t off = 0;

	if (!r) {
		fprintf(diag, "%s was written but does not open: %s\n", path, err);
		abort();
	}
	while (off < r->size) {
		if (jfr_chunk_load(r, off, &ch) || jfr_chunk_verify(r, &ch)) {
			fprintf(diag, "%s was written but its chunk at %llu does not read: %s\n",
			        path, (unsigned long long)off, r->err);
			abort();
		}
		off += ch.size;
		jfr_chunk_release(&ch);
	}
	jfr_close(r);
}

/* A 5-byte padded varint at p (the writer's filler size), its value in *v. */
static bool padded5(const uint8_t *p, uint64_t *v)
{
	*v = 0;
	for (int i = 0; i < 5; i++) {
		if (i < 4 ? !(p[i] & 0x80) : (p[i] & 0x80))
			return false;
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
	}
	return true;
}

/*
 * Whether after (n bytes) is the start of data but where repair ended a filler: a 5-byte padded
 * size field in both, smaller in after.
 */
static bool prefix_but_fillers(const uint8_t *data, const uint8_t *after, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t was, now;
		size_t p = i >= 4 ? i - 4 : 0;

		if (data[i] == after[i])
			continue;
		while (p <= i && !(p + 5 <= n && padded5(data + p, &was) &&
		                   padded5(after + p, &now) && now < was))
			p++;
		if (p > i)
			return false;
		i = p + 4;
	}
	return true;
}

static void cleanup(void)
{
	unlink(in);
	unlink(in2);
	unlink(repaired);
	unlink(merged);
	unlink(dumped);
	unlink(chunk);
	rmdir(repo);
	rmdir(dir);
}

/* The files live in a directory beside the fuzzer (build/fuzz/), removed at exit. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *self = strdup((*argv)[0]);
	int fd = dup(2);

	(void)argc;
	diag = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!self || !diag)
		abort();
	setvbuf(diag, NULL, _IONBF, 0);
	snprintf(dir, sizeof(dir), "%s/files-work.XXXXXX", dirname(self));
	free(self);
	if (!mkdtemp(dir))
		abort();
	snprintf(in, sizeof(in), "%s/in.jfr", dir);
	snprintf(in2, sizeof(in2), "%s/in2.jfr", dir);
	snprintf(repaired, sizeof(repaired), "%s/repaired.jfr", dir);
	snprintf(merged, sizeof(merged), "%s/merged.jfr", dir);
	snprintf(repo, sizeof(repo), "%s/repo", dir);
	snprintf(chunk, sizeof(chunk), "%s/2026-01-01T00-00-00.000000000Z.jfr", repo);
	snprintf(dumped, sizeof(dumped), "%s/dumped.jfr", dir);
	if (mkdir(repo, 0700))
		abort();
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const top[] = {"in.jfr",     "in2.jfr",    "repaired.jfr",
	                                  "merged.jfr", "dumped.jfr", "repo"};
	static const char *const chunks[] = {"2026-01-01T00-00-00.000000000Z.jfr"};
	char err[512];
	uint8_t *after;
	size_t n;

	unlink(merged);
	unlink(dumped);

	/* lfr repair: a prefix of the input is left, whatever it says, but for trimmed fillers */
	put(repaired, data, size);
	lfr_jfr_repair(repaired, err, sizeof(err));
	after = get(repaired, &n);
	if (!after || n > size || !prefix_but_fillers(data, after, n))
		abort();
	free(after);

	/* lfr merge of the input with a copy of it (the same file twice is refused) */
	put(in, data, size);
	put(in2, data, size);
	{
		char *argv[] = {"merge", "-q", "-o", merged, in, in2, NULL};

		if (!run(cmd_merge, 6, argv))
			reads(merged);
	}

	/* lfr dump of a repository whose one chunk file is the input */
	put(chunk, data, size);
	{
		char *argv[] = {"dump", "-q", "-o", dumped, repo, NULL};

		if (!run(cmd_dump, 5, argv))
			reads(dumped);
	}
	no_strays(dir, top, sizeof(top) / sizeof(top[0]));
	no_strays(repo, chunks, 1);
	return 0;
}

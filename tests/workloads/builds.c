// SPDX-License-Identifier: GPL-2.0
/*
 * builds: new builds run one after another, as on a build or CI machine.
 *
 *   builds DIR N MS
 *
 * Writes N copies of this program into DIR, each with a build-id of its own (the bytes of its
 * GNU build-id note changed), and runs them in turn: each burns MS ms of CPU time in
 * builds_burn() and exits.  Every copy is thus another file and another object to a symbolizer,
 * as a new build of a program is.  Prints
 *
 *   builds copies=N build_id_bytes=B
 *   builds done runs=N failed=F
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void builds_burn(double ms)
{
	double end = cpu_ms() + ms;
	volatile unsigned long x = 0;

	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			x += i;
}

/* Where the build-id's bytes are in the file image (0: none), and how many. */
static size_t build_id_at(const unsigned char *img, size_t len, size_t *n)
{
	const Elf64_Ehdr *eh = (const void *)img;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phoff > len ||
	    (len - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff + i * sizeof(Elf64_Phdr));
		size_t off = ph->p_offset, end = off + ph->p_filesz;

		if (ph->p_type != PT_NOTE || off > len || end > len || end < off)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const void *)(img + off);
			size_t name = off + sizeof(*nh), desc = name + ((nh->n_namesz + 3) & ~3u);

			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(img + name, "GNU", 4) && nh->n_descsz >= 4) {
				*n = nh->n_descsz;
				return desc;
			}
			off = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char *img;
	size_t len, at, n = 0;
	long copies, failed = 0;
	char path[4096];
	FILE *f;

	if (argc == 3 && !strcmp(argv[1], "--burn")) {
		builds_burn(atof(argv[2]));
		return 0;
	}
	if (argc != 4 || (copies = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: builds DIR N MS\n");
		return 2;
	}
	f = fopen("/proc/self/exe", "rb");
	img = malloc(64 << 20);
	if (!f || !img || !(len = fread(img, 1, 64 << 20, f)) ||
	    !(at = build_id_at(img, len, &n))) {
		fprintf(stderr, "builds: cannot read its own build-id\n");
		return 1;
	}
	fclose(f);
	for (long i = 0; i < copies; i++) {
		unsigned char *id = img + at;

		snprintf(path, sizeof(path), "%s/build-%ld", argv[1], i);
		/* another build: its first four bytes the copy's number */
		memcpy(id, &(unsigned int){(unsigned int)i + 1}, 4);
		if (!(f = fopen(path, "wb")) || fwrite(img, 1, len, f) != len || fclose(f) ||
		    chmod(path, 0755)) {
			perror(path);
			return 1;
		}
	}
	printf("builds copies=%ld build_id_bytes=%zu\n", copies, n);
	fflush(stdout);
	for (long i = 0; i < copies; i++) {
		int st;
		pid_t pid;

		snprintf(path, sizeof(path), "%s/build-%ld", argv[1], i);
		pid = fork();
		if (pid == 0) {
			execl(path, path, "--burn", argv[3], (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			failed++;
	}
	printf("builds done runs=%ld failed=%ld\n", copies, failed);
	free(img);
	return failed != 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * remap: runs code from one file mapped at an address, then from another file mapped at the same
 * address, so that a profiler must notice that the mapping changed under its samples.
 *
 * Usage: remap DIR SECONDS [DIR_B]     (SECONDS per phase)
 *        remap --anon COPIES SECONDS
 *
 * Writes DIR/remap-a.bin and DIR/remap-b.bin (DIR_B/remap-b.bin when given: another file system
 * may give it the inode number of the first; the same small function with a frame record), maps
 * the first one executable, calls it in a loop for SECONDS, unmaps it, maps the second one at the
 * same address and does the same.  Prints, with CLOCK_MONOTONIC times in ns, the files' inode
 * numbers and devices:
 *
 *   remap pid=P addr=0xA len=L a=PATH b=PATH a_ino=N a_dev=N b_ino=N b_dev=N
 *   remap phase=b ns=T        (the second mapping is in place from T on)
 *   remap done ns=T
 *
 * With --anon: COPIES copies of that function in anonymous memory (no file holds them, as JIT
 * code without a perf map), 16 bytes apart, called in turn for SECONDS, so that samples land at
 * many distinct addresses no symbol names:
 *
 *   remap anon pid=P addr=0xA len=L copies=N
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* push %rbp; mov %rsp,%rbp; mov %rdi,%rcx; 1: dec %rcx; jnz 1b; pop %rbp; ret */
static const unsigned char spin_code[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf9,
                                          0x48, 0xff, 0xc9, 0x75, 0xfb, 0x5d, 0xc3};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void write_code(const char *path)
{
	static unsigned char page[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	memcpy(page, spin_code, sizeof(spin_code));
	if (fd < 0 || write(fd, page, sizeof(page)) != (ssize_t)sizeof(page) || close(fd)) {
		perror(path);
		exit(1);
	}
}

static void *map_code(const char *path, void *at)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	p = mmap(at, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | (at ? MAP_FIXED_NOREPLACE : 0), fd,
	         0);
	close(fd);
	if (p == MAP_FAILED || (at && p != at)) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/* Calls the mapped function until @secs have passed; its caller keeps a frame record too. */
__attribute__((noinline)) static void run_phase(void *code, double secs)
{
	void (*spin)(unsigned long) = (void (*)(unsigned long))code;
	uint64_t end = now_ns() + (uint64_t)(secs * 1e9);

	while (now_ns() < end)
		spin(20000);
}

/* remap --anon COPIES SECONDS */
static int run_anon(int copies, double secs)
{
	size_t len = (size_t)copies * 16;
	unsigned char *code;
	uint64_t end = now_ns() + (uint64_t)(secs * 1e9);

	if (copies < 1) {
		fprintf(stderr, "remap: --anon takes a number of copies\n");
		return 2;
	}
	code = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (int i = 0; i < copies; i++)
		memcpy(code + 16 * i, spin_code, sizeof(spin_code));
	if (mprotect(code, len, PROT_READ | PROT_EXEC)) {
		perror("mprotect");
		return 1;
	}
	printf("remap anon pid=%d addr=%p len=%zu copies=%d\n", getpid(), (void *)code, len,
	       copies);
	fflush(stdout);
	while (now_ns() < end)
		for (int i = 0; i < copies; i++)
			((void (*)(unsigned long))(void *)(code + 16 * i))(3);
	return 0;
}

int main(int argc, char **argv)
{
	char a[4096], b[4096];
	struct stat sa, sb;
	double secs;
	void *at;

	if (argc == 4 && !strcmp(argv[1], "--anon"))
		return run_anon(atoi(argv[2]), atof(argv[3]));
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: remap DIR SECONDS [DIR_B] | remap --anon COPIES SECONDS\n");
		return 2;
	}
	secs = atof(argv[2]);
	snprintf(a, sizeof(a), "%s/remap-a.bin", argv[1]);
	snprintf(b, sizeof(b), "%s/remap-b.bin", argc == 4 ? argv[3] : argv[1]);
	write_code(a);
	write_code(b);
	if (stat(a, &sa) || stat(b, &sb)) {
		perror("stat");
		return 1;
	}
	at = map_code(a, NULL);
	printf(
	    "remap pid=%d addr=%p len=4096 a=%s b=%s a_ino=%llu a_dev=%llu b_ino=%llu b_dev=%llu\n",
	    getpid(), at, a, b, (unsigned long long)sa.st_ino, (unsigned long long)sa.st_dev,
	    (unsigned long long)sb.st_ino, (unsigned long long)sb.st_dev);
	fflush(stdout);
	run_phase(at, secs);
	if (munmap(at, 4096)) {
		perror("munmap");
		return 1;
	}
	printf("remap phase=b ns=%llu\n", (unsigned long long)now_ns());
	map_code(b, at);
	run_phase(at, secs);
	printf("remap done ns=%llu\n", (unsigned long long)now_ns());
	return 0;
}

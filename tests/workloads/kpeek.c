/*
 * kpeek SYMBOL OFFSET SIZE: prints, in decimal, the SIZE-byte (1, 2, 4 or 8) unsigned integer at
 * SYMBOL+OFFSET of the running kernel, read through /proc/kcore at the address /proc/kallsyms gives
 * (root only).  Not a workload: the VM scenarios use it to look at kernel state that no interface
 * shows, e.g. whether a tracepoint's static key is still enabled after a session stopped.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int symbol_address(const char *name, uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	uint64_t a;

	if (!f) {
		perror("kpeek: /proc/kallsyms");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			fclose(f);
			if (!a) {
				fprintf(stderr,
				        "kpeek: %s has address 0 (kptr_restrict; run as root)\n",
				        name);
				return -1;
			}
			*addr = a;
			return 0;
		}
	}
	fclose(f);
	fprintf(stderr, "kpeek: no symbol %s in /proc/kallsyms\n", name);
	return -1;
}

/* The file offset of kernel virtual address ADDR in /proc/kcore (an ELF core file). */
static int kcore_offset(int fd, uint64_t addr, size_t size, off_t *off)
{
	Elf64_Ehdr eh;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "kpeek: /proc/kcore is not a 64-bit ELF file\n");
		return -1;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) !=
		    (ssize_t)sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr + size <= ph.p_vaddr + ph.p_filesz) {
			*off = (off_t)(ph.p_offset + (addr - ph.p_vaddr));
			return 0;
		}
	}
	fprintf(stderr, "kpeek: address %#" PRIx64 " is in no segment of /proc/kcore\n", addr);
	return -1;
}

int main(int argc, char **argv)
{
	uint64_t addr, v = 0;
	size_t size;
	off_t off;
	unsigned char buf[8];
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: kpeek SYMBOL OFFSET SIZE\n");
		return 2;
	}
	size = strtoul(argv[3], NULL, 0);
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		fprintf(stderr, "kpeek: SIZE must be 1, 2, 4 or 8\n");
		return 2;
	}
	if (symbol_address(argv[1], &addr))
		return 1;
	addr += strtoull(argv[2], NULL, 0);
	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "kpeek: /proc/kcore: %s\n", strerror(errno));
		return 1;
	}
	if (kcore_offset(fd, addr, size, &off) || pread(fd, buf, size, off) != (ssize_t)size) {
		fprintf(stderr, "kpeek: cannot read %zu bytes at %#" PRIx64 "\n", size, addr);
		close(fd);
		return 1;
	}
	close(fd);
	for (size_t i = size; i-- > 0;) /* x86-64: little-endian */
		v = v << 8 | buf[i];
	printf("%" PRIu64 "\n", v);
	return 0;
}

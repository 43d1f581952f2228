/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stream of ring records built in memory, for the benchmarks that feed the recorder as the
 * module would (drainer_bench.c, churn_memory.c): a growing buffer, and the MMAP records of this
 * program's own executable mappings (real paths, offsets, devices and inodes, so that its frames
 * go through the symbolizer's ELF lookup).
 */
#ifndef LFR_BENCH_RECORD_STREAM_H
#define LFR_BENCH_RECORD_STREAM_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/lfr.h>

struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* n zeroed bytes at the end of b (the program ends when memory runs out). */
static inline void *reserve(struct buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("bench");
			exit(1);
		}
	}
	memset(b->p + b->len, 0, n);
	b->len += n;
	return b->p + b->len - n;
}

/* An MMAP record of an executable mapping of path for pid at time_ns. */
static inline void add_mmap(struct buf *b, uint32_t pid, uint64_t time_ns, uint64_t start,
                            uint64_t end, uint64_t off, uint64_t ino, unsigned int maj,
                            unsigned int min, const char *path)
{
	size_t plen = strlen(path) + 1,
	       size = (sizeof(struct lfr_rec_mmap) + plen + 7) & ~(size_t)7;
	struct lfr_rec_mmap *m = reserve(b, size);

	m->hdr.type = LFR_REC_MMAP;
	m->hdr.size = (uint32_t)size;
	m->time_ns = time_ns;
	m->tgid = pid;
	m->flags = LFR_MMAP_F_EXEC;
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->ino = ino;
	m->dev_major = maj;
	m->dev_minor = min;
	memcpy(m->path, path, plen);
}

/* MMAP records of this program's executable file mappings for pid at time_ns: how many, or -errno.
 */
static inline int add_mappings(struct buf *b, uint32_t pid, uint64_t time_ns)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8], path[2048] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %2047s", &start, &end, perms, &off,
		           &maj, &min, &ino, path) < 7 ||
		    perms[2] != 'x' || path[0] != '/')
			continue;
		add_mmap(b, pid, time_ns, start, end, off, ino, maj, min, path);
		n++;
	}
	fclose(f);
	return n;
}

#endif

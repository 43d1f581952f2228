// SPDX-License-Identifier: GPL-2.0
/* Unwind tables kept by build-id (unwind_cache.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "sym/unwind_cache.h"

#define UNWIND_MAGIC "LFRUWT01"
#define MAX_BUILD_ID 64

/* The payload: this, then the rows. */
struct unwind_hdr {
	char magic[8];        /* UNWIND_MAGIC */
	uint32_t version;     /* LFR_UNWIND_VERSION of the rows */
	uint32_t nr_rows;     /* 1 .. LFR_UNWIND_MAX_ROWS */
	uint64_t object_size; /* the object's st_size */
	uint32_t build_id_len;
	uint32_t reserved;
	uint8_t build_id[MAX_BUILD_ID];
};

/* The object's GNU build-id into h; false when it has none (or is no ELF file). */
static bool build_id_of(int fd, struct unwind_hdr *h)
{
	const void *p;
	ssize_t n = -1;
	Elf *e;

	elf_version(EV_CURRENT);
	/* read, not mapped, as the table's build does; only the notes are read */
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		n = dwelf_elf_gnu_build_id(e, &p);
	if (n > 0 && n <= MAX_BUILD_ID) {
		memcpy(h->build_id, p, (size_t)n);
		h->build_id_len = (uint32_t)n;
	}
	elf_end(e);
	return n > 0 && n <= MAX_BUILD_ID;
}

/* The rows of the file's payload, in place, when it is the table of the object want describes. */
static const char *take(const struct unwind_hdr *want, const struct lfr_blob *b,
                        struct lfr_unwind_table *t)
{
	const struct lfr_unwind_row *rows = (const void *)((const char *)b->data + sizeof(*want));
	struct unwind_hdr h;

	/* the payload follows the file's 24-byte header: its rows are aligned as rows */
	_Static_assert(sizeof(h) % _Alignof(struct lfr_unwind_row) == 0, "rows aligned");
	if (b->len < sizeof(h) || (uintptr_t)rows % _Alignof(struct lfr_unwind_row))
		return "cut short";
	memcpy(&h, b->data, sizeof(h));
	if (memcmp(h.magic, UNWIND_MAGIC, sizeof(h.magic)) || h.version != LFR_UNWIND_VERSION ||
	    h.reserved)
		return "of another format";
	if (h.build_id_len != want->build_id_len ||
	    memcmp(h.build_id, want->build_id, h.build_id_len) ||
	    h.object_size != want->object_size)
		return "of another object";
	if (!h.nr_rows || h.nr_rows > LFR_UNWIND_MAX_ROWS ||
	    b->len != sizeof(h) + (size_t)h.nr_rows * sizeof(*rows))
		return "of the wrong size";
	for (uint32_t i = 1; i < h.nr_rows; i++)
		if (rows[i].start <= rows[i - 1].start)
			return "damaged (rows out of order)";
	t->rows = (struct lfr_unwind_row *)rows;
	t->map = b->map;
	t->map_len = b->map_len;
	t->hdr.magic = LFR_UNWIND_MAGIC;
	t->hdr.version = LFR_UNWIND_VERSION;
	t->hdr.nr_rows = h.nr_rows;
	return NULL;
}

int lfr_unwind_cache_find(struct lfr_blob_cache *c, const uint8_t *build_id, size_t build_id_len,
                          uint64_t object_size, struct lfr_unwind_table *t, char *why,
                          size_t whylen)
{
	size_t max = sizeof(struct unwind_hdr) + (size_t)LFR_UNWIND_MAX_ROWS * sizeof(*t->rows);
	struct unwind_hdr h;
	struct lfr_blob b;
	const char *bad;
	char name[160];
	int ret;

	memset(t, 0, sizeof(*t));
	memset(&h, 0, sizeof(h));
	if (why && whylen)
		*why = 0;
	if (!c || !build_id_len || build_id_len > MAX_BUILD_ID)
		return -ENOENT;
	memcpy(h.build_id, build_id, build_id_len);
	h.build_id_len = (uint32_t)build_id_len;
	h.object_size = object_size;
	lfr_blob_cache_name(h.build_id, h.build_id_len, ".unwind", name, sizeof(name));
	ret = lfr_blob_cache_read(c, name, max, &b, why, whylen);
	if (ret)
		return ret;
	bad = take(&h, &b, t);
	if (!bad)
		return 0;
	lfr_blob_release(&b);
	if (why)
		snprintf(why, whylen, "%s: %s", name, bad);
	return -EINVAL;
}

int lfr_unwind_cache_get(struct lfr_blob_cache *c, int fd, struct lfr_unwind_table *t,
                         struct lfr_unwind_cache_result *res, char *err, size_t errlen)
{
	size_t max = sizeof(struct unwind_hdr) + (size_t)LFR_UNWIND_MAX_ROWS * sizeof(*t->rows);
	struct unwind_hdr h;
	struct stat st;
	char name[160];
	struct iovec iov[2];
	struct lfr_blob b;
	const char *bad;
	int ret;

	memset(res, 0, sizeof(*res));
	memset(t, 0, sizeof(*t));
	memset(&h, 0, sizeof(h));
	if (!c || fstat(fd, &st) || !S_ISREG(st.st_mode) || !build_id_of(fd, &h))
		return lfr_unwind_table_build(fd, t, err, errlen);
	h.object_size = (uint64_t)st.st_size;
	lfr_blob_cache_name(h.build_id, h.build_id_len, ".unwind", name, sizeof(name));
	ret = lfr_blob_cache_read(c, name, max, &b, res->problem, sizeof(res->problem));
	if (!ret) {
		bad = take(&h, &b, t);
		if (!bad) {
			/* the same file as when it was built, for the module: its ctime now */
			t->hdr.ctime_sec = st.st_ctim.tv_sec;
			t->hdr.ctime_nsec = (uint32_t)st.st_ctim.tv_nsec;
			res->how = LFR_UNWIND_CACHE_HIT;
			return 0;
		}
		lfr_blob_release(&b);
		snprintf(res->problem, sizeof(res->problem), "%s: %s", name, bad);
	}
	if (res->problem[0])
		strncat(res->problem, ", built again",
		        sizeof(res->problem) - strlen(res->problem) - 1);
	ret = lfr_unwind_table_build(fd, t, err, errlen);
	if (ret)
		return ret;
	memcpy(h.magic, UNWIND_MAGIC, sizeof(h.magic));
	h.version = LFR_UNWIND_VERSION;
	h.nr_rows = t->hdr.nr_rows;
	iov[0] = (struct iovec){&h, sizeof(h)};
	iov[1] = (struct iovec){t->rows, (size_t)t->hdr.nr_rows * sizeof(*t->rows)};
	if (!lfr_blob_cache_write(c, name, iov, 2, res->problem[0] ? NULL : res->problem,
	                          res->problem[0] ? 0 : sizeof(res->problem)))
		res->how = LFR_UNWIND_CACHE_STORED;
	return 0;
}

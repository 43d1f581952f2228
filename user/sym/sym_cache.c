// SPDX-License-Identifier: GPL-2.0
/* Symbol tables kept by build-id (sym_cache.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/sym_cache.h"

#define SYMS_MAGIC "LFRSYM01"
/* a table larger than this is not read back: no object has so many functions */
#define MAX_ENTRIES (16u << 20)
#define MAX_NAMES (1ull << 31)

/* The payload: this, the entries, the names. */
struct syms_hdr {
	char magic[8];       /* SYMS_MAGIC */
	uint32_t from_debug; /* 1: the symbols of a separate debug file, as below */
	uint32_t build_id_len;
	uint64_t object_size; /* the object's st_size */
	uint64_t debug_size;  /* the debug file's st_size and st_mtim, 0 without one */
	int64_t debug_mtime_sec;
	int64_t debug_mtime_nsec;
	uint64_t n;         /* entries */
	uint64_t names_len; /* bytes of names, each NUL-terminated */
	uint8_t build_id[64];
};

static void describe(struct syms_hdr *h, const struct elfobj *o, uint64_t object_size,
                     const struct stat *dbg)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, SYMS_MAGIC, sizeof(h->magic));
	h->build_id_len = (uint32_t)o->build_id_len;
	memcpy(h->build_id, o->build_id, o->build_id_len);
	h->object_size = object_size;
	if (dbg) {
		h->from_debug = 1;
		h->debug_size = (uint64_t)dbg->st_size;
		h->debug_mtime_sec = dbg->st_mtim.tv_sec;
		h->debug_mtime_nsec = dbg->st_mtim.tv_nsec;
	}
}

static const char *check(const struct syms_hdr *want, const struct syms_hdr *h, size_t len)
{
	const struct symtab_ent *v = (const void *)(h + 1);
	const char *names;

	if (memcmp(h->magic, SYMS_MAGIC, sizeof(h->magic)))
		return "of another format";
	if (h->build_id_len != want->build_id_len ||
	    memcmp(h->build_id, want->build_id, h->build_id_len) ||
	    h->object_size != want->object_size)
		return "of another object";
	if (h->from_debug != want->from_debug || h->debug_size != want->debug_size ||
	    h->debug_mtime_sec != want->debug_mtime_sec ||
	    h->debug_mtime_nsec != want->debug_mtime_nsec)
		return "of other symbols (a debug file installed, changed or removed since)";
	if (!h->n || h->n > MAX_ENTRIES || !h->names_len || h->names_len > MAX_NAMES ||
	    len != sizeof(*h) + h->n * sizeof(*v) + h->names_len)
		return "of the wrong size";
	names = (const char *)(v + h->n);
	if (names[h->names_len - 1])
		return "damaged (names)";
	for (uint64_t i = 0; i < h->n; i++)
		if (v[i].name >= h->names_len || v[i].end < v[i].addr ||
		    (i && v[i].addr <= v[i - 1].addr))
			return "damaged (entries)";
	return NULL;
}

bool sym_cache_load(struct lfr_blob_cache *c, struct elfobj *o, uint64_t object_size,
                    const struct stat *dbg, char *why, size_t whylen)
{
	size_t max =
	    sizeof(struct syms_hdr) + (size_t)MAX_ENTRIES * sizeof(struct symtab_ent) + MAX_NAMES;
	struct syms_hdr want, h;
	const char *bad;
	char name[160];
	struct lfr_blob b;
	struct symtab_ent *v;
	char *names;

	describe(&want, o, object_size, dbg);
	lfr_blob_cache_name(o->build_id, o->build_id_len, ".syms", name, sizeof(name));
	if (lfr_blob_cache_read(c, name, max, &b, why, whylen))
		return false;
	if (b.len < sizeof(h)) {
		bad = "cut short";
		goto refuse;
	}
	memcpy(&h, b.data, sizeof(h));
	bad = check(&want, b.data, b.len);
	if (bad)
		goto refuse;
	/* copied out of the file's mapping: the symbolizer owns (and may grow) its table */
	v = malloc(h.n * sizeof(*v));
	names = malloc(h.names_len);
	if (!v || !names) {
		free(v);
		free(names);
		lfr_blob_release(&b);
		return false;
	}
	memcpy(v, (const char *)b.data + sizeof(h), h.n * sizeof(*v));
	memcpy(names, (const char *)b.data + sizeof(h) + h.n * sizeof(*v), h.names_len);
	lfr_blob_release(&b);
	symtab_fini(&o->syms);
	o->syms.v = v;
	o->syms.n = o->syms.cap = h.n;
	o->syms.names = names;
	o->syms.names_len = o->syms.names_cap = h.names_len;
	return true;
refuse:
	lfr_blob_release(&b);
	if (whylen)
		snprintf(why, whylen, "%s: %s", name, bad);
	return false;
}

int sym_cache_store(struct lfr_blob_cache *c, const struct elfobj *o, uint64_t object_size,
                    const struct stat *dbg, char *why, size_t whylen)
{
	struct syms_hdr h;
	struct iovec iov[3];
	char name[160];

	if (!o->syms.n || !o->syms.names_len)
		return -ENODATA;
	describe(&h, o, object_size, dbg);
	h.n = o->syms.n;
	h.names_len = o->syms.names_len;
	lfr_blob_cache_name(o->build_id, o->build_id_len, ".syms", name, sizeof(name));
	iov[0] = (struct iovec){&h, sizeof(h)};
	iov[1] = (struct iovec){o->syms.v, o->syms.n * sizeof(*o->syms.v)};
	iov[2] = (struct iovec){o->syms.names, o->syms.names_len};
	return lfr_blob_cache_write(c, name, iov, 3, why, whylen);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Chunks read, checked, rebased and written whole: what lfr dump (jfr/repository.c) and lfr merge
 * (cli/cmd_merge.c) share; each keeps its own policy (which chunks, which clock, what to say).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jfr/chunk_io.h"
#include "jfr/encode.h"
#include "jfr/rebase.h"
#include "lib/outfile.h"

#define TERM_SIZE 2

int jfr_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ENODATA;
		p += r;
		off += (uint64_t)r;
		n -= (size_t)r;
	}
	return 0;
}

int jfr_chunk_extent(int fd, uint8_t *h, uint64_t file_size, uint64_t *len)
{
	uint8_t b[16];
	uint64_t size, cp, cp_size;
	unsigned used, at;
	struct jfr_chunk ch;
	char why[128];
	int err = jfr_pread_full(fd, h, JFR_CHUNK_HEADER_SIZE, 0);

	if (err)
		return err;
	if (jfr_chunk_header(&ch, h, file_size, why, sizeof(why), &at))
		return -EINVAL;
	size = ch.size;
	cp = (uint64_t)ch.cp_off;
	*len = size;
	if (cp < JFR_CHUNK_HEADER_SIZE || cp >= size || size - cp < sizeof(b) ||
	    jfr_pread_full(fd, b, sizeof(b), cp))
		return 0;
	used = jfr_varint_decode(b, sizeof(b), &cp_size);
	if (!used || cp_size > size - cp - TERM_SIZE)
		return 0;
	uint64_t term = cp + cp_size;
	uint8_t t[TERM_SIZE];

	if (jfr_pread_full(fd, t, TERM_SIZE, term) || t[0] != TERM_SIZE || t[1] != 0)
		return 0;
	*len = term + TERM_SIZE;
	jfr_put_be64(h + JFR_H_SIZE, *len);
	return 0;
}

int jfr_chunk_at(struct jfr_reader *r, uint64_t off, struct jfr_chunk *ch, char *why, size_t n)
{
	unsigned at;

	if (off == 0 && (r->size < 4 || memcmp(r->data, "FLR\0", 4)))
		return JFR_CHUNK_NO_MAGIC;
	int bad = jfr_chunk_header(ch, r->data + off, r->size - off, why, n, &at);

	/* the state byte: nonzero while a JVM rewrites the header */
	if (!bad && ch->state) {
		snprintf(why, n, "its header says it is being written");
		bad = -1;
	}
	if (bad)
		return JFR_CHUNK_UNFINISHED;
	if (jfr_chunk_load(r, off, ch)) {
		ch->size = ch->size ? ch->size : r->size - off; /* set by the header that held */
		return JFR_CHUNK_DAMAGED;
	}
	return 0;
}

bool jfr_chunk_ns_header(const uint8_t *buf, uint64_t len, struct jfr_chunk *hdr)
{
	char why[128];
	unsigned at;

	memset(hdr, 0, sizeof(*hdr));
	return !jfr_chunk_header(hdr, buf, len, why, sizeof(why), &at) &&
	       hdr->ticks_per_second == JFR_REBASE_TICKS_PER_SECOND;
}

bool jfr_chunk_rebase_mem(const uint8_t *buf, uint64_t len, const char *name, int64_t delta,
                          struct jfr_buf *out)
{
	struct jfr_reader *r = jfr_open_mem(buf, (size_t)len, name);
	struct jfr_chunk ch;
	char err[256];
	bool ok = false;

	if (!r)
		return false;
	if (!jfr_chunk_load(r, 0, &ch)) {
		ok = ch.size == len && !jfr_rebase_chunk(r, &ch, delta, out, err, sizeof(err));
		jfr_chunk_release(&ch);
	}
	jfr_close(r);
	return ok;
}

bool jfr_chunk_readable(const uint8_t *buf, uint64_t len, const char *name,
                        struct jfr_meta_cache *cache, char *why, size_t n)
{
	struct jfr_reader *r = jfr_open_mem(buf, (size_t)len, name);
	struct jfr_chunk ch;
	bool ok = false;

	if (!r) {
		snprintf(why, n, "out of memory");
		return false;
	}
	r->meta_cache = cache;
	if (!jfr_chunk_load(r, 0, &ch)) {
		ok = ch.size == len && !jfr_chunk_verify(r, &ch);
		if (!ok && !r->failed)
			snprintf(why, n, "chunk size %llu, %llu bytes copied",
			         (unsigned long long)ch.size, (unsigned long long)len);
		jfr_chunk_release(&ch);
	}
	if (r->failed)
		snprintf(why, n, "%s", r->err + strlen(name) + 2);
	jfr_close(r);
	return ok;
}

bool jfr_clock_origin_note(struct jfr_clock_origin *o, const struct jfr_chunk *hdr, bool known)
{
	if (o->seen)
		return false;
	o->seen = true;
	o->known = known;
	/* its header only: its pools and metadata go with its reader */
	o->hdr = *hdr;
	o->hdr.meta = NULL;
	memset(&o->hdr.pool, 0, sizeof(o->hdr.pool));
	return true;
}

int jfr_chunk_write(int fd, const void *p, size_t n, const char *what, char *err, size_t errlen)
{
	int ret = lfr_write_all(fd, p, n);

	if (ret)
		snprintf(err, errlen, "writing %s: %s", what, strerror(-ret));
	return ret;
}

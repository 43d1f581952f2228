// SPDX-License-Identifier: GPL-2.0
/* The /dev/lfr ring reader: mmap of every CPU's ring, poll, and the consumer side of the protocol.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/ring.h"

/* ---- arithmetic ---- */

int64_t lfr_ring_readable(uint64_t head, uint64_t tail, uint64_t data_size)
{
	uint64_t n = head - tail; /* free-running counters: modulo 2^64 */

	if (n > data_size)
		return -1;
	return (int64_t)n;
}

static int bounce_reserve(struct lfr_bounce *b, size_t size)
{
	uint8_t *p;

	if (b->size >= size)
		return 0;
	p = realloc(b->buf, size);
	if (!p)
		return -1;
	b->buf = p;
	b->size = size;
	return 0;
}

void lfr_bounce_free(struct lfr_bounce *b)
{
	free(b->buf);
	b->buf = NULL;
	b->size = 0;
}

/* Copies LEN bytes at free-running position POS out of the circular DATA area into DST. */
static void copy_out(uint8_t *dst, const uint8_t *data, uint64_t data_size, uint64_t pos,
                     size_t len)
{
	uint64_t off = pos & (data_size - 1);
	size_t first = len < data_size - off ? len : (size_t)(data_size - off);

	memcpy(dst, data + off, first);
	memcpy(dst + first, data, len - first);
}

int lfr_ring_record_at(const uint8_t *data, uint64_t data_size, uint64_t pos, uint64_t head,
                       struct lfr_bounce *b, const struct lfr_rec_header **rec, char *why,
                       size_t whylen)
{
	struct lfr_rec_header h;
	uint64_t off = pos & (data_size - 1);
	uint64_t avail = head - pos;

	if (pos == head)
		return 0;
	if (avail > data_size) {
		snprintf(why, whylen, "head %llu is not within one ring of position %llu",
		         (unsigned long long)head, (unsigned long long)pos);
		return -1;
	}
	if (pos % 8) {
		snprintf(why, whylen, "position %llu is not 8-byte aligned",
		         (unsigned long long)pos);
		return -1;
	}
	if (avail < sizeof(h)) {
		snprintf(why, whylen, "%llu bytes at position %llu cannot hold a record header",
		         (unsigned long long)avail, (unsigned long long)pos);
		return -1;
	}
	/* data_size is a multiple of 8 and pos is aligned: the header never straddles the end */
	memcpy(&h, data + off, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8) {
		snprintf(why, whylen, "record at position %llu has size %u (type %u)",
		         (unsigned long long)pos, h.size, h.type);
		return -1;
	}
	if (h.size > avail) {
		snprintf(why, whylen,
		         "record at position %llu (type %u, %u bytes) runs past head %llu",
		         (unsigned long long)pos, h.type, h.size, (unsigned long long)head);
		return -1;
	}
	if (off + h.size <= data_size) {
		*rec = (const struct lfr_rec_header *)(data + off);
		return 1;
	}
	if (bounce_reserve(b, h.size) < 0) {
		snprintf(why, whylen, "out of memory copying a %u-byte record", h.size);
		return -1;
	}
	copy_out(b->buf, data, data_size, pos, h.size);
	*rec = (const struct lfr_rec_header *)b->buf;
	return 1;
}

/* ---- one ring ---- */

static void ring_error(struct lfr_error *e, const struct lfr_ring *r, const char *why)
{
	lfr_error_set(e, EBADMSG, "reading the ring of CPU %u", r->cpu);
	snprintf(e->msg, sizeof(e->msg), "%s", why);
	snprintf(e->hint, sizeof(e->hint),
	         "the ring is not in a state the module can produce: report this with 'dmesg' "
	         "and the versions of the module and the tools");
}

int64_t lfr_ring_begin(struct lfr_ring *r, struct lfr_error *e)
{
	int64_t n;
	char why[128];

	r->head = __atomic_load_n(&r->ctrl->head, __ATOMIC_ACQUIRE);
	n = lfr_ring_readable(r->head, r->pos, r->data_size);
	if (n < 0) {
		snprintf(why, sizeof(why), "head %llu, tail %llu, ring of %llu bytes",
		         (unsigned long long)r->head, (unsigned long long)r->pos,
		         (unsigned long long)r->data_size);
		ring_error(e, r, why);
	}
	return n;
}

int lfr_ring_next(struct lfr_ring *r, const struct lfr_rec_header **rec, struct lfr_error *e)
{
	char why[160];
	int ret = lfr_ring_record_at(r->data, r->data_size, r->pos, r->head, &r->bounce, rec, why,
	                             sizeof(why));

	if (ret < 0) {
		ring_error(e, r, why);
		return -1;
	}
	if (ret > 0) {
		r->pos += (*rec)->size;
		r->records++;
		r->bytes += (*rec)->size;
	}
	return ret;
}

void lfr_ring_end(struct lfr_ring *r)
{
	/* every read of the records happens before the kernel may see the space as free */
	__atomic_store_n(&r->ctrl->tail, r->pos, __ATOMIC_RELEASE);
}

/* ---- all rings ---- */

static int map_ring(struct lfr_rings *rs, struct lfr_ring *r, struct lfr_error *e)
{
	size_t len = (1 + (size_t)rs->ring_pages) * rs->page_size;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, rs->fd,
	               (off_t)LFR_MMAP_OFFSET(rs->session, r->cpu));
	const struct lfr_ring_ctrl *c;

	if (p == MAP_FAILED) {
		if (errno == ENXIO)
			return 0; /* not a possible CPU */
		lfr_error_set(e, errno, "mapping the ring of CPU %u of session %u", r->cpu,
		              rs->session);
		lfr_error_default_hint(e);
		return -1;
	}
	r->map = p;
	r->map_len = len;
	c = p;
	if (c->magic != LFR_RING_MAGIC || c->version < LFR_RING_VERSION || c->cpu != r->cpu ||
	    c->session_id != rs->session || c->data_offset < sizeof(*c) || c->data_size == 0 ||
	    (c->data_size & (c->data_size - 1)) || c->data_size % 8 ||
	    c->data_offset + c->data_size > len) {
		lfr_error_set(e, EPROTO, "mapping the ring of CPU %u", r->cpu);
		snprintf(e->msg, sizeof(e->msg),
		         "unexpected control page: magic %#x version %u cpu %u session %u data "
		         "%llu+%llu in a %zu-byte mapping",
		         c->magic, c->version, c->cpu, c->session_id,
		         (unsigned long long)c->data_offset, (unsigned long long)c->data_size, len);
		lfr_error_default_hint(e);
		munmap(p, len);
		r->map = NULL;
		return -1;
	}
	r->ctrl = p;
	r->data = (const uint8_t *)p + c->data_offset;
	r->data_size = c->data_size;
	r->pos = __atomic_load_n(&r->ctrl->tail, __ATOMIC_ACQUIRE);
	r->head = r->pos;
	r->mapped = true;
	rs->nmapped++;
	return 0;
}

int lfr_rings_open(struct lfr_rings *rs, const struct lfr_session_info *info, struct lfr_error *e)
{
	memset(rs, 0, sizeof(*rs));
	rs->fd = -1;
	rs->session = info->id;
	rs->nr_cpu_ids = info->nr_cpu_ids;
	rs->ring_pages = info->ring_pages;
	rs->page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (!rs->nr_cpu_ids || !rs->ring_pages) {
		lfr_error_set(e, EPROTO, "mapping the rings of session %u", info->id);
		snprintf(e->msg, sizeof(e->msg),
		         "the module reported %u CPUs and %u pages per ring", info->nr_cpu_ids,
		         info->ring_pages);
		return -1;
	}
	rs->fd = open(LFR_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (rs->fd < 0) {
		lfr_error_set(e, errno, "opening %s", LFR_DEVICE_PATH);
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			e->no_module = 1;
		if (errno == ENOENT)
			snprintf(e->hint, sizeof(e->hint),
			         "the lfr module is loaded but %s is missing: is devtmpfs mounted "
			         "on /dev, or does udev run?",
			         LFR_DEVICE_PATH);
		lfr_error_default_hint(e);
		return -1;
	}
	rs->ring = calloc(rs->nr_cpu_ids, sizeof(*rs->ring));
	if (!rs->ring) {
		lfr_error_set(e, ENOMEM, "mapping the rings");
		goto fail;
	}
	for (uint32_t cpu = 0; cpu < rs->nr_cpu_ids; cpu++) {
		rs->ring[cpu].cpu = cpu;
		if (map_ring(rs, &rs->ring[cpu], e) < 0)
			goto fail;
	}
	if (!rs->nmapped) {
		lfr_error_set(e, ENXIO, "mapping the rings of session %u", rs->session);
		snprintf(e->msg, sizeof(e->msg), "no CPU has a ring");
		goto fail;
	}
	return 0;
fail:
	lfr_rings_close(rs);
	return -1;
}

void lfr_rings_close(struct lfr_rings *rs)
{
	for (uint32_t i = 0; rs->ring && i < rs->nr_cpu_ids; i++) {
		if (rs->ring[i].map)
			munmap(rs->ring[i].map, rs->ring[i].map_len);
		lfr_bounce_free(&rs->ring[i].bounce);
	}
	free(rs->ring);
	rs->ring = NULL;
	if (rs->fd >= 0)
		close(rs->fd);
	rs->fd = -1;
}

int lfr_rings_poll(struct lfr_rings *rs, int timeout_ms, struct lfr_error *e)
{
	struct pollfd pfd = {.fd = rs->fd, .events = POLLIN};
	int ret = poll(&pfd, 1, timeout_ms);

	if (ret < 0) {
		lfr_error_set(e, errno, "waiting for records");
		return -1;
	}
	if (ret == 0)
		return 0;
	if (pfd.revents & (POLLERR | POLLNVAL)) {
		lfr_error_set(e, EIO, "waiting for records");
		snprintf(e->msg, sizeof(e->msg), "poll() on %s reported an error", LFR_DEVICE_PATH);
		return -1;
	}
	return ((pfd.revents & POLLIN) ? LFR_POLL_DATA : 0) |
	       ((pfd.revents & POLLHUP) ? LFR_POLL_HUP : 0);
}

int64_t lfr_rings_read(struct lfr_rings *rs, lfr_record_fn fn, void *data, struct lfr_error *e)
{
	int64_t total = 0;

	for (uint32_t i = 0; i < rs->nr_cpu_ids; i++) {
		struct lfr_ring *r = &rs->ring[i];
		const struct lfr_rec_header *rec;
		int ret;

		if (!r->mapped)
			continue;
		if (lfr_ring_begin(r, e) < 0)
			return -1;
		for (;;) {
			uint64_t before = r->pos;

			ret = lfr_ring_next(r, &rec, e);
			if (ret <= 0)
				break;
			if (fn && fn(r, rec, data) < 0) {
				r->pos = before; /* not consumed */
				r->records--;
				r->bytes -= rec->size;
				ret = -2;
				break;
			}
			total++;
		}
		lfr_ring_end(r);
		if (ret == -1)
			return -1;
		if (ret == -2)
			break;
	}
	return total;
}

void lfr_rings_lost(const struct lfr_rings *rs, uint64_t lost[LFR_LOST_MAX + 1])
{
	memset(lost, 0, sizeof(uint64_t) * (LFR_LOST_MAX + 1));
	for (uint32_t i = 0; i < rs->nr_cpu_ids; i++) {
		if (!rs->ring[i].mapped)
			continue;
		for (unsigned int j = 0; j <= LFR_LOST_MAX; j++)
			lost[j] += __atomic_load_n(&rs->ring[i].ctrl->lost[j], __ATOMIC_RELAXED);
	}
}

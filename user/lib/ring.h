/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring reader: maps every CPU's ring of a session from /dev/lfr, waits with poll() and reads
 * the records in place.  The ordering contract is the one drawn in <linux/lfr.h>:
 *
 *   producer (kernel)                 consumer (this reader)
 *   write record at head               h = load_acquire(&ctrl->head)
 *   smp_wmb()                          read records in [tail, h)
 *   store_release(head, head + size)  store_release(&ctrl->tail, h)
 *
 * A read cycle on one ring is lfr_ring_begin (snapshot head), lfr_ring_next until it returns 0
 * (records are valid until lfr_ring_end), lfr_ring_end (publish tail).  A record that crosses the
 * end of the data area is copied out into a per-ring buffer, so callers always see it contiguous.
 */
#ifndef LFR_LIB_RING_H
#define LFR_LIB_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/lfr.h>

#include "lib/control.h"
#include "lib/error.h"

struct lfr_bounce {
	uint8_t *buf;
	size_t size;
};

struct lfr_ring {
	uint32_t cpu;
	bool mapped; /* false for CPUs that are not possible */
	struct lfr_ring_ctrl *ctrl;
	const uint8_t *data;
	uint64_t data_size; /* power of two */
	uint64_t head;      /* snapshot taken by lfr_ring_begin */
	uint64_t pos;       /* next byte to read; published as tail by lfr_ring_end */
	void *map;
	size_t map_len;
	struct lfr_bounce bounce; /* records that wrap are copied here */
	uint64_t records;         /* records read from this ring */
	uint64_t bytes;           /* bytes consumed from this ring */
};

struct lfr_rings {
	int fd;
	uint32_t session;
	uint32_t nr_cpu_ids;
	uint32_t ring_pages;
	size_t page_size;
	struct lfr_ring *ring; /* nr_cpu_ids entries */
	uint32_t nmapped;
};

/* Opens /dev/lfr and maps the ring of every possible CPU of the session described by INFO. */
int lfr_rings_open(struct lfr_rings *rs, const struct lfr_session_info *info, struct lfr_error *e);
void lfr_rings_close(struct lfr_rings *rs);

#define LFR_POLL_DATA 1 /* some ring is at or above its wakeup mark */
#define LFR_POLL_HUP 2  /* the session is stopped: the rings hold everything it will write */

/* Waits up to TIMEOUT_MS (-1 = forever): LFR_POLL_* bits, 0 on timeout, -1 on error (EINTR too). */
int lfr_rings_poll(struct lfr_rings *rs, int timeout_ms, struct lfr_error *e);

/* Snapshots head (load-acquire); returns the bytes readable, or -1 with E when head is impossible.
 */
int64_t lfr_ring_begin(struct lfr_ring *r, struct lfr_error *e);
/* 1 with *rec set, 0 at the snapshot's head, -1 with E on a malformed ring. */
int lfr_ring_next(struct lfr_ring *r, const struct lfr_rec_header **rec, struct lfr_error *e);
/* Publishes everything read since lfr_ring_begin as consumed (store-release of tail). */
void lfr_ring_end(struct lfr_ring *r);

/* Called for every record; a negative return stops reading (the record is not consumed). */
typedef int (*lfr_record_fn)(const struct lfr_ring *r, const struct lfr_rec_header *rec,
                             void *data);

/* One read cycle on every ring.  Returns the number of records read, or -1 with E. */
int64_t lfr_rings_read(struct lfr_rings *rs, lfr_record_fn fn, void *data, struct lfr_error *e);

/* Cumulative per-reason counts of records dropped on all rings (ctrl->lost[], summed). */
void lfr_rings_lost(const struct lfr_rings *rs, uint64_t lost[LFR_LOST_MAX + 1]);

/*
 * The ring arithmetic, without a mapping (for the unit tests and the reader above): finds the
 * record at free-running position POS of the data area DATA (DATA_SIZE bytes, a power of two) whose
 * producer head is HEAD.  Returns 1 with *rec pointing at the record (into DATA, or into B when it
 * wraps), 0 when POS == HEAD, or -1 with a reason in WHY when the ring content is impossible:
 * misaligned position, a size below the header or not a multiple of 8, or a record running past
 * HEAD.
 */
int lfr_ring_record_at(const uint8_t *data, uint64_t data_size, uint64_t pos, uint64_t head,
                       struct lfr_bounce *b, const struct lfr_rec_header **rec, char *why,
                       size_t whylen);

/* Bytes readable between TAIL and HEAD (modulo 2^64), or -1 when that is more than a ring. */
int64_t lfr_ring_readable(uint64_t head, uint64_t tail, uint64_t data_size);

void lfr_bounce_free(struct lfr_bounce *b);

#endif

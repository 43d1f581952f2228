/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Batches of copied ring records: the unit the reading side of `lfr record` hands over to the
 * naming side (record/behind.c).
 *
 * While the recorded threads run, naming stays behind and the records read meanwhile queue up:
 * memory the recorder has never touched, taken at the rate the rings fill.  Taken page by page,
 * that is one page fault per 4 KiB copied, in the reading thread, on the CPUs the recorded threads
 * need.  A mapped batch (batch_map()) is instead whole blocks, populated in one call.  A block
 * is 256 KiB, about a fifth of a second of records at 999 Hz on two busy CPUs: the kernel zeroes
 * every page it populates, and 2 MiB huge-page blocks for the few hundred KiB a hand-over carries
 * made that zeroing most of the reading thread's time (bench/kprofile).
 */
#ifndef LFR_RECORD_BATCH_H
#define LFR_RECORD_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The size (and alignment) of the blocks of a mapped batch. */
#define BATCH_BLOCK (256u << 10)

/* A copied record: the batch owns its bytes. */
struct batch {
	uint8_t *buf;
	size_t len, cap;
	bool mapped; /* buf is whole blocks of its own mapping, not malloc's */
	/* set by whoever pushes a record that names something (a thread, a mapping): a batch
	 * without one is read once, not twice */
	bool names;
	struct batch *next; /* in the naming thread's queue, or among the spare ones */
};

/* Gives B a mapped buffer of at least CAP bytes (whole blocks), populated; 0 or -ENOMEM. */
int batch_map(struct batch *b, size_t cap);

/* Whether SIZE more bytes fit without growing. */
static inline bool batch_fits(const struct batch *b, size_t size)
{
	return b->len + size <= b->cap;
}

/* Makes room for SIZE more bytes (a mapped buffer stays mapped); 0 or -ENOMEM. */
int batch_grow(struct batch *b, size_t size);

/*
 * Appends SIZE bytes at REC, growing the buffer when needed; 0 or -ENOMEM.  Inline: every record
 * read is copied once.
 */
static inline int batch_push(struct batch *b, const void *rec, size_t size)
{
	int err;

	if (!batch_fits(b, size) && (err = batch_grow(b, size)))
		return err;
	memcpy(b->buf + b->len, rec, size);
	b->len += size;
	return 0;
}

/* Exchanges the bytes of two batches (not their places in a list). */
void batch_swap(struct batch *a, struct batch *b);

/* Empties B, its buffer kept. */
static inline void batch_reset(struct batch *b)
{
	b->len = 0;
	b->names = false;
}

/* Frees the buffer; B is empty afterwards. */
void batch_free(struct batch *b);

#endif

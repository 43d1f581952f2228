// SPDX-License-Identifier: GPL-2.0
/*
 * lfr's JFR writer: chunks, flushes and rotation, opening and closing.  Its other parts, one job
 * a file: the events above it (writer_events.c, writer_info.c: they call its flush), and below
 * it the files (writer_files.c), the constant pools and checkpoints (writer_pools.c), errors,
 * clock and I/O (writer_io.c); the state they share is in writer_internal.h.
 *
 * File layout while recording.  Every chunk is preallocated (the file is extended with ftruncate,
 * so the space is a hole, not written zeros) and always ends with a "filler": an event of type 1
 * whose padded 5-byte size covers the rest of the chunk.  Readers skip type-1 events while walking
 * events (checkpoints are reached only through the chunk header's constant-pool offset and the
 * delta chain), so whatever lies inside the filler is invisible.  JMC stops its walk at the first
 * type-0 event: the metadata is therefore wrapped in a type-1 event (the header points inside the
 * wrapper), and the events end with a 2-byte type-0 "terminator".
 *
 *   [header][wrapped metadata][cp 0][t][events][cp 1][t] ... [events][cp n][T][filler .........]
 *
 * A flush writes the new events, a new checkpoint (the pool entries they reference that this chunk
 * has not carried yet, delta pointing back to the previous checkpoint), a new terminator and a new
 * filler header *inside* the current filler, then publishes them with small writes, each leaving a
 * file every reader accepts:
 *   1. the header's constant-pool offset := the new checkpoint (pools grow, no new event is seen);
 *   2. the old filler's size := its minimum: the JDK sees the new events;
 *   3. the old terminator's type := 1: JMC sees the new events, up to the new terminator;
 *   4. the header's duration.
 * A process killed anywhere in this sequence leaves the previous flush's file, or the new one.  The
 * published fields are written with single pwrite()s of at most 8 bytes that never cross a page,
 * which the kernel performs entirely or not at all.
 *
 * Rotation builds the next chunk inside the current filler, shrinks the current chunk's size to end
 * where the new chunk starts (the old filler then reaches past its chunk's end: the JDK stops
 * walking at the chunk end, JMC at the terminator before it), then trims the old filler.  Growing
 * the last chunk (when the next flush needs more room than preallocated) extends the filler first,
 * then the file, then the chunk size; closing sets the final flag, then shrinks the chunk to its
 * content and the file to the chunk.  Those last two steps each leave one moment, between two
 * consecutive system calls, where the file is not readable; Documentation/jfr-writer.md says more.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jfr/encode.h"
#include "jfr/reader.h"
#include "jfr/repository.h"
#include "jfr/schema.h"
#include "jfr/writer_internal.h"
#include "lib/clock.h"

/* ---- chunk pieces ---- */

static void put_header(struct jfr_buf *b, const struct lfr_jfr_writer *w, uint64_t size,
                       uint64_t cp_off, uint64_t meta_off, uint64_t start_ticks)
{
	jfr_buf_put(b, "FLR", 4); /* with its NUL */
	jfr_buf_be16(b, 2);
	jfr_buf_be16(b, 1);
	jfr_buf_be64(b, size);
	jfr_buf_be64(b, cp_off);
	jfr_buf_be64(b, meta_off);
	jfr_buf_be64(b, real_nanos(w, start_ticks));
	jfr_buf_be64(b, 0); /* duration */
	jfr_buf_be64(b, start_ticks);
	jfr_buf_be64(b, TICKS_PER_SECOND);
	jfr_buf_u8(b, 0); /* state: finished */
	jfr_buf_u8(b, 0);
	jfr_buf_be16(b, FLAG_COMPRESSED_INTS);
}

static void put_filler(struct jfr_buf *b, uint64_t size)
{
	jfr_buf_varint_padded(b, size, FILLER_SIZE_WIDTH);
	jfr_buf_u8(b, 1);
	for (int i = 0; i < 5; i++)
		jfr_buf_u8(b, 0);
}

static void put_term(struct jfr_buf *b)
{
	jfr_buf_u8(b, TERM_SIZE);
	jfr_buf_u8(b, 0);
}

/* ---- chunks ---- */

/*
 * Builds a whole new chunk at file offset at, ending at end, into w->frame around the metadata
 * and the checkpoint (written by write_chunk()):
 *   header, metadata wrapped in a type-1 event (so that JMC's event walk does not stop at it; the
 *   header points into the wrapper), checkpoint 0 (the static pools), terminator, filler.
 */
static int build_chunk(struct lfr_jfr_writer *w, uint64_t at, uint64_t end, uint64_t ticks,
                       uint64_t *term, uint64_t *cp)
{
	uint64_t meta_off = JFR_CHUNK_HEADER_SIZE + FILLER_MIN;
	uint64_t cp_off = meta_off + w->meta.len;
	int err;

	w->chunk_seq++;
	for (int p = 0; p < P_COUNT; p++)
		w->pools[p].chunk = w->chunk_seq;
	err = jfr_writer_build_checkpoint(w, at + cp_off, 0, true, ticks);
	if (err)
		return err;
	jfr_buf_reset(&w->frame);
	put_header(&w->frame, w, end - at, cp_off, meta_off, ticks);
	put_filler(&w->frame, FILLER_MIN + w->meta.len);
	w->frame_head = w->frame.len;
	*term = at + cp_off + w->cp.len;
	*cp = at + cp_off;
	put_term(&w->frame);
	put_filler(&w->frame, end - (*term + TERM_SIZE));
	if (w->frame.oom)
		return jfr_writer_nomem(w, "building a chunk");
	return 0;
}

/* Writes what build_chunk() built at at, then lets the checkpoint's memory go. */
static int write_chunk(struct lfr_jfr_writer *w, uint64_t at, const char *what)
{
	struct iovec parts[] = {
	    {w->frame.data, w->frame_head},
	    {w->meta.data, w->meta.len},
	    {w->cp.data, w->cp.len},
	    {w->frame.data + w->frame_head, w->frame.len - w->frame_head},
	};
	int err = jfr_writer_io_writev(w, parts, 4, at, what);

	jfr_buf_settle(&w->cp);
	return err;
}

/* Extends the current (last) chunk and the file to end. */
static int grow(struct lfr_jfr_writer *w, uint64_t end)
{
	int err;

	if (end <= w->end)
		return 0;
	err = jfr_writer_io_filler_size(w, w->filler, end - w->filler);
	if (!err)
		err = jfr_writer_io_truncate(w, end, "extending the file");
	if (!err)
		err = jfr_writer_io_u64(w, w->start + JFR_H_SIZE, end - w->start,
		                        "writing the chunk size");
	if (!err)
		w->end = end;
	return err;
}

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~7ULL;
}

static int first_chunk(struct lfr_jfr_writer *w, uint64_t ticks);

/* In a repository: the current chunk ends with its file, the next starts in a file of its own. */
static int rotate_file(struct lfr_jfr_writer *w, uint64_t now, uint64_t ticks)
{
	int err = jfr_writer_end_chunk_file(w, now, false);

	if (!err)
		err = jfr_writer_create_chunk_file(w, ticks);
	if (!err)
		err = first_chunk(w, ticks);
	if (err)
		return err;
	w->chunk_born = now;
	w->chunk_events = 0;
	w->st.chunks++;
	if (w->opt.on_chunk_file)
		w->opt.on_chunk_file(w->opt.on_chunk_file_arg);
	return 0;
}

/* Ends the current chunk and starts the next one right after its content. */
static int rotate(struct lfr_jfr_writer *w, uint64_t now)
{
	uint64_t next = align8(w->filler + FILLER_MIN);
	uint64_t ticks = now, term, cp;
	int err;

	if (w->seg_events && w->seg_min_ticks < ticks)
		ticks = w->seg_min_ticks;
	if (ticks <= w->chunk_ticks)
		ticks =
		    w->chunk_ticks + 1; /* distinct start times: JMC loads only one of equal ones */
	if (w->opt.repository)
		return rotate_file(w, now, ticks);
	/* the new chunk's start lies inside the old filler; make room for it there first */
	uint64_t need = next + JFR_CHUNK_HEADER_SIZE + w->meta.len + 4096 + FILLER_MIN + 8;
	err = grow(w, need > w->end ? need + (w->opt.max_chunk_bytes / 4) : 0);
	if (err)
		return err;
	uint64_t old_start = w->start, old_filler = w->filler;
	uint64_t duration = chunk_duration(w, now);
	err = build_chunk(w, next, w->end, ticks, &term, &cp);
	if (!err)
		err = write_chunk(w, next, "writing a new chunk");
	if (!err)
		err = jfr_writer_io_u64(w, old_start + JFR_H_SIZE, next - old_start,
		                        "ending a chunk");
	if (!err)
		err = jfr_writer_io_filler_size(w, old_filler, next - old_filler);
	if (!err)
		err = jfr_writer_io_u64(w, old_start + JFR_H_DURATION, duration,
		                        "writing a chunk duration");
	if (err)
		return err;
	w->start = next;
	w->term = term;
	w->filler = term + TERM_SIZE;
	w->last_cp = cp;
	w->chunk_ticks = ticks;
	w->chunk_max_ticks = ticks;
	w->chunk_born = now;
	w->chunk_events = 0;
	w->st.chunks++;
	return 0;
}

static int local_gmt_offset_ms(int64_t *out)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return -1;
	*out = (int64_t)tm.tm_gmtoff * 1000;
	return 0;
}

/* Writes the first chunk at the start of the current (new) file, preallocated. */
static int first_chunk(struct lfr_jfr_writer *w, uint64_t ticks)
{
	uint64_t term, cp;
	int err;

	w->start = 0;
	w->end = w->opt.max_chunk_bytes;
	w->chunk_ticks = w->chunk_max_ticks = ticks;
	err = build_chunk(w, 0, w->end, ticks, &term, &cp);
	if (!err)
		err = jfr_writer_io_truncate(w, w->end, "preallocating the first chunk");
	if (!err)
		err = write_chunk(w, 0, "writing the first chunk");
	if (err)
		return err;
	w->term = term;
	w->filler = term + TERM_SIZE;
	w->last_cp = cp;
	if (w->opt.repository)
		return jfr_writer_publish_chunk_file(w);
	return 0;
}

int lfr_jfr_open(struct lfr_jfr_writer **out, const char *path, const struct lfr_jfr_options *opt)
{
	struct lfr_jfr_writer *w = calloc(1, sizeof(*w));
	struct timespec real;
	int err;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	/*
	 * A stack trace's blob is the method keys this writer gave (each checked to exist): lfr's
	 * own bytes, interned for every new stack lfr record meets, hashed unkeyed.  The others
	 * hold names from files and processes (symbols, paths, thread names): keyed.
	 */
	for (int p = 0; p < P_COUNT; p++)
		pool_init(&w->pools[p], p == P_STACK);
	w->repo.lock_fd = -1;
	w->out = (struct lfr_outfile)LFR_OUTFILE_INIT;
	w->io_budget = -1;
	w->fault_op = -1;
	if (opt)
		w->opt = *opt;
	if (!w->opt.max_chunk_bytes)
		w->opt.max_chunk_bytes = 12 << 20;
	if (w->opt.max_chunk_bytes < 64 << 10)
		w->opt.max_chunk_bytes = 64 << 10;
	if (w->opt.max_chunk_bytes > (1ULL << 31) - (64 << 20))
		w->opt.max_chunk_bytes = (1ULL << 31) - (64 << 20); /* JMC: chunks under 2 GiB */
	if (!w->opt.auto_flush_bytes)
		w->opt.auto_flush_bytes = 4 << 20;
	if (w->opt.auto_flush_bytes > w->opt.max_chunk_bytes / 2)
		w->opt.auto_flush_bytes = w->opt.max_chunk_bytes / 2;
	w->path = strdup(path);
	*out = w;
	if (!w->path)
		return jfr_writer_nomem(w, "opening");
	if (w->opt.sample_events & ~(unsigned)(LFR_JFR_SAMPLE_ALL | LFR_JFR_SAMPLE_WALL)) {
		w->dead = true;
		return jfr_writer_fail(w, EINVAL, "unknown sample events 0x%x (LFR_JFR_SAMPLE_*)",
		                       w->opt.sample_events);
	}

	/* the clock pair: realtime read between two monotonic reads (the kernel's, the records'
	 * clock, whatever time namespace lfr runs in), the closest pair kept */
	uint64_t m1 = lfr_kernel_mono_ns();

	clock_gettime(CLOCK_REALTIME, &real);
	uint64_t m2 = lfr_kernel_mono_ns();

	w->mono0 = m1 + (m2 - m1) / 2;
	w->real0 = (uint64_t)real.tv_sec * TICKS_PER_SECOND + (uint64_t)real.tv_nsec;
	if (w->opt.clock) {
		m2 = w->opt.clock();
		w->mono0 = 0;
		w->real0 = (uint64_t)w->opt.clock_realtime0;
	}
	if (local_gmt_offset_ms(&w->gmt_offset_ms))
		w->gmt_offset_ms = 0;
	if (!jfr_metadata_build(&w->meta, 0, w->gmt_offset_ms))
		return jfr_writer_nomem(w, "building the metadata");
	w->desc_symbol = pool_intern(&w->pools[P_SYMBOL], "()V", 3);
	if (!w->desc_symbol)
		return jfr_writer_nomem(w, "interning a symbol");
	pool_get(&w->pools[P_SYMBOL], w->desc_symbol)->refs = 1; /* kept for the writer's life */

	if (w->opt.repository) {
		char msg[sizeof(w->err)];

		err = lfr_jfr_repo_open(&w->repo, path, w->opt.repo_max_bytes,
		                        w->opt.repo_max_age_ns, msg, sizeof(msg));
		w->repo.on_evict = w->opt.on_evict;
		w->repo.on_evict_arg = w->opt.on_evict_arg;
		if (err) {
			w->dead = true;
			return jfr_writer_fail(w, -err, "%s", msg);
		}
		err = jfr_writer_create_chunk_file(w, m2);
	} else {
		err = jfr_writer_create_file(w);
	}
	if (err)
		return err;
	w->chunk_born = m2;
	if ((err = first_chunk(w, m2)))
		return err;
	w->st.chunks = 1;
	w->seg_seq = 1;
	return 0;
}

/* The repeated events at the new chunk's start time, into pre. */
static int sticky_restate(struct lfr_jfr_writer *w)
{
	jfr_buf_reset(&w->pre);
	for (size_t i = 0; i < w->nsticky; i++) {
		jfr_buf_reset(&w->tmp);
		jfr_buf_varint(&w->tmp, w->sticky[i].type);
		jfr_buf_varint(&w->tmp, w->chunk_ticks);
		jfr_buf_put(&w->tmp, w->sticky[i].body.data, w->sticky[i].body.len);
		jfr_buf_varint(&w->pre, jfr_event_size(w->tmp.len));
		jfr_buf_put(&w->pre, w->tmp.data, w->tmp.len);
	}
	if (w->tmp.oom || w->pre.oom)
		return jfr_writer_nomem(w, "repeating the information events");
	w->st.events += w->nsticky;
	return 0;
}

/*
 * The lfr.Label events of the processes whose threads this segment's events name, for those
 * not told in this chunk yet (jfr/labels.h): appended to the events, without a flush.
 */
static int tell_labels(struct lfr_jfr_writer *w, uint64_t ticks)
{
	const struct keyvec *threads = &w->seg_refs[P_THREAD];

	if (!w->labels.n)
		return 0;
	for (size_t i = 0; i < threads->n; i++) {
		const struct pool_entry *e = pool_get(&w->pools[P_THREAD], threads->k[i]);
		uint32_t tgid;
		size_t n;

		if (!e->blob)
			continue;
		memcpy(&tgid, e->blob + 4, 4);
		n = jfr_labels_tell(&w->labels, tgid, w->chunk_seq, ticks, &w->ev);
		w->seg_events += n;
		w->st.events += n;
	}
	return w->ev.oom ? jfr_writer_nomem(w, "buffering labels") : 0;
}

/* ---- flush, close ---- */

/* A freed thread's group loses a reference; the group goes with its last thread. */
static void thread_freed(void *arg, const struct pool_entry *e)
{
	struct lfr_jfr_writer *w = arg;
	uint64_t group;
	struct pool_entry *g;

	memcpy(&group, e->blob + 8, 8);
	g = pool_get(&w->pools[P_GROUP], group);
	if (g && g->blob && g->refs && !--g->refs)
		pool_free_entry(&w->pools[P_GROUP], group);
}

/*
 * Frees the threads released before this flush, no event still to be written names them, and
 * the labels of processes gone, which it told with their events.
 */
static void free_released(struct lfr_jfr_writer *w)
{
	pool_free_released(&w->pools[P_THREAD], w->seg_seq, thread_freed, w);
	jfr_labels_free_released(&w->labels);
}

void lfr_jfr_thread_release(struct lfr_jfr_writer *w, uint64_t key)
{
	/* without memory for the list the entry is kept: a few bytes, never an event */
	if (w && !w->dead)
		pool_release(&w->pools[P_THREAD], key);
}

bool lfr_jfr_published(const struct lfr_jfr_writer *w)
{
	return w && w->published;
}

int lfr_jfr_flush(struct lfr_jfr_writer *w)
{
	uint64_t now = now_ticks(w);
	int err;

	if ((err = check_live(w)))
		return err;
	if (!w->seg_events) {
		free_released(w);
		return jfr_writer_io_u64(w, w->start + JFR_H_DURATION, chunk_duration(w, now),
		                         "writing a chunk duration")
		           ?: jfr_writer_repo_flushed(w, now);
	}

	uint64_t used = w->filler - w->start;
	uint64_t approx = w->ev.len + FILLER_MIN + 64;
	bool too_old = w->opt.max_chunk_age_ns && now - w->chunk_born >= w->opt.max_chunk_age_ns;
	if (w->chunk_events && (too_old || used + approx > w->opt.max_chunk_bytes)) {
		if ((err = rotate(w, now)) || (err = sticky_restate(w)))
			return err;
	}
	if ((err = tell_labels(w, now)))
		return err;
	uint64_t ev_at = w->filler + FILLER_MIN;
	uint64_t cp_at = ev_at + w->pre.len + w->ev.len;
	if ((err = jfr_writer_build_checkpoint(w, cp_at, w->last_cp, false, now)))
		return err;
	/* a chunk that would pass the size limit after a rotation anyway is grown as needed */
	uint64_t new_term = cp_at + w->cp.len;
	uint64_t new_filler = new_term + TERM_SIZE;
	uint64_t need = new_filler + FILLER_MIN;
	if (need > w->end) {
		uint64_t target = w->start + w->opt.max_chunk_bytes;

		if ((err = grow(w, need > target ? need + w->opt.max_chunk_bytes / 4 : target)))
			return err;
	}
	jfr_buf_reset(&w->frame);
	put_term(&w->frame);
	put_filler(&w->frame, w->end - new_filler);
	if (w->frame.oom)
		return jfr_writer_nomem(w, "assembling a flush");
	struct iovec parts[] = {
	    {w->pre.data, w->pre.len},
	    {w->ev.data, w->ev.len},
	    {w->cp.data, w->cp.len},
	    {w->frame.data, w->frame.len},
	};

	if (w->seg_max_ticks > w->chunk_max_ticks)
		w->chunk_max_ticks = w->seg_max_ticks;
	/*
	 * Written inside the current filler, then published step by step, each step leaving a file
	 * both readers accept: the new pools (through the header), the new events for the JDK (the
	 * filler shrinks), the new events for JMC (the old terminator retires), the duration.
	 */
	static const uint8_t retired = 1;
	if ((err = jfr_writer_io_writev(w, parts, 4, ev_at, "writing events")) ||
	    (err = jfr_writer_io_u64(w, w->start + JFR_H_CP_OFFSET, cp_at - w->start,
	                             "publishing a checkpoint")) ||
	    (err = jfr_writer_io_filler_size(w, w->filler, FILLER_MIN)) ||
	    (err = jfr_writer_io_write(w, &retired, 1, w->term + 1, "retiring a terminator")) ||
	    (err = jfr_writer_io_u64(w, w->start + JFR_H_DURATION, chunk_duration(w, now),
	                             "writing a chunk duration")))
		return err;
	if (w->opt.sync && fdatasync(w->fd) < 0)
		return jfr_writer_fail_io(w, errno, "fdatasync", 0);

	w->term = new_term;
	w->filler = new_filler;
	w->last_cp = cp_at;
	w->chunk_events += w->seg_events + (w->pre.len ? w->nsticky : 0);
	w->seg_events = 0;
	w->seg_seq++;
	/* a burst's flush does not keep its size: what this one left unused goes back */
	jfr_buf_settle(&w->ev);
	jfr_buf_settle(&w->pre);
	jfr_buf_settle(&w->cp);
	jfr_buf_settle(&w->tmp);
	for (int p = 0; p < P_COUNT; p++)
		w->seg_refs[p].n = 0;
	free_released(w);
	jfr_writer_sweep(w);
	w->st.flushes++;
	return jfr_writer_publish(w) ?: jfr_writer_repo_flushed(w, now);
}

static void free_writer(struct lfr_jfr_writer *w)
{
	for (int p = 0; p < P_COUNT; p++) {
		pool_free(&w->pools[p]);
		keyvec_free(&w->seg_refs[p]);
		keyvec_free(&w->emit[p]);
	}
	for (size_t i = 0; i < w->nlost; i++)
		free(w->lost[i].reason);
	free(w->lost);
	jfr_labels_free(&w->labels);
	for (size_t i = 0; i < w->nsticky; i++)
		jfr_buf_free(&w->sticky[i].body);
	free(w->sticky);
	jfr_buf_free(&w->pre);
	jfr_buf_free(&w->meta);
	jfr_buf_free(&w->ev);
	jfr_buf_free(&w->tmp);
	jfr_buf_free(&w->cp);
	jfr_buf_free(&w->frame);
	lfr_jfr_repo_close(&w->repo);
	lfr_outfile_abort(&w->out); /* published or abandoned by now: only closes it */
	free(w->path);
	free(w->tmp_path);
	free(w->chunk_path);
	free(w);
}

void lfr_jfr_abandon(struct lfr_jfr_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	jfr_writer_unpublish(w);
	free_writer(w);
}

int lfr_jfr_close(struct lfr_jfr_writer *w, char *errbuf, size_t errlen)
{
	return lfr_jfr_close_repo_stats(w, NULL, errbuf, errlen);
}

int lfr_jfr_close_repo_stats(struct lfr_jfr_writer *w, struct lfr_jfr_stats *st, char *errbuf,
                             size_t errlen)
{
	int err;

	if (!w)
		return 0;
	err = lfr_jfr_flush(w);
	if (!err)
		err = jfr_writer_end_chunk_file(w, now_ticks(w), true);
	if (!err)
		err = jfr_writer_publish(w);
	if (err)
		jfr_writer_unpublish(w);
	if (err && errlen)
		snprintf(errbuf, errlen, "%s", lfr_jfr_strerror(w));
	if (st) {
		st->repo_bytes = lfr_jfr_repo_bytes(&w->repo);
		st->repo_chunks = w->repo.n;
		st->evicted = w->repo.evicted;
	}
	free_writer(w);
	return err;
}

uint64_t lfr_jfr_pool_sweeps(const struct lfr_jfr_writer *w)
{
	return w->sweeps;
}

void lfr_jfr_get_stats(const struct lfr_jfr_writer *w, struct lfr_jfr_stats *st)
{
	*st = w->st;
	st->bytes = w->filler;
	st->symbols = pool_used(&w->pools[P_SYMBOL]);
	st->classes = pool_used(&w->pools[P_CLASS]);
	st->methods = pool_used(&w->pools[P_METHOD]);
	st->stack_traces = pool_used(&w->pools[P_STACK]);
	st->trace_contexts = pool_used(&w->pools[P_CONTEXT]);
	st->sweeps = w->sweeps;
	st->threads = pool_used(&w->pools[P_THREAD]);
	st->labelled = w->labels.n;
	st->repo_bytes = lfr_jfr_repo_bytes(&w->repo);
	st->repo_chunks = w->repo.n;
	st->evicted = w->repo.evicted;
	st->buffer_bytes = w->ev.cap + w->tmp.cap + w->cp.cap + w->pre.cap + w->frame.cap;
}

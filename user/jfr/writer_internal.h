// SPDX-License-Identifier: GPL-2.0
/*
 * The JFR writer's private parts, shared by its files (Documentation/jfr-writer.md, "Files"): the
 * writer's state, the layout constants, the per-event helpers kept inline here because event
 * writing is the recorder's hot path, and the functions one file offers the others.
 */
#ifndef LFR_JFR_WRITER_INTERNAL_H
#define LFR_JFR_WRITER_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>

#include "jfr/encode.h"
#include "jfr/labels.h"
#include "jfr/pool.h"
#include "jfr/repository.h"
#include "jfr/writer.h"
#include "lib/outfile.h"

#define TICKS_PER_SECOND 1000000000ULL
/* A filler: padded 5-byte size, type 1, then five zero varints so that a reader parsing it as a
 * checkpoint (the JDK's streaming parser does) finds an empty one. */
#define FILLER_MIN 11
/* The terminator: a 2-byte event of type 0 that ends the event walk of JMC, which stops reading a
 * chunk at the first type-0 event.  Retired by turning its type into 1 once a later one exists. */
#define TERM_SIZE 2
#define FILLER_SIZE_WIDTH 5
#define PAGE 4096

#define FLAG_COMPRESSED_INTS 1
#define FLAG_FINAL_CHUNK 2

enum { P_SYMBOL, P_CLASS, P_METHOD, P_STACK, P_THREAD, P_GROUP, P_CONTEXT, P_COUNT };

/* A thread state's name and key (the thread-state pool, writer_pools.c). */
struct jfr_writer_state {
	const char *name;
	uint16_t key;
};

extern const struct jfr_writer_state jfr_writer_states[LFR_JFR_STATE_COUNT + 1];

struct lost_reason {
	char *reason;
	uint64_t total;
};

/* An information event repeated at the start of every chunk: its payload after the start time. */
struct sticky {
	uint16_t type, group; /* group: the public function that wrote it, which replaces it */
	struct jfr_buf body;
};

struct lfr_jfr_writer {
	char *path;             /* the file the recording replaces, or the repository directory */
	struct lfr_outfile out; /* not in a repository: the new file until it is closed */
	char *tmp_path;         /* in a repository: NAME.tmp until its first chunk is written */
	char *chunk_path;       /* in a repository: the file of the current chunk */
	struct lfr_jfr_repo repo;
	int fd; /* the file written: a duplicate of out.fd, which publishing needs */
	bool dead;
	bool published; /* a flush with events happened (and the file is at path) */
	char err[512];
	struct lfr_jfr_options opt;
	int64_t io_budget;             /* fault injection: bytes of I/O left, -1 = unlimited */
	int64_t fault_op, fault_bytes; /* fault injection: the I/O call to cut, -1 = none */

	/* clock base: one CLOCK_MONOTONIC and one CLOCK_REALTIME reading taken together */
	uint64_t mono0, real0;
	int64_t gmt_offset_ms;
	struct jfr_buf meta; /* metadata event (start ticks 0), identical in every chunk */

	/* current chunk: [start, end) in the file; the live terminator is at term, the filler at
	 * filler (right after it) */
	uint64_t start, end, term, filler, last_cp;
	uint64_t chunk_ticks, chunk_max_ticks; /* header start ticks; latest event or flush time */
	uint64_t chunk_born;                   /* when the chunk was started (for its age) */
	uint32_t chunk_seq;
	uint64_t chunk_events;

	/* current flush segment */
	struct jfr_buf ev, tmp, cp;
	/*
	 * The few bytes written around a flush's or a new chunk's buffers (header, filler,
	 * terminator): frame_head of them before the buffers, the rest after.
	 */
	struct jfr_buf frame;
	size_t frame_head;
	uint32_t seg_seq;
	uint64_t seg_events, seg_min_ticks, seg_max_ticks;

	struct pool pools[P_COUNT];
	struct keyvec
	    seg_refs[P_COUNT];       /* stacks and threads referenced by this segment's events */
	struct keyvec emit[P_COUNT]; /* entries the checkpoint being built carries */
	uint64_t desc_symbol;        /* "()V", the descriptor of every method */
	uint32_t swept_chunk;        /* the chunk of the last look for unused entries */
	uint64_t sweeps;             /* looks that forgot entries */

	struct lost_reason *lost;
	size_t nlost;
	struct sticky *sticky;
	size_t nsticky;
	struct jfr_buf pre;       /* the sticky events that open a new chunk, written before ev */
	struct jfr_labels labels; /* the processes' lfr.Label events */
	struct lfr_jfr_stats st;
};

/* ---- writer_io.c: errors, the clock, file I/O ---- */

int jfr_writer_fail(struct lfr_jfr_writer *w, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int jfr_writer_fail_io(struct lfr_jfr_writer *w, int err, const char *what, uint64_t off);
int jfr_writer_nomem(struct lfr_jfr_writer *w, const char *what);
int jfr_writer_io_write(struct lfr_jfr_writer *w, const void *data, size_t n, uint64_t off,
                        const char *what);
/* Buffers written at off as one write (one call for the tests' injected faults), not copied. */
#define JFR_WRITE_PARTS 4
int jfr_writer_io_writev(struct lfr_jfr_writer *w, const struct iovec *parts, int nparts,
                         uint64_t off, const char *what);
int jfr_writer_io_truncate(struct lfr_jfr_writer *w, uint64_t size, const char *what);
int jfr_writer_io_u64(struct lfr_jfr_writer *w, uint64_t off, uint64_t v, const char *what);
int jfr_writer_io_filler_size(struct lfr_jfr_writer *w, uint64_t off, uint64_t size);

/* ---- writer_pools.c: the constant pools and the checkpoints that carry them ---- */

int jfr_writer_build_checkpoint(struct lfr_jfr_writer *w, uint64_t at, uint64_t prev, bool statics,
                                uint64_t ticks);
/* At a flush, once per chunk: forgets the entries no recent chunk used, once they are most. */
void jfr_writer_sweep(struct lfr_jfr_writer *w);

/* ---- writer_files.c: the recording's file, or a repository's chunk files ---- */

int jfr_writer_create_file(struct lfr_jfr_writer *w);
int jfr_writer_publish(struct lfr_jfr_writer *w);
int jfr_writer_create_chunk_file(struct lfr_jfr_writer *w, uint64_t ticks);
int jfr_writer_publish_chunk_file(struct lfr_jfr_writer *w);
int jfr_writer_end_chunk_file(struct lfr_jfr_writer *w, uint64_t now, bool final);
int jfr_writer_repo_flushed(struct lfr_jfr_writer *w, uint64_t now);
void jfr_writer_unpublish(struct lfr_jfr_writer *w);

/* ---- small helpers of every file, and the per-event ones (inline: the hot path) ---- */

static inline int check_live(struct lfr_jfr_writer *w)
{
	return w->dead ? -EIO : 0;
}

/* The writer's own clock: the system's, or the one its options name. */
static inline uint64_t now_ticks(const struct lfr_jfr_writer *w)
{
	return w->opt.clock ? w->opt.clock() : lfr_jfr_now();
}

static inline uint64_t real_nanos(const struct lfr_jfr_writer *w, uint64_t ticks)
{
	return w->real0 + (ticks - w->mono0);
}

static inline uint64_t chunk_duration(const struct lfr_jfr_writer *w, uint64_t now)
{
	uint64_t last = now > w->chunk_max_ticks ? now : w->chunk_max_ticks;

	return last > w->chunk_ticks ? last - w->chunk_ticks : 0;
}

static inline void seg_ticks(struct lfr_jfr_writer *w, uint64_t ticks)
{
	if (!w->seg_events || ticks < w->seg_min_ticks)
		w->seg_min_ticks = ticks;
	if (!w->seg_events || ticks > w->seg_max_ticks)
		w->seg_max_ticks = ticks;
}

static inline void begin(struct lfr_jfr_writer *w, uint16_t type, uint64_t ticks)
{
	jfr_buf_reset(&w->tmp);
	jfr_buf_varint(&w->tmp, type);
	jfr_buf_varint(&w->tmp, ticks);
	seg_ticks(w, ticks);
}

/* The event counted, and the events flushed once they fill the buffer. */
static inline int committed(struct lfr_jfr_writer *w)
{
	w->seg_events++;
	w->st.events++;
	if (w->ev.len >= w->opt.auto_flush_bytes)
		return lfr_jfr_flush(w);
	return 0;
}

static inline int commit(struct lfr_jfr_writer *w)
{
	jfr_buf_varint(&w->ev, jfr_event_size(w->tmp.len));
	jfr_buf_put(&w->ev, w->tmp.data, w->tmp.len);
	if (w->tmp.oom || w->ev.oom)
		return jfr_writer_nomem(w, "buffering an event");
	return committed(w);
}

/* The sample event set: jdk.ExecutionSample when it names no CPU sample event. */
static inline unsigned sample_events(const struct lfr_jfr_writer *w)
{
	unsigned set = w->opt.sample_events;

	return set & LFR_JFR_SAMPLE_ALL ? set : set | LFR_JFR_SAMPLE_DEFAULT;
}

#endif /* LFR_JFR_WRITER_INTERNAL_H */

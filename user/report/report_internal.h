/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the aggregation pass of `lfr report` share (report.c reads the file chunk by
 * chunk; chunk_scan.c scans a chunk's events, chunk_merge.c merges them into the report through
 * resolve.c, rare_events.c and pool_fields.c; event_plans.c says how each type is read): the plans,
 * the jobs and the report's private state.  Not for the views: they see report.h.
 */
#ifndef LFR_REPORT_REPORT_INTERNAL_H
#define LFR_REPORT_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "jfr/reader.h"
#include "lib/hashtab.h"
#include "report/contexts.h"
#include "report/report.h"
#include "report/states.h"

#define NAME_MAX_LEN 1024

/* ROLE_STATE_SAMPLE: a sample type whose state the view shows, scanned apart from ROLE_SAMPLE */
enum role {
	ROLE_COUNT,
	ROLE_SAMPLE,
	ROLE_STATE_SAMPLE,
	ROLE_LOST,
	ROLE_JVMINFO,
	ROLE_SETTINGS,
	ROLE_OBJECT,
	ROLE_LABEL,
};
enum slot { SLOT_NONE = 0, SLOT_TIME, SLOT_STACK, SLOT_THREAD, SLOT_VALUE, SLOT_STATE };

struct plan {
	const struct jfr_type *t;
	enum role role;
	uint32_t evidx;
	int nread;      /* fields decoded (a prefix of the event's fields) */
	uint8_t *slots; /* per field: enum slot */
	uint8_t *fast;  /* per field: a bare varint (integer or cp key) */
	int thread_field, stack_field;
	int state_field; /* report_opts.states and the type has one, else -1 */
};

struct priv {
	const struct report_opts *o;
	/* per-type counts indexed by jfr_reader type-name index, plus metadata/checkpoint */
	uint64_t *cnt, *bytes;
	size_t ncnt;
	uint64_t meta_cnt, meta_bytes, cp_cnt, cp_bytes;
	bool any_selected_type;
	unsigned wall_used; /* --wall: the types of report_opts_wall() read, a bit each */
	char *stack_types;  /* types with a stackTrace field, for the hint: "a, b, c" */
	size_t stack_types_len, stack_types_cap;
	struct hashtab stack_type_ids; /* the reader's type-name indexes in stack_types */
	/* file-wide interning */
	struct hashtab
	    frame_ids; /* (hash(name), kind) -> frame id + 1; collisions probed with salt */
	struct hashtab stack_ids;  /* (hash(frames), depth) -> stack id + 1 */
	struct hashtab thread_ids; /* (tid, hash(name)) -> thread id + 1 */
	struct hashtab sample_ids; /* (stack id, thread id) -> sample index + 1 */
	struct hashtab object_ids; /* (hash(name), hash(path, build-id)) -> object index + 1 */
	struct hashtab lost_ids;   /* (hash(reason), type name index) -> index in lost + 1 */
	size_t lost_cap;
	/* per chunk */
	struct hashtab
	    chunk_threads; /* thread key -> thread id + 1, or UINT32_MAX when filtered out */
	struct hashtab chunk_stacks; /* stack key -> stack id + 1 */
	struct hashtab chunk_frames; /* (method key, frame type key) -> frame id + 1 */
	int64_t jvm_pid;
	char jvm_process[256];
	uint32_t *tmp_frames;
	size_t tmp_cap;
	int64_t rec_start;
	bool have_start;
	bool value_found;         /* a selected type has the --value field */
	struct hashtab state_ids; /* report_opts.states: state name -> index + 1 */
	struct hashtab ctx_ids;   /* report_opts.contexts: a context's bytes -> its index */
};

/*
 * A hash of n bytes under a seed: the same bytes under another seed probe elsewhere.  Keyed: the
 * bytes are a file's, and equal hashes of different bytes are told apart one by one.
 */
static inline uint64_t hash_bytes(const void *data, size_t n, uint64_t seed)
{
	return hashtab_keyed(hashtab_keyed_bytes(data, n), seed);
}

/* ---- growable arrays ---- */

static inline int grow(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t cap2 = *cap ? *cap : 64;
	while (cap2 < need)
		cap2 *= 2;
	void *n = realloc(*v, cap2 * elem);
	if (!n)
		return -1;
	*v = n;
	*cap = cap2;
	return 0;
}

#define BATCH 16

struct pending {
	uint64_t a, b, v, h;
};

/*
 * A sample's second key: its thread key, and with contexts the dense index of its context in the
 * bits above CTX_SHIFT (a thread key that reaches them keeps no context).
 */
#define CTX_SHIFT 48

/*
 * A chunk goes through three steps: prepare (sequential: header, metadata, pools, plans), scan (may
 * run on a worker thread: touches only the job and the mapped file) and merge (sequential, in file
 * order: resolves keys and interns into the report).
 */
struct special {
	const struct plan *pl;
	uint64_t off;
};

/* A sample's time and keys, kept for report.timed. */
struct timed_key {
	int64_t ticks;
	uint64_t a, b, v;
};

struct job {
	struct jfr_chunk ch;
	struct timed_key *timed; /* opts.timeline only */
	size_t ntimed, timed_cap;
	struct plan *plans;
	int nplans;
	struct plan **dense;
	size_t ndense;
	int64_t lo, hi;
	struct hashtab agg;
	uint64_t *cnt, *bytes;
	size_t ncnt;
	uint64_t meta_cnt, meta_bytes, cp_cnt, cp_bytes, sample_events;
	struct special *special;
	size_t nspecial, special_cap;
	struct states_job states; /* report_opts.states only */
	struct ctx_chunk ctx;     /* the samples' trace contexts, when the options use them */
	struct jfr_reader rr;     /* a copy of the reader that receives this chunk's scan error */
	int rc;
	bool keep_times;
	bool timed_only; /* report_opts.timed_only: no (stack, thread) bucket */
};

/* report_opts_wall()'s types, in the bit order of priv.wall_used */
extern const char *const wall_types[3];

/* pool_fields.c: the fields of constant-pool values */
int value_text(struct jfr_cur *c, const struct jfr_chunk *ch, const struct jfr_field *f, char *buf,
               size_t n, int depth);
int field_text(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
               uint64_t off, const char *name, char *buf, size_t n);
bool field_int(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
               uint64_t off, const char *name, int64_t *v);
uint64_t field_ref(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
                   uint64_t off, const char *name, const struct jfr_type **vt);

/* resolve.c: a chunk's keys into the report's frames, stacks and threads */
uint32_t resolve_stack(struct report *rep, struct priv *pv, struct jfr_reader *r,
                       const struct jfr_chunk *ch, const struct jfr_field *sf, uint64_t key);
uint64_t resolve_thread(struct report *rep, struct priv *pv, struct jfr_reader *r,
                        const struct jfr_chunk *ch, const struct jfr_field *tf, uint64_t key);

/* rare_events.c: losses, JVM information, object files, labels, the sampling period */
bool is_lost_type(const struct jfr_type *t);
int record_lost(struct report *rep, struct priv *pv, struct jfr_reader *r,
                const struct jfr_chunk *ch, const struct jfr_type *t, uint64_t off);
int chunk_jvminfo(struct priv *pv, struct jfr_reader *r, const struct jfr_chunk *ch,
                  const struct jfr_type *t, uint64_t off);
int note_object(struct report *rep, struct priv *pv, struct jfr_reader *r,
                const struct jfr_chunk *ch, const struct jfr_type *t, uint64_t off);
int note_label(struct report *rep, struct jfr_reader *r, const struct jfr_chunk *ch,
               const struct jfr_type *t, uint64_t off);
void note_period(struct report *rep, struct jfr_reader *r, const struct jfr_chunk *ch,
                 const struct jfr_type *t, uint64_t off);

/* event_plans.c */
int build_plan(struct priv *pv, const struct jfr_type *t, bool wall_clock, struct plan *p);

/* chunk_scan.c */
void job_free(struct job *j);
int job_prepare(struct priv *pv, struct jfr_reader *r, struct job *j);
void scan_jobs(struct job *jobs, int n, int threads);
int scan_threads(const struct report_opts *o);

/* chunk_merge.c */
int job_merge(struct report *rep, struct priv *pv, struct jfr_reader *r, struct job *j);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's private types, shared by the files of record/ that make it up (its API is
 * record/recorder.h; nothing outside record/ includes this one).  Each file calls only those
 * below it:
 *
 *   recorder.c  the API: a recorder's life, the reading side's copy of ring records into a batch,
 *               lfr_recorder_process(), the final accounts of losses
 *   behind.c    naming behind the reading: the naming thread, the hand-over of batches to it
 *   apply.c     a batch applied: names and mappings first, then samples; held samples again
 *   samples.c   ticks joined with their user stacks into samples; sampling latencies
 *   stacks.c    frames named, stacks interned, a sample written with its stack
 *   stack_caches.c  the caches of stacks started over when most of what they hold is stale
 *   events.c    the JFR events of samples, off-CPU intervals, processes, threads and losses
 *   identity.c  processes and threads: names, command lines, labels, mappings, JFR thread keys
 *
 * What every sample calls (idmap_get(), process_of(), thread_key_of(), write_cpu_sample()) is
 * static inline here: the split into files costs the hot path no call.
 */
#ifndef LFR_RECORD_RECORDER_INTERNAL_H
#define LFR_RECORD_RECORDER_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/lfr.h>

#include "lib/hashtab.h"
#include "lib/join.h"
#include "lib/record.h"
#include "record/batch.h"
#include "record/raw_stacks.h"
#include "record/recorder.h"

struct behind;
struct lfr_key_map;

#define MAX_FRAMES (LFR_MAX_KERNEL_STACK_DEPTH + LFR_MAX_USER_STACK_DEPTH)

/* A thread as last named by a COMM record, and its key in the JFR thread pool. */
struct thread {
	uint32_t tid, tgid;
	char comm[LFR_COMM_LEN];
	uint64_t comm_time; /* when the name was given: an older record does not undo it */
	uint64_t key;       /* 0: not written since the name or the process name changed */
	uint32_t proc_gen;
	uint64_t samples, missed;   /* ticks joined, and periods their ticks said were missed */
	uint64_t wall_carry;        /* --wall: off-CPU time not yet given a sample, < one period */
	uint64_t short_n, short_ns; /* --wall: intervals below the lfr.OffCpu minimum */
	uint64_t exit_ns;           /* the time of its EXIT record; 0 while it runs */
	uint64_t start_ns; /* its latest FORK or EXEC record's time: an older EXIT is another's */
};

/* A process: the name of its main thread, which the JFR thread group shows. */
struct process {
	uint32_t tgid;
	char comm[LFR_COMM_LEN];
	uint32_t gen;        /* bumped when the name changes, so threads re-key */
	uint32_t map_gen;    /* bumped when its mappings change: cached stacks of it are stale */
	bool described;      /* jdk.SystemProcess written for this image */
	bool gone;           /* its main thread exited */
	uint64_t gone_ns;    /* when (the EXIT record's time) */
	uint64_t start_ns;   /* its latest FORK or EXEC record's time (as the thread's) */
	uint64_t sym_serial; /* lfr_sym_perf_map_check() when its held samples were last named */
	char *cmdline;       /* arguments joined by spaces, or NULL */
	/* its entries in the stack caches (both) while their epoch was cached_epoch */
	uint32_t cached, cached_epoch;
	/* its thread contexts' attribute key map (OTEP 4719), read when a context first needs a
	 * key it lacks, again at most once a second */
	struct lfr_key_map *keys;
	uint64_t keys_read_ns;
};

#define IDMAP_RECENT 64u

/*
 * A thread or process that exited is forgotten (identity.c: its names, command line, counters,
 * the symbolizer's mappings) this long after its EXIT record, by the time of later EXIT records:
 * past the join's grace for its last ticks (LFR_JOIN_EXIT_GRACE_NS) and the release of samples
 * held for its perf map, so that nothing of it is still on its way.  Without it an always-on
 * recorder kept about 4 KiB for every process that ever ran (bench/churn_memory).
 */
#define EXITED_KEEP_NS (30 * 1000000000ull)
/* The busiest threads among those forgotten, kept for lfr_recorder_busiest(). */
#define BUSIEST_GONE 16

struct exited {
	uint64_t time_ns;
	uint32_t tid;
	bool main; /* the process's main thread: the process is forgotten with it */
};

/* Exits in the order their records were applied, forgotten from the front. */
struct exited_fifo {
	struct exited *e;
	size_t head, n, cap; /* a ring of cap entries, n of them from head */
	size_t peak;         /* the most held since the last burst was forgotten */
};

/* Exits kept at once that make a burst: once it is forgotten, its memory is given back. */
#define EXITED_BURST 1024u

/* Objects keyed by a non-zero u32 id (tid or tgid), each allocated zeroed with its id set. */
struct idmap {
	struct hashtab t; /* id -> object */
	size_t elem;
	/* objects asked for lately, by the low bits of their ids: the records of a ring are mostly
	 * of a few threads and processes, interleaved, and an object never moves */
	struct idmap_recent {
		uint32_t id;
		void *o;
	} recent[IDMAP_RECENT];
};

/*
 * Records of the reading side only, never of the module: a file of a process, read from /proc
 * when the process first appeared in the rings (it may be gone by the time its batch is applied):
 * its command line, and its cgroups (what its labels are read from, export/labels.h).
 */
#define REC_CMDLINE 0x10000u
#define REC_CGROUP 0x10001u
struct rec_cmdline {
	struct lfr_rec_header hdr;
	uint32_t tgid, len; /* len bytes of the file follow (NUL-separated arguments, text) */
	char args[];
};

/*
 * The reading side's too: every ring was read, from a read that began at start_ns, and the records
 * before this one are all of it (lfr_recorder_read(); the join gives up what a full ring lost).
 */
#define REC_READ 0x10002u
struct rec_read {
	struct lfr_rec_header hdr;
	uint64_t start_ns;
};

/* Records that name nothing: pass 0 of apply() passes over them. */
#define SAMPLE_TYPES                                                                               \
	(1u << LFR_REC_TICK | 1u << LFR_REC_USTACK | 1u << LFR_REC_OFFCPU | 1u << LFR_REC_SAMPLE | \
	 1u << LFR_REC_LOST | 1u << LFR_REC_LATENCY)

/*
 * A stack already written, keyed by the raw record (process, mapping generation, flags, the
 * callers' addresses) and the leaf's method: a sample repeating it names one frame, not all.  With
 * a kernel stack, the user stack's leaf is keyed by its method too: the tick that interrupted the
 * kernel (a page fault, say) left it anywhere in a function.  Its addresses live in stack_ips; the
 * whole cache is dropped when either fills up.
 */
struct stack_entry {
	uint64_t key;   /* JFR stack key */
	uint64_t leaf;  /* method key of the leaf frame (its pc moves within a hot function) */
	uint64_t uleaf; /* method key of the user leaf below a kernel stack, else 0 */
	uint32_t tgid, map_gen;
	uint32_t ips_off;
	uint16_t nr_kernel, nr_user;
	uint32_t trunc;
	uint32_t unnamed; /* frames of the stack that kept their address */
	bool incomplete;  /* written with truncated = true */
};

/*
 * A frame named before, by its pc: the method key it got while what its process's pcs (or the
 * kernel's) resolve to stayed the same (the symbolizer's serial).  A stack met for the first
 * time is mostly frames met before (a recursion's other path, a caller's other call site): each
 * then costs a probe, not the symbolizer and the method pool.  Only frames in a file or in the
 * kernel are kept: code in anonymous memory may be named by a perf map later.
 */
struct frame_memo {
	uint64_t pc; /* as named: a return address less one */
	uint64_t serial;
	uint64_t key;  /* method key */
	uint32_t tgid; /* 0 for a kernel pc */
	uint8_t used, resolved;
	uint8_t root_known, root; /* whether a thread begins there, once asked (the last frame) */
};

/*
 * Entries, direct-mapped by pc and process: from 1 << FRAME_MEMO_MIN_BITS, doubled while more
 * than half are used, up to 1 << FRAME_MEMO_BITS.  An entry is read before it is written: a large
 * memo's pages are faulted twice each, at random, in a recording's first seconds.
 */
#define FRAME_MEMO_MIN_BITS 10
#define FRAME_MEMO_BITS 14
#define FRAME_MEMO (1u << FRAME_MEMO_BITS)

#define STACK_ENTRIES (3u << 14)
#define STACK_TRUNC_FLAGS                                                                          \
	(LFR_SAMPLE_F_USER_TRUNCATED | LFR_SAMPLE_F_USER_FAULT | LFR_SAMPLE_F_USER_BAD_FRAME |     \
	 LFR_SAMPLE_F_USER_NO_CFI | LFR_SAMPLE_F_KERNEL_TRUNCATED)
#define STACK_IPS (1u << 21)
#define LOOKED_RECENT 64u

struct lfr_recorder {
	struct lfr_jfr_writer *w;
	const struct lfr_rec_offcpu *off; /* write_sample writes this interval, not a sample */
	/* LATENCY records waiting for their first tick: (tid, tick time) -> walk time */
	struct hashtab latencies;
	uint64_t lat_ns; /* != 0: write_event writes this sampling latency after its sample */
	struct hashtab stack_index; /* (hash, salt) -> index in stacks + 1 */
	struct stack_entry *stacks;
	uint64_t *stack_ips;
	size_t stacks_used, stack_ips_used;
	size_t stacks_peak, stack_ips_peak; /* the most used since their pages were given back */
	struct raw_stacks raw; /* stacks by their raw addresses: a repeat names nothing */
	/* the caches' entries of processes forgotten or remapped since they last started over,
	 * which nothing finds again; the epoch counts the times they started over */
	uint64_t stale_cached;
	uint32_t stack_epoch;
	/* set by write_sample() when the stack it wrote may be found by its raw addresses */
	bool named_ok;
	struct raw_stack_val named;
	struct lfr_sym *sym;
	struct batch in;        /* records added since the last hand-over (the reading side) */
	struct batch *prepared; /* mapped before the recording (lfr_recorder_prepare()) */
	struct hashtab looked;  /* processes whose command line was read (the reading side) */
	/* some looked at lately, by their low bits: the records of a ring's few busy processes
	 * interleave, and each record asks */
	uint32_t looked_recent[LOOKED_RECENT];
	struct batch cur, waiting; /* waiting: samples held back one batch for their mapping */
	struct batch spare_hold;   /* the buffer the next batch's held samples go to, reused */
	struct idmap threads, procs;
	struct exited_fifo exited;
	struct lfr_thread_rate gone_busiest[BUSIEST_GONE]; /* busiest first */
	size_t n_gone_busiest;
	struct behind *behind; /* naming runs on a thread of its own */
	/* set once the caller asks to stop: the reading side waits for naming no more */
	const volatile sig_atomic_t *stop;
	/* (class name, method name << 8 | frame type) -> method key; the names are the symbolizer's
	 * interned strings, so equal names have equal pointers */
	struct hashtab methods;
	struct hashtab objects_told; /* (path, build-id) of lfr.ObjectFile events written */
	struct frame_memo *memo;     /* 1 << memo_bits entries, or NULL: every frame is named */
	unsigned int memo_bits;
	uint32_t memo_used; /* entries in use */
	uint64_t frames[MAX_FRAMES];
	struct lfr_recorder_stats st;
	uint64_t last_time;
	struct lfr_join *join;
	/* the thread context of the sample being written (its USTACK record's), or NULL */
	const struct lfr_ustack_ctx *ctx;
	/* the last context written and its key: a thread's samples mostly repeat it */
	uint8_t last_ctx[sizeof(struct lfr_ustack_ctx) + LFR_CTX_ATTRS_MAX];
	uint32_t last_ctx_len, last_ctx_tgid;
	uint64_t last_ctx_key;
	/* the writer's lfr_jfr_pool_sweeps() when the caches of its keys were last good */
	uint64_t pool_sweeps;
	uint64_t *synth;    /* a joined tick as a SAMPLE record */
	struct batch *hold; /* of the batch being applied: samples waiting for a mapping */
	bool final;
	uint64_t lost_batch[LFR_LOST_MAX + 1]; /* per-tick losses of this batch, one event each */
	uint64_t replays;                      /* pairs held back for their mapping so far */
	uint64_t period_ns;                    /* the session's sampling period */
	bool wall;                             /* off-CPU intervals become wall-clock samples */
	uint64_t off_cpu_min_ns; /* lfr.OffCpu events for intervals at least this long */
	uint64_t added;          /* ring records added (the reading side) */
	/* samples with code in anonymous memory that no perf map names yet, held until their
	 * process's map names something, the process exits or the recording ends (a JVM run with
	 * -XX:+DumpPerfMapAtExit writes its map only then); jit_met: the stack being named has such
	 * a frame; jit_full: a sample found no room */
	struct batch jit_wait;
	size_t jit_wait_max;
	bool jit_met, jit_release, jit_full, jit_again;
	/* the user's labels when processes are labelled (lfr_recorder_set_labels()), else NULL */
	const struct lfr_labels *labels;
};

/* identity.c: processes and threads */
void *idmap_find(struct idmap *m, uint32_t id);
void idmap_free(struct idmap *m, void (*fini)(void *o));
void process_fini(void *o);
void exited_free(struct exited_fifo *f);
void apply_cmdline(struct lfr_recorder *r, const struct rec_cmdline *c);
int apply_cgroup(struct lfr_recorder *r, const struct rec_cmdline *c);
int apply_comm(struct lfr_recorder *r, const struct lfr_rec_comm *c);
int apply_task(struct lfr_recorder *r, const struct lfr_rec_task *k);

/* An EXEC by a thread other than the main one: its own id (ptid) ends there, with no EXIT. */
static inline bool task_left_id(const struct lfr_rec_task *k)
{
	return k->kind == LFR_TASK_EXEC && k->ptid && k->ptid != k->tid && k->ptid != k->tgid;
}

void forget_exited(struct lfr_recorder *r, uint64_t now_ns);
int apply_mmap(struct lfr_recorder *r, const struct lfr_rec_mmap *m, const char *path);
int thread_key(struct lfr_recorder *r, uint32_t tid, uint32_t tgid, uint64_t *key);
int thread_key_new(struct lfr_recorder *r, struct thread *t, struct process *p, uint32_t tid,
                   uint32_t tgid, uint64_t *key);

/*
 * The object of id, added when absent; NULL on ENOMEM.  Objects live until their thread or process
 * is forgotten (EXITED_KEEP_NS after its exit), never while a record is being applied.  Inline:
 * each sample asks for its thread and process.
 */
static inline void *idmap_get(struct idmap *m, uint32_t id)
{
	const struct idmap_recent *c = &m->recent[id % IDMAP_RECENT];

	return c->o && c->id == id ? c->o : idmap_find(m, id);
}

static inline struct process *process_of(struct lfr_recorder *r, uint32_t tgid)
{
	return idmap_get(&r->procs, tgid);
}

/*
 * thread_key() of thread T (tid) in process P (tgid), both already looked up.  Inline: every sample
 * asks, and its thread is mostly written already.
 */
static inline int thread_key_of(struct lfr_recorder *r, struct thread *t, struct process *p,
                                uint32_t tid, uint32_t tgid, uint64_t *key)
{
	if (t->key && t->tgid == tgid && t->proc_gen == p->gen) {
		*key = t->key;
		return 0;
	}
	return thread_key_new(r, t, p, tid, tgid, key);
}

/* events.c: the JFR events */
int describe_process(struct lfr_recorder *r, uint32_t tgid, uint64_t ticks);
int write_context(struct lfr_recorder *r, uint64_t time, uint64_t thread, uint32_t tgid);
int write_latency(struct lfr_recorder *r, uint64_t time, uint64_t thread, uint64_t stack);
int write_event(struct lfr_recorder *r, const struct lfr_rec_sample *s, uint64_t stack,
                bool incomplete, struct thread *th, struct process *p);
int write_task(struct lfr_recorder *r, const struct lfr_rec_task *k);
int write_lost(struct lfr_recorder *r, const struct lfr_rec_lost *l);
int write_batch_losses(struct lfr_recorder *r);

/*
 * The events of a CPU sample whose stack is written: WEIGHT execution samples (a SAMPLE record of
 * lfr.ko before TICK/USTACK may stand for several ticks; 0 is 1), then its sampling latency.
 * Inline: nearly every sample is written here, with its thread and process at hand.
 */
static inline int write_cpu_sample(struct lfr_recorder *r, uint64_t time, uint32_t tid,
                                   uint32_t tgid, uint32_t weight, uint64_t stack, bool incomplete,
                                   struct thread *th, struct process *p)
{
	uint64_t thread;
	uint32_t i = 0;
	int err;

	r->st.incomplete += incomplete;
	if ((!p->described && (err = describe_process(r, tgid, time))) ||
	    (err = thread_key_of(r, th, p, tid, tgid, &thread)))
		return err;
	do {
		err = lfr_jfr_sample(r->w, time, thread, stack, LFR_JFR_STATE_CPU, r->period_ns);
		if (err)
			return err;
		r->st.events++;
	} while (++i < weight);
	if (r->ctx && (err = write_context(r, time, thread, tgid)))
		return err;
	if (r->lat_ns && (err = write_latency(r, time, thread, stack)))
		return err;
	r->st.samples++;
	if (time > r->last_time)
		r->last_time = time;
	return 0;
}

/* stacks.c: frames named, stacks interned */
int stacks_alloc(struct lfr_recorder *r);
/* Stacks and methods of a recording's first seconds, whose cache pages are written beforehand. */
#define PREPARED_STACKS (1u << 13)
#define PREPARED_STACK_IPS (1u << 17)
/* entries of processes forgotten or remapped that make the caches start over within their
 * prepared part (stack_caches.c) */
#define STALE_RESTART (PREPARED_STACKS / 4) /* an eighth of both caches' prepared entries */
_Static_assert(PREPARED_STACKS <= STACK_ENTRIES && PREPARED_STACK_IPS <= STACK_IPS,
               "the prepared part lies within the cache");
/* The frame memo with 1 << BITS entries, what it held placed again: 0, or -ENOMEM (unchanged). */
int frame_memo_resize(struct lfr_recorder *r, unsigned int bits);
int write_sample(struct lfr_recorder *r, const struct lfr_record *rec);

/* stack_caches.c: the stack caches started over when most of what they hold is stale */
/* An entry of P was added to a stack cache. */
void stack_cached(struct lfr_recorder *r, struct process *p);
/*
 * P's entries in the stack caches will not be found again (it is forgotten, or its mappings
 * changed); once most entries are such and the caches outgrew their prepared part, both start
 * over and give back their pages.
 */
void stack_cache_stale(struct lfr_recorder *r, struct process *p);
/* Both stack caches start over (one filled up); with RELEASE their pages are given back. */
void stack_caches_clear(struct lfr_recorder *r, bool release);
/*
 * Every cache of the writer's method, stack and context keys starts over when the writer forgot
 * entries no recent chunk used (lfr_jfr_pool_sweeps() moved): before each batch.
 */
void key_caches_check(struct lfr_recorder *r);

/* samples.c: ticks joined with their user stacks */
int note_latency(struct lfr_recorder *r, const struct lfr_rec_latency *l);
int take_sample(struct lfr_recorder *r, const struct lfr_rec_header *h,
                const struct lfr_record *rec);
int on_joined(void *ctx, const struct lfr_joined *j);

/* apply.c: a batch applied */
int process_cur(struct lfr_recorder *r, bool final);

/* behind.c: the naming thread */
void free_batches(struct batch *q);
int hand_over(struct lfr_recorder *r, bool end);
int stop_behind(struct lfr_recorder *r);
bool hand_over_now(struct behind *b, int *err);

#endif

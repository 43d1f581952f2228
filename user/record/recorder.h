/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder: turns the records of the module's rings into JFR events.
 *
 * Ring records are copied into a batch as they are read (they are only valid until the ring's read
 * cycle ends), then lfr_recorder_process() applies the batch: thread names (COMM) and mappings
 * (MMAP) first, then samples, each symbolized (ELF, debug files, perf maps, kallsyms) into a
 * deduplicated JFR stack trace and written as one jdk.ExecutionSample event.  A tick (TICK record)
 * and its user stack (USTACK, which several ticks of a thread that stayed in the kernel share) are
 * joined first (lib/join.h) into one sample at the tick's instant; periods a late interrupt
 * missed are written as losses, never as copies of a stack.  A mapping can reach the reader on
 * another CPU's ring after a sample that needs it, so a sample whose user pc has no mapping yet
 * waits for the next batch once.  LOST records become lfr.LostSamples events with their reason, and
 * at the end lfr_recorder_account() adds the losses the module only counted, so the file accounts
 * for every tick that hit a target.  `lfr record` names behind the reading (lfr_recorder_behind()):
 * while the recorded threads run, the thread that reads the rings only copies records.
 */
#ifndef LFR_RECORD_RECORDER_H
#define LFR_RECORD_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/lfr.h>

#include "jfr/writer.h"
#include "lib/control.h"
#include "lib/join.h"
#include "sym/sym.h"

struct lfr_recorder;

struct lfr_recorder_stats {
	uint64_t records;         /* ring records added */
	uint64_t samples;         /* SAMPLE records written */
	uint64_t events;          /* jdk.ExecutionSample events written (sum of weights) */
	uint64_t deferred;        /* samples that waited one batch for their mapping */
	uint64_t stack_hits;      /* samples whose stack was known: only their leaf was named */
	uint64_t raw_hits;        /* of those, samples whose addresses were seen: nothing named */
	uint64_t frames, unnamed; /* frames written, and those that kept their address */
	uint64_t incomplete;      /* stacks marked truncated: depth limit, unreadable stack, or an
	                           * invalid frame short of the thread's start */
	uint64_t lost_ticks[LFR_LOST_MAX + 1]; /* lost ticks written as events, by reason */
	uint64_t lost_pending; /* ticks whose walk had not run when the recording ended */
	uint64_t malformed;    /* records that failed decoding (skipped) */
	uint64_t unjoined;     /* TICK records whose walk never came (the module counts them) */
	/* what the join gave up while recording, its other record lost to a full ring (counted by
	 * the module): without, a recorder running for ever held them for ever */
	struct lfr_join_lost join_lost;
	uint64_t leaf_inserted;  /* samples whose leaf's caller came from its CFI (the leaf rule) */
	uint64_t leaf_uncertain; /* samples whose leaf had no CFI that could tell */
	uint64_t thread_starts;  /* jdk.ThreadStart events written */
	uint64_t thread_ends;    /* jdk.ThreadEnd events written */
	uint64_t processes;      /* jdk.SystemProcess events written (one per process image) */
	uint64_t off_cpu;        /* lfr.OffCpu events written */
	uint64_t off_cpu_ns;     /* their total duration */
	uint64_t off_cpu_lost;   /* OFFCPU records whose walk found no user stack */
	uint64_t wall_samples;   /* --wall: profiler.WallClockSample events written off the CPU */
	uint64_t latencies;      /* lfr.SamplingLatency events written */
	uint64_t latency_ns;     /* their total duration */
	uint64_t latency_max_ns; /* the longest */
	uint64_t latency_unmatched; /* LATENCY records whose first tick was not written */
	/* samples (events) of processes whose thread context is read, by what the walk found
	 * (enum lfr_ctx_state); those with LFR_CTX_VALID have an lfr.TraceContext event */
	uint64_t ctx[__LFR_CTX_STATE_MAX];
	uint64_t ctx_attrs_unnamed; /* context attributes left out: no key name for their index */
	uint64_t labelled;          /* processes whose labels (lfr.Label) were kept */
	/* times the stack caches started over, most of them of processes gone, and of those the
	 * times they gave back their pages (they had outgrown their prepared part) */
	uint64_t stack_cache_restarts;
	uint64_t stack_cache_releases;
	uint64_t key_cache_restarts;  /* caches of JFR keys started over: the writer forgot keys */
	uint64_t stack_cache_entries; /* what the stack caches hold now (both) */
	uint64_t looked;              /* processes seen and not ended (their command line read) */
	uint64_t heap_trims; /* bursts of exits forgotten, their memory given back (identity.c) */
};

/* w and sym stay owned by the caller and must outlive the recorder. */
int lfr_recorder_new(struct lfr_recorder **out, struct lfr_jfr_writer *w, struct lfr_sym *sym);
void lfr_recorder_free(struct lfr_recorder *r);

/* Copies one ring record into the current batch.  Returns 0 or a negative errno. */
int lfr_recorder_add(struct lfr_recorder *r, const struct lfr_rec_header *h);
/*
 * Every ring has been read, by a read that began at START_NS (CLOCK_MONOTONIC), and its records
 * added: the joining of ticks with their stacks learns what can still come (lfr_join_read()).
 * Returns 0 or a negative errno.
 */
int lfr_recorder_read(struct lfr_recorder *r, uint64_t start_ns);

/*
 * Applies the current batch.  With final, samples still waiting for a mapping are written as they
 * are (their frames keep their addresses).  Returns 0 or a negative errno from the writer
 * (lfr_jfr_strerror() says more).
 *
 * After lfr_recorder_behind(), a call without final only hands the batch over to the naming
 * thread and returns its first error so far; with final it waits until that thread has applied
 * everything handed over, ends it, and applies the rest as above.
 */
int lfr_recorder_process(struct lfr_recorder *r, bool final);

/*
 * Names behind the reading: from now on batches are applied, and the file flushed after each, by a
 * thread of the recorder's own at priority nice (19: the lowest, so that the thread reading the
 * rings only copies records while the recorded threads run, and naming takes the CPU they leave;
 * 0 for a continuous recording, whose file must stay about a second behind on a busy machine).
 * With idle, that thread runs SCHED_IDLE while the recording goes on and less than half of
 * MAX_QUEUED is queued, so that it takes no CPU time another thread wants.
 * The reading side hands its batch over when the naming thread waits for one; while that thread
 * is busy, later reads join the same batch until its block is full (record/batch.h: the queue is
 * whole populated blocks, taken without a page fault per page).  A hand-over waits while more
 * than MAX_QUEUED bytes are still queued (the lag is bounded; what the rings lose meanwhile, the
 * module counts), unless the caller has asked to stop (lfr_recorder_stop_flag()).  Until
 * lfr_recorder_process(r, true), the writer belongs to that thread: read its figures with
 * lfr_recorder_get_file_stats().
 * Returns 0 or a negative errno.
 */
int lfr_recorder_behind(struct lfr_recorder *r, size_t max_queued, int nice, bool idle);

/*
 * Maps, before the recording starts, the reading side's first batch and spare ones of BYTES in
 * all (whole blocks, populated) for lfr_recorder_behind()'s queue: the batches that queue up
 * while naming stays behind then take no fresh pages, which the kernel zeroes, while the recorded
 * threads run.  The caches of stacks, frames and methods get their first pages (their indexes
 * all of theirs) the same way.  Returns 0 or a negative errno (nothing mapped is lost: batches
 * are mapped, and caches filled, as they are needed otherwise).
 */
int lfr_recorder_prepare(struct lfr_recorder *r, size_t bytes);

/*
 * STOP (or NULL: none), set by the caller when the recording is to end, typically from a signal
 * handler: once it is set, a hand-over no longer waits for the naming thread, whatever is queued
 * (what is read after the session's STOP is bounded by the rings' size), and one that already
 * waits notices it within 50 ms.  Without it, a reading side waiting for a naming thread seconds
 * behind would send the session's STOP only those seconds after a SIGINT or SIGTERM, and the
 * recording would hold the samples taken meanwhile.  Read by the reading side only;
 * lfr_recorder_process(r, true) still waits until everything read is named.
 */
void lfr_recorder_stop_flag(struct lfr_recorder *r, const volatile sig_atomic_t *stop);

/*
 * Samples with code in anonymous memory that no perf map names yet wait (up to MAX_BYTES of them)
 * until the process's map names something, the process exits or the recording ends, so that a
 * JVM's map written at exit still names them (on by default, 64 MiB).  0 turns it off: a
 * continuous recording, whose chunks must hold their own time's samples, writes them at once.
 */
void lfr_recorder_jit_wait(struct lfr_recorder *r, size_t max_bytes);

/* The writer's figures after the last batch applied. */
void lfr_recorder_get_file_stats(const struct lfr_recorder *r, struct lfr_jfr_stats *js);

/*
 * Writes lfr.LostSamples events for the ticks the module counted as lost (TOTAL, its final STATUS
 * counters) beyond those already reported in-band, so that events + lost = ticks matched.
 */
int lfr_recorder_account(struct lfr_recorder *r, const struct lfr_counters *total);

/*
 * For a session that was still draining when the recording ended (TOTAL, its last STATUS): writes
 * the ticks it matched that are neither samples nor losses in the file — stack walks of threads
 * that have not returned to user space since their tick — as lfr.LostSamples with the reason
 * "walk_pending" (LFR_LOST_WALK_PENDING_NAME).  Call after lfr_recorder_account().
 */
int lfr_recorder_account_pending(struct lfr_recorder *r, const struct lfr_counters *total);

#define LFR_LOST_WALK_PENDING_NAME "walk_pending"

void lfr_recorder_get_stats(const struct lfr_recorder *r, struct lfr_recorder_stats *st);

/* The session's sampling period, written with each sample (jdk.CPUTimeSample's samplingPeriod). */
void lfr_recorder_set_period(struct lfr_recorder *r, uint64_t period_ns);
/*
 * Wall-clock mode (lfr record --wall): every off-CPU interval (the module records them all) also
 * becomes wall-clock samples, one profiler.WallClockSample per sampling period of the thread's time
 * off the CPU (the writer, opened with LFR_JFR_SAMPLE_WALL, writes one for every CPU sample);
 * lfr.OffCpu events are written only for intervals of at least off_cpu_min_ns (UINT64_MAX: none),
 * the shorter ones counted in their thread's next event.
 */
void lfr_recorder_set_wall(struct lfr_recorder *r, uint64_t off_cpu_min_ns);

struct lfr_labels;
/*
 * Labels each process with its service, container and pod (export/labels.h), read from its
 * cgroups when it first appears in the rings, for the writer to carry in every chunk that holds
 * its events (lfr_jfr_labels()); user: the recording's own labels (a service.name there names
 * every process), kept by the caller for the recorder's life.  Call before the recording starts.
 */
void lfr_recorder_set_labels(struct lfr_recorder *r, const struct lfr_labels *user);

/*
 * A thread's delivered rate: its samples against the periods of its CPU time (samples + missed,
 * the periods its late ticks said had passed without a tick).
 */
struct lfr_thread_rate {
	uint32_t tid, tgid;
	char comm[LFR_COMM_LEN];
	uint64_t samples, missed;
};

/* The N threads with the most samples (from TICK records), busiest first; returns how many. */
size_t lfr_recorder_busiest(const struct lfr_recorder *r, struct lfr_thread_rate *out, size_t n);

#endif

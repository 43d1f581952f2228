/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr's streaming JFR writer.
 *
 * The recorder opens a file, interns methods, stack traces and threads (each call returns a pool
 * key that stays valid and unique for the whole file), adds events, and calls lfr_jfr_flush() about
 * once a second.  After every flush the file on disk is a complete recording that the JDK's `jfr`
 * tool and JDK Mission Control read; a process killed at any point leaves the file as it was after
 * the last flush (see Documentation/jfr-writer.md for the write ordering that guarantees this).
 *
 * Time: event timestamps are CLOCK_MONOTONIC nanoseconds ("ticks", 1e9 per second), one timeline
 * for the whole file; chunk start times in epoch ns are derived from one CLOCK_REALTIME reading
 * taken at the same instant as a CLOCK_MONOTONIC one when the file is opened.
 *
 * Errors: every function returns 0 or a negative errno.  lfr_jfr_strerror() then says what failed
 * (file name, operation, reason).  After an I/O error the writer refuses further work; the file
 * keeps its content as of the last successful flush.
 */
#ifndef LFR_JFR_WRITER_H
#define LFR_JFR_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lfr_jfr_writer;

/*
 * Frame types, written with the names JDK Mission Control knows (async-profiler's convention for
 * native frames) and under async-profiler's ids, which its converter reads instead of the names:
 * HotSpot's 0-3 for Java code, 4 C++, 5 Kernel (6 is its "C1 compiled", which lfr never writes).
 */
enum lfr_jfr_frame_type {
	LFR_JFR_FRAME_INTERPRETED = 0,
	LFR_JFR_FRAME_JIT = 1,
	LFR_JFR_FRAME_INLINED = 2,
	LFR_JFR_FRAME_NATIVE = 3, /* C code in an object file: "Native" */
	LFR_JFR_FRAME_CPP = 4,    /* C++ code: "C++" */
	LFR_JFR_FRAME_KERNEL = 5, /* kernel code: "Kernel" */
	LFR_JFR_FRAME_TYPE_COUNT,
};

/* Thread states, written with the JDK's names (and async-profiler's for a CPU sample). */
enum lfr_jfr_thread_state {
	/*
	 * STATE_DEFAULT: a CPU sample, taken on the CPU.  async-profiler's state of the samples of
	 * its CPU sampler, the one its converter's --cpu selects (every other state is a wall-clock
	 * sample's to it); jdk.ExecutionSample's state in lfr's recordings.
	 */
	LFR_JFR_STATE_CPU = 1,
	LFR_JFR_STATE_RUNNABLE, /* STATE_RUNNABLE: on a CPU, or waiting for one */
	LFR_JFR_STATE_SLEEPING, /* STATE_SLEEPING: waiting in the kernel */
	LFR_JFR_STATE_PARKED,   /* STATE_PARKED */
	LFR_JFR_STATE_IN_OBJECT_WAIT,
	LFR_JFR_STATE_BLOCKED, /* STATE_BLOCKED_ON_MONITOR_ENTER */
	LFR_JFR_STATE_NEW,
	LFR_JFR_STATE_TERMINATED,
	LFR_JFR_STATE_COUNT = LFR_JFR_STATE_TERMINATED,
};

/*
 * The events a sample is written as (lfr_jfr_sample), a bit set.  Each event costs about 15 bytes
 * (the 7-byte timestamp of each dominates), so the default is jdk.ExecutionSample alone, which
 * keeps a recording under 20 bytes per sample and which `jfr view hot-methods`, JMC and JDK 17
 * read; adding jdk.CPUTimeSample (for JDK 25's cpu-time views) doubles that.
 */
enum lfr_jfr_sample_events {
	LFR_JFR_SAMPLE_EXECUTION = 1, /* jdk.ExecutionSample: `jfr view hot-methods`, JMC, JDK 17 */
	LFR_JFR_SAMPLE_CPU_TIME =
	    2, /* jdk.CPUTimeSample (JDK 25): `jfr view cpu-time-hot-methods` */
	LFR_JFR_SAMPLE_ALL = LFR_JFR_SAMPLE_EXECUTION | LFR_JFR_SAMPLE_CPU_TIME,
	LFR_JFR_SAMPLE_DEFAULT = LFR_JFR_SAMPLE_EXECUTION,
	/*
	 * With either of the above (alone: with jdk.ExecutionSample): a CPU sample is a wall-clock
	 * sample too, one more event, profiler.WallClockSample in STATE_RUNNABLE (lfr record
	 * --wall; lfr_jfr_wall_sample() writes those off the CPU).
	 */
	LFR_JFR_SAMPLE_WALL = 4,
};

struct lfr_jfr_options {
	uint64_t max_chunk_bytes;  /* rotate when a chunk would grow past this; 0 = 12 MiB */
	uint64_t max_chunk_age_ns; /* rotate chunks older than this at a flush; 0 = never by age */
	uint64_t auto_flush_bytes; /* flush on its own when this many event bytes are buffered; 0 =
	                              4 MiB */
	bool sync; /* fdatasync after every flush (survives power loss, not only kill -9) */
	unsigned sample_events; /* enum lfr_jfr_sample_events; 0 = LFR_JFR_SAMPLE_DEFAULT */
	/*
	 * A continuous recording: path is a repository directory (jfr/repository.h), created when
	 * missing, where every chunk is a file of its own; after every flush the oldest finished
	 * chunk files go while the repository holds more than repo_max_bytes or ended more than
	 * repo_max_age_ns ago (0: no limit).
	 */
	bool repository;
	uint64_t repo_max_bytes, repo_max_age_ns;
	/* told of each chunk file the limits remove (its name, its size); NULL: none */
	void (*on_evict)(void *arg, const char *name, uint64_t bytes);
	void *on_evict_arg;
	/* told when a chunk file is finished and its successor published; NULL: none */
	void (*on_chunk_file)(void *arg);
	void *on_chunk_file_arg;
	/*
	 * The clocks the writer reads, for recordings whose every time stamp is fixed (tests):
	 * clock() replaces CLOCK_MONOTONIC (ns, chunk start ticks and durations) and CLOCK_REALTIME
	 * is clock_realtime0 at its zero.  NULL: the system's clocks.
	 */
	uint64_t (*clock)(void);
	int64_t clock_realtime0;
};

struct lfr_jfr_stats {
	uint64_t chunks;   /* chunks started (including the current one) */
	uint64_t flushes;  /* flushes that wrote data */
	uint64_t events;   /* events added */
	uint64_t samples;  /* jdk.ExecutionSample events */
	uint64_t contexts; /* lfr.TraceContext events */
	uint64_t bytes;    /* logical file size after the last flush */
	/* pool entries kept now (jfr_writer_sweep() forgets those no recent chunk used) */
	uint64_t symbols, classes, methods, stack_traces, threads, trace_contexts;
	uint64_t sweeps, swept; /* flushes that forgot unused entries; the entries forgotten */
	uint64_t labelled;      /* processes whose lfr.Label events are kept (lfr_jfr_labels()) */
	uint64_t repo_bytes, repo_chunks; /* a repository's size and chunk files, after eviction */
	uint64_t evicted;                 /* chunk files a repository's limits removed */
	uint64_t buffer_bytes; /* memory the flush buffers hold now: about the last flush's size */
};

/*
 * Creates the file and writes the first chunk.  The writer writes a new file of a unique name in
 * path's directory (.NAME.XXXXXX, mode 0640 less the umask) until the first flush
 * that writes events (or lfr_jfr_close()) renames it to path: the file appears at path whole,
 * never as a first chunk half written, and an old file at path survives a recording that fails
 * before it has anything to replace it with.  A path that exists and is not a regular file (a
 * device) is written in place.  With opt->repository, path is a directory and each chunk file
 * appears in it whole, named by its start time.  opt may be NULL.  On failure *out is
 * still set when memory allowed (NULL otherwise), so that lfr_jfr_strerror() can say why; release
 * it with lfr_jfr_abandon().  A writer is driven by one thread at a time.
 */
int lfr_jfr_open(struct lfr_jfr_writer **out, const char *path, const struct lfr_jfr_options *opt);
/* The message for the last error (never NULL). */
const char *lfr_jfr_strerror(const struct lfr_jfr_writer *w);
/* The kernel's CLOCK_MONOTONIC in ns (lib/clock.h, whatever time namespace lfr runs in): the tick
 * clock of every recording, the clock of lfr.ko's records. */
uint64_t lfr_jfr_now(void);

/*
 * Pools.  Keys are never 0, and never name two values in one file.  Equal content gives the equal
 * key while its entry lives: the methods, stacks and trace contexts (and the names they hold) that
 * no event or interning used in the current chunk or the three before are forgotten at a flush
 * once they are most of those pools' entries (4 096 of them or more); met again, such content
 * gets a new key.  lfr_jfr_pool_sweeps() counts the flushes that forgot entries: a caller that
 * keeps keys of these pools past a flush forgets them when it moves.  Thread keys are not swept
 * (lfr_jfr_thread_release()).
 *
 * object: the object file ("libc.so.6", "[kernel]") shown as the frame's class, without the
 * brackets of a name that starts with '[' ("kernel": JMC takes a leading '[' for an array type and
 * fails); symbol: the function name shown as the method.
 */
int lfr_jfr_method(struct lfr_jfr_writer *w, const char *object, const char *symbol,
                   enum lfr_jfr_frame_type type, uint64_t *key);
/* frames[0] is the leaf; each entry is a key from lfr_jfr_method(). */
int lfr_jfr_stack(struct lfr_jfr_writer *w, const uint64_t *methods, size_t n, bool truncated,
                  uint64_t *key);
/* A thread: its name, and the process (tgid, process name) it belongs to, shown as its group. */
int lfr_jfr_thread(struct lfr_jfr_writer *w, uint32_t tid, uint32_t tgid, const char *name,
                   const char *process, uint64_t *key);
/*
 * The thread of key will not be named again (it exited and was forgotten): its pool entry is
 * freed after the next flush, its group after its last thread; the key is not given out again.
 * A later lfr_jfr_thread() of the same thread before that takes it back.
 */
void lfr_jfr_thread_release(struct lfr_jfr_writer *w, uint64_t key);

/*
 * lfr.ObjectFile: an object file whose frames stay unnamed ("0x..." methods of class name), with
 * its path and build-id, so that lfr report can name them later (debug files, debuginfod).
 * Restated at the start of every later chunk, as the recording's other information events.
 */
int lfr_jfr_object_file(struct lfr_jfr_writer *w, uint64_t ticks, const char *name,
                        const char *path, const uint8_t *build_id, size_t build_id_len);

/* An attribute of a trace context: key and value bytes (UTF-8, not NUL-terminated). */
struct lfr_jfr_attr {
	const char *key, *value;
	uint8_t key_len, value_len;
};

/* The most attributes a context record holds (2 bytes each at least, in 612 bytes). */
#define LFR_JFR_CONTEXT_MAX_ATTRS 306

/*
 * An OpenTelemetry thread context (lfr.types.TraceContext): trace and span ids (W3C bytes, written
 * in hex), trace flags and attributes.  Equal content gives the equal key.
 */
int lfr_jfr_context(struct lfr_jfr_writer *w, const uint8_t trace_id[16], const uint8_t span_id[8],
                    uint8_t flags, const struct lfr_jfr_attr *attrs, size_t nattrs, uint64_t *key);
/*
 * lfr.TraceContext: the samples of THREAD at TICKS (every sample event of that thread at that
 * instant) ran in CONTEXT (a key of lfr_jfr_context()).
 */
int lfr_jfr_trace_context(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                          uint64_t context);
/*
 * lfr.Label: the n key, value pairs of kv (printable UTF-8, none empty) as the labels of process
 * pid, or with pid 0 of the whole recording (host.name, lfr record --label).  The recording's are
 * written now and repeated at the start of every later chunk, as the information events; a
 * process's are written into every chunk that holds an event of one of its threads, once, with
 * the flush that first writes such an event there, so that each chunk stands alone (lfr export
 * sends a repository's chunks one by one).  A later call for the same pid replaces its labels.
 */
int lfr_jfr_labels(struct lfr_jfr_writer *w, uint64_t ticks, uint32_t pid, const char *const *kv,
                   size_t n);
/*
 * Process pid is gone (or now has no labels): its labels are told with the events buffered now,
 * then forgotten, so that the writer holds the living processes' only and a later process under
 * the same pid is not given them.  A later lfr_jfr_labels() of pid before that takes them back.
 */
void lfr_jfr_labels_forget(struct lfr_jfr_writer *w, uint32_t pid);

/* Events.  ticks: CLOCK_MONOTONIC ns.  Key arguments may be 0 (null) where the JDK allows it. */
int lfr_jfr_execution_sample(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                             uint64_t stack, enum lfr_jfr_thread_state state);
/*
 * One CPU sample, written as every event of the options' sample event set (jdk.ExecutionSample by
 * default, jdk.CPUTimeSample too with LFR_JFR_SAMPLE_ALL, profiler.WallClockSample too with
 * LFR_JFR_SAMPLE_WALL).  period_ns: the CPU time the sample stands for (the sampling period),
 * jdk.CPUTimeSample's samplingPeriod.
 */
int lfr_jfr_sample(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread, uint64_t stack,
                   enum lfr_jfr_thread_state state, uint64_t period_ns);
/* jdk.CPUTimeSamplesLost: count samples of thread lost since its previous such event (written only
 * when the sample event set has jdk.CPUTimeSample; lfr.LostSamples keeps the reasons). */
int lfr_jfr_thread_samples_lost(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                                uint32_t count);
/* lfr.LostSamples: count samples lost for reason since the previous event for that reason; the
 * writer keeps the running total per reason. */
/*
 * lfr.OffCpu: THREAD off the CPU from START for DURATION ticks with STACK (its kernel stack then
 * its user stack), why (STATE), and the thread's intervals below the minimum so far.
 */
int lfr_jfr_off_cpu(struct lfr_jfr_writer *w, uint64_t start, uint64_t duration, uint64_t thread,
                    uint64_t stack, const char *state, uint64_t short_count, uint64_t short_ns);
/*
 * profiler.WallClockSample (async-profiler's type, which its converter and Pyroscope's parser read
 * as wall-clock samples): a wall-clock sample of THREAD while it was off the CPU (lfr record
 * --wall), with STACK (the kernel stack it left with, then its user stack) and STATE (sleeping, or
 * runnable when preempted).  Those on the CPU are written by lfr_jfr_sample() with
 * LFR_JFR_SAMPLE_WALL in the set.
 */
int lfr_jfr_wall_sample(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread, uint64_t stack,
                        enum lfr_jfr_thread_state state);
/*
 * lfr.SamplingLatency: a tick at START interrupted THREAD in the kernel (STACK: that kernel stack,
 * then the user stack) and its walk ran DURATION ticks later, on the way back to user space.
 */
int lfr_jfr_sampling_latency(struct lfr_jfr_writer *w, uint64_t start, uint64_t duration,
                             uint64_t thread, uint64_t stack);
int lfr_jfr_lost_samples(struct lfr_jfr_writer *w, uint64_t ticks, const char *reason,
                         uint64_t count);
int lfr_jfr_thread_start(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread,
                         uint64_t parent);
int lfr_jfr_thread_end(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t thread);

struct lfr_jfr_recording {
	uint64_t id;
	const char *name;
	const char *destination;
	uint64_t max_age_ms, flush_interval_ms, max_size_bytes;
	uint64_t start_ticks;    /* when the recording began (CLOCK_MONOTONIC ns) */
	uint64_t duration_ticks; /* how long it has run so far */
};
int lfr_jfr_active_recording(struct lfr_jfr_writer *w, uint64_t ticks,
                             const struct lfr_jfr_recording *r);
/* os_version NULL: taken from uname(2). */
int lfr_jfr_os_information(struct lfr_jfr_writer *w, uint64_t ticks, const char *os_version);
/* jdk.SystemProcess: a process (pid as a decimal string, as the JDK writes it) and its command
 * line. */
int lfr_jfr_system_process(struct lfr_jfr_writer *w, uint64_t ticks, uint32_t pid,
                           const char *command_line);
/* cpu/description NULL: taken from /proc/cpuinfo; counts 0: taken from the system. */
struct lfr_jfr_cpu_info {
	const char *cpu, *description;
	uint32_t sockets, cores, hw_threads;
};
int lfr_jfr_cpu_information(struct lfr_jfr_writer *w, uint64_t ticks,
                            const struct lfr_jfr_cpu_info *info);
/*
 * lfr.SamplerSettings, and jdk.ActiveSetting events for each sample event of the set (enabled,
 * period or throttle, stackTrace, stackDepth, kernelStacks, targets) as JMC shows them, and the
 * settings async-profiler writes that its converter and Pyroscope's parser read: the recording's
 * "event" ("cpu"), jdk.ExecutionSample's "interval" and profiler.WallClockSample's "wall" (the
 * period in ns).
 */
int lfr_jfr_sampler_settings(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t period_ns,
                             uint32_t max_depth, bool kernel_stacks, const char *target);
/*
 * The information events (jdk.ActiveRecording, jdk.OSInformation, jdk.CPUInformation,
 * lfr.SamplerSettings and its jdk.ActiveSetting events) are written again at the start of every
 * later chunk, with the chunk's start time, so that each chunk stands alone; a later call of the
 * same function replaces what is repeated.
 */

/* Makes everything added so far readable in the file. */
int lfr_jfr_flush(struct lfr_jfr_writer *w);
/*
 * Final flush, flags the last chunk final, trims the file to its content, syncs and closes it, and
 * frees w (always).  On failure the message is copied to err (when errlen > 0): w is gone by then.
 */
int lfr_jfr_close(struct lfr_jfr_writer *w, char *err, size_t errlen);
/*
 * lfr_jfr_close(), and the repository's figures of st (repo_bytes, repo_chunks, evicted) as the
 * close left them: the last chunk's end may remove one more than lfr_jfr_get_stats() said before.
 */
int lfr_jfr_close_repo_stats(struct lfr_jfr_writer *w, struct lfr_jfr_stats *st, char *err,
                             size_t errlen);
/*
 * Frees w without touching the file any further: path stays as of its last flush with events;
 * when there was none, the file lfr_jfr_open() created is removed and an old one stays as it was.
 */
void lfr_jfr_abandon(struct lfr_jfr_writer *w);
/* Whether a flush has written events to path (lfr_jfr_abandon() keeps the file then). */
bool lfr_jfr_published(const struct lfr_jfr_writer *w);
void lfr_jfr_get_stats(const struct lfr_jfr_writer *w, struct lfr_jfr_stats *st);
/* The flushes that forgot unused method, stack or trace-context entries (see "Pools"). */
uint64_t lfr_jfr_pool_sweeps(const struct lfr_jfr_writer *w);

/*
 * Repairs a recording whose writer was killed at one of the two moments that leave bytes after the
 * last complete chunk (growing or ending a chunk, see Documentation/jfr-writer.md): cuts them off.
 * Returns 0 when the file needed nothing, 1 when it was cut (err then says how much), or a negative
 * errno with the reason in err (-EUCLEAN: complete chunks follow the damaged one, so the damage is
 * not a tail and the file is left as it was).  Only a file that no writer has open may be repaired.
 */
int lfr_jfr_repair(const char *path, char *err, size_t errlen);

/*
 * Fault injection for tests: after budget more bytes of file I/O (ftruncate counts as one byte),
 * every write is cut short and fails, as if the process had been killed there.  -1 disables.
 */
void lfr_jfr_set_io_budget(struct lfr_jfr_writer *w, int64_t budget);
/* Fault injection for tests: I/O call number op (0 = the next one) writes at most bytes bytes and
 * fails, and every later call fails.  op -1 disables. */
void lfr_jfr_set_io_fault(struct lfr_jfr_writer *w, int64_t op, int64_t bytes);

#endif

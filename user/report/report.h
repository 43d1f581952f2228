/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `lfr report`'s engine: one pass over a JFR file that counts every event type, aggregates the
 * stack samples of the selected event types by (stack trace, thread) constant-pool keys, chunk by
 * chunk, and resolves each distinct key once into interned frames, stacks and threads.  Views
 * (text, folded stacks, HTML flame graph) are printed from the aggregate.
 */
#ifndef LFR_REPORT_REPORT_H
#define LFR_REPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "jfr/reader.h"
#include "lib/hashtab.h"

#define REPORT_MAX_FILTERS 16

struct report_opts {
	/* event types whose stackTrace is aggregated; none = jdk.ExecutionSample, "all" = every
	 * type that has a stackTrace field */
	const char *events[REPORT_MAX_FILTERS];
	int nevents;
	/* thread filters: a decimal OS thread id, or a substring of the thread's name */
	const char *threads[REPORT_MAX_FILTERS];
	int nthreads;
	/* process filters: a decimal pid, or a substring of the process name */
	const char *processes[REPORT_MAX_FILTERS];
	int nprocesses;
	/* time range in nanoseconds relative to the start of the recording; -1 = open */
	int64_t from_ns, to_ns;
	/* the integer event field summed instead of counting events (NULL = count events) */
	const char *value_field;
	int top;           /* rows of the top lists */
	int jobs;          /* chunks scanned in parallel; 0 = one per CPU (at most 16) */
	bool thread_roots; /* collapsed/html: one root frame per thread */
	bool sort_objects; /* text: the top objects (shared libraries, executables) instead of
	                    * the top functions, as perf report --sort dso */
	bool timeline;     /* keep every sample's time (report.timed): speedscope, pprof */
	bool timed_only;   /* with timeline: report.timed alone, report.samples left empty (a
	                    * caller that groups the timed samples itself saves a hash each) */
	bool off_cpu;      /* lfr.OffCpu by duration: off-CPU time in ns (events and
	                    * value_field are set to match) */
	bool wall;         /* wall-clock samples: profiler.WallClockSample (of lfr's files before
	                    * it: jdk.ExecutionSample and jdk.NativeMethodSample), report_opts_wall() */
	bool latency;      /* lfr.SamplingLatency by duration, and the longest ones (text);
	                    * events, value_field and timeline are set to match */
	bool states;       /* the value by the events' state field (report.states): the text
	                    * view of --off-cpu and --wall; costs the types with the field only */
	/* trace context filters (lfr.TraceContext): only samples whose span id is one of spans
	 * or whose trace id is one of traces (hex digits, any case) */
	const char *spans[REPORT_MAX_FILTERS];
	int nspans;
	const char *traces[REPORT_MAX_FILTERS];
	int ntraces;
	bool contexts;          /* keep each sample's context (report.contexts, sample.ctx) */
	uint8_t sort_ctx;       /* text: REPORT_BY_SPAN or REPORT_BY_TRACE instead of functions */
	const char *sort_label; /* text: the value by this label of the samples' processes (-s
	                         * service, container, pod, host or any label's name) */
};

enum { REPORT_BY_FUNCTION, REPORT_BY_SPAN, REPORT_BY_TRACE };

void report_opts_init(struct report_opts *o);
/*
 * --wall: the wall-clock samples of lfr record --wall, profiler.WallClockSample on the CPU and off
 * it; in a chunk that declares none, jdk.ExecutionSample and jdk.NativeMethodSample (the wall-clock
 * samples of lfr's earlier files).
 */
void report_opts_wall(struct report_opts *o);

struct report;
/* end_nanos - start_nanos: 0 when negative, INT64_MAX when too large (a corrupt header). */
int64_t report_span_nanos(const struct report *rep);

enum report_frame_kind {
	RF_JAVA, /* Interpreted, JIT compiled, Inlined or unknown */
	RF_NATIVE,
	RF_CPP,
	RF_KERNEL,
};

/*
 * A function: its name and the object file it is in (NULL for Java code, whose class is in its
 * name): functions of the same name in two objects are two frames.
 */
struct report_frame {
	char *name;
	uint8_t kind;
	char *object;
};

struct report_stack {
	uint32_t first; /* index into report.stack_frames (leaf first) */
	uint32_t depth;
	bool truncated;
};

struct report_thread {
	char *name;
	int64_t tid;
	int64_t pid;   /* -1 when unknown */
	char *process; /* NULL when unknown */
	uint64_t value;
};

struct report_sample {
	uint32_t stack, thread;
	uint64_t value;
	uint32_t ctx; /* index in report.contexts, 0: none (or report_opts.contexts unset) */
};

/* One sample in time (report_opts.timeline): ns since the recording's start. */
struct report_timed {
	int64_t nanos;
	uint32_t stack, thread;
	uint64_t value;
	uint32_t ctx;
};

/*
 * A trace context (lfr.types.TraceContext): ids in lower-case hex, trace flags, and its
 * attributes as nattrs pairs of NUL-terminated key and value in attrs.
 */
struct report_context {
	char trace_id[33], span_id[17];
	uint8_t flags;
	unsigned int nattrs;
	char *attrs;
	size_t attrs_len;
	uint64_t value; /* of the samples that passed the filters */
	char *key;      /* private: the bytes it is interned by */
	size_t key_len;
};

/* A state of the selected events ("sleeping", STATE_RUNNABLE) and its samples' value. */
struct report_state {
	char *name;
	uint64_t value;
};

struct report_evtype {
	const char *name;
	uint64_t count, bytes;
};

/* An lfr.ObjectFile event: an object whose frames the recording left unnamed ("0x..."). */
struct report_object {
	char *name, *path, *build_id; /* build_id: hex, "" when unknown */
};

/* An lfr.Label event: a label of process pid, or with pid 0 of the recording (report/labels.h). */
struct report_label {
	int64_t pid;
	char *name, *value;
};

struct report_lost {
	char *type, *reason, *field;
	uint64_t events, amount;
};

struct report {
	char *path; /* the reader's name, a copy */
	uint64_t file_size;
	uint64_t nchunks;
	int64_t start_nanos, end_nanos; /* recording span from the chunk headers */
	/*
	 * the sampling period of the recording's samples in ns (lfr.SamplerSettings' periodNanos),
	 * 0 when unknown or when chunks disagree: a sample then stands for no known CPU time
	 */
	int64_t period_ns;
	bool period_mixed;
	/* counts of every event type, in the order first seen, and of metadata/checkpoint events */
	struct report_evtype *evtypes;
	size_t nevtypes;
	/* samples */
	char selected[256];     /* the event types aggregated, for the header */
	uint64_t sample_events; /* events of the selected types (before filters) */
	uint64_t matched_events;
	uint64_t total; /* sum of values of samples that passed the filters */
	struct report_frame *frames;
	size_t nframes, frames_cap;
	uint32_t *stack_frames;
	size_t nstack_frames, stack_frames_cap;
	struct report_stack *stacks;
	size_t nstacks, stacks_cap;
	struct report_thread *threads;
	size_t nthreads, threads_cap;
	struct report_sample *samples;
	size_t nsamples, samples_cap;
	/* with report_opts.contexts: the contexts of the samples; [0] is "none" */
	struct report_context *contexts;
	size_t ncontexts, contexts_cap;
	struct report_lost *lost;
	size_t nlost;
	/* with report_opts.timeline: every sample that passed the filters, in time order */
	struct report_timed *timed;
	size_t ntimed, timed_cap;
	/*
	 * with report_opts.states and when a selected type has a state field: the value of the
	 * samples that passed the filters by state, largest first, adding up to total (those of
	 * no state in a row "[no state]"); none otherwise
	 */
	struct report_state *states;
	size_t nstates, states_cap;
	/* lfr.ObjectFile events, one per distinct (name, path, build-id) */
	struct report_object *objects;
	size_t nobjects, objects_cap;
	/* lfr.Label events, the last value of each (pid, name); label_index: (pid, hash(name)) */
	struct report_label *labels;
	size_t nlabels, labels_cap;
	struct hashtab label_index;
	/* report_name_frames(): frames named, and the objects whose frames stayed unnamed and why
	 * ("2 objects unnamed: /usr/bin/app (build-id ab12..): ..."), NULL when none */
	uint64_t frames_named;
	char *unnamed;
	/* private state */
	void *priv;
};

/*
 * Reads the whole file.  Returns 0, or -1 with a message in err ("FILE: offset N: ..." for
 * malformed input).  On a malformed chunk everything before it is kept in *out (counts of the good
 * chunks), so callers may still print it.
 */
int report_read(struct jfr_reader *r, const struct report_opts *o, struct report **out);
void report_free(struct report *rep);
/*
 * Names the frames the recording left unnamed ("0x..." in an object of an lfr.ObjectFile event)
 * with the symbolizer: the object's file when its build-id matches, its debug files under
 * debug_dirs (NULL: /usr/lib/debug) by build-id and .gnu_debuglink, and last, with debuginfod,
 * the debuginfod servers of DEBUGINFOD_URLS.  Sets rep->unnamed to the line that lists the
 * objects left unnamed.  Returns 0, or -1 when out of memory.
 */
int report_name_frames(struct report *rep, const char *debug_dirs, bool debuginfod);
/* Whether a selected event type has the --value field. */
bool report_value_field_found(const struct report *rep);
/* Whether any chunk declared a selected event type, and the names of the types that carry stacks.
 */
const char *report_stack_types(const struct report *rep, bool *any_selected);

/* -1 when out of memory: a table is missing, the report must not stand as complete */
int report_print_text(const struct report *rep, const struct report_opts *o, FILE *out);
void report_print_summary(const struct report *rep, FILE *out);
void report_print_collapsed(const struct report *rep, const struct report_opts *o, FILE *out);
void report_print_html(const struct report *rep, const struct report_opts *o, FILE *out);
/*
 * One view of the HTML page: what it shows (id "cpu", "off-cpu", "wall", "latency" or "events",
 * name on its button, label before its totals) and its samples as read with o.
 */
struct report_html_view {
	const char *id, *name, *label;
	const struct report *rep;
	const struct report_opts *o;
};
/* The id, name and label of the view the options o select (report/html_views.c). */
void report_html_view_kind(const struct report_opts *o, struct report_html_view *v);
/* One page holding the views, the first shown when it opens, with a control that switches the
 * flame graph, timeline and tables between them when there are two or more. */
void report_print_html_views(const struct report_html_view *views, size_t n, FILE *out);
/*
 * s as a JSON string literal (report/json.c).  '<', '>' and '&' are escaped too, so that no name
 * can close the HTML page's <script> element; bytes that are not UTF-8 (a name cut inside a
 * character, a file's stray bytes) are written as U+FFFD, so that the output is UTF-8 whatever
 * the names hold.
 */
void report_json_string(FILE *out, const char *s);
/* gzipped profile.proto for `go tool pprof` (report/pprof.c); -1 after saying why on stderr (out
 * of memory) */
int report_print_pprof(const struct report *rep, const struct report_opts *o, FILE *out);
/* speedscope's JSON file format, one sampled profile per thread (report/speedscope.c) */
void report_print_speedscope(const struct report *rep, const struct report_opts *o, FILE *out);

/* Parses "1.5", "1.5s", "200ms", "3us", "10ns", "2m" into nanoseconds; -1 on error. */
int64_t report_parse_duration(const char *s);

#endif

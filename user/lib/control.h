/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Session control over the "lfr" generic netlink family: START, STOP, STATUS, UNWIND_ADD and the
 * "events" multicast group.  Every failure fills a struct lfr_error with the kernel's extack
 * message verbatim and a hint of what to do.
 *
 * A session started without detached stops when the lfr_ctl that started it is closed (the kernel
 * stops it when the netlink socket goes away), so keep it open for as long as you record.
 */
#ifndef LFR_LIB_CONTROL_H
#define LFR_LIB_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/lfr.h>

#include "lib/error.h"
#include "lib/genl.h"

struct lfr_ctl {
	struct lfr_genl genl;
};

struct lfr_start_opts {
	uint64_t period_ns;  /* 0: use freq_hz */
	uint32_t freq_hz;    /* 0 with period_ns 0: the module's default (99 Hz) */
	uint32_t user_depth; /* 0: default (127) */
	bool kernel_stack;
	bool detached;
	uint32_t ring_pages;   /* 0: default */
	uint32_t wakeup_bytes; /* 0: default (a quarter of the ring) */
	bool wakeup_any;       /* ask for a wakeup on any record (wakeup_bytes = 0) */
	uint32_t max_threads;  /* 0: default */
	int jitter_pct;        /* -1: default */
	bool system;           /* every user thread */
	const uint32_t *tgids;
	size_t ntgids;
	const uint32_t *tids;
	size_t ntids;
	const uint64_t *cgroup_ids; /* cgroup v2 ids (lfr_cgroup_resolve) */
	size_t ncgroups;
	/* cgroups by descriptors of their cgroup.procs open for writing (lfr_cgroup_procs_open): a
	 * user without CAP_PERFMON names its delegated cgroups so */
	const int *cgroup_procs_fds;
	size_t ncgroup_procs_fds;
	/* a perf event opened without exclude_kernel: perf's consent to kernel stacks for a user
	 * without CAP_PERFMON (cli_kernel_proof()); 0 or less: none */
	int kernel_proof_fd;
	bool follow_children;    /* children of target threads become targets */
	uint32_t unwind_max_kb;  /* memory for unwind tables, KiB; 0: the module's default */
	bool no_unwind;          /* no unwind tables (LFR_A_UNWIND_MAX_KB 0): frame pointers only */
	uint64_t offcpu_min_ns;  /* off-CPU intervals of at least this many ns; 0: none */
	uint64_t latency_min_ns; /* sampling latencies of at least this many ns; 0: none */
	bool thread_ctx;         /* read thread contexts of the processes given by CTX_ADD */
};

/* What START and STATUS report about a session. */
struct lfr_session_info {
	uint32_t id;
	uint32_t state; /* enum lfr_state */
	uint64_t period_ns;
	uint32_t user_depth;
	uint32_t ring_pages;
	uint32_t nr_cpu_ids;
	bool kernel_stack;
	bool detached;
	uint64_t offcpu_min_ns;  /* 0: no off-CPU intervals */
	uint64_t latency_min_ns; /* 0: no sampling latencies */
	bool thread_ctx;         /* the session reads thread contexts */
};

struct lfr_counters {
	uint64_t v[LFR_CTR_MAX + 1];
	bool present[LFR_CTR_MAX + 1];
};

struct lfr_cpu_counters {
	uint32_t cpu;
	struct lfr_counters c;
};

#define LFR_STATUS_MAX_LISTED 64

struct lfr_status {
	struct lfr_session_info info;
	struct lfr_counters total;
	struct lfr_cpu_counters *cpus; /* ncpus entries, malloc'ed */
	size_t ncpus;
	/* every session the module keeps, newest first (the newest 64) */
	uint32_t sessions[LFR_STATUS_MAX_LISTED];
	size_t nsessions;
};

/* A state-change notification from the "events" multicast group. */
struct lfr_notification {
	uint32_t session_id;
	uint32_t state; /* enum lfr_state */
	uint32_t event; /* enum lfr_event */
	int64_t cpu;    /* LFR_EVENT_OVERFLOW: the CPU whose ring was full; else -1 */
};

int lfr_ctl_open(struct lfr_ctl *c, struct lfr_error *e);
void lfr_ctl_close(struct lfr_ctl *c);

int lfr_ctl_start(struct lfr_ctl *c, const struct lfr_start_opts *o, struct lfr_session_info *out,
                  struct lfr_error *e);
/* session < 0: the running session. */
int lfr_ctl_stop(struct lfr_ctl *c, int64_t session, struct lfr_session_info *out,
                 struct lfr_error *e);
/*
 * STOP with LFR_A_ABANDON: also gives up the stack walks still queued (their ticks count as lost
 * "abandoned"); the session is STOPPED once the walks running at that moment have committed.
 */
int lfr_ctl_abandon(struct lfr_ctl *c, uint32_t session, struct lfr_session_info *out,
                    struct lfr_error *e);
/*
 * UNWIND_ADD: gives session the unwind table (hdr, then hdr->nr_rows rows; sym/unwind_table.h
 * builds them) of the object file open at object_fd, written to a memfd sealed against writing,
 * shrinking and growing, for the kernel to read.
 * Returns 0 or a negative errno, with the kernel's message in e: -EEXIST when the session has a
 * table for that file already, -ESTALE when the file changed since the table was built,
 * -EOPNOTSUPP from a module without unwind tables.
 */
int lfr_ctl_unwind_add(struct lfr_ctl *c, uint32_t session, int object_fd,
                       const struct lfr_unwind_hdr *hdr, const struct lfr_unwind_row *rows,
                       struct lfr_error *e);

/* Where one process keeps its OpenTelemetry thread context (LFR_CMD_CTX_ADD's LFR_A_CTX). */
struct lfr_ctx_loc {
	uint32_t pid;
	uint32_t access; /* enum lfr_ctx_access */
	int64_t offset;
	uint64_t slot;
	uint64_t object_addr, object_ino;
	uint32_t object_dev; /* major << 20 | minor */
	int32_t dtv_offset;
	uint32_t dtv_stride;
	int32_t dtv_count;
};

/*
 * KSYM: the kernel's names of n addresses (1 to LFR_KSYM_MAX_ADDRS): each(arg, i, name) for
 * address i as the reply names it, "name+0xoff/0xsize [module]" (sprint_symbol()'s form) or ""
 * when no symbol holds it.  Returns 0 or a negative errno with the kernel's message in e: -EPERM
 * for a sender that /proc/kallsyms shows no addresses to (no CAP_SYSLOG, kptr_restrict 2),
 * -EOPNOTSUPP from a module without the command.
 */
int lfr_ctl_ksym(struct lfr_ctl *c, const uint64_t *addrs, size_t n,
                 void (*each)(void *arg, size_t i, const char *name), void *arg,
                 struct lfr_error *e);
/*
 * CTX_ADD: tells session where process l->pid keeps otel_thread_ctx_v1.  Returns 0 or a negative
 * errno with the kernel's message in e: -ESTALE when the object is no longer mapped as said (the
 * process exec'd), -ESRCH when the process is gone, -EOPNOTSUPP for a session started without
 * thread_ctx.
 */
int lfr_ctl_ctx_add(struct lfr_ctl *c, uint32_t session, const struct lfr_ctx_loc *l,
                    struct lfr_error *e);

/* session < 0: the newest session.  Free with lfr_status_free. */
int lfr_ctl_status(struct lfr_ctl *c, int64_t session, struct lfr_status *out, struct lfr_error *e);
void lfr_status_free(struct lfr_status *s);

/*
 * Polls STATUS until the session has left the DRAINING state or TIMEOUT_MS have passed.  Returns 0
 * with *st filled (the caller frees it), or -1 (ETIMEDOUT when still draining).
 */
int lfr_ctl_wait_stopped(struct lfr_ctl *c, uint32_t session, int timeout_ms, struct lfr_status *st,
                         struct lfr_error *e);

/* Joins the "events" multicast group on this lfr_ctl (use a separate one from the controlling one).
 */
int lfr_ctl_monitor(struct lfr_ctl *c, struct lfr_error *e);
/* Waits up to TIMEOUT_MS for one notification: 1 = got one, 0 = timeout, -1 = error. */
int lfr_ctl_next_notification(struct lfr_ctl *c, int timeout_ms, struct lfr_notification *n,
                              struct lfr_error *e);

/*
 * Ticks lost, every reason: the sum of the LOST_* counters except LOST_AUX_RING_FULL, which counts
 * MMAP/COMM records rather than ticks.
 */
uint64_t lfr_counters_lost(const struct lfr_counters *c);

/* Stable lower-case names used in every machine-readable output; "ctr_N" / "reason_N" if unknown.
 */
const char *lfr_counter_name(unsigned int ctr);
/* Whether these tools know counter CTR (the counter enum has a gap below LFR_CTR_LOST_FIRST). */
bool lfr_counter_known(unsigned int ctr);
const char *lfr_lost_reason_name(unsigned int reason);
const char *lfr_state_name(unsigned int state);
const char *lfr_event_name(unsigned int event);
/* The name of a top-level START/STOP/STATUS attribute, for error messages; NULL if unknown. */
const char *lfr_attr_name(unsigned int attr);

/* Parses a counters nest (LFR_A_COUNTERS or LFR_CPU_A_COUNTERS) into C; exposed for the tests. */
int lfr_counters_parse(const struct nlattr *nest, struct lfr_counters *c);

#endif

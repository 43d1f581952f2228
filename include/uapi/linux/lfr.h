/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * lfr — Linux flight recorder: the user/kernel ABI.
 *
 * This header is the whole protocol between lfr.ko and user space: the
 * generic netlink control family, the /dev/lfr ring layout and the record
 * formats found in the rings.  Everything here only grows: enums get new
 * values appended, records get new fields appended (readers use the size
 * in each header and ignore what they do not know), attributes are never
 * renumbered.  All structures are 8-byte aligned and use fixed-size types.
 *
 * ---------------------------------------------------------------------------
 * 1. Control: generic netlink family LFR_GENL_NAME ("lfr"), version
 *    LFR_GENL_VERSION, multicast group LFR_GENL_MCGRP ("events").
 *
 * The family answers in every network namespace.  A sender with CAP_PERFMON
 * or CAP_SYS_ADMIN in the initial user namespace (checked on both the socket
 * opener and the sender) may use every command on every session.  Anyone
 * else gets EPERM, unless the module parameter unprivileged is 1: then a
 * user may START a session whose targets are only cgroups it may write,
 * each given by a descriptor of its cgroup.procs opened for writing
 * (LFR_TARGET_A_CGROUP_PROCS_FD: a cgroup delegated to the user, inside its
 * cgroup namespace), which samples only the threads whose user and group ids
 * (real, effective, saved, fs) are the sender's real ones and that may be
 * dumped; no kernel stacks, off-CPU intervals or sampling latencies unless
 * LFR_A_KERNEL_PROOF_FD shows perf lets the sender profile the kernel; at
 * most the module parameters' user_max_freq_hz, user_max_sessions and
 * user_max_mb; and see, stop and give unwind tables and thread contexts to
 * its own sessions only (Documentation/kernel.md, "Recording without
 * privileges").  Joining LFR_GENL_MCGRP requires CAP_SYS_ADMIN (on kernels
 * with GENL_MCAST_CAP_SYS_ADMIN; EPERM otherwise); events are sent in the
 * initial network namespace only.  Attributes are validated strictly (unknown attributes, wrong
 * lengths, trailing data and out-of-range values are rejected); every
 * rejection carries an extended-ack message naming the attribute.
 *
 * LFR_CMD_START: start a session.  Reply: LFR_CMD_START with
 *   LFR_A_SESSION_ID, LFR_A_STATE, LFR_A_PERIOD_NS, LFR_A_USER_STACK_DEPTH,
 *   LFR_A_RING_PAGES, LFR_A_WAKEUP_BYTES, LFR_A_NR_CPU_IDS,
 *   LFR_A_UNWIND_MAX_KB and the
 *   LFR_A_KERNEL_STACK / LFR_A_DETACHED flags (the effective values).
 *   LFR_A_PERIOD_NS         u64   sampling period in ns of thread CPU time
 *                                 (10000 .. 10000000000).
 *   LFR_A_FREQ_HZ           u32   alternative to the period: samples per
 *                                 second of CPU time (1 .. 100000).  Giving
 *                                 both is an error.  Default: 99 Hz.
 *   LFR_A_USER_STACK_DEPTH  u32   max user frames per sample (1 ..
 *                                 LFR_MAX_USER_STACK_DEPTH, default 127).
 *   LFR_A_KERNEL_STACK      flag  also record the kernel stack when the tick
 *                                 lands in the kernel.
 *   LFR_A_DETACHED          flag  the session survives the close of the
 *                                 netlink socket that started it.  Without
 *                                 it, closing that socket stops the session
 *                                 exactly like LFR_CMD_STOP.
 *   LFR_A_RING_PAGES        u32   data pages per CPU ring, power of two
 *                                 (LFR_MIN_RING_PAGES .. LFR_MAX_RING_PAGES,
 *                                 default LFR_DEFAULT_RING_PAGES).
 *   LFR_A_WAKEUP_BYTES      u32   poll() reports a ring readable once it
 *                                 holds at least this many bytes (default:
 *                                 a quarter of the ring; 0 means any record).
 *   LFR_A_MAX_THREADS       u32   threads the session can track at once
 *                                 (16 .. 1048576, default 8192).  Ticks of
 *                                 further threads are lost with reason
 *                                 LFR_LOST_NO_THREAD_SLOT.
 *   LFR_A_JITTER_PCT        u32   random jitter of each period, percent
 *                                 (0 .. 50, default 10).
 *   LFR_A_OFFCPU_MIN_NS     u64   also record off-CPU intervals: every time
 *                                 a target thread is off the CPU for at
 *                                 least this many ns (LFR_MIN_OFFCPU_MIN_NS
 *                                 .. LFR_MAX_OFFCPU_MIN_NS), one
 *                                 LFR_REC_OFFCPU record; shorter ones are
 *                                 counted per thread.  Any target kind
 *                                 (with SYSTEM or CGROUP_ID, a thread's
 *                                 count starts when it first switches
 *                                 out).  Echoed in the reply.
 *   LFR_A_LATENCY_MIN_NS    u64   also record sampling latencies: when a
 *                                 tick interrupted a target thread in the
 *                                 kernel and its walk ran at least this
 *                                 many ns later (LFR_MIN_LATENCY_MIN_NS ..
 *                                 LFR_MAX_LATENCY_MIN_NS), one
 *                                 LFR_REC_LATENCY record.  Any target.
 *                                 Echoed in the reply.
 *   LFR_A_UNWIND_MAX_KB     u32   memory the session's unwind tables may
 *                                 hold, KiB (0 .. 1048576, default
 *                                 LFR_DEFAULT_UNWIND_MAX_KB); see
 *                                 LFR_CMD_UNWIND_ADD.  0: no tables.
 *   LFR_A_KERNEL_PROOF_FD   u32   a perf event descriptor the sender opened
 *                                 (perf_event_open, any event, exclude_kernel
 *                                 0): perf's own check that it may profile the
 *                                 kernel (kernel.perf_event_paranoid <= 1 or
 *                                 CAP_PERFMON).  A sender without privileges
 *                                 needs it for LFR_A_KERNEL_STACK,
 *                                 LFR_A_OFFCPU_MIN_NS and LFR_A_LATENCY_MIN_NS.
 *   LFR_A_THREAD_CTX        flag  also read the OpenTelemetry thread context
 *                                 (OTEP 4947) of every walk's thread in the
 *                                 processes given with LFR_CMD_CTX_ADD: its
 *                                 USTACK records carry it (struct
 *                                 lfr_ustack_ctx).  Echoed in the reply.
 *   LFR_A_TARGETS           nest  what to sample (required), containing:
 *     LFR_TARGET_A_SYSTEM        flag  every user thread of the machine
 *     LFR_TARGET_A_TGID          u32   a process (all its threads, current
 *                                      and future); may repeat
 *     LFR_TARGET_A_TID           u32   one thread; may repeat
 *     LFR_TARGET_A_CGROUP_ID     u64   a cgroup v2 (the id is the inode
 *                                      number of its directory in the
 *                                      cgroup2 mount); every thread in it
 *                                      or in a descendant cgroup at the
 *                                      moment of a tick; may repeat
 *     LFR_TARGET_A_CGROUP_PROCS_FD u32  a descriptor of a cgroup v2's
 *                                      cgroup.procs opened for writing: that
 *                                      cgroup, as CGROUP_ID, and the proof
 *                                      that the sender may move processes
 *                                      into it; may repeat
 *     LFR_TARGET_A_FOLLOW_CHILDREN flag  threads and processes created by
 *                                      a target thread (fork, clone) become
 *                                      targets before their first
 *                                      instruction, and so on down
 *     SYSTEM cannot be combined with other targets.  At most
 *     LFR_MAX_TARGETS ids in total.  With cgroup targets the timers run
 *     on every CPU as in system-wide mode and each tick checks the
 *     interrupted thread's cgroup, so threads that move in are sampled
 *     from their next tick on and threads that move out no longer are.
 *   Errors: EBUSY when 8 sessions run already (the most at once),
 *   EINVAL/ERANGE on bad attributes, ESRCH when a
 *   given tgid/tid does not exist, ENOENT when a cgroup id names no
 *   cgroup v2 visible from the caller's cgroup namespace, ENOMEM.
 *   ENOMEM also when the session would allocate more than the module
 *   parameter max_session_mb; EPERM when the rings exceed the starter's
 *   locked-memory allowance (mlock_kb per online CPU, then RLIMIT_MEMLOCK,
 *   unless CAP_IPC_LOCK).  Targets are held by identity: a process that
 *   reuses an exited target's number is not a target.
 *   EINVAL (naming LFR_A_RING_PAGES) when a ring is smaller than twice one
 *   maximal record: a USTACK record of 56 + 8 * (depth + LFR_USTACK_WORDS)
 *   bytes, or a TICK record with a whole kernel stack (48 + 8 * 64 bytes).
 *   A START whose reply cannot be delivered stops its session again: a
 *   failed START never leaves a session running.
 *
 * LFR_CMD_STOP: LFR_A_SESSION_ID u32 (optional when exactly one session
 *   runs; EINVAL when several do).
 *   Stops sampling at once, then the session is DRAINING until every
 *   already-queued stack walk has run (threads blocked in long system calls
 *   walk when they return), then STOPPED.  Counters stay readable with
 *   STATUS until the first START after the session's last /dev/lfr reader
 *   closed, or module unload.  Reply: LFR_CMD_STOP with
 *   the attributes of the START reply.  ENOENT if there is no such session
 *   (or, without LFR_A_SESSION_ID, no running one); EPERM unless the sender
 *   has the effective uid that started the session or CAP_SYS_ADMIN.
 *   LFR_A_ABANDON flag: also give up the walks still queued (their threads
 *   have not returned to user space since their tick); their ticks count
 *   as LFR_LOST_ABANDONED and the session is STOPPED once the walks running
 *   at that moment have committed.  For a DRAINING session give its id.
 *
 * LFR_CMD_STATUS: LFR_A_SESSION_ID u32 (optional: the newest session).
 *   Reply LFR_CMD_STATUS with:
 *   the attributes of the START reply, then
 *   LFR_A_COUNTERS nest   the totals: one u64 attribute per counter, the
 *                         attribute type being the enum lfr_counter value,
 *   LFR_A_SESSIONS nest   every session the module keeps (running,
 *                         draining, or stopped since the last START), one
 *                         LFR_A_SESSION_ID u32 each, newest first: STATUS
 *                         each by id for its state and figures.
 *   When no session exists the reply has LFR_A_STATE = LFR_STATE_IDLE and an
 *   empty LFR_A_SESSIONS only.
 *   The reply's size does not depend on the number of CPUs.  The per-CPU
 *   counters come from STATUS with NLM_F_DUMP (LFR_A_SESSION_ID optional,
 *   as above; ENOENT with no such session): one LFR_CMD_STATUS message per
 *   possible CPU, several in one read as they fit, then NLMSG_DONE; each has
 *   LFR_A_SESSION_ID, LFR_A_STATE and
 *   LFR_A_CPU nest
 *     LFR_CPU_A_ID       u32
 *     LFR_CPU_A_COUNTERS nest (as LFR_A_COUNTERS, for this CPU; no gauges)
 *   Counters are per CPU where the event was counted (ticks on the CPU of
 *   the interrupt, commits on the CPU whose ring got the record).  A module
 *   before the dump put the LFR_A_CPU nests in the reply.
 *
 * LFR_CMD_UNWIND_ADD: give a session the unwind table of one object file,
 *   so that its walks unwind through that object's code from its call frame
 *   information (CFI) instead of its frame pointers.  64-bit tasks only
 *   (x86-64, arm64), with tables of their own instruction set.
 *   LFR_A_SESSION_ID        u32   the session (required; RUNNING, by its
 *                                 START sender or CAP_SYS_ADMIN)
 *   LFR_A_UNWIND_OBJECT_FD  u32   an open descriptor of the object file
 *                                 (the table applies to the mappings of
 *                                 exactly this inode)
 *   LFR_A_UNWIND_TABLE_FD   u32   a descriptor of a memfd sealed with
 *                                 F_SEAL_WRITE, F_SEAL_SHRINK and
 *                                 F_SEAL_GROW (memfd_create with
 *                                 MFD_ALLOW_SEALING, then F_ADD_SEALS)
 *                                 holding the table from offset 0: struct
 *                                 lfr_unwind_hdr, then nr_rows struct
 *                                 lfr_unwind_row sorted by start, strictly
 *                                 increasing.
 *   Reply: the netlink ack only.  The walk finds a user pc's table through
 *   the inode of the mapping it falls in; pc's file offset (pc - mapping
 *   start + mapping offset) selects the last row whose start is <= it.
 *   A pc in an object with a table but no rule for it (NONE row, no row
 *   before it) ends the chain with LFR_SAMPLE_F_USER_NO_CFI; objects
 *   without a table are walked by frame pointers, in the same chain.
 *   When adding a table would exceed LFR_A_UNWIND_MAX_KB or
 *   LFR_UNWIND_MAX_TABLES tables, tables are dropped first, in
 *   second-chance order: the oldest that no walk used since the last
 *   eviction passed it (LFR_CTR_UNWIND_EVICTED).  A table for an inode
 *   whose ctime changed replaces the one built before the change.
 *   Errors: EEXIST when the session has a table for that inode; ESTALE
 *   when the inode's ctime is no longer the header's (the file changed
 *   after the table was built); EBADF for a bad descriptor; EINVAL for an
 *   object that is not a regular file, a table descriptor that is not a
 *   sealed memfd, or a malformed table (the message says what is wrong);
 *   EFBIG for a table larger than the cap;
 *   ENOENT for no such session, ESRCH when it is not running.
 *
 * LFR_CMD_CTX_ADD: tell a session started with LFR_A_THREAD_CTX where one
 *   process keeps its thread-local otel_thread_ctx_v1 (OTEP 4947), so that
 *   every walk of its threads reads the record that variable points to.
 *   LFR_A_SESSION_ID        u32   the session (required; RUNNING, by its
 *                                 START sender or CAP_SYS_ADMIN)
 *   LFR_A_CTX               nest  (required), enum lfr_ctx_attr:
 *     LFR_CTX_A_PID         u32   the process (its tgid in the sender's pid
 *                                 namespace; required)
 *     LFR_CTX_A_ACCESS      u32   enum lfr_ctx_access (required)
 *     LFR_CTX_A_OFFSET      s64   STATIC: the variable's offset from the
 *                                 thread pointer; otherwise added to the
 *                                 offset the slot gives (default 0)
 *     LFR_CTX_A_SLOT        u64   the address of the GOT slot or TLS
 *                                 descriptor (required but for STATIC)
 *     LFR_CTX_A_OBJECT_ADDR u64   an address inside a mapping of the object
 *                                 that defines the variable (required)
 *     LFR_CTX_A_OBJECT_INO  u64   that object's inode, and its device as in
 *     LFR_CTX_A_OBJECT_DEV  u32   /proc/PID/maps (major << 20 | minor): the
 *                                 mapping at OBJECT_ADDR, and at SLOT, must
 *                                 be of this file, or ESTALE (the process
 *                                 exec'd or unmapped it meanwhile)
 *     LFR_CTX_A_DTV_OFFSET  s32   where the thread's DTV pointer lies,
 *                                 from the thread pointer (DTV and TLSDESC
 *                                 with a dynamic block)
 *     LFR_CTX_A_DTV_STRIDE  u32   bytes per DTV entry, 8 or 16
 *     LFR_CTX_A_DTV_COUNT   s32   index of the DTV entry holding the
 *                                 number of modules (-1, 0, or
 *                                 LFR_CTX_DTV_NO_COUNT)
 *   The process is bound by its identity and image: after an exec the
 *   registration no longer applies (register the new image again); a
 *   second CTX_ADD for the same process replaces the first.  Only walks
 *   read memory, each in its own thread, with the thread's own rights.
 *   Reply: the netlink ack only.  Errors: EINVAL (a missing or malformed
 *   attribute, an access kind the architecture does not have), ESRCH (no
 *   such process, or not one the session's user may record), ESTALE (see
 *   OBJECT_DEV), ENOSPC (LFR_CTX_MAX_PROCS processes registered and none
 *   of them gone), ENOENT for no such session, ESRCH when it is not running
 *   or EOPNOTSUPP without LFR_A_THREAD_CTX.
 *
 * LFR_CMD_KSYM: name kernel addresses (a recorder's kernel stacks), one
 *   function at a time instead of reading all of /proc/kallsyms:
 *   LFR_A_KSYM_ADDRS        binary  1 .. LFR_KSYM_MAX_ADDRS addresses, u64
 *                                   each in host byte order (required).
 *   Reply LFR_CMD_KSYM with LFR_A_KSYMS, a nest whose attribute i + 1 is a
 *   NUL-terminated string for address i: "name+0xoff/0xsize" and, in a
 *   module, " [module]" after it (sprint_symbol()'s form: "0x0" at the
 *   start of a function), or "" when no symbol holds the address.
 *   Only for a sender that may read kernel addresses in /proc/kallsyms:
 *   EPERM without CAP_SYSLOG, and with kernel.kptr_restrict 2.
 *
 * LFR_CMD_NOTIFY: sent by the kernel to LFR_GENL_MCGRP, never accepted.
 *   LFR_A_SESSION_ID u32, LFR_A_STATE u32, LFR_A_EVENT u32 (enum lfr_event),
 *   LFR_A_CPU_ID u32 (for LFR_EVENT_OVERFLOW: the CPU whose ring was full).
 *
 * u64 attributes are padded with LFR_A_PAD / LFR_CTR_PAD as needed.
 *
 * Accounting identity, exact once the session is STOPPED (while RUNNING or
 * DRAINING it holds up to ticks in flight between the counters):
 *   LFR_CTR_TICKS_MATCHED = LFR_CTR_TICKS_COMMITTED + LFR_CTR_TICKS_PENDING
 *                           + sum(LFR_CTR_LOST_*) - LFR_CTR_LOST_AUX_RING_FULL
 * Every tick that hit a target thread is either a TICK record whose walk
 * committed its user stack (TICKS_COMMITTED), in a walk not yet run
 * (TICKS_PENDING), or lost with exactly one reason (AUX_RING_FULL counts
 * MMAP/COMM/TASK records, not ticks).  Periods a late interrupt missed are
 * ticks too (matched and lost as MISSED), so that for a per-task session
 * TICKS_MATCHED of a thread is its CPU time divided by the period.
 *
 * ---------------------------------------------------------------------------
 * 2. Rings: the character device /dev/lfr.
 *
 * Each CPU of a session has a ring: one control page (struct lfr_ring_ctrl)
 * followed by 2^n data pages.  Map it with
 *   mmap(NULL, (1 + ring_pages) * page_size, PROT_READ | PROT_WRITE,
 *        MAP_SHARED, fd, LFR_MMAP_OFFSET(session_id, cpu));
 * The first mmap binds the open file to that session; mapping another
 * session on the same file fails with EINVAL.  Only the user who started
 * the session (the START sender's effective uid) or an opener with
 * CAP_SYS_ADMIN may bind it (EACCES).  Mappings must be MAP_SHARED
 * and cover the whole ring; the only field user space may write is
 * ctrl->tail: the control page is writable, the data pages are mapped
 * read-only (a write to them raises SIGBUS, also after mprotect).  CPUs that are
 * not possible fail with ENXIO.  poll() on the file reports EPOLLIN when any
 * ring of the bound session holds at least wakeup_bytes, and EPOLLHUP once
 * the session is STOPPED (everything it will ever write is in the rings).
 *
 * head and tail are free-running byte counts (never wrapped); the data
 * offset of a position is pos & (data_size - 1).  Records never wrap around
 * the end of the data area: when a record does not fit before the end, the
 * producer fills the rest with one LFR_REC_PAD record first.  The producer
 * never overwrites unread data: a record that does not fit is dropped and
 * counted, and the count is reported in-band with an LFR_REC_LOST record as
 * soon as there is room again.
 *
 *   producer (kernel)                 consumer (user space)
 *   t = READ_ONCE(tail)   [ctrl dep.]  h = load_acquire(&ctrl->head)
 *   write record at head               read records in [tail, h)
 *   smp_wmb()                          (all reads done)
 *   store_release(head, head + size)  store_release(&ctrl->tail, h)
 *
 * ---------------------------------------------------------------------------
 * 3. Records: struct lfr_rec_header first, size includes the header and is
 *    a multiple of 8.  Unknown types are skipped by size.  Times are
 *    CLOCK_MONOTONIC ns.  Instruction pointers are leaf first.  Mapping and
 *    thread-name records for a sample are committed before it, on the same
 *    ring; a process's mappings may be spread over the rings of several
 *    CPUs, so readers keep one mapping table per process fed from all rings
 *    (the time stamp orders them; a COMM record with LFR_COMM_F_EXEC starts
 *    a new image).
 */
#ifndef _UAPI_LINUX_LFR_H
#define _UAPI_LINUX_LFR_H

#include <linux/types.h>

#define LFR_GENL_NAME		"lfr"
#define LFR_GENL_VERSION	1
#define LFR_GENL_MCGRP		"events"
#define LFR_DEVICE_PATH		"/dev/lfr"

#define LFR_DEFAULT_FREQ_HZ		99
#define LFR_MIN_PERIOD_NS		10000ULL
#define LFR_MAX_PERIOD_NS		10000000000ULL
#define LFR_MAX_FREQ_HZ			100000
#define LFR_DEFAULT_USER_STACK_DEPTH	127
#define LFR_MAX_USER_STACK_DEPTH	2048
#define LFR_MAX_KERNEL_STACK_DEPTH	64
#define LFR_MIN_RING_PAGES		2
#define LFR_DEFAULT_RING_PAGES		64
#define LFR_MAX_RING_PAGES		16384
#define LFR_DEFAULT_MAX_THREADS		8192
#define LFR_MIN_MAX_THREADS		16
#define LFR_MAX_MAX_THREADS		1048576
#define LFR_DEFAULT_JITTER_PCT		10
#define LFR_MAX_JITTER_PCT		50
#define LFR_MAX_TARGETS			1024
#define LFR_DEFAULT_UNWIND_MAX_KB	65536
#define LFR_MAX_UNWIND_MAX_KB		1048576
#define LFR_DEFAULT_OFFCPU_MIN_NS	1000000ULL
#define LFR_MIN_OFFCPU_MIN_NS		1000ULL
#define LFR_MAX_OFFCPU_MIN_NS		60000000000ULL
#define LFR_DEFAULT_LATENCY_MIN_NS	1000000ULL
#define LFR_MIN_LATENCY_MIN_NS		1000ULL
#define LFR_MAX_LATENCY_MIN_NS		60000000000ULL
#define LFR_KSYM_MAX_ADDRS		64

enum lfr_cmd {
	LFR_CMD_UNSPEC,
	LFR_CMD_START,
	LFR_CMD_STOP,
	LFR_CMD_STATUS,
	LFR_CMD_NOTIFY,
	LFR_CMD_UNWIND_ADD,
	LFR_CMD_CTX_ADD,
	LFR_CMD_KSYM,
	__LFR_CMD_MAX,
};
#define LFR_CMD_MAX (__LFR_CMD_MAX - 1)

enum lfr_attr {
	LFR_A_UNSPEC,
	LFR_A_PAD,
	LFR_A_SESSION_ID,	/* u32 */
	LFR_A_STATE,		/* u32, enum lfr_state */
	LFR_A_EVENT,		/* u32, enum lfr_event */
	LFR_A_PERIOD_NS,	/* u64 */
	LFR_A_FREQ_HZ,		/* u32 */
	LFR_A_USER_STACK_DEPTH,	/* u32 */
	LFR_A_KERNEL_STACK,	/* flag */
	LFR_A_DETACHED,		/* flag */
	LFR_A_RING_PAGES,	/* u32 */
	LFR_A_WAKEUP_BYTES,	/* u32 */
	LFR_A_MAX_THREADS,	/* u32 */
	LFR_A_JITTER_PCT,	/* u32 */
	LFR_A_TARGETS,		/* nest, enum lfr_target_attr */
	LFR_A_NR_CPU_IDS,	/* u32 */
	LFR_A_COUNTERS,		/* nest, enum lfr_counter */
	LFR_A_CPU,		/* nest, enum lfr_cpu_attr */
	LFR_A_CPU_ID,		/* u32 */
	LFR_A_ABANDON,		/* flag */
	LFR_A_SESSIONS,		/* nest of LFR_A_SESSION_ID u32 */
	LFR_A_UNWIND_MAX_KB,	/* u32 */
	LFR_A_UNWIND_OBJECT_FD,	/* u32 */
	LFR_A_UNWIND_TABLE_FD,	/* u32 */
	LFR_A_OFFCPU_MIN_NS,	/* u64 */
	LFR_A_LATENCY_MIN_NS,	/* u64 */
	LFR_A_THREAD_CTX,	/* flag */
	LFR_A_CTX,		/* nest, enum lfr_ctx_attr */
	LFR_A_KERNEL_PROOF_FD,	/* u32 */
	LFR_A_KSYM_ADDRS,	/* binary, u64[] */
	LFR_A_KSYMS,		/* nest of strings */
	__LFR_A_MAX,
};
#define LFR_A_MAX (__LFR_A_MAX - 1)

enum lfr_target_attr {
	LFR_TARGET_A_UNSPEC,
	LFR_TARGET_A_PAD,
	LFR_TARGET_A_SYSTEM,		/* flag */
	LFR_TARGET_A_TGID,		/* u32 */
	LFR_TARGET_A_TID,		/* u32 */
	LFR_TARGET_A_CGROUP_ID,		/* u64 */
	LFR_TARGET_A_FOLLOW_CHILDREN,	/* flag */
	LFR_TARGET_A_CGROUP_PROCS_FD,	/* u32 */
	__LFR_TARGET_A_MAX,
};
#define LFR_TARGET_A_MAX (__LFR_TARGET_A_MAX - 1)

enum lfr_ctx_attr {
	LFR_CTX_A_UNSPEC,
	LFR_CTX_A_PAD,
	LFR_CTX_A_PID,			/* u32 */
	LFR_CTX_A_ACCESS,		/* u32, enum lfr_ctx_access */
	LFR_CTX_A_OFFSET,		/* s64 */
	LFR_CTX_A_SLOT,			/* u64 */
	LFR_CTX_A_OBJECT_ADDR,		/* u64 */
	LFR_CTX_A_OBJECT_INO,		/* u64 */
	LFR_CTX_A_OBJECT_DEV,		/* u32 */
	LFR_CTX_A_DTV_OFFSET,		/* s32 */
	LFR_CTX_A_DTV_STRIDE,		/* u32 */
	LFR_CTX_A_DTV_COUNT,		/* s32 */
	__LFR_CTX_A_MAX,
};
#define LFR_CTX_A_MAX (__LFR_CTX_A_MAX - 1)

/*
 * How a process's otel_thread_ctx_v1 is found from a thread's thread
 * pointer (x86-64: the fs base; arm64: TPIDR_EL0), "tp" below:
 */
enum lfr_ctx_access {
	LFR_CTX_ACCESS_UNSPEC,
	/* static TLS of the executable (local-exec): at tp + offset */
	LFR_CTX_ACCESS_STATIC,
	/* initial-exec: the GOT slot holds the offset: tp + *slot + offset */
	LFR_CTX_ACCESS_TPOFF_SLOT,
	/*
	 * general-dynamic (GNU dialect): the GOT slot holds the module id and
	 * the next word the offset in its block: DTV[*slot] + slot[1] + offset
	 */
	LFR_CTX_ACCESS_DTV_SLOT,
	/*
	 * TLSDESC (GNU2 dialect): the descriptor's second word is, for a
	 * module in static TLS, the offset from tp (a negative number on
	 * x86-64, below LFR_CTX_TLSDESC_STATIC_MAX on arm64), else a pointer
	 * to {module id, offset}: tp + arg + offset, or DTV[id] + off + offset
	 */
	LFR_CTX_ACCESS_TLSDESC,
	__LFR_CTX_ACCESS_MAX,
};

#define LFR_CTX_MAX_PROCS		1024	/* per session */
#define LFR_CTX_DTV_NO_COUNT		0x7fffffff
#define LFR_CTX_TLSDESC_STATIC_MAX	0x100000000ULL

enum lfr_cpu_attr {
	LFR_CPU_A_UNSPEC,
	LFR_CPU_A_ID,		/* u32 */
	LFR_CPU_A_COUNTERS,	/* nest, enum lfr_counter */
	__LFR_CPU_A_MAX,
};
#define LFR_CPU_A_MAX (__LFR_CPU_A_MAX - 1)

enum lfr_state {
	LFR_STATE_IDLE,		/* no session */
	LFR_STATE_RUNNING,
	LFR_STATE_DRAINING,	/* stopped sampling, queued walks still to run */
	LFR_STATE_STOPPED,	/* everything committed; counters final */
};

enum lfr_event {
	LFR_EVENT_NONE,
	LFR_EVENT_STARTED,
	LFR_EVENT_DRAINING,
	LFR_EVENT_STOPPED,
	LFR_EVENT_OVERFLOW,	/* a ring was full: records are being lost */
};

/*
 * Why a tick or a record was lost.  Used both as counters
 * (LFR_CTR_LOST_FIRST + reason) and in LFR_REC_LOST records.
 * Sample losses count ticks (a lost sample of weight w counts w).
 */
enum lfr_lost_reason {
	LFR_LOST_UNSPEC,
	LFR_LOST_RING_FULL,	/* sample did not fit in the ring */
	LFR_LOST_NO_THREAD_SLOT, /* thread table full */
	LFR_LOST_TASK_WORK,	/* task_work_add failed (thread exiting) */
	LFR_LOST_EXEC,		/* thread exec'd between tick and walk */
	LFR_LOST_EXIT,		/* thread lost its mm before the walk */
	LFR_LOST_MODULE,	/* not counted since a session holds the module */
	LFR_LOST_WEIGHT_OVERFLOW, /* merged weight saturated */
	LFR_LOST_AUX_RING_FULL,	/* a MMAP/COMM/TASK record did not fit */
	LFR_LOST_NOMEM,		/* no memory for the walk buffers */
	LFR_LOST_ABANDONED,	/* walk still queued when STOP gave up on it */
	LFR_LOST_MISSED,	/* periods a late timer interrupt missed */
	LFR_LOST_STACK_RING_FULL, /* a USTACK record did not fit: its ticks */
	LFR_LOST_THROTTLED,	/* lfr's CPU time on that CPU over its budget */
	LFR_LOST_MMAP_LOCK,	/* killed while waiting for the mapping lock */
	LFR_LOST_COMPAT,	/* arm64: a 32-bit (AArch32) task, not walked */
	__LFR_LOST_MAX,
};
#define LFR_LOST_MAX (__LFR_LOST_MAX - 1)

/*
 * STATUS counters: attribute types inside LFR_A_COUNTERS, all u64.  Plain
 * counters are numbered from LFR_CTR_TICKS up (fewer than 64); the counter
 * of lost reason r is LFR_CTR_LOST_FIRST + r.  Types a reader does not
 * know are to be skipped.  Per-CPU nests omit the gauges (WORKS_PENDING,
 * THREADS, TICKS_PENDING), which only exist in total.
 */
enum lfr_counter {
	LFR_CTR_UNSPEC,
	LFR_CTR_PAD,
	LFR_CTR_TICKS,		/* timer expirations */
	LFR_CTR_TICKS_MATCHED,	/* ticks that hit a target thread */
	LFR_CTR_SKIP_IDLE,	/* ticks on the idle task (system-wide) */
	LFR_CTR_SKIP_KTHREAD,	/* kernel/io/user workers, tasks without mm */
	LFR_CTR_SKIP_EXITING,	/* ticks on exiting tasks */
	LFR_CTR_SKIP_NOT_TARGET, /* ticks on threads that are not targets */
	LFR_CTR_SAMPLES_TAKEN,	/* user-stack walks queued */
	LFR_CTR_MERGED,		/* ticks that joined a walk already queued */
	LFR_CTR_SAMPLES_COMMITTED, /* walks that committed a user stack */
	LFR_CTR_TICKS_COMMITTED, /* ticks of those walks (their TICK records) */
	LFR_CTR_USER_FAULT,	/* committed samples: user stack read faulted */
	LFR_CTR_USER_BAD_FRAME,	/* committed samples: frame chain invalid */
	LFR_CTR_USER_TRUNCATED,	/* committed samples: depth cap reached */
	LFR_CTR_COMPAT,		/* committed samples of 32-bit tasks */
	LFR_CTR_RECORDS_MMAP,	/* MMAP records written */
	LFR_CTR_RECORDS_COMM,	/* COMM records written */
	LFR_CTR_RECORDS_LOST,	/* LOST records written */
	LFR_CTR_WORKS_PENDING,	/* stack walks queued and not yet run (gauge) */
	LFR_CTR_IRQ_NS,		/* time in the timer handler */
	LFR_CTR_IRQ_COUNT,
	LFR_CTR_WORK_NS,	/* CPU time of the walks that ran unswitched */
	LFR_CTR_WORK_COUNT,
	LFR_CTR_THREADS,	/* thread table entries in use (gauge) */
	LFR_CTR_TICKS_PENDING,	/* ticks in walks not yet run (gauge) */
	LFR_CTR_RECORDS_TASK,	/* TASK records written */
	LFR_CTR_FOLLOW_NO_SLOT,	/* children not followed: thread table full */
	LFR_CTR_RECORDS_TICK,	/* TICK records written (ticks with a stack) */
	LFR_CTR_RECORDS_USTACK,	/* USTACK records written */
	LFR_CTR_WORK_SWITCHED,	/* walks switched out: not in WORK_NS/COUNT */
	LFR_CTR_SWITCH_NO_SLOT,	/* per-task: a target switched in, table full */
	LFR_CTR_UNWIND_FRAMES,	/* return addresses found by unwind tables */
	LFR_CTR_USER_NO_CFI,	/* committed samples: no unwind rule for a pc */
	LFR_CTR_UNWIND_TABLES,	/* unwind tables held (gauge) */
	LFR_CTR_UNWIND_BYTES,	/* their memory (gauge) */
	LFR_CTR_UNWIND_EVICTED,	/* tables dropped for the memory cap */
	LFR_CTR_OFFCPU,		/* off-CPU intervals >= the minimum */
	LFR_CTR_OFFCPU_NS,	/* their total length */
	LFR_CTR_OFFCPU_SHORT,	/* off-CPU intervals < the minimum */
	LFR_CTR_OFFCPU_SHORT_NS, /* their total length */
	LFR_CTR_OFFCPU_COMMITTED, /* OFFCPU records whose walk committed */
	LFR_CTR_OFFCPU_LOST,	/* intervals >= the minimum without a record */
	LFR_CTR_THREADS_RECLAIMED, /* timer mode: idle threads' entries reused */
	LFR_CTR_TICKS_SKIPPED,	/* periods timers skipped over a spent CPU budget */
	LFR_CTR_LATENCY,	/* LATENCY records written */
	LFR_CTR_LATENCY_LOST,	/* latencies >= the minimum without a record */
	LFR_CTR_WALK_KNOWN_MAPS, /* walks without a mapping lookup (mm_watch.h) */
	LFR_CTR_UNWIND_MEMO_FRAMES, /* return addresses from the last walk's memo */
	LFR_CTR_UNWIND_STALE,	/* tables whose file changed since they were added */
	LFR_CTR_OFFCPU_THROTTLED, /* intervals >= the minimum over the CPU budget */
	LFR_CTR_OFFCPU_PROBE_NS, /* time on off-CPU intervals: kernel stack, irq_work */
	LFR_CTR_OFFCPU_PROBE_COUNT,
	LFR_CTR_WALK_RESUMED,	/* walks gone on with interrupts on past their bound */
	LFR_CTR_CTX,		/* walks that read a thread context (valid) */
	LFR_CTR_CTX_NULL,	/* walks: otel_thread_ctx_v1 was NULL */
	LFR_CTR_CTX_INVALID,	/* walks: the record's valid byte was not 1 */
	LFR_CTR_CTX_FAULT,	/* walks: its memory could not be read */
	LFR_CTR_CTX_CHANGED,	/* walks: the record changed while read */
	LFR_CTR_CTX_NO_BLOCK,	/* walks: the thread has no block for the module */
	LFR_CTR_CTX_FAULTED_IN,	/* context reads that faulted a page in */
	LFR_CTR_SKIP_CREDS,	/* ticks on threads of another user (unprivileged) */
	LFR_CTR_KSTACK_CACHED,	/* off-CPU kernel stacks found in the cache */
	LFR_CTR_KSTACK_MISMATCH, /* of those, unwound otherwise (kstack_check) */
	/* New counters are appended here, below LFR_CTR_LOST_FIRST. */
	LFR_CTR_LOST_FIRST = 64, /* LFR_CTR_LOST_FIRST + enum lfr_lost_reason */
	LFR_CTR_LOST_RING_FULL = LFR_CTR_LOST_FIRST + LFR_LOST_RING_FULL,
	LFR_CTR_LOST_NO_THREAD_SLOT,
	LFR_CTR_LOST_TASK_WORK,
	LFR_CTR_LOST_EXEC,
	LFR_CTR_LOST_EXIT,
	LFR_CTR_LOST_MODULE,
	LFR_CTR_LOST_WEIGHT_OVERFLOW,
	LFR_CTR_LOST_AUX_RING_FULL,
	LFR_CTR_LOST_NOMEM,
	LFR_CTR_LOST_ABANDONED,
	LFR_CTR_LOST_MISSED,
	LFR_CTR_LOST_STACK_RING_FULL,
	LFR_CTR_LOST_THROTTLED,
	LFR_CTR_LOST_MMAP_LOCK,
	LFR_CTR_LOST_COMPAT,
	/* New lost reasons are appended here, in enum lfr_lost_reason order. */
	__LFR_CTR_MAX,
};
#define LFR_CTR_MAX (__LFR_CTR_MAX - 1)

/* ---- /dev/lfr mapping ---- */

/* mmap offset of a CPU's ring: session in bits 48..63, CPU in 32..47. */
#define LFR_MMAP_OFFSET(session, cpu) \
	(((__u64)(session) << 48) | ((__u64)(cpu) << 32))
#define LFR_MAX_SESSION_ID	0xffff

#define LFR_RING_MAGIC		0x4c465252u	/* "LFRR" */
/* 2: a USTACK record may carry its walk's first tick (LFR_USTACK_F_TICK) */
#define LFR_RING_VERSION	2

/*
 * The first page of each CPU ring.  Fields the kernel writes are in the
 * first cache lines, the consumer's tail on its own line.  lost[] counts
 * records dropped on this ring by reason, cumulative (the in-band LOST
 * records carry the same counts as deltas).
 */
struct lfr_ring_ctrl {
	__u32 magic;		/* LFR_RING_MAGIC */
	__u32 version;		/* LFR_RING_VERSION */
	__u32 session_id;
	__u32 cpu;
	__u64 data_offset;	/* bytes from the start of the mapping */
	__u64 data_size;	/* bytes, power of two */
	__u64 wakeup_bytes;
	__u64 reserved0[3];
	__u64 head;		/* producer: bytes written (free-running) */
	__u64 reserved1[7];
	__u64 tail;		/* consumer: bytes consumed (free-running) */
	__u64 reserved2[7];
	__u64 lost[16];		/* indexed by enum lfr_lost_reason */
};

/* ---- records ---- */

enum lfr_rec_type {
	LFR_REC_UNSPEC,
	LFR_REC_PAD,		/* filler up to the end of the data area */
	LFR_REC_SAMPLE,		/* struct lfr_rec_sample */
	LFR_REC_MMAP,		/* struct lfr_rec_mmap */
	LFR_REC_COMM,		/* struct lfr_rec_comm */
	LFR_REC_LOST,		/* struct lfr_rec_lost */
	LFR_REC_TASK,		/* struct lfr_rec_task */
	LFR_REC_TICK,		/* struct lfr_rec_tick */
	LFR_REC_USTACK,		/* struct lfr_rec_ustack */
	LFR_REC_OFFCPU,		/* struct lfr_rec_offcpu */
	LFR_REC_LATENCY,	/* struct lfr_rec_latency */
};

struct lfr_rec_header {
	__u32 type;		/* enum lfr_rec_type */
	__u32 size;		/* bytes including this header, multiple of 8 */
};

/* lfr_rec_sample.flags */
#define LFR_SAMPLE_F_IN_KERNEL		(1u << 0) /* tick interrupted the kernel */
#define LFR_SAMPLE_F_COMPAT		(1u << 1) /* 32-bit task */
#define LFR_SAMPLE_F_USER_TRUNCATED	(1u << 2) /* user depth cap reached */
#define LFR_SAMPLE_F_USER_FAULT		(1u << 3) /* user stack read faulted */
#define LFR_SAMPLE_F_USER_BAD_FRAME	(1u << 4) /* frame failed validation */
#define LFR_SAMPLE_F_KERNEL_TRUNCATED	(1u << 5) /* kernel depth cap reached */
#define LFR_SAMPLE_F_NO_USER		(1u << 6) /* no user registers */
#define LFR_SAMPLE_F_USER_CFI		(1u << 7) /* leaf unwound by a table */
#define LFR_SAMPLE_F_USER_NO_CFI	(1u << 8) /* a pc its table has no rule for */

/*
 * One sample: the record of lfr.ko before TICK/USTACK (ABI 1.0); no longer
 * written, still decoded by the tools.  ips[] holds nr_kernel kernel addresses (leaf first) then
 * nr_user user addresses (leaf first; ips[nr_kernel] is the interrupted
 * user pc, the following ones are return addresses).  A chain that ends
 * without any of the USER_* flags ended at a zero frame pointer: it is
 * complete.
 */
struct lfr_rec_sample {
	struct lfr_rec_header hdr;	/* LFR_REC_SAMPLE */
	__u64 time_ns;			/* CLOCK_MONOTONIC, at the tick */
	__u32 cpu;			/* CPU of the tick */
	__u32 tgid;			/* process id */
	__u32 tid;			/* thread id */
	__u32 weight;			/* ticks this sample stands for, >= 1 */
	__u32 flags;			/* LFR_SAMPLE_F_* */
	__u16 nr_kernel;
	__u16 nr_user;
	__u64 ips[];
};

/*
 * One tick that hit a target thread, written by the timer interrupt on the
 * ring of its CPU: the instant (time, CPU, thread), the kernel stack when
 * the tick interrupted the kernel and kernel stacks were asked for, and the
 * user-stack walk that gives its user stack.  A thread's user stack cannot
 * change until it returns to user space, so every tick taken before the walk
 * of walk_id ran shares that walk: the first queues it, later ones (the
 * thread stayed in the kernel) refer to it.  flags: LFR_SAMPLE_F_IN_KERNEL,
 * _COMPAT, _KERNEL_TRUNCATED.  missed: periods of this thread's CPU time
 * (system-wide: of this CPU's time) that passed without a tick because the
 * interrupt came late; they are counted lost as LFR_LOST_MISSED, never
 * given this tick's stack.  A tick of user code that queued its walk and
 * missed nothing, nearly every tick, has no TICK record: its walk's USTACK
 * record carries it (LFR_USTACK_F_TICK).
 */
struct lfr_rec_tick {
	struct lfr_rec_header hdr;	/* LFR_REC_TICK */
	__u64 time_ns;			/* CLOCK_MONOTONIC, at the tick */
	__u64 walk_id;			/* its LFR_REC_USTACK */
	__u32 cpu;
	__u32 tgid;
	__u32 tid;
	__u32 flags;			/* LFR_SAMPLE_F_* */
	__u32 missed;
	__u16 nr_kernel;
	__u16 reserved;
	__u64 ips[];			/* nr_kernel kernel pcs, leaf first */
};

/* lfr_rec_offcpu.state: why the thread left the CPU */
enum lfr_offcpu_state {
	LFR_OFFCPU_OTHER,	/* any other state (stopped, traced, dead) */
	LFR_OFFCPU_SLEEPING,	/* TASK_INTERRUPTIBLE (S) */
	LFR_OFFCPU_UNINTERRUPTIBLE, /* TASK_UNINTERRUPTIBLE (D), I/O */
	LFR_OFFCPU_PREEMPTED,	/* runnable: preempted or yielded */
	LFR_OFFCPU_IDLE,	/* TASK_IDLE: uninterruptible, no load */
	__LFR_OFFCPU_STATE_MAX,
};

/*
 * One off-CPU interval of a target thread at least LFR_A_OFFCPU_MIN_NS
 * long, written on its CPU right after the thread was switched back in:
 * start_ns is its switch-out, time_ns its switch-in (both CLOCK_MONOTONIC),
 * state why it left.  ips[] is the thread's kernel stack at that moment,
 * leaf first: the stack it blocked with (it has not run since), beginning at
 * the scheduler's frames.  Its user stack is that of walk_id, like a TICK's
 * (the thread walks it on its way back to user space; it cannot have
 * changed while the thread was off the CPU).  short_count and short_ns:
 * the thread's intervals shorter than the minimum so far in the session,
 * cumulative.  flags: LFR_SAMPLE_F_COMPAT, _KERNEL_TRUNCATED.
 */
struct lfr_rec_offcpu {
	struct lfr_rec_header hdr;	/* LFR_REC_OFFCPU */
	__u64 time_ns;			/* switch-in: the interval's end */
	__u64 walk_id;			/* its LFR_REC_USTACK */
	__u32 cpu;
	__u32 tgid;
	__u32 tid;
	__u32 flags;			/* LFR_SAMPLE_F_* */
	__u32 state;			/* enum lfr_offcpu_state */
	__u16 nr_kernel;
	__u16 reserved;
	__u64 start_ns;			/* switch-out: the interval's start */
	__u64 short_count;
	__u64 short_ns;
	__u64 ips[];			/* nr_kernel kernel pcs, leaf first */
};

/*
 * The sampling latency of one walk (LFR_A_LATENCY_MIN_NS): a tick at
 * tick_ns interrupted the thread in the kernel and queued walk_id, which
 * ran when the thread returned to user space, at time_ns (both
 * CLOCK_MONOTONIC), at least the session's minimum later.  Written by the
 * walk on the ring of its CPU, just before its USTACK record; the
 * walk's ticks (TICK records, the first one at tick_ns) give the kernel
 * stack the thread had then.  Not counted in the USTACK's ticks.
 */
struct lfr_rec_latency {
	struct lfr_rec_header hdr;	/* LFR_REC_LATENCY */
	__u64 time_ns;			/* the walk: back to user space */
	__u64 tick_ns;			/* the tick that queued the walk */
	__u64 walk_id;
	__u32 cpu;			/* of the walk */
	__u32 tgid;
	__u32 tid;
	__u32 reserved;
};

/*
 * ---- unwind tables (LFR_CMD_UNWIND_ADD) ----
 *
 * One object's CFI reduced to what a walk needs: where the canonical frame
 * address (CFA, the caller's sp) is, where the return address is, and
 * where the caller's frame pointer is (rbp on x86-64, x29 on arm64; "bp"
 * below).  On x86-64 the return address is always the word at CFA - 8.
 * On arm64 it may still be in the link register x30, or saved anywhere
 * below the CFA: the high four bits of a row's bp say where (enum
 * lfr_unwind_ra; 0, the word at CFA - 8, in every x86-64 row).  A row
 * covers the file offsets from its start up to the next row's start.
 */
#define LFR_UNWIND_MAGIC	0x4c465554u	/* "LFUT" */
#define LFR_UNWIND_VERSION	1
#define LFR_UNWIND_MAX_ROWS	(1u << 24)
#define LFR_UNWIND_MAX_TABLES	4096	/* per session */

struct lfr_unwind_hdr {
	__u32 magic;		/* LFR_UNWIND_MAGIC */
	__u32 version;		/* LFR_UNWIND_VERSION */
	__u32 nr_rows;		/* 1 .. LFR_UNWIND_MAX_ROWS */
	__u32 reserved;		/* 0 */
	__s64 ctime_sec;	/* the object's ctime when the table was built */
	__u32 ctime_nsec;
	__u32 reserved2;	/* 0 */
};

enum lfr_unwind_cfa {
	LFR_UNWIND_CFA_NONE,	/* no rule: the chain ends, flagged NO_CFI */
	LFR_UNWIND_CFA_SP,	/* CFA = sp + cfa_off */
	LFR_UNWIND_CFA_BP,	/* CFA = bp + cfa_off */
	/* the return address is undefined: the outermost frame (_start) */
	LFR_UNWIND_OUTERMOST,
	__LFR_UNWIND_CFA_MAX,
};

/* the low four bits of lfr_unwind_row.bp: the caller's frame pointer */
enum lfr_unwind_bp {
	LFR_UNWIND_BP_SAME,	/* the caller's bp is bp */
	LFR_UNWIND_BP_AT_CFA,	/* the caller's bp is the word at CFA + bp_off */
	LFR_UNWIND_BP_UNDEFINED, /* the caller's bp is unknown */
	__LFR_UNWIND_BP_MAX,
};

/* the high four bits of lfr_unwind_row.bp: the return address (arm64) */
enum lfr_unwind_ra {
	LFR_UNWIND_RA_CFA_M8,	/* the word at CFA - 8 (x86-64's only rule) */
	LFR_UNWIND_RA_LR,	/* in x30: a row of the interrupted frame only */
	LFR_UNWIND_RA_AT_CFA,	/* the word at CFA + bp_off; bp not AT_CFA */
	LFR_UNWIND_RA_PAIR,	/* the word at CFA + bp_off + 8, after the
				 * saved bp (stp x29, x30); bp AT_CFA */
	__LFR_UNWIND_RA_MAX,
};

#define LFR_UNWIND_RA_SHIFT	4
#define LFR_UNWIND_BP_RULE(bp)	((bp) & ((1u << LFR_UNWIND_RA_SHIFT) - 1))
#define LFR_UNWIND_RA_RULE(bp)	((bp) >> LFR_UNWIND_RA_SHIFT)

/*
 * x86-64: cfa_off > 0 for CFA_SP; arm64: >= 0 (0 at a function's entry,
 * where the return address is in x30).  Offsets below the CFA of saved
 * registers (bp_off) are negative multiples of 8.
 */
struct lfr_unwind_row {
	__u32 start;		/* file offset of the first byte covered */
	__s32 cfa_off;		/* multiple of 8 */
	__s16 bp_off;		/* BP_AT_CFA (or RA_AT_CFA): < 0, multiple of 8 */
	__u8 cfa;		/* enum lfr_unwind_cfa */
	__u8 bp;		/* enum lfr_unwind_bp | enum lfr_unwind_ra << 4 */
};

/* lfr_rec_ustack.flags, besides LFR_SAMPLE_F_*: the record is its first tick too */
#define LFR_USTACK_F_TICK	(1u << 31)
/* ... and: LFR_USTACK_REGS register words follow the stack words (arm64) */
#define LFR_USTACK_F_REGS	(1u << 30)
/* ... and: the record ends with a struct lfr_ustack_ctx (after any register words) */
#define LFR_USTACK_F_CTX	(1u << 29)

/* A walk id's bits from this one up: the CPU of the tick that queued it. */
#define LFR_WALK_ID_CPU_SHIFT	40

/*
 * Words of user stack from sp on copied into each USTACK record, at most;
 * with LFR_USTACK_F_REGS, the register words come out of the same room.
 */
#define LFR_USTACK_WORDS	16
/*
 * The register words of LFR_USTACK_F_REGS: the link register x30 at the
 * tick (its PAC removed), then the mask of the bits of the thread's return
 * addresses that hold a PAC (0 without), to remove from a return address
 * found in the stack words (ra & ~mask).
 */
#define LFR_USTACK_REGS		2

/*
 * The user stack of walk_id, written by the walk (on the ring of the CPU it
 * ran on; its TICK records may be on other rings, before or after it).
 * ticks: how many TICK and OFFCPU records refer to it; a reader holds each
 * side until the other arrives.  lost_reason != 0: there is no stack (the thread
 * exec'd or exited first, no memory...): the ticks are lost with that
 * reason.  ips[]: nr_user user addresses, leaf first (ips[0] is the
 * interrupted pc, the others return addresses from the frame-pointer chain
 * or from unwind tables).  Then nr_words words of the user stack from sp on
 * (words[i] = the u64 at sp + 8 * i), so that a reader can find the caller
 * of a function that had no frame at the interrupted pc from the unwind
 * tables of its object; with LFR_SAMPLE_F_USER_CFI the walk did that from
 * the session's table and nr_words is 0.  On arm64, where the return
 * address of such a function may still be in the link register, the
 * record has LFR_USTACK_F_REGS: LFR_USTACK_REGS words follow the stack
 * words (at most LFR_USTACK_WORDS - LFR_USTACK_REGS of them).
 * time_ns is the time of the tick that queued the walk.  With
 * LFR_USTACK_F_TICK in flags, that tick has no TICK record of its own: the
 * USTACK record is also that tick (in user code, nothing missed, no kernel
 * stack), at time_ns on CPU walk_id >> LFR_WALK_ID_CPU_SHIFT, and ticks
 * counts it.
 */
struct lfr_rec_ustack {
	struct lfr_rec_header hdr;	/* LFR_REC_USTACK */
	__u64 walk_id;
	__u64 time_ns;
	__u32 tgid;
	__u32 tid;
	__u32 flags;			/* LFR_SAMPLE_F_USER_*, _COMPAT */
	__u32 ticks;
	__u32 lost_reason;		/* enum lfr_lost_reason, or 0 */
	__u16 nr_user;
	__u16 nr_words;
	__u64 sp;			/* user sp at the tick */
	__u64 ips[];			/* nr_user ips, then nr_words words
					 * (then LFR_USTACK_REGS words) */
};

/* lfr_ustack_ctx.state: what the walk found (LFR_CMD_CTX_ADD) */
enum lfr_ctx_state {
	LFR_CTX_NONE,		/* not read (no registration) */
	LFR_CTX_VALID,		/* a record with valid == 1: ids and attrs */
	LFR_CTX_NULL,		/* otel_thread_ctx_v1 was NULL: no context */
	LFR_CTX_INVALID,	/* the record's valid byte was not 1 */
	LFR_CTX_FAULT,		/* the variable or record could not be read */
	LFR_CTX_CHANGED,	/* the record changed while it was read */
	LFR_CTX_NO_BLOCK,	/* no TLS block of the module in this thread */
	__LFR_CTX_STATE_MAX,
};

/* The OTEP's record: its fixed part, then attrs_size bytes of attributes. */
#define LFR_CTX_RECORD_HEAD	28
#define LFR_CTX_RECORD_MAX	640
#define LFR_CTX_ATTRS_MAX	(LFR_CTX_RECORD_MAX - LFR_CTX_RECORD_HEAD)

/*
 * The thread context of a walk's thread at its tick, at the end of its
 * USTACK record (after the words and any register words) when the record
 * has LFR_USTACK_F_CTX:
 * every walk of a process registered with LFR_CMD_CTX_ADD has one.  With
 * state LFR_CTX_VALID, trace_id, span_id and trace_flags are the record's
 * (W3C byte order) and attrs[] its attrs-data, attrs_len bytes of the
 * attrs_size the record declared (at most LFR_CTX_ATTRS_MAX: a longer one
 * is cut); otherwise they are 0.  attrs[] is padded with zeros to 8 bytes.
 */
struct lfr_ustack_ctx {
	__u8 state;			/* enum lfr_ctx_state */
	__u8 trace_flags;
	__u16 attrs_len;
	__u16 attrs_size;
	__u16 reserved;
	__u8 trace_id[16];
	__u8 span_id[8];
	__u8 attrs[];
};

/* lfr_rec_mmap.flags */
#define LFR_MMAP_F_EXEC		(1u << 0)
#define LFR_MMAP_F_ANON		(1u << 1) /* no file: path is a [name] */

/*
 * A mapping that holds a sampled user address, written once per mapping per
 * process image before the first sample that needs it.  time_ns is the time
 * of that sample's tick (the mapping existed then).  file offset of an
 * address a: a - start + pgoff.  path is NUL-terminated and padded with
 * NULs to the record size.
 */
struct lfr_rec_mmap {
	struct lfr_rec_header hdr;	/* LFR_REC_MMAP */
	__u64 time_ns;
	__u32 tgid;
	__u32 flags;			/* LFR_MMAP_F_* */
	__u64 start;
	__u64 end;
	__u64 pgoff;			/* file offset of start, in bytes */
	__u64 ino;
	__u32 dev_major;
	__u32 dev_minor;
	__u64 ino_generation;
	char path[];
};

#define LFR_COMM_LEN		16
#define LFR_COMM_F_EXEC		(1u << 0) /* new process image */

/*
 * A thread's name, written the first time the thread is sampled in a
 * process image and whenever it changed since; time_ns is the time of
 * that sample's tick.
 */
struct lfr_rec_comm {
	struct lfr_rec_header hdr;	/* LFR_REC_COMM */
	__u64 time_ns;
	__u32 tgid;
	__u32 tid;
	__u32 flags;			/* LFR_COMM_F_* */
	__u32 reserved;
	char comm[LFR_COMM_LEN];	/* NUL-terminated */
};

/* Records lost on this ring since the previous LOST record. */
struct lfr_rec_lost {
	struct lfr_rec_header hdr;	/* LFR_REC_LOST */
	__u64 time_ns;
	__u32 reason;			/* enum lfr_lost_reason */
	__u32 cpu;
	__u64 count;			/* records (RING_FULL: their ticks too) */
	__u64 ticks;			/* ticks they stood for */
};

/* lfr_rec_task.kind */
enum lfr_task_kind {
	LFR_TASK_FORK,		/* tid was created by ptid (fork, clone) */
	LFR_TASK_EXIT,		/* tid is exiting; comm is its last name */
	LFR_TASK_EXEC,		/* tid ran execve; comm is the new name */
	LFR_TASK_RENAME,	/* tid set its name (prctl, pthread_setname_np) */
};

/*
 * Life of a target thread, written on the ring of the CPU where it
 * happened.  FORK is written for a child of a target thread (the parent
 * fields name the creating thread) before the child runs; EXIT when a
 * target thread begins to exit; EXEC and RENAME when a target thread
 * changes its name; EXEC also carries the new command line (args[]),
 * read from the new image right after the exec.  System-wide sessions
 * report every user thread;
 * kernel threads and io/user workers are never reported.
 */
struct lfr_rec_task {
	struct lfr_rec_header hdr;	/* LFR_REC_TASK */
	__u64 time_ns;
	__u32 kind;			/* enum lfr_task_kind */
	__u32 tgid;
	__u32 tid;
	__u32 ptgid;			/* FORK: the creating thread; else 0 */
	/*
	 * FORK: the creating thread.  EXEC by a thread other than the main
	 * one: the id it had until then, which ends here with no EXIT (it
	 * now runs under the main thread's id); 0 when the thread was the
	 * main one or when the session sees its own pid namespace (the old
	 * id is no longer known in it).  Else 0.
	 */
	__u32 ptid;
	__u32 args_len;			/* bytes of args[] that are valid */
	char comm[LFR_COMM_LEN];	/* NUL-terminated */
	/*
	 * EXEC: the command line as in /proc/PID/cmdline (NUL-separated),
	 * at most LFR_TASK_ARGS_MAX bytes, padded with NULs to the size.
	 */
	char args[];
};

#define LFR_TASK_ARGS_MAX	512

#endif /* _UAPI_LINUX_LFR_H */

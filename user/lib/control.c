// SPDX-License-Identifier: GPL-2.0
/*
 * START, STOP, STATUS, UNWIND_ADD and state-change notifications of the "lfr" generic netlink
 * family.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/control.h"
#include "lib/outfile.h"

/* ---- names ---- */

static const char *const counter_names[LFR_CTR_MAX + 1] = {
    [LFR_CTR_TICKS] = "ticks",
    [LFR_CTR_TICKS_MATCHED] = "ticks_matched",
    [LFR_CTR_SKIP_IDLE] = "skip_idle",
    [LFR_CTR_SKIP_KTHREAD] = "skip_kthread",
    [LFR_CTR_SKIP_EXITING] = "skip_exiting",
    [LFR_CTR_SKIP_NOT_TARGET] = "skip_not_target",
    [LFR_CTR_SAMPLES_TAKEN] = "samples_taken",
    [LFR_CTR_MERGED] = "merged",
    [LFR_CTR_SAMPLES_COMMITTED] = "samples_committed",
    [LFR_CTR_TICKS_COMMITTED] = "ticks_committed",
    [LFR_CTR_USER_FAULT] = "user_fault",
    [LFR_CTR_USER_BAD_FRAME] = "user_bad_frame",
    [LFR_CTR_USER_TRUNCATED] = "user_truncated",
    [LFR_CTR_COMPAT] = "compat",
    [LFR_CTR_RECORDS_MMAP] = "records_mmap",
    [LFR_CTR_RECORDS_COMM] = "records_comm",
    [LFR_CTR_RECORDS_LOST] = "records_lost",
    [LFR_CTR_WORKS_PENDING] = "works_pending",
    [LFR_CTR_IRQ_NS] = "irq_ns",
    [LFR_CTR_IRQ_COUNT] = "irq_count",
    [LFR_CTR_WORK_NS] = "work_ns",
    [LFR_CTR_WORK_COUNT] = "work_count",
    [LFR_CTR_THREADS] = "threads",
    [LFR_CTR_TICKS_PENDING] = "ticks_pending",
    [LFR_CTR_RECORDS_TASK] = "records_task",
    [LFR_CTR_FOLLOW_NO_SLOT] = "follow_no_slot",
    [LFR_CTR_RECORDS_TICK] = "records_tick",
    [LFR_CTR_RECORDS_USTACK] = "records_ustack",
    [LFR_CTR_WORK_SWITCHED] = "work_switched",
    [LFR_CTR_SWITCH_NO_SLOT] = "switch_no_slot",
    [LFR_CTR_UNWIND_FRAMES] = "unwind_frames",
    [LFR_CTR_USER_NO_CFI] = "user_no_cfi",
    [LFR_CTR_UNWIND_TABLES] = "unwind_tables",
    [LFR_CTR_UNWIND_BYTES] = "unwind_bytes",
    [LFR_CTR_UNWIND_EVICTED] = "unwind_evicted",
    [LFR_CTR_OFFCPU] = "offcpu",
    [LFR_CTR_OFFCPU_NS] = "offcpu_ns",
    [LFR_CTR_OFFCPU_SHORT] = "offcpu_short",
    [LFR_CTR_OFFCPU_SHORT_NS] = "offcpu_short_ns",
    [LFR_CTR_OFFCPU_COMMITTED] = "offcpu_committed",
    [LFR_CTR_OFFCPU_LOST] = "offcpu_lost",
    [LFR_CTR_THREADS_RECLAIMED] = "threads_reclaimed",
    [LFR_CTR_TICKS_SKIPPED] = "ticks_skipped",
    [LFR_CTR_LATENCY] = "latency",
    [LFR_CTR_LATENCY_LOST] = "latency_lost",
    [LFR_CTR_WALK_KNOWN_MAPS] = "walk_known_maps",
    [LFR_CTR_UNWIND_MEMO_FRAMES] = "unwind_memo_frames",
    [LFR_CTR_UNWIND_STALE] = "unwind_stale",
    [LFR_CTR_OFFCPU_THROTTLED] = "offcpu_throttled",
    [LFR_CTR_OFFCPU_PROBE_NS] = "offcpu_probe_ns",
    [LFR_CTR_OFFCPU_PROBE_COUNT] = "offcpu_probe_count",
    [LFR_CTR_WALK_RESUMED] = "walk_resumed",
    [LFR_CTR_CTX] = "ctx",
    [LFR_CTR_CTX_NULL] = "ctx_null",
    [LFR_CTR_CTX_INVALID] = "ctx_invalid",
    [LFR_CTR_CTX_FAULT] = "ctx_fault",
    [LFR_CTR_CTX_CHANGED] = "ctx_changed",
    [LFR_CTR_CTX_NO_BLOCK] = "ctx_no_block",
    [LFR_CTR_CTX_FAULTED_IN] = "ctx_faulted_in",
    [LFR_CTR_SKIP_CREDS] = "skip_creds",
    [LFR_CTR_KSTACK_CACHED] = "kstack_cached",
    [LFR_CTR_KSTACK_MISMATCH] = "kstack_mismatch",
    [LFR_CTR_LOST_FIRST] = "lost_unspec",
    [LFR_CTR_LOST_RING_FULL] = "lost_ring_full",
    [LFR_CTR_LOST_NO_THREAD_SLOT] = "lost_no_thread_slot",
    [LFR_CTR_LOST_TASK_WORK] = "lost_task_work",
    [LFR_CTR_LOST_EXEC] = "lost_exec",
    [LFR_CTR_LOST_EXIT] = "lost_exit",
    [LFR_CTR_LOST_MODULE] = "lost_module",
    [LFR_CTR_LOST_WEIGHT_OVERFLOW] = "lost_weight_overflow",
    [LFR_CTR_LOST_AUX_RING_FULL] = "lost_aux_ring_full",
    [LFR_CTR_LOST_NOMEM] = "lost_nomem",
    [LFR_CTR_LOST_ABANDONED] = "lost_abandoned",
    [LFR_CTR_LOST_MISSED] = "lost_missed",
    [LFR_CTR_LOST_STACK_RING_FULL] = "lost_stack_ring_full",
    [LFR_CTR_LOST_THROTTLED] = "lost_throttled",
    [LFR_CTR_LOST_MMAP_LOCK] = "lost_mmap_lock",
    [LFR_CTR_LOST_COMPAT] = "lost_compat",
};

static const char *const reason_names[LFR_LOST_MAX + 1] = {
    [LFR_LOST_UNSPEC] = "unspec",
    [LFR_LOST_RING_FULL] = "ring_full",
    [LFR_LOST_NO_THREAD_SLOT] = "no_thread_slot",
    [LFR_LOST_TASK_WORK] = "task_work",
    [LFR_LOST_EXEC] = "exec",
    [LFR_LOST_EXIT] = "exit",
    [LFR_LOST_MODULE] = "module",
    [LFR_LOST_WEIGHT_OVERFLOW] = "weight_overflow",
    [LFR_LOST_AUX_RING_FULL] = "aux_ring_full",
    [LFR_LOST_NOMEM] = "nomem",
    [LFR_LOST_ABANDONED] = "abandoned",
    [LFR_LOST_MISSED] = "missed",
    [LFR_LOST_STACK_RING_FULL] = "stack_ring_full",
    [LFR_LOST_THROTTLED] = "throttled",
    [LFR_LOST_MMAP_LOCK] = "mmap_lock",
    [LFR_LOST_COMPAT] = "compat",
};

static const char *const state_names[] = {
    [LFR_STATE_IDLE] = "idle",
    [LFR_STATE_RUNNING] = "running",
    [LFR_STATE_DRAINING] = "draining",
    [LFR_STATE_STOPPED] = "stopped",
};

static const char *const event_names[] = {
    [LFR_EVENT_NONE] = "none",         [LFR_EVENT_STARTED] = "started",
    [LFR_EVENT_DRAINING] = "draining", [LFR_EVENT_STOPPED] = "stopped",
    [LFR_EVENT_OVERFLOW] = "overflow",
};

static const char *const attr_names[LFR_A_MAX + 1] = {
    [LFR_A_SESSION_ID] = "session_id",
    [LFR_A_STATE] = "state",
    [LFR_A_EVENT] = "event",
    [LFR_A_PERIOD_NS] = "period_ns",
    [LFR_A_FREQ_HZ] = "freq_hz",
    [LFR_A_USER_STACK_DEPTH] = "user_stack_depth",
    [LFR_A_KERNEL_STACK] = "kernel_stack",
    [LFR_A_DETACHED] = "detached",
    [LFR_A_RING_PAGES] = "ring_pages",
    [LFR_A_WAKEUP_BYTES] = "wakeup_bytes",
    [LFR_A_MAX_THREADS] = "max_threads",
    [LFR_A_JITTER_PCT] = "jitter_pct",
    [LFR_A_TARGETS] = "targets",
    [LFR_A_NR_CPU_IDS] = "nr_cpu_ids",
    [LFR_A_COUNTERS] = "counters",
    [LFR_A_CPU] = "cpu",
    [LFR_A_CPU_ID] = "cpu_id",
    [LFR_A_SESSIONS] = "sessions",
    [LFR_A_UNWIND_MAX_KB] = "unwind_max_kb",
    [LFR_A_UNWIND_OBJECT_FD] = "unwind_object_fd",
    [LFR_A_UNWIND_TABLE_FD] = "unwind_table_fd",
    [LFR_A_OFFCPU_MIN_NS] = "offcpu_min_ns",
    [LFR_A_LATENCY_MIN_NS] = "latency_min_ns",
    [LFR_A_THREAD_CTX] = "thread_ctx",
    [LFR_A_CTX] = "ctx",
    [LFR_A_KERNEL_PROOF_FD] = "kernel_proof_fd",
};

static const char *const target_names[LFR_TARGET_A_MAX + 1] = {
    [LFR_TARGET_A_SYSTEM] = "targets.system",
    [LFR_TARGET_A_TGID] = "targets.tgid",
    [LFR_TARGET_A_TID] = "targets.tid",
    [LFR_TARGET_A_CGROUP_ID] = "targets.cgroup_id",
    [LFR_TARGET_A_FOLLOW_CHILDREN] = "targets.follow_children",
    [LFR_TARGET_A_CGROUP_PROCS_FD] = "targets.cgroup_procs_fd",
};

#define NAME_OR(table, i, buf, fmt)                                                                \
	((i) < sizeof(table) / sizeof(table[0]) && (table)[i]                                      \
	     ? (table)[i]                                                                          \
	     : (snprintf(buf, sizeof(buf), fmt, i), (const char *)buf))

const char *lfr_counter_name(unsigned int ctr)
{
	static __thread char buf[32];

	return NAME_OR(counter_names, ctr, buf, "ctr_%u");
}

const char *lfr_lost_reason_name(unsigned int reason)
{
	static __thread char buf[32];

	return NAME_OR(reason_names, reason, buf, "reason_%u");
}

const char *lfr_state_name(unsigned int state)
{
	static __thread char buf[32];

	return NAME_OR(state_names, state, buf, "state_%u");
}

const char *lfr_event_name(unsigned int event)
{
	static __thread char buf[32];

	return NAME_OR(event_names, event, buf, "event_%u");
}

bool lfr_counter_known(unsigned int ctr)
{
	return ctr < sizeof(counter_names) / sizeof(counter_names[0]) && counter_names[ctr];
}

const char *lfr_attr_name(unsigned int attr)
{
	return attr < sizeof(attr_names) / sizeof(attr_names[0]) ? attr_names[attr] : NULL;
}

uint64_t lfr_counters_lost(const struct lfr_counters *c)
{
	uint64_t sum = 0;

	for (unsigned int i = LFR_CTR_LOST_FIRST; i <= LFR_CTR_MAX; i++)
		if (i != LFR_CTR_LOST_AUX_RING_FULL)
			sum += c->v[i];
	return sum;
}

/* ---- error naming ---- */

/* Names the attribute at byte offset e->bad_attr_off of REQ (top level or inside LFR_A_TARGETS). */
static void name_bad_attr(const struct nlmsghdr *req, struct lfr_error *e)
{
	const struct nlattr *a, *t;

	if (e->bad_attr < 0)
		return;
	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr))
	{
		unsigned int off = (unsigned int)((const char *)a - (const char *)req);
		unsigned int type = mnl_attr_get_type(a);

		if (off == e->bad_attr_off) {
			if (lfr_attr_name(type))
				snprintf(e->attr_name, sizeof(e->attr_name), "%s",
				         lfr_attr_name(type));
			return;
		}
		if (type != LFR_A_TARGETS || e->bad_attr_off < off ||
		    e->bad_attr_off >= off + mnl_attr_get_len(a))
			continue;
		mnl_attr_for_each_nested(t, a)
		{
			unsigned int toff = (unsigned int)((const char *)t - (const char *)req);
			unsigned int ttype = mnl_attr_get_type(t);

			if (toff == e->bad_attr_off && ttype <= LFR_TARGET_A_MAX &&
			    target_names[ttype]) {
				snprintf(e->attr_name, sizeof(e->attr_name), "%s",
				         target_names[ttype]);
				if (ttype == LFR_TARGET_A_TGID || ttype == LFR_TARGET_A_TID) {
					size_t n = strlen(e->attr_name);

					snprintf(e->attr_name + n, sizeof(e->attr_name) - n, "=%u",
					         mnl_attr_get_u32(t));
				}
				return;
			}
		}
		snprintf(e->attr_name, sizeof(e->attr_name), "targets");
		return;
	}
}

static int request(struct lfr_ctl *c, struct nlmsghdr *req, const char *what, mnl_cb_t cb,
                   void *data, struct lfr_error *e)
{
	if (lfr_genl_request(&c->genl, req, what, cb, data, e) == 0)
		return 0;
	name_bad_attr(req, e);
	switch (e->code) {
	case ENOENT:
		if (req->nlmsg_type == c->genl.family_id && !strcmp(what, "START"))
			snprintf(e->hint, sizeof(e->hint),
			         "a target cgroup is gone or not a cgroup v2: list them with "
			         "'ls /sys/fs/cgroup'");
		else if (req->nlmsg_type == c->genl.family_id)
			snprintf(e->hint, sizeof(e->hint),
			         "there is no such session: 'lfr status' shows the current one");
		break;
	case ESRCH:
		snprintf(e->hint, sizeof(e->hint),
		         "a target process or thread does not exist (any more): check it with "
		         "'ps -eLf'");
		break;
	default:
		break;
	}
	lfr_error_default_hint(e);
	return -1;
}

/* ---- open ---- */

int lfr_ctl_open(struct lfr_ctl *c, struct lfr_error *e)
{
	if (lfr_genl_open(&c->genl, LFR_GENL_NAME, "lfr", e) < 0)
		return -1;
	if (c->genl.version < 1) {
		lfr_error_set(e, EPROTONOSUPPORT, "checking the lfr module's ABI version");
		snprintf(e->msg, sizeof(e->msg), "the module reports version %u, the tools need %u",
		         c->genl.version, LFR_GENL_VERSION);
		lfr_error_default_hint(e);
		lfr_genl_close(&c->genl);
		return -1;
	}
	/* The ABI only grows: speak our version; a newer module understands it. */
	c->genl.version = LFR_GENL_VERSION;
	return 0;
}

void lfr_ctl_close(struct lfr_ctl *c)
{
	lfr_genl_close(&c->genl);
}

/* ---- replies ---- */

int lfr_counters_parse(const struct nlattr *nest, struct lfr_counters *c)
{
	const struct nlattr *a;

	memset(c, 0, sizeof(*c));
	mnl_attr_for_each_nested(a, nest)
	{
		unsigned int type = mnl_attr_get_type(a);

		if (type == LFR_CTR_PAD || type > LFR_CTR_MAX)
			continue; /* padding, or a counter newer than these tools */
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return -1;
		c->v[type] = mnl_attr_get_u64(a);
		c->present[type] = true;
	}
	return 0;
}

static int parse_cpu(const struct nlattr *nest, struct lfr_status *st)
{
	const struct nlattr *a;
	struct lfr_cpu_counters cc = {0}, *grown;
	bool have_id = false;

	mnl_attr_for_each_nested(a, nest)
	{
		switch (mnl_attr_get_type(a)) {
		case LFR_CPU_A_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -1;
			cc.cpu = mnl_attr_get_u32(a);
			have_id = true;
			break;
		case LFR_CPU_A_COUNTERS:
			if (lfr_counters_parse(a, &cc.c) < 0)
				return -1;
			break;
		default:
			break;
		}
	}
	if (!have_id)
		return -1;
	grown = realloc(st->cpus, (st->ncpus + 1) * sizeof(*st->cpus));
	if (!grown)
		return -1;
	st->cpus = grown;
	st->cpus[st->ncpus++] = cc;
	return 0;
}

static int parse_sessions(const struct nlattr *nest, struct lfr_status *st)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
	{
		if (mnl_attr_get_type(a) != LFR_A_SESSION_ID ||
		    mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -1;
		if (st->nsessions < LFR_STATUS_MAX_LISTED)
			st->sessions[st->nsessions++] = mnl_attr_get_u32(a);
	}
	return 0;
}

struct reply {
	struct lfr_session_info *info;
	struct lfr_status *status; /* NULL unless STATUS */
	bool bad;
};

static int reply_attr_cb(const struct nlattr *a, void *data)
{
	struct reply *r = data;
	struct lfr_session_info *in = r->info;
	unsigned int type = mnl_attr_get_type(a);
	enum mnl_attr_data_type want = MNL_TYPE_U32;

	switch (type) {
	case LFR_A_PERIOD_NS:
	case LFR_A_OFFCPU_MIN_NS:
	case LFR_A_LATENCY_MIN_NS:
		want = MNL_TYPE_U64;
		break;
	case LFR_A_KERNEL_STACK:
	case LFR_A_DETACHED:
	case LFR_A_THREAD_CTX:
		want = MNL_TYPE_FLAG;
		break;
	case LFR_A_COUNTERS:
	case LFR_A_CPU:
	case LFR_A_SESSIONS:
		want = MNL_TYPE_NESTED;
		break;
	default:
		break;
	}
	if (mnl_attr_validate(a, want) < 0) {
		r->bad = true;
		return MNL_CB_OK;
	}
	switch (type) {
	case LFR_A_SESSION_ID:
		in->id = mnl_attr_get_u32(a);
		break;
	case LFR_A_STATE:
		in->state = mnl_attr_get_u32(a);
		break;
	case LFR_A_PERIOD_NS:
		in->period_ns = mnl_attr_get_u64(a);
		break;
	case LFR_A_USER_STACK_DEPTH:
		in->user_depth = mnl_attr_get_u32(a);
		break;
	case LFR_A_RING_PAGES:
		in->ring_pages = mnl_attr_get_u32(a);
		break;
	case LFR_A_NR_CPU_IDS:
		in->nr_cpu_ids = mnl_attr_get_u32(a);
		break;
	case LFR_A_KERNEL_STACK:
		in->kernel_stack = true;
		break;
	case LFR_A_OFFCPU_MIN_NS:
		in->offcpu_min_ns = mnl_attr_get_u64(a);
		break;
	case LFR_A_LATENCY_MIN_NS:
		in->latency_min_ns = mnl_attr_get_u64(a);
		break;
	case LFR_A_DETACHED:
		in->detached = true;
		break;
	case LFR_A_THREAD_CTX:
		in->thread_ctx = true;
		break;
	case LFR_A_COUNTERS:
		if (r->status && lfr_counters_parse(a, &r->status->total) < 0)
			r->bad = true;
		break;
	case LFR_A_CPU:
		if (r->status && parse_cpu(a, r->status) < 0)
			r->bad = true;
		break;
	case LFR_A_SESSIONS:
		if (r->status && parse_sessions(a, r->status) < 0)
			r->bad = true;
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), reply_attr_cb, data);
}

static int check_reply(const struct reply *r, const char *what, struct lfr_error *e)
{
	if (!r->bad)
		return 0;
	lfr_error_set(e, EPROTO, "%s", what);
	snprintf(e->msg, sizeof(e->msg), "the module's reply has malformed attributes");
	lfr_error_default_hint(e);
	return -1;
}

/* ---- commands ---- */

int lfr_ctl_start(struct lfr_ctl *c, const struct lfr_start_opts *o, struct lfr_session_info *out,
                  struct lfr_error *e)
{
	size_t need = MNL_SOCKET_BUFFER_SIZE + (o->ntgids + o->ntids) * 8;
	struct lfr_session_info info = {0};
	struct reply r = {&info, NULL, false};
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char *buf = calloc(1, need);
	int ret;

	if (!buf) {
		lfr_error_set(e, ENOMEM, "START");
		return -1;
	}
	nlh = lfr_genl_msg(&c->genl, buf, LFR_CMD_START, 0);
	if (o->period_ns)
		mnl_attr_put_u64(nlh, LFR_A_PERIOD_NS, o->period_ns);
	if (o->freq_hz)
		mnl_attr_put_u32(nlh, LFR_A_FREQ_HZ, o->freq_hz);
	if (o->user_depth)
		mnl_attr_put_u32(nlh, LFR_A_USER_STACK_DEPTH, o->user_depth);
	if (o->kernel_stack)
		mnl_attr_put(nlh, LFR_A_KERNEL_STACK, 0, NULL);
	if (o->detached)
		mnl_attr_put(nlh, LFR_A_DETACHED, 0, NULL);
	if (o->thread_ctx)
		mnl_attr_put(nlh, LFR_A_THREAD_CTX, 0, NULL);
	if (o->kernel_proof_fd > 0)
		mnl_attr_put_u32(nlh, LFR_A_KERNEL_PROOF_FD, (uint32_t)o->kernel_proof_fd);
	if (o->ring_pages)
		mnl_attr_put_u32(nlh, LFR_A_RING_PAGES, o->ring_pages);
	if (o->wakeup_bytes || o->wakeup_any)
		mnl_attr_put_u32(nlh, LFR_A_WAKEUP_BYTES, o->wakeup_any ? 0 : o->wakeup_bytes);
	if (o->max_threads)
		mnl_attr_put_u32(nlh, LFR_A_MAX_THREADS, o->max_threads);
	if (o->jitter_pct >= 0)
		mnl_attr_put_u32(nlh, LFR_A_JITTER_PCT, (uint32_t)o->jitter_pct);
	if (o->offcpu_min_ns)
		mnl_attr_put_u64(nlh, LFR_A_OFFCPU_MIN_NS, o->offcpu_min_ns);
	if (o->latency_min_ns)
		mnl_attr_put_u64(nlh, LFR_A_LATENCY_MIN_NS, o->latency_min_ns);
	if (o->unwind_max_kb || o->no_unwind)
		mnl_attr_put_u32(nlh, LFR_A_UNWIND_MAX_KB, o->no_unwind ? 0 : o->unwind_max_kb);
	nest = mnl_attr_nest_start(nlh, LFR_A_TARGETS);
	if (o->system)
		mnl_attr_put(nlh, LFR_TARGET_A_SYSTEM, 0, NULL);
	for (size_t i = 0; i < o->ntgids; i++)
		mnl_attr_put_u32(nlh, LFR_TARGET_A_TGID, o->tgids[i]);
	for (size_t i = 0; i < o->ntids; i++)
		mnl_attr_put_u32(nlh, LFR_TARGET_A_TID, o->tids[i]);
	for (size_t i = 0; i < o->ncgroups; i++)
		mnl_attr_put_u64(nlh, LFR_TARGET_A_CGROUP_ID, o->cgroup_ids[i]);
	for (size_t i = 0; i < o->ncgroup_procs_fds; i++)
		mnl_attr_put_u32(nlh, LFR_TARGET_A_CGROUP_PROCS_FD,
		                 (uint32_t)o->cgroup_procs_fds[i]);
	if (o->follow_children)
		mnl_attr_put(nlh, LFR_TARGET_A_FOLLOW_CHILDREN, 0, NULL);
	mnl_attr_nest_end(nlh, nest);
	ret = request(c, nlh, "START", reply_cb, &r, e);
	if (ret == 0)
		ret = check_reply(&r, "START", e);
	if (ret == 0 && out)
		*out = info;
	free(buf);
	return ret;
}

static int stop(struct lfr_ctl *c, int64_t session, bool abandon, struct lfr_session_info *out,
                struct lfr_error *e)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct lfr_session_info info = {0};
	struct reply r = {&info, NULL, false};
	struct nlmsghdr *nlh = lfr_genl_msg(&c->genl, buf, LFR_CMD_STOP, 0);

	if (session >= 0)
		mnl_attr_put_u32(nlh, LFR_A_SESSION_ID, (uint32_t)session);
	if (abandon)
		mnl_attr_put(nlh, LFR_A_ABANDON, 0, NULL);
	if (request(c, nlh, "STOP", reply_cb, &r, e) < 0 || check_reply(&r, "STOP", e) < 0)
		return -1;
	if (out)
		*out = info;
	return 0;
}

int lfr_ctl_stop(struct lfr_ctl *c, int64_t session, struct lfr_session_info *out,
                 struct lfr_error *e)
{
	return stop(c, session, false, out, e);
}

int lfr_ctl_abandon(struct lfr_ctl *c, uint32_t session, struct lfr_session_info *out,
                    struct lfr_error *e)
{
	return stop(c, session, true, out, e);
}

int lfr_ctl_status(struct lfr_ctl *c, int64_t session, struct lfr_status *out, struct lfr_error *e)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct reply r = {&out->info, out, false};
	struct nlmsghdr *nlh;

	memset(out, 0, sizeof(*out));
	nlh = lfr_genl_msg(&c->genl, buf, LFR_CMD_STATUS, 0);
	if (session >= 0)
		mnl_attr_put_u32(nlh, LFR_A_SESSION_ID, (uint32_t)session);
	if (request(c, nlh, "STATUS", reply_cb, &r, e) < 0 || check_reply(&r, "STATUS", e) < 0) {
		lfr_status_free(out);
		return -1;
	}
	/*
	 * The per-CPU counters come as a dump (one message per CPU), so that the reply's size does
	 * not grow with the number of CPUs; a module before that put them in the reply.
	 */
	if (out->info.id && !out->ncpus) {
		struct lfr_session_info dumped = {0};
		struct reply d = {&dumped, out, false};

		nlh = lfr_genl_msg(&c->genl, buf, LFR_CMD_STATUS, NLM_F_DUMP);
		mnl_attr_put_u32(nlh, LFR_A_SESSION_ID, out->info.id);
		if (request(c, nlh, "STATUS (per CPU)", reply_cb, &d, e) < 0 ||
		    check_reply(&d, "STATUS (per CPU)", e) < 0) {
			/* the session was forgotten meanwhile: its totals stand alone */
			if (e->code != ENOENT) {
				lfr_status_free(out);
				return -1;
			}
			lfr_error_clear(e);
		}
	}
	return 0;
}

void lfr_status_free(struct lfr_status *s)
{
	free(s->cpus);
	s->cpus = NULL;
	s->ncpus = 0;
}

int lfr_ctl_wait_stopped(struct lfr_ctl *c, uint32_t session, int timeout_ms, struct lfr_status *st,
                         struct lfr_error *e)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		const struct timespec pause = {0, 20 * 1000 * 1000};
		long elapsed;

		if (lfr_ctl_status(c, session, st, e) < 0)
			return -1;
		if (st->info.state != LFR_STATE_DRAINING && st->info.state != LFR_STATE_RUNNING)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed =
		    (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		if (timeout_ms >= 0 && elapsed >= timeout_ms) {
			lfr_error_set(e, ETIMEDOUT, "waiting for session %u to drain", session);
			snprintf(e->msg, sizeof(e->msg),
			         "still %s after %d ms with %llu stack walks pending",
			         lfr_state_name(st->info.state), timeout_ms,
			         (unsigned long long)st->total.v[LFR_CTR_WORKS_PENDING]);
			snprintf(
			    e->hint, sizeof(e->hint),
			    "pending walks run when their threads return to user space; threads "
			    "blocked in long system calls keep the session draining until then (in "
			    "a "
			    "system-wide session, also the shell waiting for this command: "
			    "'lfr stop -n' returns at once)");
			lfr_status_free(st);
			return -1;
		}
		lfr_status_free(st);
		nanosleep(&pause, NULL);
	}
}

/* ---- unwind tables ---- */

/*
 * The table in a sealed memfd: what the kernel reads it from (a netlink message would cap its
 * size; the seals tell it the bytes can neither change nor make it wait on a file system).
 */
static int table_memfd(const struct lfr_unwind_hdr *hdr, const struct lfr_unwind_row *rows)
{
	int fd = memfd_create("lfr-unwind", MFD_CLOEXEC | MFD_ALLOW_SEALING), err;

	if (fd < 0)
		return -errno;
	err = lfr_write_all(fd, hdr, sizeof(*hdr));
	if (!err)
		err = lfr_write_all(fd, rows, (size_t)hdr->nr_rows * sizeof(*rows));
	if (!err &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int lfr_ctl_unwind_add(struct lfr_ctl *c, uint32_t session, int object_fd,
                       const struct lfr_unwind_hdr *hdr, const struct lfr_unwind_row *rows,
                       struct lfr_error *e)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int fd = table_memfd(hdr, rows), ret;

	if (fd < 0) {
		lfr_error_set(e, -fd, "UNWIND_ADD");
		snprintf(e->msg, sizeof(e->msg), "cannot write the table to a memfd: %s",
		         strerror(-fd));
		lfr_error_default_hint(e);
		return fd;
	}
	nlh = lfr_genl_msg(&c->genl, buf, LFR_CMD_UNWIND_ADD, 0);
	mnl_attr_put_u32(nlh, LFR_A_SESSION_ID, session);
	mnl_attr_put_u32(nlh, LFR_A_UNWIND_OBJECT_FD, (uint32_t)object_fd);
	mnl_attr_put_u32(nlh, LFR_A_UNWIND_TABLE_FD, (uint32_t)fd);
	ret = request(c, nlh, "UNWIND_ADD", NULL, NULL, e);
	close(fd);
	if (ret == 0)
		return 0;
	if (e->code == EOPNOTSUPP)
		snprintf(e->hint, sizeof(e->hint),
		         "the loaded lfr module predates unwind tables: stacks are walked by frame "
		         "pointers only; load a newer lfr.ko");
	return e->code ? -e->code : -EIO;
}

int lfr_ctl_ctx_add(struct lfr_ctl *c, uint32_t session, const struct lfr_ctx_loc *l,
                    struct lfr_error *e)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = lfr_genl_msg(&c->genl, buf, LFR_CMD_CTX_ADD, 0);
	struct nlattr *nest;
	int ret;

	mnl_attr_put_u32(nlh, LFR_A_SESSION_ID, session);
	nest = mnl_attr_nest_start(nlh, LFR_A_CTX);
	mnl_attr_put_u32(nlh, LFR_CTX_A_PID, l->pid);
	mnl_attr_put_u32(nlh, LFR_CTX_A_ACCESS, l->access);
	if (l->offset)
		mnl_attr_put_u64(nlh, LFR_CTX_A_OFFSET, (uint64_t)l->offset);
	if (l->access != LFR_CTX_ACCESS_STATIC)
		mnl_attr_put_u64(nlh, LFR_CTX_A_SLOT, l->slot);
	mnl_attr_put_u64(nlh, LFR_CTX_A_OBJECT_ADDR, l->object_addr);
	mnl_attr_put_u64(nlh, LFR_CTX_A_OBJECT_INO, l->object_ino);
	mnl_attr_put_u32(nlh, LFR_CTX_A_OBJECT_DEV, l->object_dev);
	if (l->access == LFR_CTX_ACCESS_DTV_SLOT || l->access == LFR_CTX_ACCESS_TLSDESC) {
		mnl_attr_put_u32(nlh, LFR_CTX_A_DTV_OFFSET, (uint32_t)l->dtv_offset);
		mnl_attr_put_u32(nlh, LFR_CTX_A_DTV_STRIDE, l->dtv_stride);
		mnl_attr_put_u32(nlh, LFR_CTX_A_DTV_COUNT, (uint32_t)l->dtv_count);
	}
	mnl_attr_nest_end(nlh, nest);
	ret = request(c, nlh, "CTX_ADD", NULL, NULL, e);
	if (ret == 0)
		return 0;
	if (e->code == EOPNOTSUPP)
		snprintf(
		    e->hint, sizeof(e->hint),
		    "the session was started without thread contexts, or the loaded lfr module "
		    "predates them: load a newer lfr.ko");
	return e->code ? -e->code : -EIO;
}

/* ---- kernel names ---- */

struct ksym_reply {
	size_t n;
	void (*each)(void *arg, size_t i, const char *name);
	void *arg;
};

static int ksym_name_cb(const struct nlattr *a, void *data)
{
	struct ksym_reply *r = data;
	uint16_t t = mnl_attr_get_type(a);

	if (t < 1 || t > r->n || mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return MNL_CB_ERROR;
	r->each(r->arg, t - 1u, mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int ksym_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) != LFR_A_KSYMS)
		return MNL_CB_OK;
	return mnl_attr_parse_nested(a, ksym_name_cb, data);
}

static int ksym_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), ksym_attr_cb, data);
}

int lfr_ctl_ksym(struct lfr_ctl *c, const uint64_t *addrs, size_t n,
                 void (*each)(void *arg, size_t i, const char *name), void *arg,
                 struct lfr_error *e)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = lfr_genl_msg(&c->genl, buf, LFR_CMD_KSYM, 0);
	struct ksym_reply r = {n, each, arg};

	if (n < 1 || n > LFR_KSYM_MAX_ADDRS) {
		lfr_error_set(e, EINVAL, "KSYM");
		snprintf(e->msg, sizeof(e->msg), "%zu addresses: KSYM names 1 to %d at once", n,
		         LFR_KSYM_MAX_ADDRS);
		lfr_error_default_hint(e);
		return -EINVAL;
	}
	mnl_attr_put(nlh, LFR_A_KSYM_ADDRS, n * sizeof(*addrs), addrs);
	if (request(c, nlh, "KSYM", ksym_cb, &r, e) == 0)
		return 0;
	if (e->code == EOPNOTSUPP)
		snprintf(
		    e->hint, sizeof(e->hint),
		    "the loaded lfr module predates KSYM: kernel names come from /proc/kallsyms");
	return e->code ? -e->code : -EIO;
}

/* ---- notifications ---- */

int lfr_ctl_monitor(struct lfr_ctl *c, struct lfr_error *e)
{
	return lfr_genl_join(&c->genl, LFR_GENL_MCGRP, e);
}

static int notify_attr_cb(const struct nlattr *a, void *data)
{
	struct lfr_notification *n = data;

	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return MNL_CB_OK;
	switch (mnl_attr_get_type(a)) {
	case LFR_A_SESSION_ID:
		n->session_id = mnl_attr_get_u32(a);
		break;
	case LFR_A_STATE:
		n->state = mnl_attr_get_u32(a);
		break;
	case LFR_A_EVENT:
		n->event = mnl_attr_get_u32(a);
		break;
	case LFR_A_CPU_ID:
		n->cpu = mnl_attr_get_u32(a);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

static int notify_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	if (g->cmd != LFR_CMD_NOTIFY)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(*g), notify_attr_cb, data);
}

int lfr_ctl_next_notification(struct lfr_ctl *c, int timeout_ms, struct lfr_notification *n,
                              struct lfr_error *e)
{
	memset(n, 0, sizeof(*n));
	n->cpu = -1;
	return lfr_genl_recv_events(&c->genl, timeout_ms, notify_cb, n, e) > 0 ? 1 : 0;
}

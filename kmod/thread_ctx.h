/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: the OpenTelemetry thread context of sampled threads (thread_ctx.c):
 * the processes a session was told about (LFR_CMD_CTX_ADD) and the walk's
 * read of its own thread's record.
 */
#ifndef LFR_THREAD_CTX_H
#define LFR_THREAD_CTX_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/lfr.h>

struct lfr_ctx_proc;
struct lfr_ctx_spec;
struct lfr_session;
struct netlink_ext_ack;

/*
 * A session's registered processes: an open-addressing table keyed by the
 * process's mm, read by walks under RCU, changed under @lock.  @slots is
 * allocated at START with LFR_A_THREAD_CTX only.
 */
struct lfr_ctx_procs {
	struct mutex lock;
	struct lfr_ctx_proc __rcu **slots;
	u32 nr;				/* registered (gone ones included) */
};

/* A thread context as a walk appends it, with room for every attribute. */
union lfr_ctx_copy {
	struct lfr_ustack_ctx c;
	u8 bytes[sizeof(struct lfr_ustack_ctx) + LFR_CTX_ATTRS_MAX];
};

/* The TLS variant of the architecture (thread_ctx_read.h). */
extern const bool lfr_ctx_tls_below_tp;

int lfr_ctx_procs_init(struct lfr_ctx_procs *t, bool on);
void lfr_ctx_procs_free(struct lfr_ctx_procs *t);
/* LFR_CMD_CTX_ADD of a running session; process context. */
int lfr_ctx_add(struct lfr_session *s, const struct lfr_ctx_spec *spec,
		struct netlink_ext_ack *extack);
/*
 * The walk of current (64-bit, process context, no lock held): its
 * thread's context into @out when its process is registered, counted by
 * state.  False when it is not (the USTACK record has no context then).
 */
bool lfr_ctx_get(struct lfr_session *s, union lfr_ctx_copy *out);

#endif /* LFR_THREAD_CTX_H */

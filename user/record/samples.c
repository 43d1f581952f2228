// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's samples: a tick (TICK record) joined with the user stack its walk found (USTACK
 * record, lib/join.h) is one sample at the tick's instant, found again by its raw addresses or
 * named in full; a sample whose user pc has no mapping yet is held back one batch; sampling
 * latencies wait for their ticks.
 */
#include <errno.h>
#include <string.h>

#include "record/recorder_internal.h"
#include "sym/cfi.h"

/*
 * A SAMPLE record's flag of the recorder's own, never the module's: its thread context follows its
 * addresses (a sample held back for a perf map keeps its context).
 */
#define SAMPLE_F_CTX (1u << 31)

/*
 * A sampling latency waits for the first tick of its walk, whose kernel stack it is written with:
 * that tick reaches the join no earlier than the walk's USTACK record, which follows the LATENCY
 * record on its ring.  A latency whose tick was lost waits until the table is full, then all
 * waiting ones are counted and dropped.
 */
#define LATENCIES_MAX 65536u

int note_latency(struct lfr_recorder *r, const struct lfr_rec_latency *l)
{
	struct hashtab_slot *slot;
	bool fresh;

	if (r->latencies.n >= LATENCIES_MAX) {
		r->st.latency_unmatched += r->latencies.n;
		hashtab_clear(&r->latencies);
	}
	slot = hashtab_put(&r->latencies, l->tid, l->tick_ns, &fresh);
	if (!slot)
		return -ENOMEM;
	slot->v = l->time_ns - l->tick_ns;
	if (!slot->v)
		slot->v = 1;
	return 0;
}

/* take_latency() while latencies wait. */
static __attribute__((noinline)) uint64_t find_latency(struct lfr_recorder *r,
                                                       const struct lfr_rec_tick *t)
{
	struct hashtab_slot *slot;
	uint64_t ns;

	if (t->hdr.type != LFR_REC_TICK || !(t->flags & LFR_SAMPLE_F_IN_KERNEL))
		return 0;
	slot = hashtab_get(&r->latencies, t->tid, t->time_ns);
	if (!slot)
		return 0;
	ns = slot->v;
	hashtab_del(&r->latencies, slot);
	return ns;
}

/* The latency that waits for tick T, taken out of the table (0: none).  Mostly none waits. */
static inline uint64_t take_latency(struct lfr_recorder *r, const struct lfr_rec_tick *t)
{
	return r->latencies.n ? find_latency(r, t) : 0;
}

/* The thread context a SAMPLE record of the recorder's own carries after its addresses. */
static const struct lfr_ustack_ctx *sample_ctx(const struct lfr_rec_sample *s)
{
	uint64_t at = sizeof(*s) + ((uint64_t)s->nr_kernel + s->nr_user) * sizeof(uint64_t);
	const struct lfr_ustack_ctx *c = (const void *)((const char *)s + at);

	if (!(s->flags & SAMPLE_F_CTX) || at + sizeof(*c) > s->hdr.size ||
	    at + sizeof(*c) + c->attrs_len > s->hdr.size || c->attrs_len > LFR_CTX_ATTRS_MAX)
		return NULL;
	return c;
}

/* True when the sample's interrupted user pc lies in no mapping the symbolizer knows yet. */
static bool needs_mapping(struct lfr_recorder *r, const struct lfr_record *rec)
{
	struct lfr_frame f;

	if (!rec->sample.r->nr_user ||
	    lfr_sym_in_file(r->sym, rec->sample.r->tgid, rec->sample.user_ips[0]))
		return false;
	lfr_sym_resolve_user(r->sym, rec->sample.r->tgid, rec->sample.user_ips[0], &f);
	return !f.path && !f.resolved;
}

/* A sample now, or held back one batch while its user pc has no mapping yet. */
int take_sample(struct lfr_recorder *r, const struct lfr_rec_header *h,
                const struct lfr_record *rec)
{
	int err;

	if (r->hold && !r->final && needs_mapping(r, rec)) {
		r->st.deferred++;
		return batch_push(r->hold, h, h->size);
	}
	r->ctx = sample_ctx(rec->sample.r);
	err = write_sample(r, rec);
	r->ctx = NULL;
	return err;
}

/* Walk ids of pairs replayed by the recorder itself: the module's have the top bit clear. */
#define REPLAY_WALK (1ull << 63)

/* Holds a tick and its user stack back one batch, as a pair of their own that joins again. */
static int defer_pair(struct lfr_recorder *r, const struct lfr_joined *j)
{
	uint64_t id = REPLAY_WALK | ++r->replays;
	struct lfr_rec_tick *t;
	struct lfr_rec_ustack *u;
	size_t off = r->hold->len;
	int err;

	if ((err = batch_push(r->hold, j->tick, j->tick->hdr.size)) ||
	    (err = batch_push(r->hold, j->ustack, j->ustack->hdr.size)))
		return err;
	t = (void *)(r->hold->buf + off);
	u = (void *)(r->hold->buf + off + t->hdr.size);
	t->walk_id = u->walk_id = id;
	u->ticks = 1;
	/* the tick it carried, if it did, is the TICK record pushed above */
	u->flags &= ~LFR_USTACK_F_TICK;
	r->st.deferred++;
	return 0;
}

/*
 * The registers an arm64 walk adds after its stack words (LFR_USTACK_F_REGS: the link register
 * and the PAC mask, for the leaf rule), or NULL.
 */
static const uint64_t *ustack_regs(const struct lfr_joined *j)
{
	const struct lfr_rec_ustack *u = j->ustack;

	if (j->lost_reason || !(u->flags & LFR_USTACK_F_REGS) ||
	    sizeof(*u) + ((uint64_t)u->nr_user + u->nr_words + LFR_USTACK_REGS) * sizeof(uint64_t) >
	        u->hdr.size)
		return NULL;
	return (const uint64_t *)j->words + u->nr_words;
}

/*
 * on_joined() of a pair whose raw stack is not known yet (RK, hashed): its stack is named and
 * written, and remembered by its raw addresses.  Out of line: the known ones, nearly all, need
 * none of its state.
 */
static __attribute__((noinline)) int join_new_stack(struct lfr_recorder *r,
                                                    const struct lfr_joined *j,
                                                    struct raw_stack_key *rk, struct process *p)
{
	const struct lfr_rec_tick *t = j->tick;
	struct lfr_rec_sample *s = (void *)r->synth;
	uint32_t nk = rk->nr_kernel, nu = rk->nr_user;
	int leaf_word = -1;
	struct lfr_frame leaf;
	struct lfr_record rec;
	int err;

	/*
	 * The leaf rule needs the mapping of the interrupted pc; it may still be on its way on
	 * another CPU's ring: replay the pair with the next batch, once.
	 */
	if (nu && r->hold && !r->final && !lfr_sym_in_file(r->sym, t->tgid, j->user_ips[0])) {
		lfr_sym_resolve_user(r->sym, t->tgid, j->user_ips[0], &leaf);
		if (!leaf.path && !leaf.resolved)
			return defer_pair(r, j);
	}
	if (nk > LFR_MAX_KERNEL_STACK_DEPTH)
		nk = LFR_MAX_KERNEL_STACK_DEPTH;
	if (nu > LFR_MAX_USER_STACK_DEPTH)
		nu = LFR_MAX_USER_STACK_DEPTH;
	memcpy(s->ips, j->kernel_ips, nk * sizeof(uint64_t));
	/* The kernel unwound the leaf from its table: the chain is right, and has no words. */
	/* the chain as named depends on its addresses, the mappings and the one word the leaf
	 * rule read: found again by them (unless it was cut short here) */
	bool raw_ok = nk == t->nr_kernel && nu == (j->lost_reason ? 0 : j->ustack->nr_user);
	enum lfr_leaf_fix leaf_fix = LFR_LEAF_KEPT;

	if (nu && (j->ustack->flags & LFR_SAMPLE_F_USER_CFI)) {
		memcpy(s->ips + nk, j->user_ips, nu * sizeof(uint64_t));
	} else if (nu) {
		uint32_t n = 0;

		leaf_fix = lfr_sym_fix_leaf_regs(
		    r->sym, t->tgid, (const uint64_t *)j->user_ips, nu, j->ustack->sp,
		    (const uint64_t *)j->words, j->ustack->nr_words, ustack_regs(j),
		    (uint64_t *)(s->ips + nk), LFR_MAX_USER_STACK_DEPTH, &n, &leaf_word);
		r->st.leaf_inserted += leaf_fix == LFR_LEAF_INSERTED;
		r->st.leaf_uncertain += leaf_fix == LFR_LEAF_UNCERTAIN;
		raw_ok &= leaf_word >= -1;
		nu = n;
	}
	s->hdr = (struct lfr_rec_header){
	    .type = LFR_REC_SAMPLE, .size = (uint32_t)(sizeof(*s) + (nk + nu) * sizeof(uint64_t))};
	s->time_ns = t->time_ns;
	s->cpu = t->cpu;
	s->tgid = t->tgid;
	s->tid = t->tid;
	s->weight = 1;
	s->flags = j->flags;
	s->nr_kernel = (uint16_t)nk;
	s->nr_user = (uint16_t)nu;
	if (r->ctx) {
		/* a copy held for a perf map keeps it (sample_ctx()) */
		uint32_t n = (uint32_t)sizeof(*r->ctx) + r->ctx->attrs_len;

		memcpy((char *)s + s->hdr.size, r->ctx, n);
		memset((char *)s + s->hdr.size + n, 0, (8 - n % 8) % 8);
		s->hdr.size += (n + 7) / 8 * 8;
		s->flags |= SAMPLE_F_CTX;
	}
	/* built here from records already checked: its layout is right by construction */
	rec = (struct lfr_record){.type = LFR_REC_SAMPLE, .size = s->hdr.size};
	rec.sample.r = s;
	rec.sample.kernel_ips = s->ips;
	rec.sample.user_ips = s->ips + nk;
	r->off = j->offcpu;
	r->named_ok = false;
	r->lat_ns = take_latency(r, t);
	err = write_sample(r, &rec);
	r->off = NULL;
	/* not written: the sample waits for a perf map (its stack is not known yet) */
	r->st.latency_unmatched += r->lat_ns != 0;
	r->lat_ns = 0;
	if (!err && raw_ok && r->named_ok) {
		r->named.leaf_fix = (uint8_t)leaf_fix;
		if (!raw_stacks_room(&r->raw, rk))
			stack_caches_clear(r, false); /* both, so that P's count of entries holds */
		if (raw_stacks_add(&r->raw, rk, &r->named, leaf_word))
			stack_cached(r, p);
	}
	return err;
}

static int on_joined_ctx(struct lfr_recorder *r, const struct lfr_joined *j);

/* The thread context of the pair, when its walk read one, stands while its events are written. */
int on_joined(void *ctx, const struct lfr_joined *j)
{
	struct lfr_recorder *r = ctx;
	int err;

	r->ctx = j->lost_reason ? NULL : lfr_ustack_ctx(j->ustack);
	err = on_joined_ctx(r, j);
	r->ctx = NULL;
	return err;
}

/*
 * A tick with its user stack: one sample at the tick's instant, its own kernel stack and the
 * user stack its walk found.  Periods the tick says were missed are losses of their own.
 */
static int on_joined_ctx(struct lfr_recorder *r, const struct lfr_joined *j)
{
	const struct lfr_rec_tick *t = j->tick;
	uint32_t nk = t->nr_kernel, nu = j->lost_reason ? 0 : j->ustack->nr_user;
	bool replay = t->walk_id & REPLAY_WALK;
	struct thread *th = NULL;
	int err;

	if (j->offcpu) {
		if (j->lost_reason) {
			r->st.off_cpu_lost++;
			return 0;
		}
	} else if (!replay) {
		uint64_t key;

		th = idmap_get(&r->threads, t->tid);
		if (!th)
			return -ENOMEM;
		if (!th->tgid)
			th->tgid = t->tgid;
		th->missed += t->missed;
		th->samples += !j->lost_reason;
		if (t->missed)
			r->lost_batch[LFR_LOST_MISSED] += t->missed;
		/* The thread's own losses, for the JDK's jdk.CPUTimeSamplesLost (when written). */
		if (t->missed + !!j->lost_reason &&
		    ((err = thread_key(r, t->tid, t->tgid, &key)) ||
		     (err = lfr_jfr_thread_samples_lost(r->w, t->time_ns, key,
		                                        t->missed + !!j->lost_reason))))
			return err;
	}
	if (j->lost_reason) {
		r->lost_batch[j->lost_reason]++;
		return 0;
	}
	struct process *p = process_of(r, t->tgid);
	struct raw_stack_key rk = {
	    .tgid = t->tgid,
	    .flags = j->flags & (STACK_TRUNC_FLAGS | LFR_SAMPLE_F_USER_CFI),
	    .nr_kernel = (uint16_t)nk,
	    .nr_user = (uint16_t)nu,
	    .kernel_ips = (const uint64_t *)j->kernel_ips,
	    .user_ips = (const uint64_t *)j->user_ips,
	    .words = (const uint64_t *)j->words,
	    /* the registers after them too: the leaf rule may read the link register */
	    .nr_words = (uint32_t)(j->ustack->nr_words + (ustack_regs(j) ? LFR_USTACK_REGS : 0)),
	};
	const struct raw_stack_val *seen;

	if (!p)
		return -ENOMEM;
	rk.map_gen = p->map_gen;
	raw_stack_hash(&rk);
	seen = raw_stacks_find(&r->raw, &rk);
	if (seen) {
		/* Named before from the same addresses: nothing to name, fix or hash again. */
		r->st.raw_hits++;
		if (seen->leaf_fix != LFR_LEAF_KEPT) {
			r->st.leaf_inserted += seen->leaf_fix == LFR_LEAF_INSERTED;
			r->st.leaf_uncertain += seen->leaf_fix == LFR_LEAF_UNCERTAIN;
		}
		r->st.frames += seen->frames;
		r->st.unnamed += seen->unnamed;
		r->st.stack_hits++;
		r->lat_ns = take_latency(r, t);
		if (th) /* a tick of its thread, as nearly every one is */
			err = write_cpu_sample(r, t->time_ns, t->tid, t->tgid, 1, seen->stack,
			                       seen->incomplete, th, p);
		else {
			struct lfr_rec_sample ev = {
			    .time_ns = t->time_ns, .tgid = t->tgid, .tid = t->tid, .cpu = t->cpu};

			r->off = j->offcpu;
			err = write_event(r, &ev, seen->stack, seen->incomplete, NULL, p);
			r->off = NULL;
		}
		r->lat_ns = 0;
		return err;
	}
	return join_new_stack(r, j, &rk, p);
}

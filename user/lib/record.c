// SPDX-License-Identifier: GPL-2.0
/* Record decoding and loss accounting. */
#include <stdio.h>
#include <string.h>

#include "lib/record.h"

static int bad(char *why, size_t whylen, const struct lfr_rec_header *h, const char *what)
{
	snprintf(why, whylen, "record of type %u and %u bytes: %s", h->type, h->size, what);
	return -1;
}

/* s[0..max) holds a NUL. */
static bool has_nul(const char *s, size_t max)
{
	return memchr(s, 0, max) != NULL;
}

/* The records that carry stacks: a sample, a tick, an off-CPU interval, a user stack. */
static int decode_stack(const struct lfr_rec_header *h, struct lfr_record *out, char *why,
                        size_t whylen)
{
	switch (h->type) {
	case LFR_REC_SAMPLE: {
		const struct lfr_rec_sample *s = (const void *)h;
		uint64_t need = sizeof(*s);

		if (h->size < sizeof(*s))
			return bad(why, whylen, h, "too short for a sample");
		need += ((uint64_t)s->nr_kernel + s->nr_user) * sizeof(uint64_t);
		if (need > h->size)
			return bad(why, whylen, h, "its frame counts run past its size");
		if (s->weight == 0)
			return bad(why, whylen, h, "a sample of weight 0");
		out->sample.r = s;
		out->sample.kernel_ips = s->ips;
		out->sample.user_ips = s->ips + s->nr_kernel;
		return 0;
	}
	case LFR_REC_TICK: {
		const struct lfr_rec_tick *t = (const void *)h;

		if (h->size < sizeof(*t))
			return bad(why, whylen, h, "too short for a tick");
		if (sizeof(*t) + (uint64_t)t->nr_kernel * sizeof(uint64_t) > h->size)
			return bad(why, whylen, h, "its kernel frame count runs past its size");
		out->tick = t;
		return 0;
	}
	case LFR_REC_OFFCPU: {
		const struct lfr_rec_offcpu *o = (const void *)h;

		if (h->size < sizeof(*o))
			return bad(why, whylen, h, "too short for an off-CPU interval");
		if (sizeof(*o) + (uint64_t)o->nr_kernel * sizeof(uint64_t) > h->size)
			return bad(why, whylen, h, "its kernel frame count runs past its size");
		if (o->start_ns > o->time_ns)
			return bad(why, whylen, h, "the interval ends before it starts");
		out->offcpu = o;
		return 0;
	}
	case LFR_REC_USTACK: {
		const struct lfr_rec_ustack *u = (const void *)h;

		if (h->size < sizeof(*u))
			return bad(why, whylen, h, "too short for a user stack");
		if (sizeof(*u) + ((uint64_t)u->nr_user + u->nr_words) * sizeof(uint64_t) > h->size)
			return bad(why, whylen, h, "its frame and word counts run past its size");
		if (u->lost_reason > LFR_LOST_MAX)
			return bad(why, whylen, h, "an unknown loss reason");
		if ((u->flags & LFR_USTACK_F_TICK) && !u->ticks)
			return bad(why, whylen, h, "it carries a tick but counts none");
		if ((u->flags & LFR_USTACK_F_CTX) && !lfr_ustack_ctx(u))
			return bad(why, whylen, h, "its thread context runs past its size");
		out->ustack.r = u;
		out->ustack.ips = u->ips;
		out->ustack.words = u->ips + u->nr_user;
		return 0;
	}
	default:
		return 0;
	}
}

int lfr_record_decode(const struct lfr_rec_header *h, struct lfr_record *out, char *why,
                      size_t whylen)
{
	memset(out, 0, sizeof(*out));
	out->type = h->type;
	out->size = h->size;
	if (h->size < sizeof(*h) || h->size % 8)
		return bad(why, whylen, h, "size is not a multiple of 8 of at least 8");
	switch (h->type) {
	case LFR_REC_PAD:
		return 0;
	case LFR_REC_SAMPLE:
	case LFR_REC_TICK:
	case LFR_REC_OFFCPU:
	case LFR_REC_USTACK:
		return decode_stack(h, out, why, whylen);
	case LFR_REC_LATENCY: {
		const struct lfr_rec_latency *l = (const void *)h;

		if (h->size < sizeof(*l))
			return bad(why, whylen, h, "too short for a sampling latency");
		if (l->tick_ns > l->time_ns)
			return bad(why, whylen, h, "the walk runs before its tick");
		out->latency = l;
		return 0;
	}
	case LFR_REC_MMAP: {
		const struct lfr_rec_mmap *m = (const void *)h;

		if (h->size <= sizeof(*m))
			return bad(why, whylen, h, "too short for a mapping with a path");
		if (!has_nul(m->path, h->size - sizeof(*m)))
			return bad(why, whylen, h, "the path is not NUL-terminated");
		if (m->end < m->start)
			return bad(why, whylen, h, "the mapping ends before it starts");
		out->mmap.r = m;
		out->mmap.path = m->path;
		return 0;
	}
	case LFR_REC_COMM: {
		const struct lfr_rec_comm *c = (const void *)h;

		if (h->size < sizeof(*c))
			return bad(why, whylen, h, "too short for a thread name");
		if (!has_nul(c->comm, sizeof(c->comm)))
			return bad(why, whylen, h, "the name is not NUL-terminated");
		out->comm.r = c;
		out->comm.comm = c->comm;
		return 0;
	}
	case LFR_REC_LOST:
		if (h->size < sizeof(struct lfr_rec_lost))
			return bad(why, whylen, h, "too short for a lost record");
		out->lost = (const void *)h;
		return 0;
	case LFR_REC_TASK: {
		const struct lfr_rec_task *t = (const void *)h;

		if (h->size < sizeof(*t))
			return bad(why, whylen, h, "too short for a thread event");
		if (!has_nul(t->comm, sizeof(t->comm)))
			return bad(why, whylen, h, "the name is not NUL-terminated");
		if (t->args_len > h->size - sizeof(*t))
			return bad(why, whylen, h, "the command line runs past the record");
		out->task = t; /* kinds newer than these tools are skipped by readers */
		return 0;
	}
	default:
		return 0; /* newer record type: skipped by size */
	}
}

static const char *const flag_names[LFR_SAMPLE_NFLAGS] = {
    "in_kernel",        "compat",  "user_truncated", "user_fault",  "user_bad_frame",
    "kernel_truncated", "no_user", "user_cfi",       "user_no_cfi",
};

const char *lfr_sample_flag_name(unsigned int bit)
{
	return bit < LFR_SAMPLE_NFLAGS ? flag_names[bit] : "unknown";
}

void lfr_accounting_add(struct lfr_accounting *a, const struct lfr_rec_header *h,
                        const struct lfr_record *r, bool malformed)
{
	a->records++;
	a->bytes += h->size;
	if (malformed) {
		a->malformed++;
		return;
	}
	switch (r->type) {
	case LFR_REC_PAD:
		a->pads++;
		break;
	case LFR_REC_SAMPLE:
		a->samples++;
		a->sample_ticks += r->sample.r->weight;
		for (unsigned int i = 0; i < LFR_SAMPLE_NFLAGS; i++)
			if (r->sample.r->flags & (1u << i))
				a->sample_flags[i]++;
		break;
	case LFR_REC_TICK:
		a->ticks++;
		a->missed += r->tick->missed;
		break;
	case LFR_REC_USTACK:
		a->ustacks++;
		if (r->ustack.r->lost_reason) {
			a->ustack_lost_ticks[r->ustack.r->lost_reason] += r->ustack.r->ticks;
			break;
		}
		a->samples++;
		a->sample_ticks += r->ustack.r->ticks;
		for (unsigned int i = 0; i < LFR_SAMPLE_NFLAGS; i++)
			if (r->ustack.r->flags & (1u << i))
				a->sample_flags[i]++;
		break;
	case LFR_REC_MMAP:
		a->mmaps++;
		break;
	case LFR_REC_LATENCY:
		a->latencies++;
		break;
	case LFR_REC_COMM:
		a->comms++;
		break;
	case LFR_REC_TASK:
		a->tasks++;
		break;
	case LFR_REC_LOST: {
		unsigned int reason =
		    r->lost->reason <= LFR_LOST_MAX ? r->lost->reason : LFR_LOST_MAX + 1;

		a->lost_records++;
		a->lost_count[reason] += r->lost->count;
		a->lost_ticks[reason] += r->lost->ticks;
		break;
	}
	default:
		a->unknown++;
		break;
	}
}

static int check(FILE *out, const char *name, const char *lname, uint64_t l, const char *rname,
                 uint64_t r)
{
	fprintf(out, "check %s %s %s=%llu %s=%llu\n", name, l == r ? "ok" : "FAIL", lname,
	        (unsigned long long)l, rname, (unsigned long long)r);
	return l != r;
}

int lfr_accounting_reconcile(const struct lfr_accounting *a, const struct lfr_counters *t,
                             const uint64_t ring_lost[LFR_LOST_MAX + 1], FILE *out)
{
	int fails = 0;
	uint64_t lost = lfr_counters_lost(t);

	fails += check(out, "ticks_identity", "ticks_matched", t->v[LFR_CTR_TICKS_MATCHED],
	               "ticks_committed+pending+lost",
	               t->v[LFR_CTR_TICKS_COMMITTED] + t->v[LFR_CTR_TICKS_PENDING] + lost);
	fails += check(out, "samples_read", "read", a->samples, "samples_committed",
	               t->v[LFR_CTR_SAMPLES_COMMITTED]);
	fails += check(out, "ticks_read", "read", a->sample_ticks, "ticks_committed",
	               t->v[LFR_CTR_TICKS_COMMITTED]);
	fails +=
	    check(out, "mmap_read", "read", a->mmaps, "records_mmap", t->v[LFR_CTR_RECORDS_MMAP]);
	fails +=
	    check(out, "comm_read", "read", a->comms, "records_comm", t->v[LFR_CTR_RECORDS_COMM]);
	fails += check(out, "lost_records_read", "read", a->lost_records, "records_lost",
	               t->v[LFR_CTR_RECORDS_LOST]);
	fails += check(out, "user_fault", "read", a->sample_flags[3], "user_fault",
	               t->v[LFR_CTR_USER_FAULT]);
	fails += check(out, "user_bad_frame", "read", a->sample_flags[4], "user_bad_frame",
	               t->v[LFR_CTR_USER_BAD_FRAME]);
	fails += check(out, "user_truncated", "read", a->sample_flags[2], "user_truncated",
	               t->v[LFR_CTR_USER_TRUNCATED]);
	fails += check(out, "user_no_cfi", "read", a->sample_flags[8], "user_no_cfi",
	               t->v[LFR_CTR_USER_NO_CFI]);
	if (a->ticks || a->ustacks) {
		fails += check(out, "ticks_records_read", "read", a->ticks, "records_tick",
		               t->v[LFR_CTR_RECORDS_TICK]);
		fails += check(out, "ustack_records_read", "read", a->ustacks, "records_ustack",
		               t->v[LFR_CTR_RECORDS_USTACK]);
		fails += check(out, "missed_read", "read", a->missed, "lost_missed",
		               t->v[LFR_CTR_LOST_MISSED]);
	}
	if (a->latencies || t->v[LFR_CTR_LATENCY])
		fails += check(out, "latency_read", "read", a->latencies, "latency",
		               t->v[LFR_CTR_LATENCY]);
	fails += check(out, "works_pending", "pending", t->v[LFR_CTR_WORKS_PENDING], "zero", 0);
	fails += check(out, "ticks_pending", "pending", t->v[LFR_CTR_TICKS_PENDING], "zero", 0);
	fails += check(out, "malformed", "records", a->malformed, "zero", 0);
	/*
	 * In-band LOST records report the per-ring drop counts (ctrl->lost[], cumulative) as deltas
	 * once there is room again; drops at the very end may have no LOST record yet, so the
	 * control pages are the reference and the in-band sum may only trail them.
	 */
	for (unsigned int i = 0; i <= LFR_LOST_MAX; i++) {
		bool ok = a->lost_count[i] <= ring_lost[i];

		if (!ring_lost[i] && !a->lost_count[i])
			continue;
		fprintf(out, "check inband_lost_%s %s read=%llu ring=%llu unreported=%llu\n",
		        lfr_lost_reason_name(i), ok ? "ok" : "FAIL",
		        (unsigned long long)a->lost_count[i], (unsigned long long)ring_lost[i],
		        ok ? (unsigned long long)(ring_lost[i] - a->lost_count[i]) : 0ULL);
		fails += !ok;
	}
	if (a->lost_count[LFR_LOST_MAX + 1])
		fails += check(out, "inband_lost_unknown_reason", "read",
		               a->lost_count[LFR_LOST_MAX + 1], "zero", 0);
	return fails;
}

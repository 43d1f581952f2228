/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: reading a thread's OpenTelemetry context record (OTEP 4947) from its
 * thread pointer, over a read callback: where its otel_thread_ctx_v1 lies
 * (static TLS, a GOT slot, the DTV, a TLS descriptor), then the record it
 * points to, read twice so that one changed meanwhile is never reported.
 * Pure: thread_ctx.c reads the walking thread's own memory with it, KUnit
 * synthetic memory.
 */
#ifndef LFR_THREAD_CTX_READ_H
#define LFR_THREAD_CTX_READ_H

#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/lfr.h>

/* Where one process keeps the variable (LFR_CMD_CTX_ADD). */
struct lfr_ctx_where {
	u64 slot;
	s64 offset;
	s32 dtv_off;
	s32 dtv_count;		/* LFR_CTX_DTV_NO_COUNT: none */
	u8 access;		/* enum lfr_ctx_access */
	u8 dtv_stride;		/* 8 or 16 */
	/*
	 * Variant II TLS (x86-64): static blocks lie below the thread
	 * pointer, so a static TLSDESC argument is negative.  Variant I
	 * (arm64): above it, below LFR_CTX_TLSDESC_STATIC_MAX.
	 */
	bool tls_below_tp;
};

/* Reads @len bytes at @addr of the thread's memory: 0 or -EFAULT. */
typedef int (*lfr_ctx_read_fn)(void *rc, u64 addr, void *buf, u32 len);

/* Module ids are small: a bigger one is not a DTV index. */
#define LFR_CTX_MAX_MODULE	65535

/* The block of module @id in the thread's DTV: 0, or an LFR_CTX_* state. */
static inline int lfr_ctx_dtv_block(const struct lfr_ctx_where *w, u64 tp,
				    u64 id, lfr_ctx_read_fn rd, void *rc,
				    u64 *block)
{
	u64 dtv, n, v;

	if (!id || id > LFR_CTX_MAX_MODULE)
		return LFR_CTX_NO_BLOCK;
	if (rd(rc, tp + w->dtv_off, &dtv, 8))
		return LFR_CTX_FAULT;
	if (!dtv)
		return LFR_CTX_NO_BLOCK;
	/* a module loaded after the thread's DTV was last grown: none yet */
	if (w->dtv_count != LFR_CTX_DTV_NO_COUNT) {
		if (rd(rc, dtv + (s64)w->dtv_count * w->dtv_stride, &n, 8))
			return LFR_CTX_FAULT;
		if (id > n)
			return LFR_CTX_NO_BLOCK;
	}
	if (rd(rc, dtv + id * w->dtv_stride, &v, 8))
		return LFR_CTX_FAULT;
	/* glibc marks a block not allocated yet with -1 */
	if (!v || v == ~0ULL)
		return LFR_CTX_NO_BLOCK;
	*block = v;
	return 0;
}

/* The address of otel_thread_ctx_v1 in the thread of @tp: 0 or a state. */
static inline int lfr_ctx_var(const struct lfr_ctx_where *w, u64 tp,
			      lfr_ctx_read_fn rd, void *rc, u64 *var)
{
	u64 word[2], block;
	bool dynamic;
	int st;

	switch (w->access) {
	case LFR_CTX_ACCESS_STATIC:
		*var = tp + w->offset;
		return 0;
	case LFR_CTX_ACCESS_TPOFF_SLOT:
		if (rd(rc, w->slot, word, 8))
			return LFR_CTX_FAULT;
		*var = tp + word[0] + w->offset;
		return 0;
	case LFR_CTX_ACCESS_DTV_SLOT:
		if (rd(rc, w->slot, word, 16))
			return LFR_CTX_FAULT;
		break;
	case LFR_CTX_ACCESS_TLSDESC:
		if (rd(rc, w->slot + 8, word, 8))
			return LFR_CTX_FAULT;
		dynamic = w->tls_below_tp ? (s64)word[0] >= 0 :
			  word[0] >= LFR_CTX_TLSDESC_STATIC_MAX;
		if (!dynamic) {
			*var = tp + word[0] + w->offset;
			return 0;
		}
		if (rd(rc, word[0], word, 16))
			return LFR_CTX_FAULT;
		break;
	default:
		return LFR_CTX_FAULT;
	}
	st = lfr_ctx_dtv_block(w, tp, word[0], rd, rc, &block);
	if (st)
		return st;
	*var = block + word[1] + w->offset;
	return 0;
}

/*
 * Whether @len bytes at @addr still hold @buf: compared a slice at a time,
 * so that the second read needs no second buffer of the record's size.
 */
static inline bool lfr_ctx_same(u64 addr, const u8 *buf, u32 len,
				lfr_ctx_read_fn rd, void *rc)
{
	u8 slice[64];
	u32 off, n;

	for (off = 0; off < len; off += n) {
		n = min_t(u32, len - off, sizeof(slice));
		if (rd(rc, addr + off, slice, n) || memcmp(slice, buf + off, n))
			return false;
	}
	return true;
}

/*
 * The record otel_thread_ctx_v1 points to in the thread of @tp, into @out
 * (its attributes into @out->attrs, room for LFR_CTX_ATTRS_MAX bytes).
 * Returns the state (enum lfr_ctx_state), also set in @out.  The pointer
 * and the record are read, then read again and compared: the OTEP's
 * writer changes its own thread's record only while that thread runs, and
 * this thread is not running user code while it is read, but a writer on
 * another thread (which the OTEP does not allow) could change it under the
 * copy; such a copy is never reported (LFR_CTX_CHANGED).
 */
static inline int lfr_ctx_read(const struct lfr_ctx_where *w, u64 tp,
			       lfr_ctx_read_fn rd, void *rc,
			       struct lfr_ustack_ctx *out)
{
	u8 head[LFR_CTX_RECORD_HEAD];
	u64 var, rec, again;
	u16 size;
	u32 len;
	int st;

	memset(out, 0, sizeof(*out));
	st = lfr_ctx_var(w, tp, rd, rc, &var);
	if (st)
		goto out;
	st = LFR_CTX_FAULT;
	if (rd(rc, var, &rec, 8))
		goto out;
	st = LFR_CTX_NULL;
	if (!rec)
		goto out;
	/* the OTEP aligns records to 2 bytes: anything else is no record */
	st = LFR_CTX_INVALID;
	if (rec & 1)
		goto out;
	st = LFR_CTX_FAULT;
	if (rd(rc, rec, head, sizeof(head)))
		goto out;
	st = LFR_CTX_INVALID;
	if (head[24] != 1)
		goto out;
	memcpy(&size, head + 26, sizeof(size));
	len = min_t(u32, size, LFR_CTX_ATTRS_MAX);
	st = LFR_CTX_FAULT;
	if (len && rd(rc, rec + LFR_CTX_RECORD_HEAD, out->attrs, len))
		goto out;
	st = LFR_CTX_CHANGED;
	if (rd(rc, var, &again, 8) || again != rec ||
	    !lfr_ctx_same(rec, head, sizeof(head), rd, rc) ||
	    !lfr_ctx_same(rec + LFR_CTX_RECORD_HEAD, out->attrs, len, rd, rc))
		goto out;
	memcpy(out->trace_id, head, sizeof(out->trace_id));
	memcpy(out->span_id, head + 16, sizeof(out->span_id));
	out->trace_flags = head[25];
	out->attrs_len = len;
	out->attrs_size = size;
	st = LFR_CTX_VALID;
out:
	if (st != LFR_CTX_VALID)
		memset(out, 0, sizeof(*out));
	out->state = st;
	return st;
}

/* The bytes a context takes at the end of a USTACK record. */
static inline u32 lfr_ctx_rec_size(const struct lfr_ustack_ctx *c)
{
	return sizeof(*c) + round_up(c->attrs_len, 8);
}

#endif /* LFR_THREAD_CTX_READ_H */

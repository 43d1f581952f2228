// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's stacks: each frame named (the symbolizer, a memo of frames named before) into a
 * JFR method, each stack interned once (a cache of the stacks written, keyed by their addresses
 * and their leaves' methods), and the sample written with its stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/recorder_internal.h"

static enum lfr_jfr_frame_type jfr_frame_type(enum lfr_frame_type t)
{
	switch (t) {
	case LFR_FRAME_CPP:
		return LFR_JFR_FRAME_CPP;
	case LFR_FRAME_KERNEL:
		return LFR_JFR_FRAME_KERNEL;
	case LFR_FRAME_JIT:
		return LFR_JFR_FRAME_JIT;
	case LFR_FRAME_INTERPRETED:
		return LFR_JFR_FRAME_INTERPRETED;
	case LFR_FRAME_NATIVE:
	default:
		return LFR_JFR_FRAME_NATIVE;
	}
}

/*
 * lfr.ObjectFile once per object whose pcs stay unnamed and whose build-id is known: lfr report
 * names them later from its debug files (or the debuginfod servers').
 */
static int tell_object(struct lfr_recorder *r, const struct lfr_frame *f, uint64_t ticks)
{
	bool fresh;
	struct hashtab_slot *s;

	if (f->resolved || !f->path || f->path[0] != '/' || !f->build_id_len)
		return 0;
	/* by the build-id's bytes, keyed (a file chose them): the symbolizer frees an object no
	 * process maps, and the next build of that path may be read into the same memory */
	s = hashtab_put(&r->objects_told, (uint64_t)(uintptr_t)f->path,
	                hashtab_keyed_bytes(f->build_id, f->build_id_len), &fresh);
	if (!s)
		return -ENOMEM;
	if (!fresh)
		return 0;
	s->v = 1;
	return lfr_jfr_object_file(r->w, ticks, f->class_name, f->path, f->build_id,
	                           f->build_id_len);
}

static int method_key(struct lfr_recorder *r, const struct lfr_frame *f, uint64_t *key)
{
	uint32_t type = jfr_frame_type(f->type);
	bool fresh;
	struct hashtab_slot *s =
	    hashtab_put(&r->methods, (uint64_t)(uintptr_t)f->class_name,
	                (uint64_t)(uintptr_t)f->method << 8 | (type & 0xff), &fresh);
	int err;

	if (!s)
		return -ENOMEM;
	if (!fresh) {
		*key = s->v;
		return 0;
	}
	err = lfr_jfr_method(r->w, f->class_name, f->method, type, key);
	if (err) {
		hashtab_del(&r->methods, s);
		return err;
	}
	s->v = *key;
	return 0;
}

/*
 * The frame of S whose method keys the stack cache besides the leaf's: the user leaf below a kernel
 * stack, or 0 (none) when the sample has no kernel or no user frames, or N frames end before it.
 */
static uint32_t user_leaf_at(const struct lfr_rec_sample *s, size_t n)
{
	return s->nr_kernel && s->nr_user && s->nr_kernel < n ? s->nr_kernel : 0;
}

static uint64_t stack_hash(const struct lfr_rec_sample *s, uint32_t map_gen, uint32_t trunc,
                           uint64_t leaf, uint32_t ul, uint64_t uleaf)
{
	uint32_t n = (uint32_t)s->nr_kernel + s->nr_user;
	uint64_t h =
	    ul ? hashtab_hash(hashtab_hash_bytes(s->ips + 1, (ul - 1) * sizeof(uint64_t)) ^ uleaf,
	                      hashtab_hash_bytes(s->ips + ul + 1, (n - ul - 1) * sizeof(uint64_t)))
	       : hashtab_hash_bytes(s->ips + 1, (n - 1) * sizeof(uint64_t));

	h = hashtab_hash(h, leaf) ^
	    hashtab_hash((uint64_t)s->tgid << 32 | map_gen,
	                 (uint64_t)trunc << 32 | s->nr_kernel << 16 | s->nr_user);
	return h;
}

/*
 * The entry of S, or NULL with *salt set to where a new entry of S goes: entries whose hashes
 * collide are told apart by a salt, the second key of the index.
 */
static struct stack_entry *stack_lookup(struct lfr_recorder *r, const struct lfr_rec_sample *s,
                                        uint32_t map_gen, uint32_t trunc, uint64_t leaf,
                                        uint32_t ul, uint64_t uleaf, uint64_t h, uint64_t *salt)
{
	uint32_t n = (uint32_t)s->nr_kernel + s->nr_user;
	/* the addresses compared: all but the leaf's, and but the user leaf's when it has one */
	uint32_t n1 = ul ? ul - 1 : n - 1, skip = ul ? 1 : 0;

	for (*salt = 0;; (*salt)++) {
		struct hashtab_slot *slot = hashtab_get(&r->stack_index, h, *salt);

		if (!slot)
			return NULL;
		struct stack_entry *e = &r->stacks[slot->v - 1];
		const uint64_t *ips = r->stack_ips + e->ips_off;

		if (e->leaf == leaf && e->uleaf == uleaf && e->tgid == s->tgid &&
		    e->map_gen == map_gen && e->trunc == trunc && e->nr_kernel == s->nr_kernel &&
		    e->nr_user == s->nr_user && !memcmp(ips, s->ips + 1, n1 * sizeof(uint64_t)) &&
		    !memcmp(ips + n1 + skip, s->ips + 1 + n1 + skip,
		            (n - 1 - n1 - skip) * sizeof(uint64_t)))
			return e;
	}
}

int stacks_alloc(struct lfr_recorder *r)
{
	r->stacks = malloc(STACK_ENTRIES * sizeof(*r->stacks));
	r->stack_ips = malloc(STACK_IPS * sizeof(*r->stack_ips));
	if (r->stacks && r->stack_ips)
		return 0;
	free(r->stacks);
	free(r->stack_ips);
	r->stacks = NULL;
	r->stack_ips = NULL;
	return -ENOMEM;
}

static void stack_remember(struct lfr_recorder *r, const struct lfr_rec_sample *s,
                           struct process *p, uint32_t trunc, uint64_t leaf, uint64_t uleaf,
                           uint64_t h, uint64_t salt, uint64_t key, uint32_t unnamed,
                           bool incomplete)
{
	uint32_t n = (uint32_t)s->nr_kernel + s->nr_user - 1;
	struct hashtab_slot *slot;
	bool fresh;

	if (!r->stacks && stacks_alloc(r))
		return; /* no shortcut: every stack is named in full */
	if (r->stacks_used == STACK_ENTRIES || r->stack_ips_used + n > STACK_IPS) {
		/* Full: start over (the JFR pools keep every stack; only the shortcut is lost). */
		stack_caches_clear(r, false);
		salt = 0;
	}
	slot = hashtab_put(&r->stack_index, h, salt, &fresh);
	if (!slot)
		return;
	memcpy(r->stack_ips + r->stack_ips_used, s->ips + 1, n * sizeof(uint64_t));
	r->stacks[r->stacks_used] = (struct stack_entry){
	    .key = key,
	    .leaf = leaf,
	    .uleaf = uleaf,
	    .tgid = s->tgid,
	    .map_gen = p->map_gen,
	    .ips_off = (uint32_t)r->stack_ips_used,
	    .nr_kernel = s->nr_kernel,
	    .nr_user = s->nr_user,
	    .trunc = trunc,
	    .unnamed = unnamed,
	    .incomplete = incomplete,
	};
	slot->v = ++r->stacks_used;
	r->stack_ips_used += n;
	if (r->stacks_used > r->stacks_peak)
		r->stacks_peak = r->stacks_used;
	if (r->stack_ips_used > r->stack_ips_peak)
		r->stack_ips_peak = r->stack_ips_used;
	stack_cached(r, p);
}

/*
 * Where threads begin.  The C library is built without frame pointers, so a chain that reached
 * one of these has reached the thread's root even though the walk then met an invalid frame (the
 * register the start code left in the frame pointer): that stack is complete, not truncated.
 */
static bool is_thread_root(const struct lfr_frame *f)
{
	static const char *const roots[] = {
	    "__libc_start_call_main",
	    "__libc_start_main",
	    "__libc_start_main_impl",
	    "_start",
	    "start_thread",
	    "clone",
	    "__clone",
	    "clone3",
	    "__clone3",
	    "__clone_internal",
	    "thread_start",
	    "__start",
	};

	if (!f->resolved || f->type == LFR_FRAME_KERNEL)
		return false;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(f->method, roots[i]))
			return true;
	return false;
}

static uint32_t memo_slot(uint64_t pc, uint32_t tgid, unsigned int bits)
{
	uint64_t h = (pc ^ (pc >> 23) ^ (uint64_t)tgid << 40) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> (64 - bits));
}

int frame_memo_resize(struct lfr_recorder *r, unsigned int bits)
{
	struct frame_memo *to = calloc((size_t)1 << bits, sizeof(*to));
	uint32_t used = 0;

	if (!to)
		return -ENOMEM;
	for (uint32_t j = 0; r->memo && j < 1u << r->memo_bits; j++) {
		const struct frame_memo *m = &r->memo[j];
		struct frame_memo *t;

		if (!m->used)
			continue;
		t = &to[memo_slot(m->pc, m->tgid, bits)];
		used += !t->used; /* direct-mapped: two that meet keep the later */
		*t = *m;
	}
	free(r->memo);
	r->memo = to;
	r->memo_bits = bits;
	r->memo_used = used;
	return 0;
}

/*
 * The method key of frame I of a sample: kernel frames first, then user frames.  ROOT, when not
 * NULL, tells whether the frame is where a thread begins.
 */
static int name_frame(struct lfr_recorder *r, const struct lfr_record *rec, unsigned int i,
                      uint64_t *key, bool *root)
{
	const struct lfr_rec_sample *s = rec->sample.r;
	bool kernel = i < s->nr_kernel;
	/* Return addresses point after the call: name the call itself. */
	uint64_t pc = kernel ? rec->sample.kernel_ips[i]
	                     : rec->sample.user_ips[i - s->nr_kernel] - (i > s->nr_kernel ? 1 : 0);
	uint32_t tgid = kernel ? 0 : s->tgid;
	struct frame_memo *m = NULL;
	struct lfr_frame f;
	int err;

	if (r->memo) {
		m = &r->memo[memo_slot(pc, tgid, r->memo_bits)];
		if (m->pc == pc && m->tgid == tgid && m->used && (!root || m->root_known) &&
		    m->serial == lfr_sym_serial(r->sym, tgid, kernel)) {
			*key = m->key;
			r->st.unnamed += !m->resolved;
			if (root)
				*root = m->root;
			return 0;
		}
	}
	if (kernel)
		lfr_sym_resolve_kernel(r->sym, pc, &f);
	else
		lfr_sym_resolve_user(r->sym, s->tgid, pc, &f);
	if ((err = method_key(r, &f, key)) || (err = tell_object(r, &f, s->time_ns)))
		return err;
	r->st.unnamed += !f.resolved;
	/* in anonymous memory (not in a file, nor where no mapping is known, as a bad frame
	 * pointer's): JIT code, perhaps named by a perf map later */
	r->jit_met |= !kernel && !f.resolved && !f.path && strcmp(f.class_name, "[unknown]");
	if (root)
		*root = is_thread_root(&f);
	if (m && (kernel || f.path) && !m->used && 2 * (r->memo_used + 1) > 1u << r->memo_bits &&
	    r->memo_bits < FRAME_MEMO_BITS && !frame_memo_resize(r, r->memo_bits + 1))
		m = &r->memo[memo_slot(pc, tgid, r->memo_bits)];
	if (m && (kernel || f.path)) {
		r->memo_used += !m->used;
		*m = (struct frame_memo){
		    .pc = pc,
		    .serial = lfr_sym_serial(r->sym, tgid, kernel),
		    .key = *key,
		    .tgid = tgid,
		    .used = 1,
		    .resolved = f.resolved,
		    .root_known = root != NULL,
		    .root = root && *root,
		};
	}
	return 0;
}

int write_sample(struct lfr_recorder *r, const struct lfr_record *rec)
{
	const struct lfr_rec_sample *s = rec->sample.r;
	struct process *p = process_of(r, s->tgid);
	uint32_t trunc = s->flags & STACK_TRUNC_FLAGS, unnamed0 = (uint32_t)r->st.unnamed;
	uint64_t unnamed_before = r->st.unnamed;
	size_t n = (size_t)s->nr_kernel + s->nr_user;
	struct stack_entry *hit = NULL;
	uint64_t stack, h = 0, salt = 0, uleaf = 0;
	uint32_t ul;
	int err;

	if (!p)
		return -ENOMEM;
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	bool incomplete = trunc != 0, root = false;

	ul = user_leaf_at(s, n);
	r->st.frames += n;
	r->jit_met = false;
	if (n && (err = name_frame(r, rec, 0, &r->frames[0], n == 1 ? &root : NULL)))
		return err;
	if (ul && (err = name_frame(r, rec, ul, &r->frames[ul], ul == n - 1 ? &root : NULL)))
		return err;
	if (ul)
		uleaf = r->frames[ul];
	if (n) {
		h = stack_hash(s, p->map_gen, trunc, r->frames[0], ul, uleaf);
		hit = stack_lookup(r, s, p->map_gen, trunc, r->frames[0], ul, uleaf, h, &salt);
	}
	if (hit) {
		stack = hit->key;
		incomplete = hit->incomplete;
		/* the entry counts every frame of the stack, the leaves named here included */
		r->st.unnamed = unnamed_before + hit->unnamed;
		r->st.stack_hits++;
	} else {
		for (unsigned int i = 1; i < n; i++)
			if (i != ul &&
			    (err = name_frame(r, rec, i, &r->frames[i], i == n - 1 ? &root : NULL)))
				return err;
		/* A copy of the record waits, also in the batch of its process's exit (whose end
		 * reads the map again at once); held samples are named again when written. */
		r->jit_full |= r->jit_met && r->jit_wait.len + s->hdr.size > r->jit_wait_max;
		if (r->jit_met && !r->jit_release && !r->jit_full && !(r->jit_again && p->gone) &&
		    !r->off) {
			r->st.unnamed = unnamed0;
			r->st.frames -= n;
			return batch_push(&r->jit_wait, &s->hdr, s->hdr.size);
		}
		/* Only the invalid frame beyond a thread's root: the stack is whole. */
		if (trunc == LFR_SAMPLE_F_USER_BAD_FRAME && s->nr_user && root &&
		    n == (size_t)s->nr_kernel + s->nr_user)
			incomplete = false;
		if ((err = lfr_jfr_stack(r->w, r->frames, n, incomplete, &stack)))
			return err;
		/* a stack that a perf map may yet name is named again each time */
		if (n && n == (size_t)s->nr_kernel + s->nr_user && !r->jit_met)
			stack_remember(r, s, p, trunc, r->frames[0], uleaf, h, salt, stack,
			               (uint32_t)r->st.unnamed - unnamed0, incomplete);
	}
	if (n && n == (size_t)s->nr_kernel + s->nr_user && !r->jit_met) {
		r->named_ok = true;
		r->named = (struct raw_stack_val){
		    .stack = stack,
		    .frames = (uint32_t)n,
		    .unnamed = (uint32_t)r->st.unnamed - unnamed0,
		    .incomplete = incomplete,
		};
	}
	return write_event(r, s, stack, incomplete, NULL, p);
}

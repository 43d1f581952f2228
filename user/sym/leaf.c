// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf rule applied to a process's chains (cfi.h): the object and address of the interrupted
 * pc from the process's mappings (sym.c), the object's rule for it (cfi.c), and the chain fixed.
 */
#include <stdint.h>
#include <string.h>

#include "sym/cfi.h"
#include "sym/internal.h"

/*
 * lfr_sym_leaf_caller(), also telling the word the rule reads (-1: none; an index into the stack
 * words followed by the registers, regs[0] being word nr_words).  regs: NULL, or the record's
 * link register and PAC mask (LFR_USTACK_F_REGS).
 */
static enum lfr_leaf_rule leaf_caller(struct lfr_sym *sym, uint32_t tgid, uint64_t pc, uint64_t sp,
                                      const uint64_t *words, uint32_t nr_words,
                                      const uint64_t *regs, uint64_t *ret_addr, int *word)
{
	uint64_t vaddr, slot = 0;
	struct elfobj *o = sym_user_obj(sym, tgid, pc, &vaddr);
	int r;

	*word = -1;
	if (!o)
		return LFR_LEAF_UNKNOWN;
	r = cfi_leaf_rule(o, vaddr, &slot);
	if (r == CFI_LEAF_CALLER_LR) {
		*word = nr_words < INT32_MAX ? (int)nr_words : INT32_MAX;
		if (!regs || !regs[0])
			return LFR_LEAF_UNKNOWN;
		*ret_addr = regs[0];
		return LFR_LEAF_CALLER;
	}
	if (r != LFR_LEAF_CALLER)
		return (enum lfr_leaf_rule)r;
	/* The return address lies at sp + 8 * slot, which must not wrap. */
	if (sp > UINT64_MAX - 8 * (slot + 1)) {
		*word = -2;
		return LFR_LEAF_UNKNOWN;
	}
	*word = slot < INT32_MAX ? (int)slot : INT32_MAX;
	/* Beyond the words the kernel could copy: never guessed. */
	if (!words || slot >= nr_words)
		return LFR_LEAF_UNKNOWN;
	/* arm64: a return address signed with pointer authentication, without its code */
	*ret_addr = words[slot] & ~(regs ? regs[1] : 0);
	return LFR_LEAF_CALLER;
}

enum lfr_leaf_rule lfr_sym_leaf_caller(struct lfr_sym *sym, uint32_t tgid, uint64_t pc, uint64_t sp,
                                       const uint64_t *words, uint32_t nr_words, uint64_t *ret_addr)
{
	int word;

	return leaf_caller(sym, tgid, pc, sp, words, nr_words, NULL, ret_addr, &word);
}

enum lfr_leaf_fix lfr_sym_fix_leaf_regs(struct lfr_sym *sym, uint32_t tgid, const uint64_t *ips,
                                        uint32_t nr, uint64_t sp, const uint64_t *words,
                                        uint32_t nr_words, const uint64_t *regs, uint64_t *out,
                                        uint32_t cap, uint32_t *nr_out, int *word)
{
	uint64_t ra = 0;
	enum lfr_leaf_rule r = LFR_LEAF_UNKNOWN;
	uint32_t n = nr < cap ? nr : cap;

	*word = -1;
	if (nr)
		r = leaf_caller(sym, tgid, ips[0], sp, words, nr_words, regs, &ra, word);
	if (r == LFR_LEAF_CALLER && cap >= 2 && !(nr >= 2 && ips[1] == ra)) {
		out[0] = ips[0];
		out[1] = ra;
		n = nr + 1 <= cap ? nr + 1 : cap;
		for (uint32_t i = 2; i < n; i++)
			out[i] = ips[i - 1];
		*nr_out = n;
		return LFR_LEAF_INSERTED;
	}
	if (n)
		memcpy(out, ips, n * sizeof(*out));
	*nr_out = n;
	if (r == LFR_LEAF_CALLER)
		return cap >= 2 ? LFR_LEAF_PRESENT : LFR_LEAF_UNCERTAIN;
	return r == LFR_LEAF_FP_OK ? LFR_LEAF_KEPT : LFR_LEAF_UNCERTAIN;
}

enum lfr_leaf_fix lfr_sym_fix_leaf_word(struct lfr_sym *sym, uint32_t tgid, const uint64_t *ips,
                                        uint32_t nr, uint64_t sp, const uint64_t *words,
                                        uint32_t nr_words, uint64_t *out, uint32_t cap,
                                        uint32_t *nr_out, int *word)
{
	return lfr_sym_fix_leaf_regs(sym, tgid, ips, nr, sp, words, nr_words, NULL, out, cap,
	                             nr_out, word);
}

enum lfr_leaf_fix lfr_sym_fix_leaf(struct lfr_sym *sym, uint32_t tgid, const uint64_t *ips,
                                   uint32_t nr, uint64_t sp, const uint64_t *words,
                                   uint32_t nr_words, uint64_t *out, uint32_t cap, uint32_t *nr_out)
{
	int word;

	return lfr_sym_fix_leaf_word(sym, tgid, ips, nr, sp, words, nr_words, out, cap, nr_out,
	                             &word);
}

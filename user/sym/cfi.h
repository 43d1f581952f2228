/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The leaf rule: the caller of a function that had no frame of its own when it was sampled, from
 * the call frame information (CFI) of its object.
 *
 * A frame-pointer walk starts at the interrupted pc and follows the rbp chain.  While the
 * interrupted function has not set up its frame (a leaf that gcc compiled without one, any
 * function in its prologue or epilogue, a libc system-call wrapper), rbp still holds its caller's
 * frame, so the walk goes from the leaf straight to the grandparent and the caller is lost.  The
 * CFI of the leaf's pc says where its return address is: when the canonical frame address (CFA)
 * is rsp + k, the return address is the stack word at rsp + k - 8, which the kernel copied into
 * the sample (the first words of the user stack, from sp).  A caller is added only where the CFI
 * proves it; anything else is reported as unknown, never guessed.
 *
 * x86-64 and arm64 objects.  On arm64 the return address of such a function may still be in the
 * link register x30, which the kernel's USTACK record carries after the stack words with the mask
 * of the bits pointer authentication signs return addresses in (LFR_USTACK_F_REGS): the rule
 * takes the caller from there, and strips a return address read from the stack words.
 * Documentation/symbolizer.md, "The leaf rule".
 */
#ifndef LFR_SYM_CFI_H
#define LFR_SYM_CFI_H

#include <stdint.h>

#include "sym/sym.h"

/* What the CFI at the interrupted pc says about the frame-pointer chain above it. */
enum lfr_leaf_rule {
	LFR_LEAF_FP_OK,   /* CFA = fp + k: the function's frame is set up, the chain is right */
	LFR_LEAF_CALLER,  /* CFA = sp + k: *ret_addr is the caller the chain lacks */
	LFR_LEAF_UNKNOWN, /* no CFI, another rule, or the return address was not copied */
};

/*
 * Applies the leaf rule to the interrupted pc of process tgid (resolved through the mappings
 * known to the symbolizer).  words[0..nr_words) are the user stack words at sp, sp + 8, ...
 * pc is an interrupted pc (looked up as it is); *ret_addr, set for LFR_LEAF_CALLER only, is a
 * return address (resolve it minus one, like every caller's address).
 */
enum lfr_leaf_rule lfr_sym_leaf_caller(struct lfr_sym *sym, uint32_t tgid, uint64_t pc, uint64_t sp,
                                       const uint64_t *words, uint32_t nr_words,
                                       uint64_t *ret_addr);

/* What lfr_sym_fix_leaf did to a chain. */
enum lfr_leaf_fix {
	LFR_LEAF_KEPT,      /* the CFI proves the chain right: copied unchanged */
	LFR_LEAF_INSERTED,  /* the caller from the CFI was inserted after the leaf */
	LFR_LEAF_PRESENT,   /* the caller from the CFI already was the chain's second frame */
	LFR_LEAF_UNCERTAIN, /* the CFI cannot tell: copied unchanged, the caller may be missing */
};

/*
 * Corrects a user chain ips[0..nr) (ips[0] the interrupted pc, then return addresses from the
 * rbp chain) with the leaf rule and writes it to out[0..cap), *nr_out frames.  The caller is
 * inserted at out[1] unless ips[1] already is that address (a walker that found it must not
 * get it twice).  When the chain is already cap frames long, inserting drops the outermost
 * frame.  out may not alias ips.  nr == 0 gives an empty chain and LFR_LEAF_UNCERTAIN.
 */
enum lfr_leaf_fix lfr_sym_fix_leaf(struct lfr_sym *sym, uint32_t tgid, const uint64_t *ips,
                                   uint32_t nr, uint64_t sp, const uint64_t *words,
                                   uint32_t nr_words, uint64_t *out, uint32_t cap,
                                   uint32_t *nr_out);

/*
 * lfr_sym_fix_leaf(), also telling which stack word the leaf rule read (*word, an index into
 * words, -1 when the outcome depends on the addresses and mappings alone, -2 when it depends
 * on sp too): a chain fixed with the same addresses and the same value of that word (or the
 * same lack of it, when *word >= nr_words) comes out the same.
 */
enum lfr_leaf_fix lfr_sym_fix_leaf_word(struct lfr_sym *sym, uint32_t tgid, const uint64_t *ips,
                                        uint32_t nr, uint64_t sp, const uint64_t *words,
                                        uint32_t nr_words, uint64_t *out, uint32_t cap,
                                        uint32_t *nr_out, int *word);

/*
 * lfr_sym_fix_leaf_word() with the registers of the record (regs: NULL, or the link register and
 * the PAC mask of an arm64 USTACK record, LFR_USTACK_F_REGS).  *word indexes the stack words
 * followed by regs: nr_words when the rule took the caller from the link register.
 */
enum lfr_leaf_fix lfr_sym_fix_leaf_regs(struct lfr_sym *sym, uint32_t tgid, const uint64_t *ips,
                                        uint32_t nr, uint64_t sp, const uint64_t *words,
                                        uint32_t nr_words, const uint64_t *regs, uint64_t *out,
                                        uint32_t cap, uint32_t *nr_out, int *word);

#endif

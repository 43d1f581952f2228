/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Default ring sizes: how many data pages each CPU's ring gets, and when poll() wakes the reader,
 * chosen from the sampling rate and the stack depths so that the rings hold a latency budget of
 * data at the worst record rate, within a total memory budget and the module's limits.
 *
 * The worst case per CPU is one tick per period (a CPU runs one thread at a time, and a thread is
 * sampled by its own CPU time), each tick with its own stack walk of the full depth: a TICK record
 * of 48 + 8 * kernel frames bytes and a USTACK record of 56 + 8 * (depth + LFR_USTACK_WORDS).
 */
#ifndef LFR_LIB_RINGSIZE_H
#define LFR_LIB_RINGSIZE_H

#include <stdbool.h>
#include <stdint.h>

/* Seconds of worst-case data each ring holds by default. */
#define LFR_RING_BUDGET_S 0.5
/* Bytes all rings together may take by default. */
#define LFR_RING_BUDGET_TOTAL (128ull << 20) /* half the module's default session cap */
/* Wake the reader once a ring holds this share (1/N) of its bytes. */
#define LFR_RING_WAKEUP_DIV 8

struct lfr_ring_size_in {
	uint64_t period_ns;  /* 0: from freq_hz */
	uint32_t freq_hz;    /* 0 with period_ns 0: LFR_DEFAULT_FREQ_HZ */
	uint32_t user_depth; /* 0: LFR_DEFAULT_USER_STACK_DEPTH */
	bool kernel_stack;
	uint32_t ncpus;     /* rings the session will have (0 counts as 1) */
	uint32_t page_size; /* 0: 4096 */
	uint64_t budget;    /* bytes all rings may take (locked memory); 0: LFR_RING_BUDGET_TOTAL */
};

struct lfr_ring_size {
	uint32_t ring_pages;   /* power of two, LFR_MIN_RING_PAGES .. LFR_MAX_RING_PAGES */
	uint32_t wakeup_bytes; /* poll() wakes the reader at this fill */
	uint64_t rec_bytes;    /* worst-case bytes per tick */
	double rate_hz;        /* ticks per second and CPU, at most */
	double seconds;        /* seconds of worst-case data one ring holds */
	bool capped;           /* the memory budget or LFR_MAX_RING_PAGES made it smaller */
};

void lfr_ring_size_choose(const struct lfr_ring_size_in *in, struct lfr_ring_size *out);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * An LD_PRELOAD shim for tests/report/oom: with LFR_FAIL_ALLOC=N in the environment, the Nth
 * allocation of the process (malloc, calloc, realloc, counted from 1) and every one after it fail
 * with ENOMEM, so that a run can be made to meet an out-of-memory at any point; with
 * LFR_FAIL_ALLOC_ONCE=N only the Nth fails (a transient shortage the program must not hide).
 * Without it, or before the Nth, the C library's own functions serve the call.  With
 * LFR_COUNT_ALLOC set it prints "allocations N" on stderr at exit: how many the run made.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_long calls;
static long fail_from = -1; /* -1: not read yet, 0: never */
static int fail_once;
/* dlsym may itself calloc before the real calloc is known: those few calls are served from here */
static _Alignas(16) char early[4096];
static size_t early_used;

static int failing(void)
{
	if (fail_from < 0) {
		const char *e = getenv("LFR_FAIL_ALLOC"), *once = getenv("LFR_FAIL_ALLOC_ONCE");

		fail_once = once != NULL;
		fail_from = once ? atol(once) : e ? atol(e) : 0;
	}
	long n = atomic_fetch_add(&calls, 1) + 1;

	if (fail_from > 0 && (fail_once ? n == fail_from : n >= fail_from)) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

__attribute__((destructor)) static void count_told(void)
{
	if (getenv("LFR_COUNT_ALLOC"))
		fprintf(stderr, "allocations %ld\n", (long)atomic_load(&calls));
}

void *malloc(size_t n)
{
	static void *(*real)(size_t);

	if (!real)
		real = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	return failing() ? NULL : real(n);
}

void *realloc(void *p, size_t n)
{
	static void *(*real)(void *, size_t);

	if (!real)
		real = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	return failing() ? NULL : real(p, n);
}

void *calloc(size_t a, size_t b)
{
	static void *(*real)(size_t, size_t);
	static int looking;

	if (!real) {
		size_t n = (a * b + 15) & ~(size_t)15;

		if (looking) {
			if (early_used + n > sizeof(early))
				return NULL;
			early_used += n;
			return early + early_used - n;
		}
		looking = 1;
		real = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	}
	return failing() ? NULL : real(a, b);
}

void free(void *p)
{
	static void (*real)(void *);

	if ((char *)p >= early && (char *)p < early + sizeof(early))
		return;
	if (!real)
		real = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real(p);
}

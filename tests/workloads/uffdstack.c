// SPDX-License-Identifier: GPL-2.0
/*
 * uffdstack: a thread whose frame pointer leads into memory that nobody will ever fault in.
 *
 * A region is registered with userfaultfd for missing pages and never touched, and nobody reads
 * the userfaultfd: any page fault there waits forever.  A worker thread (its stack mapped after
 * the region, so below it) spins with its frame pointer aimed into the region, as a hostile or
 * corrupted program could.  A profiler that reads user memory with page faults enabled gets stuck
 * in its stack walk; lfr must end that walk as a fault and go on.
 *
 *   uffdstack SECONDS      prints "uffdstack pid=PID tid=TID region=ADDR" once the worker spins,
 *                          "done" at the end (after SECONDS, or as soon as SIGUSR1 comes: a
 *                          test ends it when it is done, however slow the machine); exits 3
 *                          when userfaultfd is not available.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define REGION (64 * 1024)

static char *region;
static volatile int stop;

static void *worker(void *arg)
{
	(void)arg;
	printf("uffdstack pid=%d tid=%d region=%p\n", (int)getpid(), (int)gettid(), (void *)region);
	fflush(stdout);
	/* the frame pointer into the untouched region, above this stack; no call in the loop */
#if defined(__aarch64__)
	__asm__ volatile("stp x29, x30, [sp, #-16]!\n\t"
	                 "mov x29, %0\n\t"
	                 "1: ldr w9, [%1]\n\t"
	                 "cbz w9, 1b\n\t"
	                 "ldp x29, x30, [sp], #16"
	                 :
	                 : "r"(region + REGION / 2), "r"(&stop)
	                 : "memory", "x9");
#else
	__asm__ volatile("push %%rbp\n\t"
	                 "mov %0, %%rbp\n\t"
	                 "1: cmpl $0, (%1)\n\t"
	                 "je 1b\n\t"
	                 "pop %%rbp"
	                 :
	                 : "r"(region + REGION / 2), "r"(&stop)
	                 : "memory", "cc");
#endif
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int secs = argc > 1 ? (unsigned int)atoi(argv[1]) : 3;
	struct uffdio_api api = {.api = UFFD_API};
	struct uffdio_register reg;
	struct timespec limit = {.tv_sec = 0};
	pthread_t t;
	sigset_t usr1;
	int uffd;

	/* blocked in every thread: sigtimedwait() below takes it */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) < 0) {
		perror("uffdstack: userfaultfd");
		return 3;
	}
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		perror("uffdstack: mmap");
		return 1;
	}
	reg.range.start = (unsigned long)region;
	reg.range.len = REGION;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0) {
		perror("uffdstack: UFFDIO_REGISTER");
		return 3;
	}
	if (pthread_create(&t, NULL, worker, NULL)) {
		perror("uffdstack: pthread_create");
		return 1;
	}
	limit.tv_sec = secs;
	while (sigtimedwait(&usr1, NULL, &limit) < 0 && errno == EINTR)
		;
	stop = 1;
	pthread_join(t, NULL);
	printf("done\n");
	return 0;
}

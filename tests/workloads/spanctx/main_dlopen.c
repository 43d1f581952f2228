// SPDX-License-Identifier: GPL-2.0
/*
 * spanctx-dlopen: the threads of ctx.c from libspanctx.so loaded with dlopen once the program
 * runs, so that otel_thread_ctx_v1 lies in a TLS block of its own, found through each thread's
 * DTV (the library is looked for beside the program).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	int (*run)(int, char **);
	char *slash;
	void *lib;

	if (n <= 0 || !(slash = memrchr(path, '/', (size_t)n))) {
		perror("spanctx-dlopen: /proc/self/exe");
		return 1;
	}
	strcpy(slash + 1, "libspanctx.so");
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "spanctx-dlopen: %s\n", dlerror());
		return 1;
	}
	run = (int (*)(int, char **))dlsym(lib, "spanctx_run");
	if (!run) {
		fprintf(stderr, "spanctx-dlopen: %s\n", dlerror());
		return 1;
	}
	return run(argc, argv);
}

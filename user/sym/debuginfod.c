// SPDX-License-Identifier: GPL-2.0
/*
 * Debug files by build-id from the debuginfod servers of DEBUGINFOD_URLS, through elfutils'
 * libdebuginfod: the last place the symbolizer looks, and only when asked (LFR_SYM_DEBUGINFOD).
 * libdebuginfod keeps its own cache (DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client)
 * and honours DEBUGINFOD_TIMEOUT; lfr sets the latter to LFR_DEBUGINFOD_TIMEOUT_S when the user
 * did not.  After a failure other than "not there" (server down, timeout), no other object is
 * asked for: one unreachable server costs one timeout, not one per object.
 *
 * The library is opened (dlopen) at the first query, not linked: it brings libcurl and some thirty
 * more libraries (TLS, Kerberos, LDAP...), whose loading and relocation was most of what every
 * `lfr` command cost to start (0.8 s of an emulated debug kernel's time for `lfr status`), and
 * which no command needs before it asks a server.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/internal.h"

#ifdef LFR_HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#ifdef LFR_HAVE_DEBUGINFOD
/* The library's soname (its ABI) and the three calls lfr makes. */
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"
struct debuginfod_calls {
	void *lib;
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*end)(debuginfod_client *);
};
#endif

struct sym_debuginfod {
#ifdef LFR_HAVE_DEBUGINFOD
	struct debuginfod_calls calls;
	debuginfod_client *client;
#endif
	int down;      /* the error that stopped every further query, or 0 */
	char why[160]; /* the last failure, for lfr_sym_object.unnamed_why */
};

const char *sym_debuginfod_why(const struct sym_debuginfod *d)
{
	return d ? d->why : "";
}

void sym_debuginfod_free(struct sym_debuginfod *d)
{
	if (!d)
		return;
#ifdef LFR_HAVE_DEBUGINFOD
	if (d->client)
		d->calls.end(d->client);
	if (d->calls.lib)
		dlclose(d->calls.lib);
#endif
	free(d);
}

#ifdef LFR_HAVE_DEBUGINFOD
/* Opens the library and finds its calls: 0, or -1 with d->down and d->why set. */
static int open_library(struct sym_debuginfod *d)
{
	struct debuginfod_calls *c = &d->calls;

	if (!c->lib)
		c->lib = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!c->lib) {
		d->down = ENOSYS;
		snprintf(d->why, sizeof(d->why),
		         "%s cannot be loaded: install libdebuginfod1 to ask the "
		         "debuginfod servers",
		         DEBUGINFOD_SONAME);
		return -1;
	}
	/* POSIX's way from a data pointer to a function pointer: copy the bytes */
	void *b = dlsym(c->lib, "debuginfod_begin"),
	     *f = dlsym(c->lib, "debuginfod_find_debuginfo"), *e = dlsym(c->lib, "debuginfod_end");

	if (!b || !f || !e) {
		d->down = ENOSYS;
		snprintf(d->why, sizeof(d->why),
		         "%s lacks debuginfod_begin, _find_debuginfo or _end", DEBUGINFOD_SONAME);
		return -1;
	}
	memcpy(&c->begin, &b, sizeof(b));
	memcpy(&c->find_debuginfo, &f, sizeof(f));
	memcpy(&c->end, &e, sizeof(e));
	return 0;
}
#endif

int sym_debuginfod_fetch(struct sym_debuginfod **dp, const uint8_t *bid, size_t len, char *path,
                         size_t cap)
{
	struct sym_debuginfod *d = *dp;
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		*dp = d;
	}
	if (!len) {
		snprintf(d->why, sizeof(d->why), "no build-id to ask the debuginfod servers for");
		return -ENOENT;
	}
	if (!urls || !*urls) {
		snprintf(d->why, sizeof(d->why),
		         "no debug file found locally, DEBUGINFOD_URLS unset");
		return -ENOENT;
	}
#ifdef LFR_HAVE_DEBUGINFOD
	if (d->down) {
		snprintf(d->why, sizeof(d->why),
		         "debuginfod servers not asked after an earlier "
		         "failure (%s)",
		         strerror(d->down));
		return -d->down;
	}
	if (!d->client) {
		char t[16];

		if (open_library(d))
			return -d->down;
		snprintf(t, sizeof(t), "%d", LFR_DEBUGINFOD_TIMEOUT_S);
		setenv("DEBUGINFOD_TIMEOUT", t, 0);
		d->client = d->calls.begin();
		if (!d->client) {
			d->down = ENOMEM;
			snprintf(d->why, sizeof(d->why), "libdebuginfod could not start a client");
			return -ENOMEM;
		}
	}
	char *got = NULL;
	int fd = d->calls.find_debuginfo(d->client, bid, (int)len, &got);

	if (fd < 0) {
		if (fd == -ENOENT) {
			snprintf(d->why, sizeof(d->why),
			         "no debug file on the debuginfod servers (404)");
		} else {
			d->down = -fd;
			snprintf(d->why, sizeof(d->why), "debuginfod servers failed: %s",
			         strerror(-fd));
		}
		free(got);
		return fd;
	}
	close(fd);
	if (!got || snprintf(path, cap, "%s", got) >= (int)cap) {
		free(got);
		snprintf(d->why, sizeof(d->why), "debuginfod cache path too long");
		return -ENAMETOOLONG;
	}
	free(got);
	d->why[0] = '\0';
	return 0;
#else
	(void)path;
	(void)cap;
	snprintf(d->why, sizeof(d->why), "lfr built without libdebuginfod");
	return -ENOSYS;
#endif
}

// SPDX-License-Identifier: GPL-2.0
/* liblfr errors: the kernel's message kept verbatim, plus a hint of what to do. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "lib/error.h"

void lfr_error_clear(struct lfr_error *e)
{
	memset(e, 0, sizeof(*e));
	e->bad_attr = -1;
	e->missing_attr = -1;
}

void lfr_error_set(struct lfr_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->what, sizeof(e->what), fmt, ap);
	va_end(ap);
}

static const char *hint_for(int code)
{
	switch (code) {
	case EPERM:
	case EACCES:
		return "lfr needs CAP_PERFMON or CAP_SYS_ADMIN: run it as root, or grant the "
		       "capability (e.g. 'setcap cap_perfmon+ep $(command -v lfr)')";
	case EBUSY:
		return "the most sessions that can run at once (8) are running, or 8 stopped ones "
		       "are still draining: 'lfr status' lists them and 'lfr stop -S ID' ends one "
		       "(a draining one's queued walks are then given up)";
	case ENOSPC:
		return "the sessions lfr.ko keeps hold the most memory it allows them together: "
		       "'lfr status' lists them and 'lfr stop -S ID' ends one, or raise "
		       "/sys/module/lfr/parameters/max_total_mb";
	case ESRCH:
		return "the process or thread is gone or never existed: check the pid/tid with "
		       "'ps -eLf'";
	case EINVAL:
	case ERANGE:
		return "an option is out of range or malformed: see the message above and "
		       "'lfr COMMAND --help'";
	case ENOMEM:
		return "the kernel could not allocate the rings or the thread table: ask for "
		       "fewer ring pages or threads";
	case EOPNOTSUPP:
	case EPROTONOSUPPORT:
		return "the lfr tools and the loaded lfr.ko speak different ABI versions: install "
		       "matching versions (modinfo lfr; lfr --version)";
	case ENOENT:
	case ENODEV:
		return "the lfr module is not loaded: load it with 'modprobe lfr' (or "
		       "'insmod lfr.ko' from a build tree)";
	default:
		return "";
	}
}

/* The module's reason for refusing a session to a user who holds the capability. */
#define NOT_THE_OWNER "only the user who started the session"
/* Its reasons for refusing what a user without it asked (kmod/permission.c). */
#define UNPRIVILEGED "without CAP_PERFMON"
#define KERNEL_STACKS "kernel stacks"
#define USER_MEMORY "your sessions would hold more memory"

void lfr_error_default_hint(struct lfr_error *e)
{
	if (e->hint[0] || !e->code)
		return;
	if (e->code == EPERM && (!strncmp(e->msg, UNPRIVILEGED, strlen(UNPRIVILEGED)) ||
	                         !strncmp(e->msg, KERNEL_STACKS, strlen(KERNEL_STACKS)))) {
		snprintf(
		    e->hint, sizeof(e->hint),
		    "without CAP_PERFMON you may record the cgroups delegated to you, your own "
		    "threads in them: lfr record -G PATH of a cgroup whose cgroup.procs you may "
		    "write; kernel stacks need kernel.perf_event_paranoid <= 1 (see "
		    "Documentation/install.md)");
		return;
	}
	if (e->code == ENOMEM && !strncmp(e->msg, USER_MEMORY, strlen(USER_MEMORY))) {
		snprintf(
		    e->hint, sizeof(e->hint),
		    "ask for fewer ring pages (--ring-pages), threads (--max-threads) or unwind "
		    "memory (--unwind-max), stop another of your sessions, or have an "
		    "administrator raise /sys/module/lfr/parameters/user_max_mb");
		return;
	}
	if (e->code == EPERM && !strncmp(e->msg, NOT_THE_OWNER, strlen(NOT_THE_OWNER))) {
		snprintf(e->hint, sizeof(e->hint),
		         "the session belongs to another user: end it as that user, or as root "
		         "(CAP_SYS_ADMIN)");
		return;
	}
	snprintf(e->hint, sizeof(e->hint), "%s", hint_for(e->code));
}

void lfr_error_print(FILE *out, const char *prog, const struct lfr_error *e)
{
	fprintf(out, "%s: %s", prog, e->what[0] ? e->what : "error");
	if (e->msg[0])
		fprintf(out, ": %s", e->msg);
	if (e->code)
		fprintf(out, " (%s)", strerror(e->code));
	if (e->attr_name[0])
		fprintf(out, " [attribute %s]", e->attr_name);
	else if (e->bad_attr >= 0)
		fprintf(out, " [attribute %d]", e->bad_attr);
	if (e->missing_attr >= 0)
		fprintf(out, " [missing attribute %d]", e->missing_attr);
	fputc('\n', out);
	if (e->hint[0])
		fprintf(out, "  hint: %s\n", e->hint);
}

// SPDX-License-Identifier: GPL-2.0
/* lfr top's session of its own: lfr record --repository run as its child; see top.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/top.h"

/*
 * Whether a session of its own has given no sample yet (its first chunk is empty until its first
 * flush, a second or more after the start): no refresh to show or count.
 */
bool top_session_waiting(struct top_view *v, bool ended)
{
	if (v->rep && v->rep->ntimed)
		v->sampled = true;
	return v->child > 0 && !ended && !v->sampled;
}

/* Whether the session's recorder ended (reaped here). */
bool top_session_ended(struct top_view *v)
{
	if (v->child > 0 && !v->child_done &&
	    waitpid(v->child, &v->child_status, WNOHANG) == v->child)
		v->child_done = true;
	return v->child > 0 && v->child_done;
}

int top_session_exit(const struct top_view *v)
{
	if (WIFEXITED(v->child_status))
		return WEXITSTATUS(v->child_status);
	return LFR_EXIT_FAILURE;
}

/*
 * Starts the session: `lfr record --repository DIR` of this very program with the targets given
 * (lfr record's runner and recorder, its stack walks and symbols), its messages into a log.  The
 * recorder ends with lfr top however lfr top ends: a SIGTERM when lfr top is gone (killed with
 * SIGKILL too), its Ctrl-C's way out (it stops its session and writes its last chunk).
 */
int top_session_start(struct top_view *v, char **args)
{
	pid_t parent = getpid();

	v->child = fork();
	if (v->child < 0) {
		fprintf(stderr, "%s: fork: %s\n", TOP_PROG, strerror(errno));
		return -1;
	}
	if (v->child == 0) {
		/* kept across the exec; a parent gone before it was set is seen by getppid() */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(LFR_EXIT_FAILURE);
		int fd = open(v->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0 || in < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || dup2(in, 0) < 0)
			_exit(LFR_EXIT_IO);
		signal(SIGPIPE, SIG_DFL);
		execv("/proc/self/exe", args);
		fprintf(stderr, "%s: cannot run lfr record: %s\n", TOP_PROG, strerror(errno));
		_exit(LFR_EXIT_FAILURE);
	}
	return 0;
}

/* Ends the session (Ctrl-C's way: it drains and writes its last chunk) and waits for it. */
void top_session_stop(struct top_view *v)
{
	if (v->child <= 0 || v->child_done)
		return;
	kill(v->child, SIGINT);
	while (waitpid(v->child, &v->child_status, 0) < 0 && errno == EINTR)
		;
	v->child_done = true;
}

/* The session's log on stderr (after the screen is gone). */
void top_session_log(const struct top_view *v)
{
	char buf[4096];
	FILE *f = fopen(v->log, "r");

	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f))
		fputs(buf, stderr);
	fclose(f);
}

/* Removes the files of a directory lfr top made, then the directory. */
void top_remove_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	rmdir(path);
}

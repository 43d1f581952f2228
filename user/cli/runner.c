// SPDX-License-Identifier: GPL-2.0
/* One sampling session from start to drained stop; see runner.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "cli/runner.h"
#include "lib/clock.h"

volatile sig_atomic_t cli_runner_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	cli_runner_interrupted = 1;
}

double cli_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Forks CMD, held on a pipe until the session samples it; *GO_FD releases it.  *EXEC_FD reads
 * the errno of an exec that failed, or end-of-file once CMD runs (it is close-on-exec).
 */
static int spawn(struct cli_runner *r, char **cmd, int *go_fd, int *exec_fd)
{
	int fds[2], efds[2];

	if (pipe2(fds, O_CLOEXEC) < 0 || pipe2(efds, O_CLOEXEC) < 0) {
		fprintf(stderr, "%s: pipe: %s\n", r->prog, strerror(errno));
		return -1;
	}
	r->child = fork();
	if (r->child < 0) {
		fprintf(stderr, "%s: fork: %s\n", r->prog, strerror(errno));
		return -1;
	}
	if (r->child == 0) {
		char c;
		int err;

		close(fds[1]);
		close(efds[0]);
		signal(SIGINT, SIG_DFL);
		/* EOF instead of the go byte: the session never started */
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		if (r->thp_restore)
			prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(efds[1], &err, sizeof(err)) != sizeof(err))
			fprintf(stderr, "%s: cannot run '%s': %s\n", r->prog, cmd[0],
			        strerror(err));
		_exit(127);
	}
	close(fds[0]);
	close(efds[1]);
	*go_fd = fds[1];
	*exec_fd = efds[0];
	return 0;
}

/*
 * Releases the held command and waits until it runs: 0, or LFR_EXIT_TARGET when it could not be
 * run (then nothing of it was recorded: its exec failed in the child).
 */
static int release(struct cli_runner *r, char **cmd, int go_fd, int exec_fd)
{
	ssize_t n;
	int err = 0;

	if (write(go_fd, "g", 1) != 1)
		fprintf(stderr, "%s: could not release the command: %s\n", r->prog,
		        strerror(errno));
	close(go_fd);
	do
		n = read(exec_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(exec_fd);
	if (n != sizeof(err))
		return 0; /* closed by the exec */
	fprintf(stderr, "%s: cannot run '%s': %s\n  hint: %s\n", r->prog, cmd[0], strerror(err),
	        err == ENOENT ? "check the command's name and PATH"
	                      : "check that the command is an executable file");
	return LFR_EXIT_TARGET;
}

static bool child_done(struct cli_runner *r)
{
	if (r->child <= 0)
		return false;
	if (waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
		r->child = -1;
		return true;
	}
	return false;
}

bool cli_process_gone(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the state follows the command name, which may hold spaces */
	return p && (p[2] == 'Z' || p[2] == 'X');
}

/* Every -p process has exited (a zombie its parent has not reaped counts as gone). */
static bool targets_gone(const struct cli_runner *r)
{
	if (!r->ntgids || r->child != 0 || r->ntids)
		return false;
	for (size_t i = 0; i < r->ntgids; i++)
		if (!cli_process_gone((pid_t)r->tgids[i]))
			return false;
	return true;
}

void cli_runner_small_pages(struct cli_runner *r)
{
	/* 0: THP allowed (the default); 1: already off, inherited, and left so for the command */
	if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 0)
		r->thp_restore = prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0;
}

int cli_runner_start(struct cli_runner *r, char **cmd)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct lfr_error e;
	int go_fd = -1, exec_fd = -1, ret;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (lfr_ctl_open(&r->ctl, &e) < 0)
		return cli_fail(r->prog, &e);
	if (cmd && spawn(r, cmd, &go_fd, &exec_fd) < 0)
		return LFR_EXIT_FAILURE;
	if (r->child > 0) {
		uint32_t *t = realloc(r->tgids, (r->ntgids + 1) * sizeof(*t));

		if (!t)
			return LFR_EXIT_FAILURE;
		r->tgids = t;
		r->tgids[r->ntgids++] = (uint32_t)r->child;
	}
	r->start.tgids = r->tgids;
	r->start.ntgids = r->ntgids;
	r->start.tids = r->tids;
	r->start.ntids = r->ntids;
	/* everything the command starts (fork, clone, exec) is recorded from its first instruction
	 */
	if (cmd)
		r->start.follow_children = true;
	ret = lfr_ctl_start(&r->ctl, &r->start, &r->info, &e);
	if (ret < 0 && r->start.no_unwind && e.code == EINVAL &&
	    e.bad_attr == LFR_A_UNWIND_MAX_KB) {
		/* a module without unwind tables walks frame pointers only anyway */
		r->start.no_unwind = false;
		ret = lfr_ctl_start(&r->ctl, &r->start, &r->info, &e);
	}
	if (ret < 0) {
		if (go_fd >= 0) {
			close(go_fd); /* the held command exits without running */
			close(exec_fd);
		}
		return cli_fail(r->prog, &e);
	}
	r->started = true;
	if (e.warning[0])
		fprintf(stderr, "%s: warning from the module: %s\n", r->prog, e.warning);
	if (r->start.detached)
		return 0; /* it runs until lfr stop: nobody here reads its rings */
	if (lfr_rings_open(&r->rings, &r->info, &e) < 0) {
		ret = cli_fail(r->prog, &e);
		if (go_fd >= 0) {
			close(go_fd);
			close(exec_fd);
		}
		return ret;
	}
	r->rings_open = true;
	if (r->on_started)
		r->on_started(r, cmd);
	if (go_fd >= 0)
		return release(r, cmd, go_fd, exec_fd);
	return 0;
}

static int read_rings(struct cli_runner *r)
{
	struct lfr_error e;

	/* the records' clock: what was written before it is in the rings */
	r->read_ns = lfr_kernel_mono_ns();
	if (lfr_rings_read(&r->rings, r->on_record, r->arg, &e) < 0)
		return cli_fail(r->prog, &e);
	if (r->on_wake)
		r->on_wake(r);
	return 0;
}

int cli_runner_loop(struct cli_runner *r)
{
	double end = r->duration > 0 ? cli_now() + r->duration : 0;
	double next_tick = cli_now() + r->tick_ms / 1000.0;
	int ret;

	while (!cli_runner_interrupted) {
		struct pollfd pfd[2] = {
		    {.fd = r->rings.fd, .events = POLLIN},
		    {.fd = r->monitor ? lfr_genl_fd(&r->monitor->genl) : -1, .events = POLLIN},
		};
		int timeout = r->tick_ms > 0 && r->tick_ms < 100 ? r->tick_ms : 100;
		bool hup;

		if (end > 0) {
			double left = end - cli_now();

			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR) {
			fprintf(stderr, "%s: poll: %s\n", r->prog, strerror(errno));
			return LFR_EXIT_FAILURE;
		}
		hup = pfd[0].revents & POLLHUP;
		if ((ret = read_rings(r)))
			return ret;
		if (r->on_tick && cli_now() >= next_tick) {
			r->on_tick(r);
			next_tick = cli_now() + r->tick_ms / 1000.0;
		}
		if (hup || child_done(r) || targets_gone(r))
			break; /* stopped from elsewhere, or nothing left to sample */
	}
	return 0;
}

int cli_runner_finish(struct cli_runner *r, struct lfr_status *st)
{
	double deadline = cli_now() + (double)r->drain_timeout_ms / 1000.0;
	bool abandoned = false;
	struct lfr_error e;
	int ret;

	memset(st, 0, sizeof(*st));
	if (lfr_ctl_stop(&r->ctl, r->info.id, NULL, &e) < 0 && e.code != ENOENT)
		return cli_fail(r->prog, &e);
	for (;;) {
		if ((ret = read_rings(r)))
			return ret;
		if (lfr_ctl_status(&r->ctl, r->info.id, st, &e) < 0)
			return cli_fail(r->prog, &e);
		if (st->info.state == LFR_STATE_STOPPED || st->info.state == LFR_STATE_IDLE)
			break;
		if (cli_now() > deadline && !abandoned) {
			/*
			 * The threads of the walks still queued have stayed in the kernel since
			 * their tick: give those walks up (the module counts their ticks lost);
			 * the walks running now still commit.
			 */
			fprintf(stderr,
			        "%s: %" PRIu64 " stack walks still pending after %" PRIu64
			        " ms (threads blocked in system calls since their\n"
			        "  tick): given up, their ticks are counted lost as 'abandoned'. "
			        "--drain-timeout MS waits longer\n",
			        r->prog, (uint64_t)st->total.v[LFR_CTR_WORKS_PENDING],
			        r->drain_timeout_ms);
			if (lfr_ctl_abandon(&r->ctl, r->info.id, NULL, &e) < 0 && e.code != ENOENT)
				return cli_fail(r->prog, &e);
			abandoned = true;
			deadline = cli_now() + 5.0;
		} else if (cli_now() > deadline) {
			/* the rings hold what was committed up to that status */
			return read_rings(r);
		}
		lfr_status_free(st);
		lfr_rings_poll(&r->rings, 20, &e);
	}
	/* STOPPED: everything the session wrote is in the rings now */
	return read_rings(r);
}

void cli_runner_close(struct cli_runner *r)
{
	if (r->child > 0) {
		kill(r->child, SIGTERM);
		waitpid(r->child, &r->child_status, 0);
		r->child = -1;
	}
	if (r->rings_open)
		lfr_rings_close(&r->rings);
	r->rings_open = false;
	lfr_ctl_close(&r->ctl);
	free(r->tgids);
	free(r->tids);
	r->tgids = r->tids = NULL;
}

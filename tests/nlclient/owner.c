// SPDX-License-Identifier: GPL-2.0
/*
 * lfr-nl owner: who may end a session.  Another user with CAP_PERFMON may read a session's
 * STATUS but not STOP it, with or without ABANDON, by its id or as the only running session;
 * it stops its own.  Root's session is still running afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/lfr.h>

#include "attrs.h"
#include "checks.h"
#include "nl.h"

static int fails;

static void expect(int ok, const char *what, int got)
{
	printf("lfr-nl: %s %s (%d)\n", ok ? "ok:" : "FAILED:", what, got);
	if (!ok)
		fails++;
}

/* START sampling this process at 10 Hz; the session id, 0 on failure. */
static uint32_t start_self(struct nlc *c)
{
	struct nlc_answer a;
	struct abuf b = {.len = 0};
	size_t t;

	abuf_u32(&b, LFR_A_FREQ_HZ, 10);
	t = abuf_nest_start(&b, LFR_A_TARGETS);
	abuf_u32(&b, LFR_TARGET_A_TGID, (uint32_t)getpid());
	abuf_nest_end(&b, t);
	if (nlc_request(c, LFR_CMD_START, b.b, b.len, NLM_F_REQUEST | NLM_F_ACK, &a, 10000) ||
	    a.error || !a.id)
		return 0;
	return a.id;
}

static int other_user(uint32_t root_sid)
{
	struct nlc c;
	uint32_t own;
	int r;

	if (become_other_user() < 0 || nlc_open(&c) < 0 || !c.family) {
		printf("lfr-nl: FAILED: cannot become uid 65534 with CAP_PERFMON: %s\n",
		       strerror(errno));
		return 1;
	}
	r = nlc_status(&c, root_sid, NULL);
	expect(r == LFR_STATE_RUNNING, "uid 65534 with CAP_PERFMON reads root's STATUS", r);
	r = nlc_stop(&c, root_sid, false);
	expect(r == -EPERM, "uid 65534 cannot STOP root's session", r);
	r = nlc_stop(&c, root_sid, true);
	expect(r == -EPERM, "uid 65534 cannot STOP with ABANDON root's session", r);
	r = nlc_stop(&c, 0, true);
	expect(r == -EPERM, "uid 65534 cannot STOP root's session as the only one running", r);
	own = start_self(&c);
	expect(own != 0, "uid 65534 starts a session", (int)own);
	if (own) {
		r = nlc_stop(&c, own, true);
		expect(r == 0, "uid 65534 stops its own session", r);
	}
	nlc_close(&c);
	return fails ? 1 : 0;
}

int check_owner(void)
{
	struct nlc c;
	uint32_t sid;
	pid_t child;
	int r, status;

	if (nlc_open(&c) < 0 || !c.family)
		return 2;
	sid = start_self(&c);
	if (!sid) {
		printf("lfr-nl: FAILED: root's START\n");
		return 1;
	}
	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(other_user(sid));
	waitpid(child, &status, 0);
	expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the other user's checks", status);
	r = nlc_status(&c, sid, NULL);
	expect(r == LFR_STATE_RUNNING, "root's session is still running", r);
	r = nlc_stop(&c, sid, true);
	expect(r == 0, "root stops its session", r);
	nlc_close(&c);
	return fails ? 1 : 0;
}

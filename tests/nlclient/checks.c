// SPDX-License-Identifier: GPL-2.0
/*
 * lfr-nl: targeted checks of the kernel's behaviour that liblfr cannot provoke: a START whose
 * reply cannot be delivered, joining the event group, and what /dev/lfr lets a reader map.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/lfr.h>
#include <netlink/genl/ctrl.h>

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

static int start_pages(struct nlc *c, struct nlc_answer *a, int ms, uint32_t pages)
{
	struct abuf b = {.len = 0};
	size_t t;

	abuf_u32(&b, LFR_A_FREQ_HZ, 10);
	if (pages)
		abuf_u32(&b, LFR_A_RING_PAGES, pages);
	t = abuf_nest_start(&b, LFR_A_TARGETS);
	abuf_u32(&b, LFR_TARGET_A_TGID, (uint32_t)getpid());
	abuf_nest_end(&b, t);
	return nlc_request(c, LFR_CMD_START, b.b, b.len, NLM_F_REQUEST | NLM_F_ACK, a, ms);
}

static int start_self(struct nlc *c, struct nlc_answer *a, int ms)
{
	return start_pages(c, a, ms, 0);
}

/* Reads and drops everything queued on C; how many messages carried SEQ. */
static int drain(struct nlc *c, uint32_t seq)
{
	struct pollfd p = {.fd = nl_socket_get_fd(c->sk), .events = POLLIN};
	int seen = 0;

	while (poll(&p, 1, 200) > 0) {
		struct sockaddr_nl addr;
		unsigned char *buf = NULL;
		struct nlmsghdr *h;
		int n = nl_recv(c->sk, &addr, &buf, NULL);

		for (h = (struct nlmsghdr *)buf; n > 0 && nlmsg_ok(h, n); h = nlmsg_next(h, &n))
			seen += h->nlmsg_seq == seq;
		free(buf);
	}
	return seen;
}

/*
 * START whose reply cannot be delivered: the receive buffer is filled with STATUS replies first.
 * The sender never learns the session id, so the session must not keep running.
 */
int check_overrun(void)
{
	struct nlc c, q;
	struct nlc_answer a;
	int rcv = 1, i, st, seen;
	uint32_t sid = 0, start_seq;

	if (nlc_open(&c) < 0 || !c.family || nlc_open(&q) < 0) {
		fprintf(stderr, "lfr-nl: no lfr family\n");
		return 2;
	}
	setsockopt(nl_socket_get_fd(c.sk), SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	for (i = 0; i < 16; i++)
		nlc_request(&c, LFR_CMD_STATUS, NULL, 0, NLM_F_REQUEST | NLM_F_ACK, &a, -1);
	start_self(&c, &a, -1);
	start_seq = c.seq;
	seen = drain(&c, start_seq);
	expect(seen == 0, "the START reply was not delivered (receive buffer full)", seen);
	st = nlc_status(&q, 0, &sid);
	printf("lfr-nl: the undelivered START's session %u is in state %d\n", sid, st);
	expect(st == LFR_STATE_DRAINING || st == LFR_STATE_STOPPED,
	       "a START whose reply was lost leaves no session running", st);
	if (st == LFR_STATE_RUNNING)
		nlc_stop(&q, sid, true);
	nlc_close(&c);
	nlc_close(&q);
	return fails ? 1 : 0;
}

/* Joins the event group: 0 when joined, 13 when refused with EPERM. */
int check_listen(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int grp, r;

	if (!sk || genl_connect(sk) < 0)
		return 2;
	grp = genl_ctrl_resolve_grp(sk, LFR_GENL_NAME, LFR_GENL_MCGRP);
	if (grp < 0) {
		fprintf(stderr, "lfr-nl: no group %s: %s\n", LFR_GENL_MCGRP, nl_geterror(grp));
		return 2;
	}
	r = nl_socket_add_membership(sk, grp);
	printf("lfr-nl: uid %d joining group %s (%d): %s\n", (int)getuid(), LFR_GENL_MCGRP, grp,
	       r ? nl_geterror(r) : "joined");
	nl_socket_free(sk);
	if (!r)
		return 0;
	return r == -NLE_PERM ? 13 : 1;
}

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	siglongjmp(bus_jmp, sig);
}

/* Whether writing one byte at P faults. */
static int write_faults(volatile unsigned char *p)
{
	struct sigaction sa = {.sa_handler = on_bus}, old_bus, old_segv;
	int sig;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(bus_jmp, 1);
	if (!sig)
		*p = *p;
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

static int try_map(int fd, size_t len, int flags, uint64_t off, void **out)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, (off_t)off);

	if (p == MAP_FAILED)
		return -errno;
	if (out)
		*out = p;
	else
		munmap(p, len);
	return 0;
}

/* Keeps only CAP_PERFMON and CAP_DAC_OVERRIDE (to open the 0600 node) as uid/gid 65534. */
int become_other_user(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (prctl(PR_SET_KEEPCAPS, 1) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -1;
	memset(d, 0, sizeof(d));
	d[0].permitted = d[0].effective = 1u << CAP_DAC_OVERRIDE;
	d[CAP_PERFMON / 32].permitted |= 1u << (CAP_PERFMON % 32);
	d[CAP_PERFMON / 32].effective |= 1u << (CAP_PERFMON % 32);
	return (int)syscall(SYS_capset, &h, d);
}

/* As another user with CAP_PERFMON: root's session is refused, its own is allowed. */
static int other_user(uint32_t root_sid, size_t len)
{
	struct nlc c;
	struct nlc_answer a;
	int fd, r;

	if (become_other_user() < 0) {
		printf("lfr-nl: FAILED: cannot become uid 65534 with CAP_PERFMON: %s\n",
		       strerror(errno));
		return 1;
	}
	fd = open(LFR_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	expect(fd >= 0, "uid 65534 with CAP_PERFMON opens /dev/lfr", fd < 0 ? -errno : 0);
	if (fd < 0)
		return 1;
	r = try_map(fd, len, MAP_SHARED, LFR_MMAP_OFFSET((uint64_t)root_sid, 0), NULL);
	expect(r == -EACCES, "uid 65534 cannot map a session root started", r);
	close(fd);
	/* its own session: START as this user, then map it */
	if (nlc_open(&c) < 0 || !c.family)
		return 1;
	r = start_self(&c, &a, 10000);
	expect(r == 0 && !a.error && a.has_msg, "uid 65534 with CAP_PERFMON starts a session",
	       r ? r : -a.error);
	fd = open(LFR_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && a.has_msg) {
		r = try_map(fd, len, MAP_SHARED, LFR_MMAP_OFFSET((uint64_t)a.id, 0), NULL);
		expect(r == 0, "uid 65534 maps the session it started", r);
	}
	if (a.has_msg)
		nlc_stop(&c, a.id, true);
	if (fd >= 0)
		close(fd);
	nlc_close(&c);
	return fails ? 1 : 0;
}

/* What /dev/lfr maps, and for whom. */
int check_mmap(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct nlc c;
	struct nlc_answer a;
	struct lfr_ring_ctrl *ctrl;
	unsigned char *p;
	size_t len;
	uint64_t off;
	int fd, r, status;
	pid_t child;

	if (nlc_open(&c) < 0 || !c.family)
		return 2;
	r = start_self(&c, &a, 10000);
	if (r || a.error || !a.has_msg) {
		printf("lfr-nl: FAILED: START: %d %d\n", r, a.error);
		return 1;
	}
	len = (size_t)(1 + LFR_DEFAULT_RING_PAGES) * (size_t)pg;
	off = LFR_MMAP_OFFSET((uint64_t)a.id, 0);
	fd = open(LFR_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 1;
	expect(try_map(fd, len, MAP_SHARED, off + (uint64_t)pg, NULL) == -ENXIO,
	       "an offset inside a ring is refused", 0);
	r = try_map(fd, len, MAP_SHARED, LFR_MMAP_OFFSET((uint64_t)a.id, 4096), NULL);
	expect(r == -ENXIO, "an impossible CPU is refused", r);
	r = try_map(fd, len, MAP_SHARED, LFR_MMAP_OFFSET(65535ULL, 0), NULL);
	expect(r == -ENOENT, "an unknown session is refused", r);
	r = try_map(fd, len - (size_t)pg, MAP_SHARED, off, NULL);
	expect(r == -EINVAL, "a short mapping is refused", r);
	r = try_map(fd, len + (size_t)pg, MAP_SHARED, off, NULL);
	expect(r == -EINVAL, "a long mapping is refused", r);
	r = try_map(fd, len, MAP_PRIVATE, off, NULL);
	expect(r == -EINVAL, "a private mapping is refused", r);
	r = try_map(fd, len, MAP_SHARED, off, (void **)&p);
	expect(r == 0, "the ring maps", r);
	if (r == 0) {
		ctrl = (struct lfr_ring_ctrl *)p;
		expect(ctrl->magic == LFR_RING_MAGIC, "the control page is the ring's", 0);
		r = write_faults((volatile unsigned char *)&ctrl->tail);
		expect(r == 0, "ctrl->tail is writable", r);
		r = write_faults(p + pg);
		expect(r == SIGBUS, "the first data page is read-only", r);
		r = write_faults(p + len - 1);
		expect(r == SIGBUS, "the last data page is read-only", r);
		mprotect(p, len, PROT_READ | PROT_WRITE);
		r = write_faults(p + 2 * pg);
		expect(r == SIGBUS, "mprotect does not make data writable", r);
		r = write_faults((volatile unsigned char *)&ctrl->tail);
		expect(r == 0, "ctrl->tail is still writable after mprotect", r);
		munmap(p, len);
	}
	close(fd);
	/* stopped, root's session can still be mapped; the other user may now start one */
	nlc_stop(&c, a.id, true);
	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(other_user(a.id, len));
	waitpid(child, &status, 0);
	expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the other user's checks", status);
	nlc_close(&c);
	return fails ? 1 : 0;
}

/* START as uid 65534 with CAP_PERFMON, RLIMIT_MEMLOCK 0; ring pages PAGES; 0 or the errno. */
static int start_as_user(struct nlc *c, uint32_t pages)
{
	struct nlc_answer a;
	int r = start_pages(c, &a, 10000, pages);

	if (r)
		return -r;
	if (!a.error && a.has_msg)
		nlc_stop(c, a.id, true);
	return a.error;
}

/*
 * Ring memory is charged like perf's buffers: mlock_kb per online CPU for each user, then
 * RLIMIT_MEMLOCK (here 0) unless CAP_IPC_LOCK.  ALLOWED pages fit, TOO_MANY do not, and the
 * charge of a freed session is given back.
 */
int check_memlock(uint32_t allowed, uint32_t too_many)
{
	struct rlimit rl = {0, 0};
	struct nlc c;
	int r;

	if (become_other_user() < 0 || setrlimit(RLIMIT_MEMLOCK, &rl) < 0) {
		printf("lfr-nl: FAILED: cannot become uid 65534 with CAP_PERFMON: %s\n",
		       strerror(errno));
		return 1;
	}
	if (nlc_open(&c) < 0 || !c.family)
		return 2;
	r = start_as_user(&c, allowed);
	expect(r == 0, "a session within the locked-memory allowance starts", -r);
	r = start_as_user(&c, too_many);
	expect(r == EPERM, "a session beyond the allowance and RLIMIT_MEMLOCK is refused", -r);
	/* the first session is freed once its last reference (a notification) is gone */
	for (int i = 0; i < 50; i++) {
		r = start_as_user(&c, allowed);
		if (r != EPERM)
			break;
		usleep(100000);
	}
	expect(r == 0, "the charge of a freed session is given back", -r);
	nlc_close(&c);
	return fails ? 1 : 0;
}

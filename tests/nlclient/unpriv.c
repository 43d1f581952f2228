// SPDX-License-Identifier: GPL-2.0
/*
 * lfr-nl unpriv CGROUP ROOT_SESSION: run by a user without CAP_PERFMON whose delegated cgroup v2 is
 * CGROUP (a directory path), with the module parameter unprivileged set and root's session
 * ROOT_SESSION running.  Every way in that permission.c closes is tried by hand-built messages,
 * apart from liblfr: the whole system, a process, a cgroup by id, a cgroup.procs descriptor not
 * open for writing, a file that is not one, kernel stacks, off-CPU intervals and a sampling
 * latency without perf's consent or with a descriptor that is not a perf event, children
 * followed, a rate above user_max_freq_hz; root's session is invisible (STATUS, STOP,
 * UNWIND_ADD, CTX_ADD) and unmappable.  Then what is allowed: a session of CGROUP, mapped;
 * CTX_ADD of a process of another user refused; the second session of this user allowed, a third
 * refused (user_max_sessions 2).
 *
 * lfr-nl map SESSION [RING_PAGES]: maps CPU 0's ring of SESSION (of RING_PAGES data pages,
 * default 8) as the caller: exit 0 when it maps, 13 when refused with EACCES (another user's
 * session), 1 otherwise.
 *
 * lfr-nl privmap: as root, with unprivileged set: uid 65534 with CAP_PERFMON starts a session of
 * its own process (a privileged one), drops the capability, and may then not map it: a file
 * opened without CAP_PERFMON binds to sessions started without it only.
 *
 * lfr-nl netns-portid: as root: a session is owned by its START socket's port id in its network
 * namespace; a socket bound to the same port id in another network namespace closes, and the
 * session still runs.  Exit 0, 1 on failure, 2 when network namespaces are not available.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/netlink.h>

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

/* What a START adds besides its targets. */
enum {
	KERNEL = 1 << 0,
	OFFCPU = 1 << 1,
	LATENCY = 1 << 2,
	FAST = 1 << 3, /* 5000 Hz */
	FOLLOW = 1 << 4,
	NULLDEV = 1 << 5, /* a "perf event" descriptor that is /dev/null */
	CTX = 1 << 6,     /* thread contexts (LFR_A_THREAD_CTX) */
};

/* START with target attribute TYPE = VALUE (none when TYPE is 0) and FLAGS; the answer. */
static int start(struct nlc *c, uint16_t type, uint64_t value, unsigned int flags,
                 struct nlc_answer *a)
{
	struct abuf b = {.len = 0};
	int null = -1, r;
	size_t t;

	abuf_u32(&b, LFR_A_FREQ_HZ, flags & FAST ? 5000 : 99);
	abuf_u32(&b, LFR_A_RING_PAGES, 8);
	if (flags & KERNEL)
		abuf_put(&b, LFR_A_KERNEL_STACK, NULL, 0);
	if (flags & OFFCPU)
		abuf_u64(&b, LFR_A_OFFCPU_MIN_NS, LFR_DEFAULT_OFFCPU_MIN_NS);
	if (flags & LATENCY)
		abuf_u64(&b, LFR_A_LATENCY_MIN_NS, LFR_DEFAULT_LATENCY_MIN_NS);
	if (flags & CTX)
		abuf_put(&b, LFR_A_THREAD_CTX, NULL, 0);
	if (flags & NULLDEV) {
		null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		abuf_u32(&b, LFR_A_KERNEL_PROOF_FD, (uint32_t)null);
	}
	t = abuf_nest_start(&b, LFR_A_TARGETS);
	if (type == LFR_TARGET_A_SYSTEM || type == LFR_TARGET_A_FOLLOW_CHILDREN)
		abuf_put(&b, type, NULL, 0);
	else if (type == LFR_TARGET_A_CGROUP_ID)
		abuf_u64(&b, type, value);
	else if (type)
		abuf_u32(&b, type, (uint32_t)value);
	if (flags & FOLLOW)
		abuf_put(&b, LFR_TARGET_A_FOLLOW_CHILDREN, NULL, 0);
	abuf_nest_end(&b, t);
	r = nlc_request(c, LFR_CMD_START, b.b, b.len, NLM_F_REQUEST | NLM_F_ACK, a, 10000);
	if (null >= 0)
		close(null);
	return r < 0 ? r : -a->error;
}

/* CTX_ADD of pid for session sid (a made-up location: the check comes first). */
static int ctx_add(struct nlc *c, uint32_t sid, uint32_t pid)
{
	struct abuf b = {.len = 0};
	struct nlc_answer a;
	size_t t;
	int r;

	abuf_u32(&b, LFR_A_SESSION_ID, sid);
	t = abuf_nest_start(&b, LFR_A_CTX);
	abuf_u32(&b, LFR_CTX_A_PID, pid);
	abuf_u32(&b, LFR_CTX_A_ACCESS, LFR_CTX_ACCESS_STATIC);
	abuf_u64(&b, LFR_CTX_A_OBJECT_ADDR, 0x400000);
	abuf_u64(&b, LFR_CTX_A_OBJECT_INO, 1);
	abuf_u32(&b, LFR_CTX_A_OBJECT_DEV, 1);
	abuf_nest_end(&b, t);
	r = nlc_request(c, LFR_CMD_CTX_ADD, b.b, b.len, NLM_F_REQUEST | NLM_F_ACK, &a, 10000);
	return r < 0 ? r : -a.error;
}

static int unwind_add(struct nlc *c, uint32_t sid)
{
	struct abuf b = {.len = 0};
	struct nlc_answer a;
	int r;

	abuf_u32(&b, LFR_A_SESSION_ID, sid);
	abuf_u32(&b, LFR_A_UNWIND_OBJECT_FD, 0);
	abuf_u32(&b, LFR_A_UNWIND_TABLE_FD, 0);
	r = nlc_request(c, LFR_CMD_UNWIND_ADD, b.b, b.len, NLM_F_REQUEST | NLM_F_ACK, &a, 10000);
	return r < 0 ? r : -a.error;
}

/* Maps CPU 0's ring of session sid, of ring_pages data pages: 0 or -errno. */
static int map_ring_pages(uint32_t sid, uint32_t ring_pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = open(LFR_DEVICE_PATH, O_RDWR | O_CLOEXEC), r = 0;
	void *p;

	if (fd < 0)
		return -errno;
	/* the size is checked after the session: a wrong one fails with EINVAL, not EACCES */
	p = mmap(NULL, (size_t)pg * (1 + ring_pages), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
	         (off_t)LFR_MMAP_OFFSET((uint64_t)sid, 0));
	if (p == MAP_FAILED)
		r = -errno;
	else
		munmap(p, (size_t)pg * (1 + ring_pages));
	close(fd);
	return r;
}

/* The sessions this file starts have 8 ring pages. */
static int map_ring(uint32_t sid)
{
	return map_ring_pages(sid, 8);
}

int check_map(uint32_t sid, uint32_t ring_pages)
{
	int r = map_ring_pages(sid, ring_pages);

	printf("lfr-nl: map of session %u: %s\n", sid, r ? strerror(-r) : "mapped");
	return !r ? 0 : r == -EACCES ? 13 : 1;
}

/* The refusals: each a way in that permission.c closes. */
static void refusals(struct nlc *c, const char *cg, int procs, uint64_t cg_id, uint32_t root_sid)
{
	struct nlc_answer a;
	char path[4096];
	int fd, r;

	r = start(c, LFR_TARGET_A_SYSTEM, 0, 0, &a);
	expect(r == -EPERM, "the whole system is refused", r);
	r = start(c, LFR_TARGET_A_TGID, 1, 0, &a);
	expect(r == -EPERM, "a process (init) is refused", r);
	r = start(c, LFR_TARGET_A_TGID, (uint64_t)getpid(), 0, &a);
	expect(r == -EPERM, "even one's own process is refused: cgroups only", r);
	r = start(c, LFR_TARGET_A_CGROUP_ID, cg_id, 0, &a);
	expect(r == -EPERM, "one's own cgroup by id is refused: an id proves no right", r);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	r = start(c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)fd, 0, &a);
	expect(fd >= 0 && r == -EBADF, "a cgroup.procs open for reading only is refused", r);
	if (fd >= 0)
		close(fd);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	r = start(c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)fd, 0, &a);
	expect(fd >= 0 && r == -EBADF, "a file that is no cgroup.procs is refused", r);
	if (fd >= 0)
		close(fd);
	r = start(c, LFR_TARGET_A_CGROUP_PROCS_FD, 999, 0, &a);
	expect(r == -EBADF, "a descriptor that is not open is refused", r);
	r = start(c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)procs, KERNEL, &a);
	expect(r == -EPERM, "kernel stacks without perf's consent are refused", r);
	r = start(c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)procs, KERNEL | NULLDEV, &a);
	expect(r == -EPERM, "kernel stacks with a proof that is no perf event are refused", r);
	r = start(c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)procs, OFFCPU, &a);
	expect(r == -EPERM, "off-CPU intervals (kernel stacks) are refused", r);
	r = start(c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)procs, LATENCY, &a);
	expect(r == -EPERM, "sampling latencies (kernel stacks) are refused", r);
	r = start(c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)procs, FAST, &a);
	expect(r == -EPERM, "5000 Hz, above user_max_freq_hz, is refused", r);
	r = start(c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)procs, FOLLOW, &a);
	expect(r == -EPERM, "following children is refused", r);
	/* root's session: invisible, unstoppable, unmappable */
	r = nlc_status(c, root_sid, NULL);
	expect(r == -ENOENT, "root's session is no session to its STATUS", r);
	r = nlc_stop(c, root_sid, true);
	expect(r == -ENOENT, "root's session is no session to its STOP", r);
	r = unwind_add(c, root_sid);
	expect(r == -ENOENT, "root's session is no session to UNWIND_ADD", r);
	r = ctx_add(c, root_sid, (uint32_t)getpid());
	expect(r == -ENOENT, "root's session is no session to CTX_ADD", r);
	r = map_ring(root_sid);
	expect(r == -EACCES, "root's session's ring cannot be mapped", r);
}

int check_unpriv(const char *cg, uint32_t root_sid)
{
	char path[4096];
	struct nlc_answer a, b, third;
	struct stat st;
	struct nlc c;
	uint32_t sid;
	int procs, r;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	procs = open(path, O_WRONLY | O_CLOEXEC);
	if (procs < 0 || stat(cg, &st) < 0 || nlc_open(&c) < 0 || !c.family) {
		printf("lfr-nl: FAILED: %s: %s\n", path, strerror(errno));
		return 1;
	}
	refusals(&c, cg, procs, (uint64_t)st.st_ino, root_sid);
	/* its own cgroup, by its cgroup.procs: a session it maps and sees */
	r = start(&c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)procs, CTX, &a);
	expect(!r && a.has_msg && a.id, "a session of one's own cgroup starts", r);
	sid = a.id;
	if (sid) {
		r = map_ring(sid);
		expect(!r, "its ring maps", r);
		r = nlc_status(&c, 0, NULL);
		expect(r == LFR_STATE_RUNNING, "STATUS shows it (the newest one sees)", r);
		r = ctx_add(&c, sid, 1);
		expect(r == -ESRCH, "CTX_ADD of another user's process (init) is refused", r);
		r = ctx_add(&c, sid, (uint32_t)getpid());
		expect(r != -ESRCH && r != -EPERM,
		       "CTX_ADD of its own process passes that check (its made-up location fails)",
		       r);
		r = start(&c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)procs, 0, &b);
		expect(!r && b.id, "a second session of this user starts", r);
		r = start(&c, LFR_TARGET_A_CGROUP_PROCS_FD, (uint64_t)procs, 0, &third);
		expect(r == -EBUSY, "a third is refused (user_max_sessions)", r);
		if (b.id)
			nlc_stop(&c, b.id, true);
		r = nlc_stop(&c, sid, true);
		expect(!r, "it stops its session", r);
	}
	close(procs);
	nlc_close(&c);
	return fails ? 1 : 0;
}

/* The child of check_privmap(): uid 65534, with CAP_PERFMON, then without. */
static int privmap_child(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {{0}};
	struct nlc_answer a;
	struct nlc c;
	int r;

	if (become_other_user() < 0 || nlc_open(&c) < 0 || !c.family) {
		printf("lfr-nl: FAILED: cannot become uid 65534 with CAP_PERFMON: %s\n",
		       strerror(errno));
		return 1;
	}
	r = start(&c, LFR_TARGET_A_TGID, (uint64_t)getpid(), 0, &a);
	expect(!r && a.id, "uid 65534 with CAP_PERFMON starts a session of its process", r);
	if (!a.id)
		return 1;
	r = map_ring(a.id);
	expect(!r, "with CAP_PERFMON it maps it", r);
	r = (int)syscall(SYS_capset, &h, d);
	expect(!r, "it drops every capability", r);
	r = map_ring(a.id);
	expect(r == -EACCES, "without CAP_PERFMON it may not map its own privileged session", r);
	r = nlc_stop(&c, a.id, true);
	expect(!r, "it still stops it (its own session)", r);
	nlc_close(&c);
	return fails ? 1 : 0;
}

int check_privmap(void)
{
	pid_t child = fork();
	int status;

	if (child < 0)
		return 2;
	if (!child)
		_exit(privmap_child());
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

/* In a new network namespace, binds a generic netlink socket to PORTID, then closes it. */
static int other_netns_socket(uint32_t portid)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_pid = portid};
	int fd;

	if (unshare(CLONE_NEWNET) < 0)
		return 2;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		printf("lfr-nl: FAILED: a socket of port id %u in a new network namespace: %s\n",
		       portid, strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

int check_netns_portid(void)
{
	struct nlc_answer a;
	struct nlc c;
	uint32_t portid;
	int status, r;
	pid_t child;

	if (nlc_open(&c) < 0 || !c.family) {
		printf("lfr-nl: FAILED: no lfr family\n");
		return 1;
	}
	r = start(&c, LFR_TARGET_A_TGID, (uint64_t)getpid(), 0, &a);
	expect(!r && a.id, "root starts a session owned by its socket", r);
	if (!a.id)
		return 1;
	portid = nl_socket_get_local_port(c.sk);
	child = fork();
	if (child < 0)
		return 1;
	if (!child)
		_exit(other_netns_socket(portid));
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	if (WEXITSTATUS(status) == 2) {
		printf("lfr-nl: no network namespaces here: not run\n");
		nlc_stop(&c, a.id, true);
		nlc_close(&c);
		return 2;
	}
	expect(WEXITSTATUS(status) == 0, "a socket of the same port id closed in another namespace",
	       WEXITSTATUS(status));
	r = nlc_status(&c, a.id, NULL);
	expect(r == LFR_STATE_RUNNING, "the session still runs", r);
	r = nlc_stop(&c, a.id, true);
	expect(!r, "its own socket stops it", r);
	nlc_close(&c);
	return fails ? 1 : 0;
}

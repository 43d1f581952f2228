// SPDX-License-Identifier: GPL-2.0
/*
 * lfr-nl unwind: LFR_CMD_UNWIND_ADD's answers, by hand-made tables: missing and bad descriptors,
 * an object that is not a regular file, malformed tables, a stale ctime, a second table for an
 * inode, a table over the session's cap or with no cap, a table descriptor that is not a sealed
 * memfd, another user (also root on a socket that user opened), a stopped session; and the caps'
 * eviction, of bytes and of tables (the sessions they leave are printed, for `lfr status` to show
 * their counters).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/lfr.h>
#include <linux/netlink.h>

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

static uint32_t start(struct nlc *c, int64_t max_kb)
{
	struct nlc_answer a;
	struct abuf b = {.len = 0};
	size_t t;

	abuf_u32(&b, LFR_A_FREQ_HZ, 10);
	if (max_kb >= 0)
		abuf_u32(&b, LFR_A_UNWIND_MAX_KB, (uint32_t)max_kb);
	t = abuf_nest_start(&b, LFR_A_TARGETS);
	abuf_u32(&b, LFR_TARGET_A_TGID, (uint32_t)getpid());
	abuf_nest_end(&b, t);
	if (nlc_request(c, LFR_CMD_START, b.b, b.len, NLM_F_REQUEST | NLM_F_ACK, &a, 10000) ||
	    a.error || !a.id) {
		printf("lfr-nl: FAILED: START with unwind memory %lld KiB: %s\n", (long long)max_kb,
		       strerror(a.error));
		fails++;
		return 0;
	}
	return a.id;
}

#define SEALS_ALL (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

/*
 * A table of NR rows for the file OBJ (its ctime), rows spaced by STEP: in FD when it is not -1,
 * else in a new memfd with the seals SEALS.
 */
static int table_in(int fd, unsigned int seals, int obj, uint32_t nr, uint32_t step,
                    void (*spoil)(struct lfr_unwind_hdr *, struct lfr_unwind_row *))
{
	size_t len = sizeof(struct lfr_unwind_hdr) + nr * sizeof(struct lfr_unwind_row);
	struct lfr_unwind_hdr *h = calloc(1, len);
	struct lfr_unwind_row *r = (struct lfr_unwind_row *)(h + 1);
	struct stat st;

	if (fd == -1)
		fd = memfd_create("lfr-nl-table", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (!h || fd < 0 || fstat(obj, &st))
		exit(2);
	h->magic = LFR_UNWIND_MAGIC;
	h->version = LFR_UNWIND_VERSION;
	h->nr_rows = nr;
	h->ctime_sec = st.st_ctim.tv_sec;
	h->ctime_nsec = (uint32_t)st.st_ctim.tv_nsec;
	for (uint32_t i = 0; i < nr; i++) {
		r[i].start = 0x1000 + i * step;
		r[i].cfa = i + 1 < nr ? LFR_UNWIND_CFA_SP : LFR_UNWIND_CFA_NONE;
		r[i].cfa_off = i + 1 < nr ? 8 : 0;
	}
	if (spoil)
		spoil(h, r);
	if (write(fd, h, len) != (ssize_t)len || (seals && fcntl(fd, F_ADD_SEALS, seals)))
		exit(2);
	free(h);
	return fd;
}

/* A sealed memfd holding a table of NR rows for OBJ, rows spaced by STEP. */
static int table(int obj, uint32_t nr, uint32_t step,
                 void (*spoil)(struct lfr_unwind_hdr *, struct lfr_unwind_row *))
{
	return table_in(-1, SEALS_ALL, obj, nr, step, spoil);
}

static void bad_magic(struct lfr_unwind_hdr *h, struct lfr_unwind_row *r)
{
	(void)r;
	h->magic = 0;
}

static void unsorted(struct lfr_unwind_hdr *h, struct lfr_unwind_row *r)
{
	(void)h;
	r[1].start = r[0].start;
}

static void bad_offset(struct lfr_unwind_hdr *h, struct lfr_unwind_row *r)
{
	(void)h;
	r[0].cfa_off = 12;
}

static void stale(struct lfr_unwind_hdr *h, struct lfr_unwind_row *r)
{
	(void)r;
	h->ctime_sec -= 1;
}

/* UNWIND_ADD with the given descriptors (-1: attribute left out); the answer's errno. */
static int add(struct nlc *c, uint32_t sid, int obj, int tab)
{
	struct nlc_answer a;
	struct abuf b = {.len = 0};

	if (sid)
		abuf_u32(&b, LFR_A_SESSION_ID, sid);
	if (obj != -1)
		abuf_u32(&b, LFR_A_UNWIND_OBJECT_FD, (uint32_t)obj);
	if (tab != -1)
		abuf_u32(&b, LFR_A_UNWIND_TABLE_FD, (uint32_t)tab);
	if (nlc_request(c, LFR_CMD_UNWIND_ADD, b.b, b.len, NLM_F_REQUEST | NLM_F_ACK, &a, 10000))
		return -1000;
	return a.error;
}

static int add_table(struct nlc *c, uint32_t sid, int obj, uint32_t nr,
                     void (*spoil)(struct lfr_unwind_hdr *, struct lfr_unwind_row *))
{
	int t = table(obj, nr, 16, spoil), r = add(c, sid, obj, t);

	close(t);
	return r;
}

/* Sends descriptor FD and the session id SID over the unix socket U. */
static int send_sock(int u, int fd, uint32_t sid)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = &sid, .iov_len = sizeof(sid)};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(u, &m, 0) == (ssize_t)sizeof(sid) ? 0 : -1;
}

static int recv_sock(int u, uint32_t *sid)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = sid, .iov_len = sizeof(*sid)};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(u, &m, 0) != (ssize_t)sizeof(*sid))
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * Root writing UNWIND_ADD for another user's session to a socket that user opened and passed
 * (a privileged program whose output is such a descriptor): the opener has no CAP_SYS_ADMIN, so
 * the command is refused (netlink_capable checks the opener of a socket written without a
 * destination, as for every other command), although the writer has it.
 */
static void borrowed_socket(struct nlc *c, int obj)
{
	int u[2], one = 1, fd, st;
	struct nlc b = {.seq = 1000, .family = c->family, .no_dest = true};
	uint32_t osid = 0;
	char done = 0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, u))
		exit(2);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct nlc o;

		close(u[0]);
		if (become_other_user() < 0 || nlc_open(&o) < 0)
			_exit(2);
		osid = start(&o, -1);
		if (!osid || send_sock(u[1], nl_socket_get_fd(o.sk), osid))
			_exit(2);
		/* the parent's verdict, then the session is stopped */
		if (read(u[1], &done, 1) != 1)
			_exit(2);
		nlc_stop(&o, osid, true);
		_exit(0);
	}
	close(u[1]);
	fd = recv_sock(u[0], &osid);
	b.sk = nl_socket_alloc();
	if (fd < 0 || !b.sk || nl_socket_set_fd(b.sk, NETLINK_GENERIC, fd) < 0) {
		expect(0, "a socket opened by uid 65534, received", fd);
	} else {
		nl_socket_disable_seq_check(b.sk);
		nl_socket_disable_auto_ack(b.sk);
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
		nl_socket_set_nonblocking(b.sk);
		st = add_table(&b, osid, obj, 4, NULL);
		expect(st == EPERM,
		       "root on a socket opened by uid 65534 (no CAP_SYS_ADMIN) gives that user's "
		       "session a table: EPERM",
		       st);
	}
	if (b.sk)
		nl_socket_free(b.sk);
	if (write(u[0], &done, 1) != 1)
		exit(2);
	close(u[0]);
	waitpid(pid, &st, 0);
	expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "uid 65534's session for the borrowed socket",
	       st);
}

int check_unwind(void)
{
	struct nlc c, other;
	int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int sh = open("/bin/sh", O_RDONLY | O_CLOEXEC);
	int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint32_t sid, small, none, evict;
	pid_t pid;
	int st, t;

	if (self < 0 || sh < 0 || dir < 0 || nlc_open(&c) < 0 || !c.family)
		return 2;
	sid = start(&c, -1);
	if (!sid)
		return 1;
	expect(add(&c, sid, -1, -1) == EINVAL, "UNWIND_ADD without descriptors: EINVAL",
	       add(&c, sid, -1, -1));
	expect(add(&c, 0, self, self) == EINVAL, "UNWIND_ADD without a session: EINVAL",
	       add(&c, 0, self, self));
	t = table(self, 4, 16, NULL);
	expect(add(&c, sid, 999, t) == EBADF, "an object descriptor that is not open: EBADF",
	       add(&c, sid, 999, t));
	expect(add(&c, sid, self, 999) == EBADF, "a table descriptor that is not open: EBADF",
	       add(&c, sid, self, 999));
	expect(add(&c, sid, dir, t) == EINVAL, "a directory as the object: EINVAL",
	       add(&c, sid, dir, t));
	expect(add(&c, sid, self, dir) == EINVAL, "a directory as the table: EINVAL",
	       add(&c, sid, self, dir));
	close(t);
	expect(add_table(&c, sid, self, 4, bad_magic) == EINVAL,
	       "a table without its magic: EINVAL", 0);
	expect(add_table(&c, sid, self, 4, unsorted) == EINVAL, "rows not strictly sorted: EINVAL",
	       0);
	expect(add_table(&c, sid, self, 4, bad_offset) == EINVAL,
	       "a CFA offset that is not a multiple of 8: EINVAL", 0);
	expect(add_table(&c, sid, self, 4, stale) == ESTALE, "a table older than its file: ESTALE",
	       0);
	/* only a sealed memfd: its bytes cannot change and reading it waits on no file system */
	t = table_in(-1, 0, self, 4, 16, NULL);
	st = add(&c, sid, self, t);
	expect(st == EINVAL, "a good table in a memfd without seals: EINVAL", st);
	close(t);
	t = table_in(-1, F_SEAL_SHRINK | F_SEAL_GROW, self, 4, 16, NULL);
	st = add(&c, sid, self, t);
	expect(st == EINVAL, "a good table in a memfd that may still be written: EINVAL", st);
	close(t);
	t = open("/tmp/lfr-nl-table", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (t < 0)
		return 2;
	unlink("/tmp/lfr-nl-table");
	table_in(t, 0, self, 4, 16, NULL);
	st = add(&c, sid, self, t);
	expect(st == EINVAL, "a good table in a regular file: EINVAL", st);
	close(t);
	st = add_table(&c, sid, self, 4, NULL);
	expect(st == 0, "a good table is taken", st);
	st = add_table(&c, sid, self, 4, NULL);
	expect(st == EEXIST, "a second table for the inode: EEXIST", st);
	st = add_table(&c, 4242, self, 4, NULL);
	expect(st == ENOENT, "no such session: ENOENT", st);

	/* another user with CAP_PERFMON may not give root's session tables */
	pid = fork();
	if (pid == 0) {
		if (become_other_user() < 0 || nlc_open(&other) < 0)
			_exit(2);
		_exit(add_table(&other, sid, sh, 4, NULL) == EPERM ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "another user's table for root's session: EPERM",
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	borrowed_socket(&c, sh);
	nlc_stop(&c, sid, false);
	st = add_table(&c, sid, sh, 4, NULL);
	expect(st == ESRCH, "a stopped session: ESRCH", st);

	/* the cap: 1 KiB takes no 200-row table, 0 takes none */
	small = start(&c, 1);
	st = add_table(&c, small, self, 200, NULL);
	expect(st == EFBIG, "a table larger than the session's unwind memory: EFBIG", st);
	nlc_stop(&c, small, false);
	none = start(&c, 0);
	st = add_table(&c, none, self, 4, NULL);
	expect(st == EFBIG, "a session started without unwind memory: EFBIG", st);
	nlc_stop(&c, none, false);
	/* 4 KiB: two tables of 40 rows (1.6 KiB each with their 128 lookup hints); a third drops
	 * one */
	evict = start(&c, 4);
	expect(add_table(&c, evict, self, 40, NULL) == 0, "first table under the cap", 0);
	expect(add_table(&c, evict, sh, 40, NULL) == 0, "second table under the cap", 0);
	t = open("/lib/lfr/lfr.ko", O_RDONLY | O_CLOEXEC);
	st = t < 0 ? -errno : add_table(&c, evict, t, 40, NULL);
	expect(st == 0, "a third table over the cap is taken, one dropped", st);
	if (t >= 0)
		close(t);
	nlc_stop(&c, evict, false);
	printf("lfr-nl: eviction session %u\n", evict);
	nlc_close(&c);
	return fails ? 1 : 0;
}

/*
 * The cap on the number of tables: LFR_UNWIND_MAX_TABLES + 1 one-row tables, each for a file of
 * its own, well under the session's bytes; the session keeps LFR_UNWIND_MAX_TABLES and has
 * dropped one (`lfr-nl unwind-count`; the session is printed for `lfr status` to show, which must
 * come before another START, as the one of `lfr-nl unwind` must).
 */
int check_unwind_count(void)
{
	char dir[] = "/tmp/lfr-nl-objs.XXXXXX", path[64];
	struct nlc c;
	uint32_t sid;
	int bad = 0, st = 0;

	if (nlc_open(&c) < 0 || !c.family)
		return 2;
	sid = start(&c, 2048);
	if (!sid || !mkdtemp(dir))
		return 2;
	for (uint32_t i = 0; i <= LFR_UNWIND_MAX_TABLES; i++) {
		int obj;

		snprintf(path, sizeof(path), "%s/%u", dir, i);
		obj = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (obj < 0)
			exit(2);
		unlink(path);
		st = add_table(&c, sid, obj, 1, NULL);
		close(obj);
		if (st && !bad++)
			printf("lfr-nl: table %u of the count cap: %s\n", i, strerror(st));
	}
	rmdir(dir);
	expect(!bad, "one table more than LFR_UNWIND_MAX_TABLES is taken, one dropped", bad);
	nlc_stop(&c, sid, false);
	printf("lfr-nl: count cap session %u\n", sid);
	nlc_close(&c);
	return fails ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * lfr-nl fuzz: generated and mutated messages of every command and attribute, sent from root and
 * from an unprivileged user at once, while other processes start and stop sessions, close
 * sockets with sessions running, map /dev/lfr with bad offsets and sizes, and unload and reload
 * the module.  Every answer must be a valid error or success; an unprivileged success, a missing
 * answer or a malformed one fails the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/lfr.h>

#include "attrs.h"
#include "checks.h"
#include "nl.h"

struct figures {
	atomic_ulong sent, root_sent, nobody_sent, answered, errors, successes, invalid, missing,
	    unpriv_ok, sessions, sock_closes, maps, map_refused, rmmods, insmods;
	atomic_int stop;
	char why[256];
};

static struct figures *fig;
static unsigned long max_msgs;
static double deadline;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool done(void)
{
	return atomic_load(&fig->stop) || now() > deadline ||
	       (max_msgs && atomic_load(&fig->sent) >= max_msgs);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define PICK(s, arr) ((arr)[rnd(s) % (sizeof(arr) / sizeof((arr)[0]))])

static const uint32_t u32_vals[] = {
    0,    1,    2,    3,     4,     7,     10,     16,   64, 99, 127, 128,        256,       1000,
    2048, 2049, 8192, 16385, 65535, 65536, 100001, 1024, 15, 50, 51,  0x7fffffff, 0xffffffff};
static const uint64_t u64_vals[] = {
    0, 1, 9999, 10000, 1000000, 10000000, 10000000000ULL, 10000000001ULL, 1ULL << 40, ~0ULL};
static const size_t bad_lens[] = {0, 1, 2, 3, 5, 6, 7, 9, 12, 16, 33, 64};

/* A value for attribute TYPE: usually its own size, sometimes another. */
static void put_value(struct abuf *b, uint64_t *s, uint16_t type, size_t want)
{
	unsigned char junk[64];
	size_t len = want;
	uint64_t v;

	if (rnd(s) % 8 == 0)
		len = PICK(s, bad_lens);
	if (len == 4) {
		abuf_u32(b, type, PICK(s, u32_vals));
	} else if (len == 8) {
		v = rnd(s) % 4 ? PICK(s, u64_vals) : rnd(s);
		abuf_u64(b, type, v);
	} else {
		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (unsigned char)rnd(s);
		abuf_put(b, type, junk, len);
	}
}

static uint32_t some_pid(uint64_t *s)
{
	switch (rnd(s) % 5) {
	case 0:
		return (uint32_t)getpid();
	case 1:
		return 1;
	case 2:
		return (uint32_t)getppid();
	default:
		return PICK(s, u32_vals);
	}
}

static void put_targets(struct abuf *b, uint64_t *s, int depth)
{
	size_t nest = abuf_nest_start(b, LFR_A_TARGETS);
	int n = (int)(rnd(s) % 5);

	if (rnd(s) % 16 == 0) /* a nest without the NESTED flag */
		((struct nlattr *)(b->b + nest))->nla_type = LFR_A_TARGETS;
	for (int i = 0; i < n; i++) {
		uint16_t t = (uint16_t)(rnd(s) % (LFR_TARGET_A_MAX + 3));

		switch (t) {
		case LFR_TARGET_A_SYSTEM:
		case LFR_TARGET_A_FOLLOW_CHILDREN:
			put_value(b, s, t, 0);
			break;
		case LFR_TARGET_A_TGID:
		case LFR_TARGET_A_TID:
			if (rnd(s) % 8)
				abuf_u32(b, t, some_pid(s));
			else
				put_value(b, s, t, 4);
			break;
		case LFR_TARGET_A_CGROUP_ID:
			if (rnd(s) % 2)
				abuf_u64(b, t, 1); /* the root cgroup v2 */
			else
				put_value(b, s, t, 8);
			break;
		default:
			if (depth < 3 && rnd(s) % 4 == 0)
				put_targets(b, s, depth + 1);
			else
				put_value(b, s, t, 4);
		}
	}
	abuf_nest_end(b, nest);
}

/* One attribute of the top level, of any type the family knows and a few it does not. */
static void put_attr(struct abuf *b, uint64_t *s)
{
	uint16_t t = (uint16_t)(rnd(s) % (LFR_A_MAX + 4));

	switch (t) {
	case LFR_A_TARGETS:
		put_targets(b, s, 0);
		break;
	case LFR_A_KERNEL_STACK:
	case LFR_A_DETACHED:
	case LFR_A_ABANDON:
		put_value(b, s, t, 0);
		break;
	case LFR_A_PERIOD_NS:
	case LFR_A_OFFCPU_MIN_NS:
	case LFR_A_LATENCY_MIN_NS:
	case LFR_A_COUNTERS:
	case LFR_A_PAD:
		put_value(b, s, t, 8);
		break;
	case LFR_A_MAX_THREADS: /* huge valid tables are the memory cap's matter, not this run's */
		abuf_u32(b, t,
		         rnd(s) % 2 ? 16 + (uint32_t)(rnd(s) % 4096) : PICK(s, u32_vals) % 70000);
		break;
	case LFR_A_RING_PAGES:
		abuf_u32(b, t, rnd(s) % 4 ? 1u << (rnd(s) % 9) : PICK(s, u32_vals));
		break;
	case LFR_A_KSYM_ADDRS: { /* any addresses, kernel text's among them, any length */
		uint64_t a[LFR_KSYM_MAX_ADDRS + 2];
		size_t n = rnd(s) % (LFR_KSYM_MAX_ADDRS + 3);

		for (size_t i = 0; i < n; i++)
			a[i] = rnd(s) % 2 ? 0xffffffff81000000ull + rnd(s) % 0x4000000 : rnd(s);
		abuf_put(b, t, a, rnd(s) % 4 ? 8 * n : 8 * n - rnd(s) % 8 * (n > 0));
		break;
	}
	default:
		put_value(b, s, t, 4);
	}
}

struct gen {
	unsigned char buf[8192 + 64];
	size_t len;
	bool answer; /* the kernel must answer it */
};

static void generate(struct gen *g, uint64_t *s, int family)
{
	static const uint8_t cmds[] = {LFR_CMD_START,
	                               LFR_CMD_START,
	                               LFR_CMD_STOP,
	                               LFR_CMD_STATUS,
	                               LFR_CMD_STATUS,
	                               LFR_CMD_NOTIFY,
	                               LFR_CMD_KSYM,
	                               LFR_CMD_UNSPEC,
	                               5,
	                               200};
	struct nlmsghdr *h = (struct nlmsghdr *)g->buf;
	struct genlmsghdr *gh = (struct genlmsghdr *)(g->buf + NLMSG_HDRLEN);
	struct abuf b = {.len = 0};
	int n = (int)(rnd(s) % 9);

	for (int i = 0; i < n; i++)
		put_attr(&b, s);
	if (rnd(s) % 3 == 0) /* the shape of a valid START */
		put_targets(&b, s, 0);
	memset(g->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = (uint16_t)family;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	gh->cmd = PICK(s, cmds);
	gh->version = LFR_GENL_VERSION;
	memcpy(g->buf + NLMSG_HDRLEN + GENL_HDRLEN, b.b, b.len);
	g->len = NLMSG_HDRLEN + GENL_HDRLEN + b.len;
	switch (rnd(s) % 24) { /* mutations of the headers and the stream */
	case 0:
		gh->version = (uint8_t)rnd(s);
		break;
	case 1:
		gh->reserved = (uint16_t)rnd(s);
		break;
	case 2:
		h->nlmsg_flags |= (uint16_t)(rnd(s) & (NLM_F_DUMP | NLM_F_ECHO | NLM_F_EXCL));
		break;
	case 3:
		h->nlmsg_flags &= (uint16_t)~NLM_F_REQUEST;
		break;
	case 4:
		h->nlmsg_type = (uint16_t)(rnd(s) % NLMSG_MIN_TYPE);
		break;
	case 5:
		h->nlmsg_type = 0xfff0; /* no such family */
		break;
	case 6: /* trailing bytes that are no attribute */
		g->buf[g->len] = (unsigned char)rnd(s);
		g->len += 1 + rnd(s) % 3;
		break;
	case 7: /* a length field past the end */
		if (b.len >= 4)
			((struct nlattr *)(g->buf + NLMSG_HDRLEN + GENL_HDRLEN))->nla_len =
			    (uint16_t)(b.len + 4 + rnd(s) % 64);
		break;
	case 8: /* a message cut inside its genetlink header */
		g->len = NLMSG_HDRLEN + rnd(s) % GENL_HDRLEN;
		break;
	case 9: /* flip one byte of the attributes */
		if (b.len)
			g->buf[NLMSG_HDRLEN + GENL_HDRLEN + rnd(s) % b.len] ^=
			    (unsigned char)(1u << (rnd(s) % 8));
		break;
	default:
		break;
	}
	h->nlmsg_len = (uint32_t)g->len;
	g->answer = true;
	if (rnd(s) % 32 == 0) { /* a header length that lies: the kernel drops it silently */
		h->nlmsg_len = (uint32_t)(g->len + 1 + rnd(s) % 32);
		g->answer = false;
	}
}

static void note_invalid(const char *who, const char *why)
{
	if (atomic_fetch_add(&fig->invalid, 1) == 0)
		snprintf(fig->why, sizeof(fig->why), "%s: %s", who, why);
}

/* Sends generated messages until the run ends. */
static void sender(uint64_t seed, bool root)
{
	const char *who = root ? "root" : "uid 65534";
	struct nlc c;
	struct gen g;
	unsigned long mine = 0;

	if (!root && (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)))
		_exit(3);
	if (nlc_open(&c) < 0)
		_exit(2);
	while (!done()) {
		struct nlc_answer a;
		int r;

		if (!c.family || mine % 500 == 0)
			nlc_resolve(&c);
		generate(&g, &seed, c.family);
		r = nlc_send_raw(&c, g.buf, g.len, &a, g.answer ? 5000 : -1);
		mine++;
		atomic_fetch_add(&fig->sent, 1);
		atomic_fetch_add(root ? &fig->root_sent : &fig->nobody_sent, 1);
		if (!g.answer)
			continue;
		if (r == -ETIMEDOUT) {
			atomic_fetch_add(&fig->missing, 1);
			note_invalid(who, "no answer within 5 s");
			continue;
		}
		if (r < 0) { /* the socket's own trouble (ENOBUFS): start afresh */
			nlc_close(&c);
			if (nlc_open(&c) < 0)
				_exit(2);
			continue;
		}
		atomic_fetch_add(&fig->answered, 1);
		if (a.invalid)
			note_invalid(who, a.why);
		if (a.error) {
			atomic_fetch_add(&fig->errors, 1);
		} else {
			atomic_fetch_add(&fig->successes, 1);
			if (!root && a.has_msg) {
				atomic_fetch_add(&fig->unpriv_ok, 1);
				note_invalid(who, "an unprivileged command succeeded");
			}
		}
		if (root && a.has_msg && a.msg_cmd == LFR_CMD_START && !a.error)
			atomic_fetch_add(&fig->sessions, 1);
	}
	nlc_close(&c);
	_exit(0);
}

/* Starts sessions on sockets it then closes (the socket-close path), or stops them. */
static void churner(uint64_t seed)
{
	while (!done()) {
		struct nlc c;
		struct nlc_answer a;
		struct abuf b = {.len = 0};
		size_t t;

		if (nlc_open(&c) < 0 || !c.family) {
			nlc_close(&c);
			usleep(10000);
			continue;
		}
		abuf_u32(&b, LFR_A_FREQ_HZ, 100 + (uint32_t)(rnd(&seed) % 900));
		if (rnd(&seed) % 2)
			abuf_put(&b, LFR_A_KERNEL_STACK, NULL, 0);
		t = abuf_nest_start(&b, LFR_A_TARGETS);
		if (rnd(&seed) % 2)
			abuf_put(&b, LFR_TARGET_A_SYSTEM, NULL, 0);
		else
			abuf_u32(&b, LFR_TARGET_A_TGID, (uint32_t)getppid());
		abuf_nest_end(&b, t);
		if (nlc_request(&c, LFR_CMD_START, b.b, b.len, NLM_F_REQUEST | NLM_F_ACK, &a,
		                5000) == 0 &&
		    !a.error && a.has_msg) {
			atomic_fetch_add(&fig->sessions, 1);
			if (rnd(&seed) % 2)
				nlc_stop(&c, a.id, rnd(&seed) % 2);
		}
		nlc_close(&c); /* with the session still running, half of the time */
		atomic_fetch_add(&fig->sock_closes, 1);
	}
	_exit(0);
}

/* Maps /dev/lfr at random offsets and sizes, reads what maps, moves tails anywhere. */
static void mapper(uint64_t seed)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct nlc c;

	if (nlc_open(&c) < 0)
		_exit(2);
	while (!done()) {
		int fd = open(LFR_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		uint32_t newest = 0;

		nlc_resolve(&c);
		if (c.family && nlc_status(&c, 0, &newest) < 0)
			newest = 0;

		if (fd < 0) {
			usleep(10000);
			continue;
		}
		for (int i = 0; i < 16 && !done(); i++) {
			uint64_t sid = rnd(&seed) % 2 ? newest : rnd(&seed) % 4,
			         cpu = rnd(&seed) % 4;
			uint64_t off = LFR_MMAP_OFFSET(sid, cpu);
			size_t len = (size_t)pg * (1 + (rnd(&seed) % 3 ? 64 : rnd(&seed) % 300));
			int flags = rnd(&seed) % 8 ? MAP_SHARED : MAP_PRIVATE;
			unsigned char *p;

			if (rnd(&seed) % 4 == 0)
				off += (rnd(&seed) % 64) * (uint64_t)pg;
			if (rnd(&seed) % 8 == 0)
				off = rnd(&seed) & ~((uint64_t)pg - 1);
			p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, (off_t)off);
			if (p == MAP_FAILED) {
				atomic_fetch_add(&fig->map_refused, 1);
				continue;
			}
			atomic_fetch_add(&fig->maps, 1);
			volatile unsigned char sum = 0;
			for (size_t o = 0; o < len; o += (size_t)pg)
				sum ^= p[o];
			((volatile struct lfr_ring_ctrl *)p)->tail =
			    rnd(&seed) % 2 ? rnd(&seed) : 0;
			munmap(p, len);
		}
		close(fd);
	}
	nlc_close(&c);
	_exit(0);
}

/* Unloads and reloads the module now and then; EBUSY is a valid answer. */
static void unloader(void)
{
	while (!done()) {
		sleep(3);
		if (system("rmmod lfr 2>/dev/null") == 0)
			atomic_fetch_add(&fig->rmmods, 1);
		if (system("grep -q '^lfr ' /proc/modules") != 0 &&
		    system("insmod /lib/lfr/lfr.ko") == 0)
			atomic_fetch_add(&fig->insmods, 1);
	}
	_exit(0);
}

int fuzz_main(int argc, char **argv)
{
	double seconds = 45;
	bool rmmod = false;
	int opt, roots = 2, nobodies = 1, bad = 0;
	pid_t kids[16];
	int nkids = 0;
	struct nlc c;

	while ((opt = getopt(argc, argv, "n:t:r")) != -1) {
		if (opt == 'n')
			max_msgs = strtoul(optarg, NULL, 10);
		else if (opt == 't')
			seconds = strtod(optarg, NULL);
		else if (opt == 'r')
			rmmod = true;
		else
			return 2;
	}
	fig = mmap(NULL, sizeof(*fig), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fig == MAP_FAILED)
		return 2;
	memset(fig, 0, sizeof(*fig));
	deadline = now() + seconds;
	for (int i = 0; i < roots + nobodies + 3; i++) {
		uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1) ^ (uint64_t)time(NULL);
		pid_t p;

		if (i == roots + nobodies + 2 && !rmmod)
			break;
		p = fork();
		if (p == 0) {
			if (i < roots)
				sender(seed, true);
			else if (i < roots + nobodies)
				sender(seed, false);
			else if (i == roots + nobodies)
				churner(seed);
			else if (i == roots + nobodies + 1)
				mapper(seed);
			else
				unloader();
		}
		if (p > 0)
			kids[nkids++] = p;
	}
	for (int i = 0; i < nkids; i++) {
		int st;

		waitpid(kids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	/* leave nothing running: the fuzz may have started detached sessions */
	if (system("grep -q '^lfr ' /proc/modules || insmod /lib/lfr/lfr.ko") != 0)
		bad++;
	if (nlc_open(&c) == 0 && c.family) {
		for (int i = 0; i < 8 && nlc_stop(&c, 0, true) == 0; i++)
			;
		nlc_close(&c);
	}
	printf("lfr-nl fuzz: %lu messages (root %lu, uid 65534 %lu), %lu answered: %lu errors, "
	       "%lu successes; %lu invalid answers, %lu missing, %lu unprivileged successes\n",
	       fig->sent, fig->root_sent, fig->nobody_sent, fig->answered, fig->errors,
	       fig->successes, fig->invalid, fig->missing, fig->unpriv_ok);
	printf("lfr-nl fuzz: %lu sessions started, %lu sockets closed by the churner, %lu mappings "
	       "(%lu refused), %lu rmmod, %lu insmod; %d workers failed\n",
	       fig->sessions, fig->sock_closes, fig->maps, fig->map_refused, fig->rmmods,
	       fig->insmods, bad);
	if (fig->invalid)
		printf("lfr-nl fuzz: FAILED: first invalid answer: %s\n", fig->why);
	return fig->invalid || bad ? 1 : 0;
}

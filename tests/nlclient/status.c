// SPDX-License-Identifier: GPL-2.0
/*
 * lfr-nl status: STATUS's sizes.  A session of this process samples it while it burns CPU and is
 * stopped; its STATUS reply must carry the totals and no per-CPU counters (its size must not grow
 * with the number of CPUs), and STATUS as a dump must give one set of counters for each possible
 * CPU (/sys/devices/system/cpu/possible), each once, whose sums are the reply's totals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/lfr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "checks.h"
#include "nl.h"

#define MAX_CPUS 8192

struct tally {
	int msgs, cpu_nests, bad, dup;
	size_t max_len;
	bool have_total;
	uint64_t total[LFR_CTR_MAX + 1];
	uint64_t sum[LFR_CTR_MAX + 1];
	bool in_cpu[LFR_CTR_MAX + 1];
	bool seen[MAX_CPUS];
};

static int fails;

static void expect(int ok, const char *what, long long got)
{
	printf("lfr-nl: %s %s (%lld)\n", ok ? "ok:" : "FAILED:", what, got);
	if (!ok)
		fails++;
}

static int counters(const struct nlattr *nest, uint64_t *v, bool *present)
{
	const struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem)
	{
		int t = nla_type(a);

		if (t == LFR_CTR_PAD || t > LFR_CTR_MAX)
			continue;
		if (nla_len(a) != 8)
			return -1;
		v[t] += nla_get_u64((struct nlattr *)a);
		if (present)
			present[t] = true;
	}
	return 0;
}

static void tally_msg(struct nlmsghdr *h, struct tally *t)
{
	struct genlmsghdr *g = nlmsg_data(h);
	struct nlattr *a;
	int rem;

	t->msgs++;
	if (h->nlmsg_len > t->max_len)
		t->max_len = h->nlmsg_len;
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem)
	{
		if (nla_type(a) == LFR_A_COUNTERS) {
			t->have_total = true;
			if (counters(a, t->total, NULL))
				t->bad++;
		} else if (nla_type(a) == LFR_A_CPU) {
			struct nlattr *tb[LFR_CPU_A_MAX + 1];
			uint32_t cpu;

			t->cpu_nests++;
			if (nla_parse_nested(tb, LFR_CPU_A_MAX, a, NULL) < 0 || !tb[LFR_CPU_A_ID] ||
			    !tb[LFR_CPU_A_COUNTERS] ||
			    counters(tb[LFR_CPU_A_COUNTERS], t->sum, t->in_cpu)) {
				t->bad++;
				continue;
			}
			cpu = nla_get_u32(tb[LFR_CPU_A_ID]);
			if (cpu >= MAX_CPUS || t->seen[cpu])
				t->dup++;
			else
				t->seen[cpu] = true;
		}
	}
}

/*
 * The answer to request SEQ up to its ack (a request) or NLMSG_DONE (a dump): 0, or the errno it
 * ended with.
 */
static int read_answer(struct nl_sock *sk, int family, uint32_t seq, struct tally *t)
{
	for (;;) {
		struct sockaddr_nl addr;
		unsigned char *buf = NULL;
		struct nlmsghdr *h;
		int n = nl_recv(sk, &addr, &buf, NULL), err = -1;

		if (n <= 0) {
			free(buf);
			return n == 0 ? EIO : -n;
		}
		for (h = (struct nlmsghdr *)buf; nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
			if (h->nlmsg_seq != seq) {
				continue;
			} else if (h->nlmsg_type == family) {
				tally_msg(h, t);
			} else if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				int code = 0;

				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(code))
					memcpy(&code, nlmsg_data(h), sizeof(code));
				err = -code;
			}
		}
		free(buf);
		if (err >= 0)
			return err;
	}
}

/* STATUS of SID, as a request (DUMP false) or a dump: 0 or an errno. */
static int status(struct nl_sock *sk, int family, uint32_t sid, bool dump, struct tally *t)
{
	struct nl_msg *m = nlmsg_alloc();
	uint32_t seq;
	int r;

	if (!m ||
	    !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, dump ? NLM_F_DUMP : NLM_F_ACK,
	                 LFR_CMD_STATUS, LFR_GENL_VERSION) ||
	    nla_put_u32(m, LFR_A_SESSION_ID, sid) < 0)
		exit(2);
	r = nl_send_auto(sk, m);
	seq = nlmsg_hdr(m)->nlmsg_seq;
	nlmsg_free(m);
	if (r < 0)
		return EIO;
	return read_answer(sk, family, seq, t);
}

/* The possible CPUs, as the kernel lists them ("0-3,8"); their count. */
static int possible(bool *cpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	unsigned int lo, hi;
	int n = 0;
	char sep;

	if (!f)
		exit(2);
	while (fscanf(f, "%u", &lo) == 1) {
		hi = lo;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-' && fscanf(f, "%u%c", &hi, &sep) < 1)
			break;
		for (unsigned int c = lo; c <= hi && c < MAX_CPUS; c++, n++)
			cpus[c] = true;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n;
}

static void burn(double seconds)
{
	struct timespec ts;
	volatile unsigned long x = 0;

	do {
		for (int i = 0; i < 1000000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < seconds);
}

int check_status(void)
{
	static struct tally req, dump;
	static bool cpus[MAX_CPUS];
	struct nlc c;
	struct nlc_answer a;
	struct abuf b = {.len = 0};
	struct nl_sock *sk = nl_socket_alloc();
	int ncpus = possible(cpus), family, r, same = 1, missing = 0;
	uint32_t sid;
	size_t t;

	if (!sk || genl_connect(sk) < 0 || (family = genl_ctrl_resolve(sk, LFR_GENL_NAME)) < 0 ||
	    nlc_open(&c) < 0)
		return 2;
	/* the request asks for its ack itself; a dump ends with NLMSG_DONE */
	nl_socket_disable_auto_ack(sk);
	abuf_u32(&b, LFR_A_FREQ_HZ, 999);
	t = abuf_nest_start(&b, LFR_A_TARGETS);
	abuf_u32(&b, LFR_TARGET_A_TGID, (uint32_t)getpid());
	abuf_nest_end(&b, t);
	if (nlc_request(&c, LFR_CMD_START, b.b, b.len, NLM_F_REQUEST | NLM_F_ACK, &a, 10000) ||
	    a.error || !a.id) {
		printf("lfr-nl: FAILED: START: %s\n", strerror(a.error));
		return 1;
	}
	sid = a.id;
	burn(0.3);
	nlc_stop(&c, sid, false);
	/* its walks are this thread's, all run before this returns to user space: it is stopped */
	r = nlc_status(&c, sid, NULL);
	expect(r == LFR_STATE_STOPPED, "the session is stopped", r);

	r = status(sk, family, sid, false, &req);
	expect(r == 0, "STATUS answered", r);
	expect(req.have_total && !req.bad, "the STATUS reply has the totals", req.have_total);
	expect(req.total[LFR_CTR_TICKS] > 0, "the session ticked",
	       (long long)req.total[LFR_CTR_TICKS]);
	expect(req.cpu_nests == 0,
	       "the STATUS reply has no per-CPU counters (its size does not grow with the CPUs)",
	       req.cpu_nests);
	printf("lfr-nl: STATUS reply: %zu bytes, %d possible CPUs\n", req.max_len, ncpus);

	r = status(sk, family, sid, true, &dump);
	expect(r == 0, "STATUS as a dump answered", r);
	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		missing += cpus[cpu] != dump.seen[cpu];
	expect(!dump.bad && !dump.dup && !missing && dump.cpu_nests == ncpus,
	       "the dump has the counters of every possible CPU, each once", dump.cpu_nests);
	for (int k = 0; k <= LFR_CTR_MAX; k++) {
		if (!dump.in_cpu[k] || dump.sum[k] == req.total[k])
			continue;
		printf("lfr-nl: counter %d: the CPUs' sum %llu, the total %llu\n", k,
		       (unsigned long long)dump.sum[k], (unsigned long long)req.total[k]);
		same = 0;
	}
	expect(same && dump.in_cpu[LFR_CTR_TICKS], "the CPUs' counters sum to the totals", same);
	printf("lfr-nl: STATUS dump: %d messages, the largest %zu bytes\n", dump.msgs,
	       dump.max_len);
	printf("lfr-nl: session %u\n", sid);
	nl_socket_free(sk);
	nlc_close(&c);
	return fails ? 1 : 0;
}

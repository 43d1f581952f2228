// SPDX-License-Identifier: GPL-2.0
/*
 * lfr-nl ksym: LFR_CMD_KSYM's names against /proc/kallsyms.  Text symbols spread over the kernel
 * and its modules are asked for, 64 and then 1 at a time, at their start and one byte in: each
 * answer must name the function /proc/kallsyms puts at that address (one of its aliases), with
 * its module, offset 0 or 0x1, and a size that reaches no further than the next symbol.  An
 * address no symbol holds gets "".  Malformed requests are refused (EINVAL), and so is a sender
 * that /proc/kallsyms shows no addresses to (EPERM): root without CAP_SYSLOG, uid 65534 with
 * CAP_PERFMON, anyone under kernel.kptr_restrict 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/lfr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "checks.h"
#include "nl.h"

#define MAX_SYMS 400000
#define WANT 3000 /* symbols asked for */

struct ksym {
	uint64_t addr;
	char name[128], mod[64];
	bool text;
};

static int fails;

static void expect(int ok, const char *what, long long got)
{
	printf("lfr-nl: %s %s (%lld)\n", ok ? "ok:" : "FAILED:", what, got);
	if (!ok)
		fails++;
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* /proc/kallsyms sorted by address (every type: a symbol of any kind ends a function). */
static struct ksym *read_kallsyms(size_t *n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct ksym *v = calloc(MAX_SYMS, sizeof(*v));
	char line[512];

	*n = 0;
	if (!f || !v)
		exit(2);
	while (*n < MAX_SYMS && fgets(line, sizeof(line), f)) {
		struct ksym *k = &v[*n];
		char type;

		k->mod[0] = '\0';
		if (sscanf(line, "%" SCNx64 " %c %127s [%63[^]]]", &k->addr, &type, k->name,
		           k->mod) < 3 ||
		    !k->addr)
			continue;
		/* BPF programs and ftrace trampolines are listed as "modules" sprint_symbol() does
		 * not name */
		k->text = (type == 't' || type == 'T') && strcmp(k->mod, "bpf") &&
		          strncmp(k->mod, "__builtin", 9);
		(*n)++;
	}
	fclose(f);
	qsort(v, *n, sizeof(*v), by_addr);
	return v;
}

struct answer {
	uint32_t seq; /* of the request: other messages are skipped */
	bool done;    /* its ack or error arrived */
	int error;
	int names;
	char name[LFR_KSYM_MAX_ADDRS][700];
};

static int reply_cb(struct nl_msg *m, void *arg)
{
	struct answer *a = arg;
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(m));
	struct nlattr *attr, *n;
	int rem, rem2;

	if (nlmsg_hdr(m)->nlmsg_seq != a->seq)
		return NL_SKIP;
	nla_for_each_attr(attr, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem)
	{
		if (nla_type(attr) != LFR_A_KSYMS)
			continue;
		nla_for_each_nested(n, attr, rem2)
		{
			int i = nla_type(n) - 1;

			if (i < 0 || i >= LFR_KSYM_MAX_ADDRS || nla_len(n) < 1 ||
			    ((char *)nla_data(n))[nla_len(n) - 1] != '\0')
				return NL_STOP;
			snprintf(a->name[i], sizeof(a->name[i]), "%s", (char *)nla_data(n));
			a->names++;
		}
	}
	return NL_OK;
}

static int error_cb(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct answer *a = arg;

	(void)who;
	if (e->msg.nlmsg_seq != a->seq)
		return NL_SKIP;
	a->error = -e->error;
	a->done = true;
	return NL_STOP;
}

static int ack_cb(struct nl_msg *m, void *arg)
{
	struct answer *a = arg;

	if (nlmsg_hdr(m)->nlmsg_seq != a->seq)
		return NL_OK;
	a->done = true;
	return NL_STOP;
}

/* KSYM with LEN bytes of addresses (NULL: no attribute); 0 or the errno it got. */
static int ksym(struct nl_sock *sk, int family, const void *addrs, size_t len, struct answer *a)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int r;

	memset(a, 0, sizeof(*a));
	if (!m || !cb ||
	    !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK, LFR_CMD_KSYM,
	                 LFR_GENL_VERSION) ||
	    (addrs && nla_put(m, LFR_A_KSYM_ADDRS, (int)len, addrs) < 0))
		exit(2);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, reply_cb, a);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, a);
	nl_cb_err(cb, NL_CB_CUSTOM, error_cb, a);
	r = nl_send_auto(sk, m);
	a->seq = nlmsg_hdr(m)->nlmsg_seq;
	nlmsg_free(m);
	while (r >= 0 && !a->done)
		r = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	if (r < 0 && !a->error)
		return EIO;
	return a->error;
}

static struct nl_sock *connect_family(int *family)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk || genl_connect(sk) < 0)
		exit(2);
	nl_socket_disable_auto_ack(sk);
	nl_socket_disable_seq_check(sk); /* ksym() matches its answers by sequence number */
	*family = genl_ctrl_resolve(sk, LFR_GENL_NAME);
	if (*family < 0)
		exit(2);
	return sk;
}

/* Whether ANSWER names address A (of symbol i) as /proc/kallsyms does; why not into why. */
static bool same(const struct ksym *v, size_t n, size_t i, uint64_t off, const char *answer,
                 char *why, size_t len)
{
	char want[200], name[700], mod[64] = "";
	unsigned long long o, size;
	const char *plus = strrchr(answer, '+');
	bool alias = false;
	size_t j;

	if (!plus || sscanf(plus, "+%llx/%llx", &o, &size) != 2 ||
	    sscanf(answer, "%699[^+]", name) != 1) {
		snprintf(why, len, "'%s' is not name+off/size", answer);
		return false;
	}
	sscanf(strchr(plus, ' ') ? strchr(plus, ' ') : "", " [%63[^]]]", mod);
	/* the aliases at the address: kallsyms and sprint_symbol() may pick another of them */
	for (j = i; j > 0 && v[j - 1].addr == v[i].addr; j--)
		;
	for (; j < n && v[j].addr == v[i].addr; j++)
		alias |= !strcmp(v[j].name, name) && !strcmp(v[j].mod, mod);
	for (j = i + 1; j < n && v[j].addr == v[i].addr; j++)
		;
	snprintf(want, sizeof(want), "%s+%#llx [%s]", v[i].name, (unsigned long long)off, v[i].mod);
	if (!alias || o != off || (j < n && v[i].addr + size > v[j].addr) || size <= off) {
		snprintf(why, len, "'%s' for %s", answer, want);
		return false;
	}
	return true;
}

/* Asks for the text symbols picked, BATCH at a time; the mismatches. */
static int compare(struct nl_sock *sk, int family, const struct ksym *v, size_t n,
                   const size_t *pick, size_t npick, uint64_t off, size_t batch, int *asked)
{
	static struct answer a;
	int bad = 0;

	for (size_t at = 0; at < npick; at += batch) {
		uint64_t addrs[LFR_KSYM_MAX_ADDRS];
		size_t k = npick - at < batch ? npick - at : batch;
		char why[1024];

		for (size_t i = 0; i < k; i++)
			addrs[i] = v[pick[at + i]].addr + off;
		if (ksym(sk, family, addrs, 8 * k, &a) || a.names != (int)k) {
			printf("lfr-nl: KSYM of %zu addresses: error %d, %d names\n", k, a.error,
			       a.names);
			return (int)k;
		}
		for (size_t i = 0; i < k; i++, (*asked)++) {
			if (same(v, n, pick[at + i], off, a.name[i], why, sizeof(why)))
				continue;
			if (bad++ < 10)
				printf("lfr-nl: KSYM named %#" PRIx64 " %s\n", addrs[i], why);
		}
	}
	return bad;
}

/* In a child: drop CAP_SYSLOG (or become uid 65534 with CAP_PERFMON), then ask: the errno. */
static int denied(bool other_user)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		exit(2);
	if (pid == 0) {
		struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
		struct __user_cap_data_struct d[2];
		uint64_t addr = 0;
		struct answer *a = malloc(sizeof(*a));
		struct nl_sock *sk;
		int family;

		if (other_user) {
			if (become_other_user() < 0)
				_exit(100);
		} else {
			if (syscall(SYS_capget, &h, d))
				_exit(100);
			d[CAP_SYSLOG / 32].effective &= ~(1u << (CAP_SYSLOG % 32));
			if (syscall(SYS_capset, &h, d))
				_exit(100);
		}
		sk = connect_family(&family);
		_exit(ksym(sk, family, &addr, 8, a));
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void requests_refused(struct nl_sock *sk, int family)
{
	static uint64_t addrs[LFR_KSYM_MAX_ADDRS + 1];
	static struct answer a;
	static const struct {
		size_t len;
		const char *what;
	} bad[] = {
	    {0, "KSYM of 0 bytes is refused (EINVAL)"},
	    {7, "KSYM of 7 bytes is refused (EINVAL)"},
	    {12, "KSYM of 12 bytes is refused (EINVAL)"},
	    {sizeof(addrs), "KSYM of LFR_KSYM_MAX_ADDRS + 1 addresses is refused (EINVAL)"},
	};
	int r = ksym(sk, family, NULL, 0, &a);

	expect(r == EINVAL, "KSYM without addresses is refused (EINVAL)", r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = ksym(sk, family, addrs, bad[i].len, &a);
		expect(r == EINVAL, bad[i].what, r);
	}
	addrs[0] = 1;
	addrs[1] = ~0ull;
	r = ksym(sk, family, addrs, 16, &a);
	expect(r == 0 && a.names == 2 && !a.name[0][0] && !a.name[1][0],
	       "KSYM of addresses no symbol holds answers \"\"", r ? r : a.names);
}

static void kptr_restrict_2(void)
{
	FILE *f = fopen("/proc/sys/kernel/kptr_restrict", "r+");
	int old = -1, r;

	if (!f || fscanf(f, "%d", &old) != 1) {
		expect(0, "reading kernel.kptr_restrict", old);
		return;
	}
	rewind(f);
	fprintf(f, "2\n");
	fflush(f);
	/* root keeps CAP_SYSLOG in this one: what refuses it is kptr_restrict */
	{
		pid_t pid = fork();
		int st = 0;

		if (pid == 0) {
			uint64_t addr = 0;
			struct answer *a = malloc(sizeof(*a));
			int family;
			struct nl_sock *sk = connect_family(&family);

			_exit(ksym(sk, family, &addr, 8, a));
		}
		waitpid(pid, &st, 0);
		r = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	}
	rewind(f);
	fprintf(f, "%d\n", old);
	fclose(f);
	expect(r == EPERM, "KSYM under kernel.kptr_restrict 2 is refused (EPERM), root included",
	       r);
}

int check_ksym(void)
{
	size_t n, npick = 0, *pick = calloc(WANT, sizeof(*pick)), text = 0, mods = 0;
	struct ksym *v = read_kallsyms(&n);
	int family, asked = 0, bad;
	struct nl_sock *sk = connect_family(&family);

	for (size_t i = 0; i < n; i++)
		text += v[i].text;
	/* every text symbol of a module, the kernel's spread evenly, up to WANT */
	for (size_t i = 0, step = text / WANT + 1, t = 0; i < n && npick < WANT; i++) {
		if (!v[i].text || (i + 1 < n && v[i + 1].addr == v[i].addr + 1))
			continue;
		if (v[i].mod[0] || t++ % step == 0) {
			mods += !!v[i].mod[0];
			pick[npick++] = i;
		}
	}
	printf("lfr-nl: /proc/kallsyms: %zu symbols, %zu of them text; asking for %zu (%zu in "
	       "modules)\n",
	       n, text, npick, mods);
	expect(npick >= 100, "enough text symbols to ask for", (long long)npick);
	bad = compare(sk, family, v, n, pick, npick, 0, LFR_KSYM_MAX_ADDRS, &asked);
	bad += compare(sk, family, v, n, pick, npick, 1, LFR_KSYM_MAX_ADDRS, &asked);
	bad += compare(sk, family, v, n, pick, npick < 200 ? npick : 200, 1, 1, &asked);
	printf("lfr-nl: KSYM named %d addresses, %d not as /proc/kallsyms does\n", asked, bad);
	expect(bad == 0 && asked > 0, "KSYM names functions as /proc/kallsyms does", bad);
	requests_refused(sk, family);
	bad = denied(false);
	expect(bad == EPERM, "KSYM from root without CAP_SYSLOG is refused (EPERM)", bad);
	bad = denied(true);
	expect(bad == EPERM, "KSYM from uid 65534 with CAP_PERFMON is refused (EPERM)", bad);
	kptr_restrict_2();
	nl_socket_free(sk);
	free(v);
	free(pick);
	return fails ? 1 : 0;
}

/* Runs argv without CAP_SYSLOG, not even after an exec as root (busybox's setpriv cannot). */
int run_nosyslog(char **argv)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (prctl(PR_CAPBSET_DROP, CAP_SYSLOG, 0, 0, 0) || syscall(SYS_capget, &h, d)) {
		perror("lfr-nl nosyslog: dropping CAP_SYSLOG");
		return 2;
	}
	d[CAP_SYSLOG / 32].effective &= ~(1u << (CAP_SYSLOG % 32));
	d[CAP_SYSLOG / 32].permitted &= ~(1u << (CAP_SYSLOG % 32));
	d[CAP_SYSLOG / 32].inheritable &= ~(1u << (CAP_SYSLOG % 32));
	if (syscall(SYS_capset, &h, d)) {
		perror("lfr-nl nosyslog: dropping CAP_SYSLOG");
		return 2;
	}
	execvp(argv[0], argv);
	perror(argv[0]);
	return 127;
}

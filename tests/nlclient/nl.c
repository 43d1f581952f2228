// SPDX-License-Identifier: GPL-2.0
/* lfr-nl: sending requests with libnl and checking every answer the kernel gives. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/lfr.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <sys/socket.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int nlc_open(struct nlc *c)
{
	int one = 1;

	memset(c, 0, sizeof(*c));
	c->sk = nl_socket_alloc();
	if (!c->sk)
		return -ENOMEM;
	if (genl_connect(c->sk) < 0) {
		nl_socket_free(c->sk);
		c->sk = NULL;
		return -EIO;
	}
	/* replies are matched by hand: libnl's own sequence and ack logic stays out */
	nl_socket_disable_seq_check(c->sk);
	nl_socket_disable_auto_ack(c->sk);
	setsockopt(nl_socket_get_fd(c->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	nl_socket_set_nonblocking(c->sk);
	c->seq = 1;
	nlc_resolve(c);
	return 0;
}

void nlc_close(struct nlc *c)
{
	if (c->sk)
		nl_socket_free(c->sk);
	c->sk = NULL;
}

/* On a socket of its own: libnl's resolver wants its default, blocking settings. */
int nlc_resolve(struct nlc *c)
{
	struct nl_sock *sk = nl_socket_alloc();
	int id = -1;

	if (sk && genl_connect(sk) == 0)
		id = genl_ctrl_resolve(sk, LFR_GENL_NAME);
	if (sk)
		nl_socket_free(sk);
	c->family = id > 0 ? id : 0;
	return c->family ? 0 : -ENOENT;
}

static void invalid(struct nlc_answer *a, const char *fmt, int v)
{
	if (!a->invalid++)
		snprintf(a->why, sizeof(a->why), fmt, v);
}

/* KSYM's reply: a nest of NUL-terminated names, numbered from 1 to at most LFR_KSYM_MAX_ADDRS. */
static void check_ksym_msg(struct nlattr **tb, struct nlc_answer *a)
{
	struct nlattr *n;
	int rem, i = 0;

	if (!tb[LFR_A_KSYMS]) {
		invalid(a, "a KSYM reply without names (command %d)", LFR_CMD_KSYM);
		return;
	}
	nla_for_each_nested(n, tb[LFR_A_KSYMS], rem)
	{
		if (nla_type(n) != ++i || i > LFR_KSYM_MAX_ADDRS || nla_len(n) < 1 ||
		    ((char *)nla_data(n))[nla_len(n) - 1])
			invalid(a, "a KSYM reply with a bad name (number %d)", i);
	}
	a->has_msg = true;
	a->msg_cmd = LFR_CMD_KSYM;
}

/* One message of the family: a reply must be a known command with well-formed attributes. */
static void check_family_msg(struct nlc *c, struct nlmsghdr *h, struct nlc_answer *a)
{
	struct nlattr *tb[LFR_A_MAX + 1];
	struct genlmsghdr *g;

	if (!genlmsg_valid_hdr(h, 0)) {
		invalid(a, "a message of the family without a genetlink header (len %d)",
		        (int)h->nlmsg_len);
		return;
	}
	g = nlmsg_data(h);
	if (g->cmd != LFR_CMD_START && g->cmd != LFR_CMD_STOP && g->cmd != LFR_CMD_STATUS &&
	    g->cmd != LFR_CMD_KSYM) {
		invalid(a, "a reply with command %d", g->cmd);
		return;
	}
	if (genlmsg_parse(h, 0, tb, LFR_A_MAX, NULL) < 0) {
		invalid(a, "a reply whose attributes do not parse (command %d)", g->cmd);
		return;
	}
	if (g->cmd == LFR_CMD_KSYM) {
		check_ksym_msg(tb, a);
		return;
	}
	if (!tb[LFR_A_STATE] || nla_len(tb[LFR_A_STATE]) != 4) {
		invalid(a, "a reply without a u32 state (command %d)", g->cmd);
		return;
	}
	a->has_msg = true;
	a->msg_cmd = g->cmd;
	a->state = nla_get_u32(tb[LFR_A_STATE]);
	if (a->state > LFR_STATE_STOPPED)
		invalid(a, "a reply with state %d", (int)a->state);
	if (tb[LFR_A_SESSION_ID]) {
		if (nla_len(tb[LFR_A_SESSION_ID]) != 4)
			invalid(a, "a session id of %d bytes", nla_len(tb[LFR_A_SESSION_ID]));
		else
			a->id = nla_get_u32(tb[LFR_A_SESSION_ID]);
	} else if (a->state != LFR_STATE_IDLE) {
		invalid(a, "a reply for a session without its id (state %d)", (int)a->state);
	}
	(void)c;
}

/* Reads what arrives for SEQ until its ack, error or end of dump, or MS without anything. */
static int collect(struct nlc *c, uint32_t seq, struct nlc_answer *a, int ms)
{
	struct pollfd p = {.fd = nl_socket_get_fd(c->sk), .events = POLLIN};

	while (!a->acked) {
		struct sockaddr_nl addr;
		unsigned char *buf = NULL;
		struct nlmsghdr *h;
		int n, r = poll(&p, 1, ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -ETIMEDOUT;
		n = nl_recv(c->sk, &addr, &buf, NULL);
		if (n <= 0) {
			free(buf);
			if (n == 0 || n == -NLE_AGAIN)
				continue;
			return n == -NLE_NOMEM ? -ENOBUFS : -EIO;
		}
		for (h = (struct nlmsghdr *)buf; nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = nlmsg_data(h);

				if (h->nlmsg_len < (uint32_t)nlmsg_size(sizeof(*e))) {
					invalid(a, "a truncated error message (%d bytes)",
					        (int)h->nlmsg_len);
					continue;
				}
				if (e->error > 0 || e->error < -4095)
					invalid(a, "an error message with code %d", e->error);
				if (h->nlmsg_seq == seq) {
					a->acked = true;
					a->error = -e->error;
				}
			} else if (h->nlmsg_type == NLMSG_DONE) {
				/* the end of a dump (STATUS's per-CPU counters), with its error */
				int err = 0;

				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(err))
					memcpy(&err, nlmsg_data(h), sizeof(err));
				if (err > 0 || err < -4095)
					invalid(a, "a dump ended with code %d", err);
				if (h->nlmsg_seq == seq) {
					a->acked = true;
					a->error = -err;
				}
			} else if (h->nlmsg_type == NLMSG_NOOP) {
				continue;
			} else if (c->family && h->nlmsg_type == c->family) {
				if (h->nlmsg_seq == seq)
					check_family_msg(c, h, a);
			} else {
				invalid(a, "a message of unexpected type %d", h->nlmsg_type);
			}
		}
		free(buf);
	}
	return 0;
}

int nlc_send_raw(struct nlc *c, void *buf, size_t len, struct nlc_answer *a, int ms)
{
	struct nlmsghdr *h = buf;
	uint32_t seq = ++c->seq;
	int r;

	memset(a, 0, sizeof(*a));
	if (len >= sizeof(*h))
		h->nlmsg_seq = seq;
	if (c->no_dest) {
		r = (int)send(nl_socket_get_fd(c->sk), buf, len, 0);
		if (r < 0)
			return -errno;
	} else {
		r = nl_sendto(c->sk, buf, len);
	}
	if (r < 0)
		return r == -NLE_PERM ? -EPERM : -EIO;
	if (ms < 0)
		return 0;
	return collect(c, seq, a, ms);
}

int nlc_request(struct nlc *c, int cmd, const void *attrs, size_t len, int flags,
                struct nlc_answer *a, int ms)
{
	struct nl_msg *m = nlmsg_alloc_size(NLMSG_HDRLEN + GENL_HDRLEN + len + 64);
	struct nlmsghdr *h;
	void *p;
	int r;

	if (!m)
		return -ENOMEM;
	p = genlmsg_put(m, NL_AUTO_PORT, 0, c->family, 0, flags, (uint8_t)cmd, LFR_GENL_VERSION);
	if (!p || (len && nlmsg_append(m, (void *)attrs, len, 0) < 0)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	h = nlmsg_hdr(m);
	r = nlc_send_raw(c, h, h->nlmsg_len, a, ms);
	nlmsg_free(m);
	return r;
}

int nlc_status(struct nlc *c, uint32_t id, uint32_t *sid)
{
	struct nlc_answer a;
	unsigned char attrs[8];
	struct nlattr *na = (struct nlattr *)attrs;
	int r;

	na->nla_len = 8;
	na->nla_type = LFR_A_SESSION_ID;
	memcpy(attrs + 4, &id, 4);
	r = nlc_request(c, LFR_CMD_STATUS, attrs, id ? 8 : 0, NLM_F_REQUEST | NLM_F_ACK, &a, 10000);
	if (r < 0)
		return r;
	if (a.error)
		return -a.error;
	if (!a.has_msg)
		return -EBADMSG;
	if (sid)
		*sid = a.id;
	return (int)a.state;
}

int nlc_stop(struct nlc *c, uint32_t id, bool abandon)
{
	unsigned char attrs[12];
	struct nlattr *na = (struct nlattr *)attrs;
	struct nlc_answer a;
	size_t len = 0;
	int r;

	if (id) {
		na->nla_len = 8;
		na->nla_type = LFR_A_SESSION_ID;
		memcpy(attrs + 4, &id, 4);
		len = 8;
	}
	if (abandon) {
		na = (struct nlattr *)(attrs + len);
		na->nla_len = 4;
		na->nla_type = LFR_A_ABANDON;
		len += 4;
	}
	r = nlc_request(c, LFR_CMD_STOP, attrs, len, NLM_F_REQUEST | NLM_F_ACK, &a, 10000);
	if (r < 0)
		return r;
	return -a.error;
}

// SPDX-License-Identifier: GPL-2.0
/* Generic netlink on libmnl: family resolution, requests, extack-aware error reporting. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/socket.h>

#include <linux/netlink.h>

#include "lib/genl.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

struct req_ctx {
	mnl_cb_t cb;
	void *data;
	const struct nlmsghdr *req;
	struct lfr_error *e;
};

static void debug_dump(const struct lfr_genl *g, const char *dir, const void *buf, size_t len)
{
	if (!g->debug)
		return;
	fprintf(stderr, "---- netlink %s (%zu bytes)\n", dir, len);
	mnl_nlmsg_fprintf(stderr, buf, len, sizeof(struct genlmsghdr));
}

/* ---- extack ---- */

struct extack_ctx {
	const struct nlmsghdr *req;
	struct lfr_error *e;
};

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	struct extack_ctx *x = data;
	uint16_t type = mnl_attr_get_type(attr);

	switch (type) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			snprintf(x->e->msg, sizeof(x->e->msg), "%s", mnl_attr_get_str(attr));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0 && x->req) {
			uint32_t off = mnl_attr_get_u32(attr);

			if (off >= NLMSG_HDRLEN &&
			    (uint64_t)off + sizeof(struct nlattr) <= x->req->nlmsg_len) {
				const struct nlattr *bad =
				    (const struct nlattr *)((const char *)x->req + off);

				x->e->bad_attr = bad->nla_type & NLA_TYPE_MASK;
				x->e->bad_attr_off = off;
			}
		}
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			x->e->missing_attr = (int)mnl_attr_get_u32(attr);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

void lfr_genl_parse_extack(const struct nlmsghdr *nlh, const struct nlmsghdr *req,
                           struct lfr_error *e)
{
	struct extack_ctx x = {req, e};
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nlh->nlmsg_type == NLMSG_DONE) {
		off = sizeof(int);
	} else {
		if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err)))
			return;
		off = sizeof(*err);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += err->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	if (MNL_ALIGN(off) >= mnl_nlmsg_get_payload_len(nlh))
		return;
	mnl_attr_parse(nlh, (unsigned int)off, extack_attr_cb, &x);
}

static int ctl_error_cb(const struct nlmsghdr *nlh, void *data)
{
	struct req_ctx *ctx = data;
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct lfr_error tmp;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (err->error == 0) {
		/* an ack; the kernel may still have attached a warning */
		lfr_error_clear(&tmp);
		lfr_genl_parse_extack(nlh, ctx->req, &tmp);
		memcpy(ctx->e->warning, tmp.msg, sizeof(ctx->e->warning));
		return MNL_CB_STOP;
	}
	lfr_genl_parse_extack(nlh, ctx->req, ctx->e);
	errno = err->error < 0 ? -err->error : err->error;
	return MNL_CB_ERROR;
}

static int ctl_done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct req_ctx *ctx = data;
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err < 0) {
		lfr_genl_parse_extack(nlh, ctx->req, ctx->e);
		errno = -err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int ctl_noop_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_OK;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct req_ctx *ctx = data;

	return ctx->cb ? ctx->cb(nlh, ctx->data) : MNL_CB_OK;
}

/* ---- requests ---- */

struct nlmsghdr *lfr_genl_msg(struct lfr_genl *g, void *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = g->family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++g->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = (uint8_t)g->version;
	return nlh;
}

int lfr_genl_request(struct lfr_genl *g, struct nlmsghdr *req, const char *what, mnl_cb_t cb,
                     void *data, struct lfr_error *e)
{
	struct req_ctx ctx = {cb, data, req, e};
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {0};
	ssize_t len;
	int ret;

	ctl[NLMSG_NOOP] = ctl_noop_cb;
	ctl[NLMSG_ERROR] = ctl_error_cb;
	ctl[NLMSG_DONE] = ctl_done_cb;
	lfr_error_clear(e);
	req->nlmsg_flags |= NLM_F_ACK;
	debug_dump(g, "request", req, req->nlmsg_len);
	if (mnl_socket_sendto(g->sock, req, req->nlmsg_len) < 0) {
		lfr_error_set(e, errno, "%s: sending the request", what);
		lfr_error_default_hint(e);
		return -1;
	}
	do {
		len = mnl_socket_recvfrom(g->sock, g->buf, LFR_GENL_BUFSIZE);
		if (len < 0) {
			lfr_error_set(e, errno, "%s: receiving the reply", what);
			if (errno == ENOSPC)
				snprintf(e->msg, sizeof(e->msg), "a reply did not fit in %d bytes",
				         LFR_GENL_BUFSIZE);
			return -1;
		}
		debug_dump(g, "reply", g->buf, (size_t)len);
		ret = mnl_cb_run2(g->buf, (size_t)len, req->nlmsg_seq, g->portid, data_cb, &ctx,
		                  ctl, NLMSG_MIN_TYPE);
	} while (ret > MNL_CB_STOP);
	if (ret < 0) {
		lfr_error_set(e, errno, "%s", what);
		lfr_error_default_hint(e);
		return -1;
	}
	return 0;
}

/* ---- family resolution ---- */

static int group_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type == CTRL_ATTR_MCAST_GRP_NAME && mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		tb[type] = attr;
	else if (type == CTRL_ATTR_MCAST_GRP_ID && mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		tb[type] = attr;
	return MNL_CB_OK;
}

static void parse_groups(struct lfr_genl *g, const struct nlattr *nest)
{
	const struct nlattr *pos;

	mnl_attr_for_each_nested(pos, nest)
	{
		const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = {0};

		if (g->ngroups == LFR_GENL_MAX_GROUPS)
			break;
		mnl_attr_parse_nested(pos, group_attr_cb, tb);
		if (!tb[CTRL_ATTR_MCAST_GRP_NAME] || !tb[CTRL_ATTR_MCAST_GRP_ID])
			continue;
		snprintf(g->groups[g->ngroups].name, GENL_NAMSIZ, "%s",
		         mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]));
		g->groups[g->ngroups].id = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
		g->ngroups++;
	}
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	struct lfr_genl *g = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) == 0)
			g->family_id = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			g->version = mnl_attr_get_u32(attr);
		break;
	case CTRL_ATTR_MAXATTR:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			g->maxattr = mnl_attr_get_u32(attr);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) == 0)
			parse_groups(g, attr);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, data);
}

static int resolve_family(struct lfr_genl *g, const char *module, struct lfr_error *e)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	uint16_t saved_version;

	g->family_id = GENL_ID_CTRL;
	saved_version = (uint16_t)g->version;
	g->version = 1;
	nlh = lfr_genl_msg(g, buf, CTRL_CMD_GETFAMILY, 0);
	g->version = saved_version;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, g->family);
	g->family_id = 0;
	if (lfr_genl_request(g, nlh, "resolving the generic netlink family", family_cb, g, e) < 0) {
		if (e->code == ENOENT) {
			e->no_module = 1;
			snprintf(e->msg, sizeof(e->msg),
			         "the kernel has no generic netlink family \"%s\"", g->family);
			snprintf(
			    e->hint, sizeof(e->hint),
			    "the %s module is not loaded: load it with 'modprobe %s' (or 'insmod "
			    "%s.ko' from a build tree) and check 'dmesg' if that fails",
			    module, module, module);
		}
		return -1;
	}
	if (!g->family_id) {
		lfr_error_set(e, EPROTO, "resolving the generic netlink family");
		snprintf(e->msg, sizeof(e->msg), "the kernel's reply carried no family id");
		return -1;
	}
	return 0;
}

int lfr_genl_open(struct lfr_genl *g, const char *family, const char *module, struct lfr_error *e)
{
	const char *dbg = getenv("LFR_DEBUG_NETLINK");
	int one = 1;

	memset(g, 0, sizeof(*g));
	lfr_error_clear(e);
	snprintf(g->family, sizeof(g->family), "%s", family);
	g->debug = dbg && *dbg && strcmp(dbg, "0");
	g->buf = malloc(LFR_GENL_BUFSIZE);
	/* close-on-exec: a command lfr runs must not keep the session's controlling socket */
	g->sock = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!g->buf || !g->sock) {
		lfr_error_set(e, g->buf ? errno : ENOMEM, "opening a generic netlink socket");
		goto fail;
	}
	if (mnl_socket_bind(g->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		lfr_error_set(e, errno, "binding the generic netlink socket");
		goto fail;
	}
	/* Both are best effort: kernels without them still work, with less precise errors. */
	mnl_socket_setsockopt(g->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(g->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	g->portid = mnl_socket_get_portid(g->sock);
	g->seq = (uint32_t)time(NULL);
	if (resolve_family(g, module, e) < 0)
		goto fail;
	return 0;
fail:
	lfr_genl_close(g);
	return -1;
}

void lfr_genl_close(struct lfr_genl *g)
{
	if (g->sock)
		mnl_socket_close(g->sock);
	free(g->buf);
	g->sock = NULL;
	g->buf = NULL;
}

int lfr_genl_join(struct lfr_genl *g, const char *name, struct lfr_error *e)
{
	for (int i = 0; i < g->ngroups; i++) {
		if (strcmp(g->groups[i].name, name))
			continue;
		if (mnl_socket_setsockopt(g->sock, NETLINK_ADD_MEMBERSHIP, &g->groups[i].id,
		                          sizeof(g->groups[i].id)) < 0) {
			lfr_error_set(e, errno, "joining the multicast group \"%s\"", name);
			lfr_error_default_hint(e);
			return -1;
		}
		return 0;
	}
	lfr_error_set(e, ENOENT, "joining the multicast group \"%s\"", name);
	snprintf(e->msg, sizeof(e->msg), "family \"%s\" has no such group", g->family);
	snprintf(e->hint, sizeof(e->hint),
	         "the tools and the loaded module may be of different versions");
	return -1;
}

int lfr_genl_fd(const struct lfr_genl *g)
{
	return mnl_socket_get_fd(g->sock);
}

int lfr_genl_recv_events(struct lfr_genl *g, int timeout_ms, mnl_cb_t cb, void *data,
                         struct lfr_error *e)
{
	struct pollfd pfd = {.fd = mnl_socket_get_fd(g->sock), .events = POLLIN};
	int n = 0, ret;
	ssize_t len;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0) {
		lfr_error_set(e, errno, "waiting for notifications");
		return -1;
	}
	if (ret == 0)
		return 0;
	len = mnl_socket_recvfrom(g->sock, g->buf, LFR_GENL_BUFSIZE);
	if (len < 0) {
		lfr_error_set(e, errno, "receiving notifications");
		if (errno == ENOBUFS)
			snprintf(e->msg, sizeof(e->msg),
			         "notifications were dropped by the kernel");
		return -1;
	}
	debug_dump(g, "notification", g->buf, (size_t)len);
	for (const struct nlmsghdr *nlh = (const void *)g->buf; mnl_nlmsg_ok(nlh, (int)len);
	     nlh = mnl_nlmsg_next(nlh, (int *)&len)) {
		if (nlh->nlmsg_type != g->family_id)
			continue;
		n++;
		if (cb && cb(nlh, data) < MNL_CB_OK)
			break;
	}
	return n;
}

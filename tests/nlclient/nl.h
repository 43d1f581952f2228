/* SPDX-License-Identifier: GPL-2.0 */
/* lfr-nl: a libnl-3 client of the lfr family, independent of liblfr. */
#ifndef LFR_NL_H
#define LFR_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

struct nlc {
	struct nl_sock *sk;
	int family; /* 0 when the family is not registered */
	uint32_t seq;
	/* send() without an address, as a write to a passed descriptor would: the kernel's
	 * netlink_capable() then also checks the capabilities of the socket's opener */
	bool no_dest;
};

/* What came back for one request. */
struct nlc_answer {
	int error;      /* errno of the NLMSG_ERROR, 0 for an ack */
	bool acked;     /* an NLMSG_ERROR (ack or error) arrived */
	bool has_msg;   /* a message of the family arrived */
	int msg_cmd;    /* its command */
	uint32_t id;    /* LFR_A_SESSION_ID of that message, 0 if none */
	uint32_t state; /* LFR_A_STATE of that message */
	int invalid;    /* messages that were neither a valid reply nor an error */
	char why[160];  /* the first invalid message, described */
};

int nlc_open(struct nlc *c);
void nlc_close(struct nlc *c);
int nlc_resolve(struct nlc *c);
/* Sends LEN raw bytes (a complete netlink message) and collects its answer within MS. */
int nlc_send_raw(struct nlc *c, void *buf, size_t len, struct nlc_answer *a, int ms);
/* Builds and sends a message: CMD with the attribute stream ATTRS (already laid out). */
int nlc_request(struct nlc *c, int cmd, const void *attrs, size_t len, int flags,
                struct nlc_answer *a, int ms);
/* STATUS of session ID (0: the newest); returns the state or -errno. */
int nlc_status(struct nlc *c, uint32_t id, uint32_t *sid);
int nlc_stop(struct nlc *c, uint32_t id, bool abandon);

#endif

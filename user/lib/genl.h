/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A generic netlink client on libmnl: resolves a family by name (id, version, multicast groups),
 * sends requests and collects replies, and turns every kernel error into a struct lfr_error that
 * keeps the extack message verbatim and names the attribute the kernel pointed at.
 *
 * Setting LFR_DEBUG_NETLINK=1 in the environment dumps every message sent and received to stderr.
 */
#ifndef LFR_LIB_GENL_H
#define LFR_LIB_GENL_H

#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "lib/error.h"

#define LFR_GENL_MAX_GROUPS 8
#define LFR_GENL_BUFSIZE (64 * 1024)

struct lfr_genl_group {
	char name[GENL_NAMSIZ];
	uint32_t id;
};

struct lfr_genl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	char family[GENL_NAMSIZ];
	uint16_t family_id;
	uint32_t version; /* the family's version as registered by the kernel */
	uint32_t maxattr;
	struct lfr_genl_group groups[LFR_GENL_MAX_GROUPS];
	int ngroups;
	int debug;
	char *buf; /* LFR_GENL_BUFSIZE bytes for replies */
};

/*
 * Opens a netlink socket with extended acks and resolves FAMILY.  A family the kernel does not know
 * fails with ENOENT and a hint that the module must be loaded (module names the module).
 */
int lfr_genl_open(struct lfr_genl *g, const char *family, const char *module, struct lfr_error *e);
void lfr_genl_close(struct lfr_genl *g);

/* Starts a request for CMD in BUF (at least MNL_SOCKET_BUFFER_SIZE bytes); add attributes with
 * mnl_attr_put*. */
struct nlmsghdr *lfr_genl_msg(struct lfr_genl *g, void *buf, uint8_t cmd, uint16_t flags);

/*
 * Sends REQ (NLM_F_ACK is added) and runs CB on every reply message until the ack (or NLMSG_DONE
 * for dumps).  Returns 0, or -1 with E filled: the errno, the kernel's extack message, the
 * offending or missing attribute.  WHAT names the operation for messages ("START").  CB may be
 * NULL.
 */
int lfr_genl_request(struct lfr_genl *g, struct nlmsghdr *req, const char *what, mnl_cb_t cb,
                     void *data, struct lfr_error *e);

/* Joins the multicast group NAME of the family; ENOENT when the family has no such group. */
int lfr_genl_join(struct lfr_genl *g, const char *name, struct lfr_error *e);

/*
 * Waits up to TIMEOUT_MS (-1 = forever) for multicast messages and runs CB on each.  Returns the
 * number of messages seen (0 on timeout), or -1 with E filled.
 */
int lfr_genl_recv_events(struct lfr_genl *g, int timeout_ms, mnl_cb_t cb, void *data,
                         struct lfr_error *e);

/* The file descriptor to poll for multicast messages. */
int lfr_genl_fd(const struct lfr_genl *g);

/*
 * Parses the extack TLVs of an NLMSG_ERROR or NLMSG_DONE message NLH into E; REQ (may be NULL) is
 * the request it answers, used to name the attribute at NLMSGERR_ATTR_OFFS.  Exposed for the unit
 * tests.
 */
void lfr_genl_parse_extack(const struct nlmsghdr *nlh, const struct nlmsghdr *req,
                           struct lfr_error *e);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Netlink plumbing without a kernel: extack parsing of synthetic NLMSG_ERROR messages, naming of
 * the offending attribute, counter nests, and the hints given for each errno. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/control.h"

static _Alignas(8) char req_buf[512];
static _Alignas(8) char err_buf[1024];

/* A START request with a TARGETS nest holding two tgids. Returns it; *tgid2_off = offset of the
 * second tgid. */
static struct nlmsghdr *make_request(unsigned int *tgid2_off, unsigned int *ring_off)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req_buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *nest;

	nlh->nlmsg_type = 0x20;
	g->cmd = LFR_CMD_START;
	*ring_off = nlh->nlmsg_len;
	mnl_attr_put_u32(nlh, LFR_A_RING_PAGES, 3);
	nest = mnl_attr_nest_start(nlh, LFR_A_TARGETS);
	mnl_attr_put_u32(nlh, LFR_TARGET_A_TGID, 100);
	*tgid2_off = nlh->nlmsg_len;
	mnl_attr_put_u32(nlh, LFR_TARGET_A_TGID, 4242);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* The kernel's NLMSG_ERROR for REQ: ERR, optionally capped, with a message and an offset. */
static struct nlmsghdr *make_error(const struct nlmsghdr *req, int err, int capped, const char *msg,
                                   int off, int miss)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(err_buf);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_ACK_TLVS | (capped ? NLM_F_CAPPED : 0);
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = err;
	e->msg = *req;
	if (!capped) {
		void *copy = mnl_nlmsg_put_extra_header(nlh, req->nlmsg_len - NLMSG_HDRLEN);

		memcpy(copy, (const char *)req + NLMSG_HDRLEN, req->nlmsg_len - NLMSG_HDRLEN);
	}
	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	if (off >= 0)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, (uint32_t)off);
	if (miss >= 0)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, (uint32_t)miss);
	return nlh;
}

static void test_extack_capped_and_full(void **state)
{
	unsigned int tgid2, ring;
	struct nlmsghdr *req = make_request(&tgid2, &ring);

	(void)state;
	for (int capped = 0; capped <= 1; capped++) {
		struct lfr_error e;

		lfr_error_clear(&e);
		lfr_genl_parse_extack(
		    make_error(req, -ESRCH, capped, "no process with this tgid", (int)tgid2, -1),
		    req, &e);
		assert_string_equal(e.msg, "no process with this tgid");
		assert_int_equal(e.bad_attr, LFR_TARGET_A_TGID);
		assert_int_equal(e.bad_attr_off, tgid2);
	}
}

static void test_extack_missing_and_absent(void **state)
{
	unsigned int tgid2, ring;
	struct nlmsghdr *req = make_request(&tgid2, &ring);
	struct nlmsghdr *err;
	struct lfr_error e;

	(void)state;
	lfr_error_clear(&e);
	lfr_genl_parse_extack(make_error(req, -EINVAL, 1, NULL, -1, LFR_A_TARGETS), req, &e);
	assert_int_equal(e.missing_attr, LFR_A_TARGETS);
	assert_string_equal(e.msg, "");
	/* an offset outside the request is ignored */
	lfr_error_clear(&e);
	lfr_genl_parse_extack(make_error(req, -EINVAL, 1, "x", 4000, -1), req, &e);
	assert_int_equal(e.bad_attr, -1);
	/* without NLM_F_ACK_TLVS nothing is parsed */
	lfr_error_clear(&e);
	err = make_error(req, -EINVAL, 1, "ignored", -1, -1);
	err->nlmsg_flags &= (uint16_t)~NLM_F_ACK_TLVS;
	lfr_genl_parse_extack(err, req, &e);
	assert_string_equal(e.msg, "");
}

static void test_counters_nest(void **state)
{
	char buf[512];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct lfr_counters c;
	struct nlattr *nest;

	(void)state;
	nest = mnl_attr_nest_start(nlh, LFR_A_COUNTERS);
	mnl_attr_put_u64(nlh, LFR_CTR_TICKS, 10);
	mnl_attr_put_u64(nlh, LFR_CTR_LOST_EXEC, 2);
	mnl_attr_put_u64(nlh, LFR_CTR_LOST_RING_FULL, 3);
	mnl_attr_put_u64(nlh, LFR_CTR_LOST_AUX_RING_FULL, 7); /* records, not ticks */
	mnl_attr_put_u64(nlh, LFR_CTR_MAX + 5, 99);           /* a newer counter: ignored */
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(lfr_counters_parse(nest, &c), 0);
	assert_int_equal(c.v[LFR_CTR_TICKS], 10);
	assert_true(c.present[LFR_CTR_TICKS]);
	assert_false(c.present[LFR_CTR_MERGED]);
	assert_int_equal(lfr_counters_lost(&c), 5);

	/* a counter of the wrong size is malformed */
	nlh = mnl_nlmsg_put_header(buf);
	nest = mnl_attr_nest_start(nlh, LFR_A_COUNTERS);
	mnl_attr_put_u32(nlh, LFR_CTR_TICKS, 10);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(lfr_counters_parse(nest, &c), -1);
}

static void test_hints(void **state)
{
	static const int codes[] = {EPERM, EBUSY, ESRCH, EINVAL, ENOMEM, ENOENT, EOPNOTSUPP};
	struct lfr_error e;

	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		lfr_error_clear(&e);
		lfr_error_set(&e, codes[i], "START");
		lfr_error_default_hint(&e);
		assert_true(strlen(e.hint) > 10);
	}
	lfr_error_clear(&e);
	lfr_error_set(&e, EPERM, "START");
	lfr_error_default_hint(&e);
	assert_non_null(strstr(e.hint, "CAP_PERFMON"));
	/* refused as not the session's owner (the capability is there): the hint says whose */
	lfr_error_clear(&e);
	lfr_error_set(&e, EPERM, "STOP");
	snprintf(e.msg, sizeof(e.msg), "%s",
	         "only the user who started the session (or CAP_SYS_ADMIN) may stop it");
	lfr_error_default_hint(&e);
	assert_null(strstr(e.hint, "CAP_PERFMON"));
	assert_non_null(strstr(e.hint, "another user"));
	/* a hint set by the caller is kept */
	snprintf(e.hint, sizeof(e.hint), "mine");
	lfr_error_default_hint(&e);
	assert_string_equal(e.hint, "mine");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_extack_capped_and_full),
	    cmocka_unit_test(test_extack_missing_and_absent),
	    cmocka_unit_test(test_counters_nest),
	    cmocka_unit_test(test_hints),
	};

	return cmocka_run_group_tests_name("genl", tests, NULL, NULL);
}

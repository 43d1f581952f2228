/* SPDX-License-Identifier: GPL-2.0 */
/* lfr-nl: laying out attribute streams by hand (the fuzzer needs wrong ones too). */
#ifndef LFR_NL_ATTRS_H
#define LFR_NL_ATTRS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/netlink.h>

struct abuf {
	unsigned char b[8192];
	size_t len;
};

/* Appends an attribute of TYPE with LEN bytes of DATA (NULL: zeros); returns its offset. */
static inline size_t abuf_put(struct abuf *a, uint16_t type, const void *data, size_t len)
{
	size_t off = a->len, total = NLA_ALIGN(NLA_HDRLEN + len);
	struct nlattr na = {.nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type};

	if (off + total > sizeof(a->b))
		return off;
	memcpy(a->b + off, &na, sizeof(na));
	memset(a->b + off + NLA_HDRLEN, 0, total - NLA_HDRLEN);
	if (data)
		memcpy(a->b + off + NLA_HDRLEN, data, len);
	a->len += total;
	return off;
}

static inline void abuf_u32(struct abuf *a, uint16_t type, uint32_t v)
{
	abuf_put(a, type, &v, 4);
}

static inline void abuf_u64(struct abuf *a, uint16_t type, uint64_t v)
{
	abuf_put(a, type, &v, 8);
}

static inline size_t abuf_nest_start(struct abuf *a, uint16_t type)
{
	return abuf_put(a, type | NLA_F_NESTED, NULL, 0);
}

static inline void abuf_nest_end(struct abuf *a, size_t off)
{
	struct nlattr *na = (struct nlattr *)(a->b + off);

	na->nla_len = (uint16_t)(a->len - off);
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HTTP POSTs to a fleet backend, with libcurl (opened at the first request, as libdebuginfod is:
 * it brings some thirty libraries that no other command needs to load).  Every request is
 * bounded: a time limit for the whole of it and for connecting, at most LFR_HTTP_ANSWER_MAX bytes
 * of answer read (a longer one ends the request), http and https only and no redirect followed
 * (a 3xx is an answer like any other), TLS certificates and host names verified (a CA file may
 * replace the system's authorities).  One handle keeps its connection between requests.
 */
#ifndef LFR_EXPORT_TRANSPORT_H
#define LFR_EXPORT_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

#define LFR_HTTP_ANSWER_MAX (1u << 20)
#define LFR_HTTP_KEEP 1024 /* bytes of an answer kept for messages */
#define LFR_HTTP_TIMEOUT_S 30
#define LFR_HTTP_CONNECT_TIMEOUT_S 10

struct lfr_http;

struct lfr_http_opts {
	const char *ca_file; /* the authorities TLS certificates are checked against; NULL: the
	                      * system's */
	long timeout_s;      /* the whole request; 0: LFR_HTTP_TIMEOUT_S */
};

/* A part of a multipart/form-data body. */
struct lfr_http_part {
	const char *name, *filename, *type;
	const void *data;
	size_t len;
};

struct lfr_http_req {
	const char *url;
	const char *content_type;     /* of body */
	const char *content_encoding; /* of body: "gzip", or NULL */
	const void *body;
	size_t len;
	const struct lfr_http_part *parts; /* instead of body: a multipart/form-data body */
	size_t nparts;
	const char *const *headers; /* "Name: value" lines added (credentials), nheaders */
	size_t nheaders;
	const char *basic_auth; /* "user:password" for HTTP basic authentication, or NULL */
};

struct lfr_http_answer {
	long status;                  /* the HTTP status; 0 when none came */
	bool timed_out;               /* no status within the time limit */
	char why[256];                /* without a status: what happened (libcurl's words) */
	char body[LFR_HTTP_KEEP + 1]; /* the answer's first bytes, NUL-terminated */
	size_t body_len;              /* all of them, up to LFR_HTTP_ANSWER_MAX */
};

/*
 * Whether libcurl is where the dynamic loader would find it, without loading it (that costs
 * some fifteen million instructions, paid at the first request): 0, or -ENOSYS with why set.
 */
int lfr_http_available(char *why, size_t whylen);
/* A handle; 0, or a negative errno with why set (-ENOSYS: libcurl cannot be loaded). */
int lfr_http_new(struct lfr_http **out, const struct lfr_http_opts *o, char *why, size_t whylen);
/* One POST; 0 when an answer came (any status), else -1 with a->why set. */
int lfr_http_post(struct lfr_http *h, const struct lfr_http_req *r, struct lfr_http_answer *a);
void lfr_http_free(struct lfr_http *h);

#endif

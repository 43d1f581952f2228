/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sending a chunk to one export target: encoded for its kind (export/otlp.h: one request;
 * export/pyroscope.h: one upload per series), posted (export/transport.h) with its credentials
 * (export/credentials.h), each answer classified.  A chunk is sent part by part from the first
 * not yet delivered, and sending stops at the first part that must be tried again; waiting and
 * trying again are the callers' (export/follow.h for a recording's repository, lfr export).
 */
#ifndef LFR_EXPORT_SEND_H
#define LFR_EXPORT_SEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/target.h"

struct lfr_sender;

struct lfr_sender_opts {
	const char *ca_file;     /* TLS authorities (--ca-file); NULL: the system's */
	const char *credentials; /* the credentials file; NULL: $LFR_EXPORT_CREDENTIALS */
	long timeout_s;          /* per request; 0: the transport's default */
};

/* What became of a chunk (or of its part that stopped it). */
enum lfr_send_result {
	LFR_SEND_DONE,    /* every part delivered (or refused: see refused) */
	LFR_SEND_RETRY,   /* a part got no answer, or one to try again later (408, 429, 5xx) */
	LFR_SEND_CONFIG,  /* a part was refused in a way every upload would be (401, 403, 404,
	                   * 405, a redirect): the endpoint or its credentials are wrong */
	LFR_SEND_DAMAGED, /* the chunk does not parse: it can never be sent */
	LFR_SEND_ERROR,   /* out of memory */
};

struct lfr_send_report {
	unsigned parts;   /* the chunk's parts (requests); 0: nothing to send */
	unsigned refused; /* parts refused for their content (400, 413, 422 ...) */
	uint64_t samples; /* CPU samples in the parts delivered now */
	uint64_t cpu_ns;  /* their CPU time (otlp) */
	uint64_t bytes;   /* bytes posted (compressed) */
	long status;      /* the last answer's HTTP status, 0 if none */
	char why[1024];   /* what stopped it, or why a part was refused */
};

/* A sender of target t; 0, or -1 with why (credentials, libcurl). */
int lfr_sender_new(struct lfr_sender **out, const struct lfr_export_target *t,
                   const struct lfr_sender_opts *o, char *why, size_t whylen);
void lfr_sender_free(struct lfr_sender *s);

/*
 * Sends the chunk in data (len bytes, name for messages and ids) from part *done on; each part
 * delivered or refused increments *done and, when the chunk has several, calls progress (when
 * not NULL) with it and their number, so that a caller can keep its position.  Returns what became
 * of it, with rep filled.  Every event sent is read on the way (OTLP converts those it sends,
 * Pyroscope walks every event whose bytes it forwards): one whose fields do not parse makes the
 * chunk LFR_SEND_DAMAGED, so the caller need not walk the chunk first (lfr_jfr_repo_read's walk
 * false).
 */
enum lfr_send_result lfr_sender_chunk(struct lfr_sender *s, const uint8_t *data, size_t len,
                                      const char *name, unsigned *done,
                                      void (*progress)(void *arg, unsigned done, unsigned total),
                                      void *arg, struct lfr_send_report *rep);

/* How an answer's HTTP status is taken (0: none came). */
enum lfr_send_result lfr_send_classify(long status, bool *refused);

#endif

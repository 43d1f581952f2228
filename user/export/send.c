// SPDX-License-Identifier: GPL-2.0
/* A chunk sent to one target, part by part; see send.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/credentials.h"
#include "export/gzip.h"
#include "export/otlp.h"
#include "export/pyroscope.h"
#include "export/send.h"
#include "export/transport.h"
#include "jfr/reader.h"

struct lfr_sender {
	struct lfr_export_target t;
	struct lfr_http *http; /* made at the first request (libcurl loaded then) */
	struct lfr_http_opts http_opts;
	char *ca_file;
	struct lfr_export_auth auth;
	struct pb_buf pb;
	struct jfr_buf gz;
	struct lfr_gzip_piece meta; /* Pyroscope: the recording's metadata event deflated */
	char *url;                  /* a Pyroscope upload's: the target's and its query */
	size_t url_cap;
	struct jfr_meta_cache *meta_cache; /* the chunks' metadata, parsed once (jfr/reader.h) */
};

int lfr_sender_new(struct lfr_sender **out, const struct lfr_export_target *t,
                   const struct lfr_sender_opts *o, char *why, size_t whylen)
{
	struct lfr_sender *s = calloc(1, sizeof(*s));
	struct lfr_http_opts ho = {.ca_file = o ? o->ca_file : NULL,
	                           .timeout_s = o ? o->timeout_s : 0};
	char w[512];

	*out = NULL;
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	s->t = *t;
	if (lfr_export_auth_load(&s->auth, t->kind, o ? o->credentials : NULL, w, sizeof(w))) {
		snprintf(why, whylen, "%s: %s", t->spec, w);
		free(s);
		return -1;
	}
	/* libcurl is loaded at the first upload, not while the recording starts: only its
	 * presence is checked now */
	if (ho.ca_file && !(s->ca_file = strdup(ho.ca_file)))
		snprintf(w, sizeof(w), "out of memory");
	if ((ho.ca_file && !s->ca_file) || lfr_http_available(w, sizeof(w))) {
		snprintf(why, whylen, "%s: %s", t->spec, w);
		lfr_export_auth_free(&s->auth);
		free(s);
		return -1;
	}
	s->http_opts = ho;
	s->http_opts.ca_file = s->ca_file;
	s->meta_cache = jfr_meta_cache_new(); /* NULL: every reader parses its own */
	*out = s;
	return 0;
}

void lfr_sender_free(struct lfr_sender *s)
{
	if (!s)
		return;
	lfr_http_free(s->http);
	free(s->ca_file);
	lfr_export_auth_free(&s->auth);
	pb_free(&s->pb);
	jfr_buf_free(&s->gz);
	lfr_gzip_piece_free(&s->meta);
	free(s->url);
	jfr_meta_cache_free(s->meta_cache);
	free(s);
}

enum lfr_send_result lfr_send_classify(long status, bool *refused)
{
	*refused = false;
	if (status >= 200 && status < 300)
		return LFR_SEND_DONE;
	/* no answer, a timeout, too many requests, a server's trouble: later */
	if (!status || status == 408 || status == 425 || status == 429 || status >= 500)
		return LFR_SEND_RETRY;
	/* every upload would get the same: the URL, the method or the credentials are wrong */
	if ((status >= 300 && status < 400) || status == 401 || status == 403 || status == 404 ||
	    status == 405 || status == 407)
		return LFR_SEND_CONFIG;
	*refused = true; /* this payload would never be taken (400, 413, 415, 422 ...) */
	return LFR_SEND_DONE;
}

/* One request; its outcome into rep.  A refused part counts as done (it will never be taken). */
static enum lfr_send_result post(struct lfr_sender *s, const struct lfr_http_req *req,
                                 struct lfr_send_report *rep)
{
	struct lfr_http_answer a;
	enum lfr_send_result r;
	bool refused;
	char why[256];

	if (!s->http && lfr_http_new(&s->http, &s->http_opts, why, sizeof(why))) {
		rep->status = 0;
		snprintf(rep->why, sizeof(rep->why), "%.500s: %.250s", s->t.spec, why);
		return LFR_SEND_ERROR;
	}
	if (lfr_http_post(s->http, req, &a)) {
		rep->status = 0;
		snprintf(rep->why, sizeof(rep->why), "%.500s: no answer: %.250s", s->t.url, a.why);
		return LFR_SEND_RETRY;
	}
	rep->status = a.status;
	/* the answer in one line of printable text, its end trimmed */
	for (char *p = a.body; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
	for (size_t n = strlen(a.body); n && a.body[n - 1] == ' ';)
		a.body[--n] = 0;
	r = lfr_send_classify(a.status, &refused);
	rep->refused += refused;
	if (r != LFR_SEND_DONE || refused)
		snprintf(rep->why, sizeof(rep->why), "%.500s: HTTP %ld%s%.300s", s->t.url, a.status,
		         a.body[0] ? ": " : "", a.body);
	return r;
}

static enum lfr_send_result send_otlp(struct lfr_sender *s, const uint8_t *data, size_t len,
                                      const char *name, unsigned *done, struct lfr_send_report *rep)
{
	struct lfr_otlp_stats st;
	char why[512];
	int rc = lfr_otlp_chunk(data, len, name, s->meta_cache, &s->pb, &st, why, sizeof(why));
	enum lfr_send_result r;

	if (rc < 0) {
		snprintf(rep->why, sizeof(rep->why), "%.500s", why);
		return s->pb.oom || !strcmp(why, "out of memory") ? LFR_SEND_ERROR
		                                                  : LFR_SEND_DAMAGED;
	}
	if (rc == 1 || *done)
		return LFR_SEND_DONE; /* no sample: no request */
	rep->parts = 1;
	if (lfr_gzip(s->pb.data, s->pb.len, &s->gz)) {
		snprintf(rep->why, sizeof(rep->why), "out of memory");
		return LFR_SEND_ERROR;
	}
	struct lfr_http_req req = {
	    .url = s->t.url,
	    .content_type = "application/x-protobuf",
	    .content_encoding = "gzip",
	    .body = s->gz.data,
	    .len = s->gz.len,
	    .headers = (const char *const *)s->auth.headers,
	    .nheaders = s->auth.nheaders,
	    .basic_auth = s->auth.basic,
	};

	r = post(s, &req, rep);
	if (r == LFR_SEND_DONE) {
		++*done;
		rep->bytes += s->gz.len;
		if (!rep->refused) {
			rep->samples += st.cpu_samples;
			rep->cpu_ns += st.cpu_ns;
		}
	}
	return r;
}

struct pyro_call {
	struct lfr_sender *s;
	struct lfr_send_report *rep;
	unsigned *done;
	void (*progress)(void *, unsigned, unsigned);
	void *arg;
	enum lfr_send_result r;
};

/* lfr_pyroscope_chunk()'s sender: 0 to go on with the next upload. */
static int pyro_part(void *arg, const struct lfr_pyroscope_part *p)
{
	struct pyro_call *c = arg;
	struct lfr_sender *s = c->s;
	size_t need = strlen(s->t.url) + strlen(p->query) + 2;
	struct lfr_http_part form = {.name = "jfr",
	                             .filename = "jfr",
	                             .type = "application/octet-stream",
	                             .data = p->jfr,
	                             .len = p->len};

	c->rep->parts = p->count;
	if (need > s->url_cap) {
		char *u = realloc(s->url, need);

		if (!u) {
			snprintf(c->rep->why, sizeof(c->rep->why), "out of memory");
			c->r = LFR_SEND_ERROR;
			return 1;
		}
		s->url = u;
		s->url_cap = need;
	}
	snprintf(s->url, need, "%s?%s", s->t.url, p->query);
	struct lfr_http_req req = {
	    .url = s->url,
	    .parts = &form,
	    .nparts = 1,
	    .headers = (const char *const *)s->auth.headers,
	    .nheaders = s->auth.nheaders,
	    .basic_auth = s->auth.basic,
	};
	unsigned refused = c->rep->refused;

	c->r = post(s, &req, c->rep);
	if (c->r != LFR_SEND_DONE)
		return 1;
	++*c->done;
	c->rep->bytes += p->len;
	if (c->rep->refused == refused)
		c->rep->samples += p->samples;
	if (c->progress)
		c->progress(c->arg, *c->done, p->count);
	return 0;
}

enum lfr_send_result lfr_sender_chunk(struct lfr_sender *s, const uint8_t *data, size_t len,
                                      const char *name, unsigned *done,
                                      void (*progress)(void *arg, unsigned done, unsigned total),
                                      void *arg, struct lfr_send_report *rep)
{
	struct pyro_call c = {s, rep, done, progress, arg, LFR_SEND_DONE};
	char why[512];

	memset(rep, 0, sizeof(*rep));
	if (s->t.kind == LFR_EXPORT_OTLP) {
		/* one part: its delivery is the chunk's */
		return send_otlp(s, data, len, name, done, rep);
	}
	if (lfr_pyroscope_chunk(data, len, name, s->meta_cache, *done, &s->meta, pyro_part, &c, why,
	                        sizeof(why)) < 0) {
		snprintf(rep->why, sizeof(rep->why), "%.500s", why);
		return !strcmp(why, "out of memory") ? LFR_SEND_ERROR : LFR_SEND_DAMAGED;
	}
	return c.r;
}

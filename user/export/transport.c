// SPDX-License-Identifier: GPL-2.0
/* HTTP POSTs with libcurl, opened at the first request; see transport.h. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* CURLOPT_PROTOCOLS, deprecated since 7.85, is what an older libcurl takes */
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>

#include "export/transport.h"

/* The library's soname (its ABI), and the calls lfr makes. */
#define CURL_SONAME "libcurl.so.4"

static struct {
	void *lib;
	CURLcode (*global_init)(long);
	CURL *(*init)(void);
	CURLcode (*setopt)(CURL *, CURLoption, ...);
	CURLcode (*perform)(CURL *);
	CURLcode (*getinfo)(CURL *, CURLINFO, ...);
	void (*reset)(CURL *);
	void (*cleanup)(CURL *);
	const char *(*strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	curl_mime *(*mime_init)(CURL *);
	curl_mimepart *(*mime_addpart)(curl_mime *);
	CURLcode (*mime_name)(curl_mimepart *, const char *);
	CURLcode (*mime_filename)(curl_mimepart *, const char *);
	CURLcode (*mime_type)(curl_mimepart *, const char *);
	CURLcode (*mime_data)(curl_mimepart *, const char *, size_t);
	void (*mime_free)(curl_mime *);
	char why[256];
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

#define CALL(field, sym)                                                                           \
	{                                                                                          \
		(void **)&curl.field, #sym                                                         \
	}

static void load_curl(void)
{
	const struct {
		void **fn;
		const char *name;
	} calls[] = {
	    CALL(global_init, curl_global_init),   CALL(init, curl_easy_init),
	    CALL(setopt, curl_easy_setopt),        CALL(perform, curl_easy_perform),
	    CALL(getinfo, curl_easy_getinfo),      CALL(reset, curl_easy_reset),
	    CALL(cleanup, curl_easy_cleanup),      CALL(strerror, curl_easy_strerror),
	    CALL(slist_append, curl_slist_append), CALL(slist_free_all, curl_slist_free_all),
	    CALL(mime_init, curl_mime_init),       CALL(mime_addpart, curl_mime_addpart),
	    CALL(mime_name, curl_mime_name),       CALL(mime_filename, curl_mime_filename),
	    CALL(mime_type, curl_mime_type),       CALL(mime_data, curl_mime_data),
	    CALL(mime_free, curl_mime_free),
	};
	/* lazily: the functions of libcurl's thirty libraries that lfr never calls stay unbound */
	void *lib = dlopen(CURL_SONAME, RTLD_LAZY | RTLD_LOCAL);

	if (!lib) {
		snprintf(curl.why, sizeof(curl.why),
		         "%s cannot be loaded (%s): install libcurl4 (Debian) to export",
		         CURL_SONAME, dlerror());
		return;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		*calls[i].fn = dlsym(lib, calls[i].name);
		if (!*calls[i].fn) {
			snprintf(curl.why, sizeof(curl.why),
			         "%s has no %s: a libcurl of 7.56 or later "
			         "is needed",
			         CURL_SONAME, calls[i].name);
			dlclose(lib);
			return;
		}
	}
	/* once per process, before any thread uses libcurl (pthread_once orders it) */
	if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(curl.why, sizeof(curl.why), "libcurl's initialization failed");
		dlclose(lib);
		return;
	}
	curl.lib = lib;
}

/* Whether dir (len bytes, not terminated) holds the library. */
static bool curl_in(const char *dir, size_t len)
{
	char path[4096];

	if (!len || len >= sizeof(path) - sizeof(CURL_SONAME) - 1)
		return false;
	snprintf(path, sizeof(path), "%.*s/" CURL_SONAME, (int)len, dir);
	return !access(path, R_OK);
}

/* Whether a directory of the list (':' or ';' between them, as the loader reads it) holds it. */
static bool curl_in_list(const char *list)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ":;");

		if (curl_in(p, n))
			return true;
		p += n + (p[n] != 0);
	}
	return false;
}

/* Whether the loader's cache names a path to the library that exists. */
static bool curl_in_cache(void)
{
	static const char tail[] = "/" CURL_SONAME; /* with its terminating NUL */
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	struct stat st;
	const char *map, *at;
	bool found = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > (64 << 20) ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return false;
	}
	close(fd);
	for (const char *p = map, *end = map + st.st_size;
	     !found && (at = memmem(p, (size_t)(end - p), tail, sizeof(tail))); p = at + 1) {
		const char *from = at;

		while (from > map && from[-1])
			from--;
		found = *from == '/' && curl_in(from, (size_t)(at - from));
	}
	munmap((void *)map, (size_t)st.st_size);
	return found;
}

int lfr_http_available(char *why, size_t whylen)
{
	Dl_info libc;
	void *lib = dlopen(CURL_SONAME, RTLD_LAZY | RTLD_NOLOAD);

	if (lib) {
		dlclose(lib);
		return 0;
	}
	/* where the loader looks: the environment's directories, its cache, the system's (where
	 * the C library is, and the usual ones) */
	if (curl_in_list(getenv("LD_LIBRARY_PATH")) || curl_in_cache() ||
	    curl_in_list("/lib:/usr/lib:/lib64:/usr/lib64"))
		return 0;
	if (dladdr((void *)printf, &libc) && libc.dli_fname && strrchr(libc.dli_fname, '/')) {
		const char *dir = libc.dli_fname;
		size_t len = (size_t)(strrchr(dir, '/') - dir);
		char usr[4096];

		snprintf(usr, sizeof(usr), "/usr%.*s", (int)len, dir);
		if (curl_in(dir, len) || (strncmp(dir, "/usr/", 5) && curl_in(usr, strlen(usr))))
			return 0;
	}
	snprintf(why, whylen, "%s is not installed: install libcurl4 (Debian) to export",
	         CURL_SONAME);
	return -ENOSYS;
}

struct lfr_http {
	CURL *easy;
	struct lfr_http_opts o;
	char *ca_file;
	char err[CURL_ERROR_SIZE];
};

int lfr_http_new(struct lfr_http **out, const struct lfr_http_opts *o, char *why, size_t whylen)
{
	struct lfr_http *h;

	*out = NULL;
	pthread_once(&curl_once, load_curl);
	if (!curl.lib) {
		snprintf(why, whylen, "%s", curl.why);
		return -ENOSYS;
	}
	h = calloc(1, sizeof(*h));
	if (!h || !(h->easy = curl.init()) ||
	    (o && o->ca_file && !(h->ca_file = strdup(o->ca_file)))) {
		lfr_http_free(h);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	if (o)
		h->o = *o;
	h->o.ca_file = h->ca_file;
	if (!h->o.timeout_s)
		h->o.timeout_s = LFR_HTTP_TIMEOUT_S;
	*out = h;
	return 0;
}

void lfr_http_free(struct lfr_http *h)
{
	if (!h)
		return;
	if (h->easy)
		curl.cleanup(h->easy);
	free(h->ca_file);
	free(h);
}

/* Keeps the answer's first bytes; past LFR_HTTP_ANSWER_MAX in all, ends the request. */
static size_t on_answer(char *p, size_t size, size_t n, void *arg)
{
	struct lfr_http_answer *a = arg;
	size_t len = size * n;

	if (a->body_len + len > LFR_HTTP_ANSWER_MAX)
		return 0;
	if (a->body_len < LFR_HTTP_KEEP) {
		size_t keep = LFR_HTTP_KEEP - a->body_len < len ? LFR_HTTP_KEEP - a->body_len : len;

		memcpy(a->body + a->body_len, p, keep);
		a->body[a->body_len + keep] = 0;
	}
	a->body_len += len;
	return len;
}

/* The request's header lines; NULL when out of memory. */
static struct curl_slist *headers_of(const struct lfr_http_req *r)
{
	struct curl_slist *l = NULL, *n;
	char line[256];

	/* no "Expect: 100-continue" round trip before a large body */
	if (!(l = curl.slist_append(l, "Expect:")))
		return NULL;
	if (r->content_type && !r->nparts) {
		snprintf(line, sizeof(line), "Content-Type: %s", r->content_type);
		if (!(n = curl.slist_append(l, line)))
			goto oom;
		l = n;
	}
	if (r->content_encoding && !r->nparts) {
		snprintf(line, sizeof(line), "Content-Encoding: %s", r->content_encoding);
		if (!(n = curl.slist_append(l, line)))
			goto oom;
		l = n;
	}
	for (size_t i = 0; i < r->nheaders; i++) {
		if (!(n = curl.slist_append(l, r->headers[i])))
			goto oom;
		l = n;
	}
	return l;
oom:
	curl.slist_free_all(l);
	return NULL;
}

static curl_mime *mime_of(CURL *easy, const struct lfr_http_req *r)
{
	curl_mime *m = curl.mime_init(easy);

	for (size_t i = 0; m && i < r->nparts; i++) {
		const struct lfr_http_part *p = &r->parts[i];
		curl_mimepart *mp = curl.mime_addpart(m);

		if (!mp || curl.mime_name(mp, p->name) || curl.mime_data(mp, p->data, p->len) ||
		    (p->filename && curl.mime_filename(mp, p->filename)) ||
		    (p->type && curl.mime_type(mp, p->type))) {
			curl.mime_free(m);
			return NULL;
		}
	}
	return m;
}

/* The options of one request; CURLE_OK or the first that failed. */
static CURLcode set_options(struct lfr_http *h, const struct lfr_http_req *r,
                            struct curl_slist *hdrs, curl_mime *mime, struct lfr_http_answer *a)
{
	CURL *e = h->easy;
	CURLcode c = CURLE_OK;

	c = c ?: curl.setopt(e, CURLOPT_URL, r->url);
	c = c ?: curl.setopt(e, CURLOPT_NOSIGNAL, 1L);
	c = c ?: curl.setopt(e, CURLOPT_ERRORBUFFER, h->err);
	c = c ?: curl.setopt(e, CURLOPT_TIMEOUT, h->o.timeout_s);
	c = c ?: curl.setopt(e, CURLOPT_CONNECTTIMEOUT, (long)LFR_HTTP_CONNECT_TIMEOUT_S);
	c = c ?: curl.setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	c = c ?: curl.setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)LFR_HTTP_ANSWER_MAX);
	c = c ?: curl.setopt(e, CURLOPT_WRITEFUNCTION, on_answer);
	c = c ?: curl.setopt(e, CURLOPT_WRITEDATA, a);
	c = c ?: curl.setopt(e, CURLOPT_HTTPHEADER, hdrs);
	c = c ?: curl.setopt(e, CURLOPT_USERAGENT, "lfr/" LFR_VERSION);
	if (!c && curl.setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK)
		c = curl.setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	if (!c && h->o.ca_file)
		c = curl.setopt(e, CURLOPT_CAINFO, h->o.ca_file);
	if (!c && r->basic_auth) {
		c = curl.setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		c = c ?: curl.setopt(e, CURLOPT_USERPWD, r->basic_auth);
	}
	if (!c && mime)
		return curl.setopt(e, CURLOPT_MIMEPOST, mime);
	c = c ?: curl.setopt(e, CURLOPT_POST, 1L);
	c = c ?: curl.setopt(e, CURLOPT_POSTFIELDS, r->body);
	return c ?: curl.setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
}

int lfr_http_post(struct lfr_http *h, const struct lfr_http_req *r, struct lfr_http_answer *a)
{
	struct curl_slist *hdrs = headers_of(r);
	curl_mime *mime = r->nparts ? mime_of(h->easy, r) : NULL;
	CURLcode c;

	memset(a, 0, sizeof(*a));
	h->err[0] = 0;
	curl.reset(h->easy); /* the connection stays; the last request's options go */
	if (!hdrs || (r->nparts && !mime)) {
		snprintf(a->why, sizeof(a->why), "out of memory");
		c = CURLE_OUT_OF_MEMORY;
	} else if ((c = set_options(h, r, hdrs, mime, a)) != CURLE_OK) {
		snprintf(a->why, sizeof(a->why), "%s", curl.strerror(c));
	} else {
		/* a status line that came is the server's answer, whatever followed it (an
		 * answer cut short, or one too long to read) */
		c = curl.perform(h->easy);
		curl.getinfo(h->easy, CURLINFO_RESPONSE_CODE, &a->status);
	}
	if (!a->status && c != CURLE_OK && !a->why[0]) {
		a->timed_out = c == CURLE_OPERATION_TIMEDOUT;
		/* libcurl's detail when it gave one (it names the host, the reason) */
		snprintf(a->why, sizeof(a->why), "%.250s", h->err[0] ? h->err : curl.strerror(c));
	}
	if (mime)
		curl.mime_free(mime);
	if (hdrs)
		curl.slist_free_all(hdrs);
	return a->status ? 0 : -1;
}

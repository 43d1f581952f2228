// SPDX-License-Identifier: GPL-2.0
/* KIND=URL: where an export goes; see target.h. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "export/target.h"
#include "lib/hashtab.h"

static const char *const kinds[] = {
    [LFR_EXPORT_OTLP] = "otlp", [LFR_EXPORT_PYROSCOPE] = "pyroscope"};
static const char *const paths[] = {
    [LFR_EXPORT_OTLP] = LFR_OTLP_PATH, [LFR_EXPORT_PYROSCOPE] = LFR_PYROSCOPE_PATH};

const char *lfr_export_kind_name(enum lfr_export_kind k)
{
	return k <= LFR_EXPORT_PYROSCOPE ? kinds[k] : "?";
}

/* The checks of a URL: scheme, host, no credentials, no query, nothing unprintable. */
static int check_url(const char *url, char *why, size_t whylen)
{
	const char *host, *end;

	if (!strncasecmp(url, "http://", 7))
		host = url + 7;
	else if (!strncasecmp(url, "https://", 8))
		host = url + 8;
	else {
		snprintf(why, whylen, "'%s' is not an http:// or https:// URL", url);
		return -1;
	}
	for (const unsigned char *p = (const unsigned char *)url; *p; p++)
		if (*p <= ' ' || *p == 0x7f || *p == '?' || *p == '#') {
			snprintf(why, whylen,
			         "'%s': a URL of an export has no blank, control character, query "
			         "or fragment",
			         url);
			return -1;
		}
	end = host + strcspn(host, "/");
	if (memchr(host, '@', (size_t)(end - host))) {
		snprintf(
		    why, whylen,
		    "'%s' holds a user name or password: give credentials in a file "
		    "(--export-credentials FILE) or the environment, never on the command line",
		    url);
		return -1;
	}
	if (end == host || *host == ':') {
		snprintf(why, whylen, "'%s' names no host", url);
		return -1;
	}
	return 0;
}

static int parse_word(const char *w, size_t len, struct lfr_export_target *t, char *why,
                      size_t whylen)
{
	const char *eq = memchr(w, '=', len);
	char url[LFR_EXPORT_URL_MAX];
	size_t klen, ulen, plen;
	int k = -1;

	if (len >= sizeof(t->spec)) {
		snprintf(why, whylen, "'%.60s...' is too long (a URL of up to %d bytes)", w,
		         LFR_EXPORT_URL_MAX - 1);
		return -1;
	}
	klen = eq ? (size_t)(eq - w) : len;
	for (int i = 0; i <= LFR_EXPORT_PYROSCOPE; i++)
		if (strlen(kinds[i]) == klen && !strncmp(w, kinds[i], klen))
			k = i;
	if (!eq || k < 0) {
		snprintf(
		    why, whylen,
		    "'%.*s' is not KIND=URL with KIND otlp or pyroscope (otlp=http://HOST:4318, "
		    "pyroscope=http://HOST:4040)",
		    (int)len, w);
		return -1;
	}
	ulen = len - klen - 1;
	memcpy(url, eq + 1, ulen);
	url[ulen] = 0;
	if (check_url(url, why, whylen))
		return -1;
	t->kind = (enum lfr_export_kind)k;
	snprintf(t->spec, sizeof(t->spec), "%.*s", (int)len, w);
	/* the kind's path, unless the URL ends with it; a trailing '/' is not doubled */
	plen = strlen(paths[k]);
	while (ulen && url[ulen - 1] == '/' && strchr(strchr(url, ':') + 3, '/') < url + ulen)
		url[--ulen] = 0;
	if (ulen >= plen && !strcmp(url + ulen - plen, paths[k]))
		snprintf(t->url, sizeof(t->url), "%s", url);
	else
		snprintf(t->url, sizeof(t->url), "%s%s", url, paths[k]);
	t->id = (uint32_t)hashtab_hash_bytes(t->url, strlen(t->url));
	return 0;
}

int lfr_export_targets_parse(const char *arg, struct lfr_export_target *v, size_t *n, size_t max,
                             char *why, size_t whylen)
{
	const char *sep = " \t\n,";

	for (const char *p = arg; *p;) {
		size_t len;

		p += strspn(p, sep);
		len = strcspn(p, sep);
		if (!len)
			break;
		if (*n == max) {
			snprintf(why, whylen, "more than %zu exports", max);
			return -1;
		}
		if (parse_word(p, len, &v[*n], why, whylen))
			return -1;
		for (size_t i = 0; i < *n; i++)
			if (!strcmp(v[i].url, v[*n].url)) {
				snprintf(why, whylen, "'%s' is given twice", v[*n].spec);
				return -1;
			}
		++*n;
		p += len;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* An export's credentials from a file and the environment; see credentials.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/credentials.h"

void lfr_export_auth_free(struct lfr_export_auth *a)
{
	free(a->basic);
	for (size_t i = 0; i < a->nheaders; i++)
		free(a->headers[i]);
	memset(a, 0, sizeof(*a));
}

/* A header's name: an HTTP token; its value: no control character (no line break). */
static bool header_ok(const char *h)
{
	const char *colon = strchr(h, ':');

	if (!colon || colon == h)
		return false;
	for (const char *p = h; p < colon; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr("()<>@,;\\\"/[]?={}", *p))
			return false;
	for (const unsigned char *p = (const unsigned char *)colon + 1; *p; p++)
		if ((*p < ' ' && *p != '\t') || *p == 0x7f)
			return false;
	return true;
}

/* Adds (or replaces, by name) a header line; 0, or -1 with why. */
static int add_header(struct lfr_export_auth *a, const char *line, char *why, size_t whylen)
{
	size_t name = strcspn(line, ":");
	char *copy;

	if (!header_ok(line)) {
		snprintf(why, whylen, "'%.60s' is not a header line NAME: VALUE", line);
		return -1;
	}
	if (!(copy = strdup(line))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < a->nheaders; i++)
		if (!strncasecmp(a->headers[i], line, name) && a->headers[i][name] == ':') {
			free(a->headers[i]);
			a->headers[i] = copy;
			return 0;
		}
	if (a->nheaders == LFR_CREDENTIALS_MAX_HEADERS) {
		free(copy);
		snprintf(why, whylen, "more than %d headers", LFR_CREDENTIALS_MAX_HEADERS);
		return -1;
	}
	a->headers[a->nheaders++] = copy;
	return 0;
}

static int set_bearer(struct lfr_export_auth *a, const char *token, char *why, size_t whylen)
{
	char line[4096];

	if (!*token || strlen(token) > sizeof(line) - 32 || strpbrk(token, " \t\r\n")) {
		snprintf(why, whylen, "a bearer token is one word of printable characters");
		return -1;
	}
	snprintf(line, sizeof(line), "Authorization: Bearer %s", token);
	free(a->basic); /* one way of authenticating: the later */
	a->basic = NULL;
	return add_header(a, line, why, whylen);
}

static int set_basic(struct lfr_export_auth *a, const char *userpw, char *why, size_t whylen)
{
	if (!strchr(userpw, ':') || strpbrk(userpw, "\r\n")) {
		snprintf(why, whylen, "basic authentication is USER:PASSWORD");
		return -1;
	}
	/* one way of authenticating: the later (a bearer's header goes) */
	for (size_t i = 0; i < a->nheaders; i++)
		if (!strncasecmp(a->headers[i], "Authorization:", 14)) {
			free(a->headers[i]);
			a->headers[i] = a->headers[--a->nheaders];
			a->headers[a->nheaders] = NULL;
			break;
		}
	free(a->basic);
	if (!(a->basic = strdup(userpw))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * One item ("bearer T", "basic U:P", "header N: V"): in pass 0 those for every kind, in pass 1
 * those for this kind, which so replace them.
 */
static int item(struct lfr_export_auth *a, enum lfr_export_kind kind, int pass, char *s, char *why,
                size_t whylen)
{
	const char *kn = lfr_export_kind_name(kind);
	size_t kl = strlen(kn);
	bool kinded = !strncmp(s, "otlp:", 5) || !strncmp(s, "pyroscope:", 10);

	if (kinded != pass || (kinded && (strncmp(s, kn, kl) || s[kl] != ':')))
		return 0; /* another pass's, or another kind's */
	if (kinded) {
		s += kl + 1;
		s += strspn(s, " \t");
	}
	if (!strncmp(s, "bearer ", 7))
		return set_bearer(a, s + 7 + strspn(s + 7, " \t"), why, whylen);
	if (!strncmp(s, "basic ", 6))
		return set_basic(a, s + 6 + strspn(s + 6, " \t"), why, whylen);
	if (!strncmp(s, "header ", 7))
		return add_header(a, s + 7 + strspn(s + 7, " \t"), why, whylen);
	snprintf(why, whylen,
	         "'%.40s' is none of bearer TOKEN, basic USER:PASSWORD, header NAME: "
	         "VALUE",
	         s);
	return -1;
}

/* The file's bytes after its checks; NULL with why.  *len bytes, NUL-terminated. */
static char *read_private(const char *file, char *why, size_t whylen)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, whylen, "cannot read the credentials file %s: %s", file,
		         strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		snprintf(why, whylen, "the credentials file %s is not a regular file", file);
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		snprintf(why, whylen,
		         "the credentials file %s belongs to uid %u, not to you or root", file,
		         (unsigned)st.st_uid);
	else if (st.st_mode & 077)
		snprintf(why, whylen,
		         "the credentials file %s may be read or written by other users (mode "
		         "%04o): chmod 600 %s",
		         file, (unsigned)(st.st_mode & 07777), file);
	else if (st.st_size > LFR_CREDENTIALS_FILE_MAX)
		snprintf(why, whylen, "the credentials file %s is larger than %u bytes", file,
		         LFR_CREDENTIALS_FILE_MAX);
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		snprintf(why, whylen, "out of memory");
	while (buf && len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* The lines of the file's bytes (buf, size bytes) of one pass (see item()); 0, or -1 with why. */
static int load_lines(struct lfr_export_auth *a, enum lfr_export_kind kind, int pass, char *buf,
                      size_t size, const char *file, char *why, size_t whylen)
{
	unsigned no = 0;

	for (char *line = buf, *next; line < buf + size; line = next) {
		size_t n = strcspn(line, "\n");
		char item_why[256], *s;

		next = line + n + (line[n] == '\n');
		line[n] = 0;
		no++;
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = 0;
		s = line + strspn(line, " \t");
		if (*s && *s != '#' && item(a, kind, pass, s, item_why, sizeof(item_why))) {
			/* the line itself is not repeated: it may hold a secret */
			snprintf(why, whylen, "%s line %u: %s", file, no, item_why);
			return -1;
		}
	}
	return 0;
}

static int load_file(struct lfr_export_auth *a, enum lfr_export_kind kind, const char *file,
                     char *why, size_t whylen)
{
	char *buf = read_private(file, why, whylen), *copy;
	size_t size;
	int rc = -1;

	if (!buf)
		return -1;
	size = strlen(buf);
	copy = malloc(size + 1);
	if (!copy) {
		snprintf(why, whylen, "out of memory");
	} else {
		/* each pass cuts its own copy of the lines */
		memcpy(copy, buf, size + 1);
		rc = load_lines(a, kind, 0, copy, size, file, why, whylen);
		memcpy(copy, buf, size + 1);
		if (!rc)
			rc = load_lines(a, kind, 1, copy, size, file, why, whylen);
		explicit_bzero(copy, size);
		free(copy);
	}
	explicit_bzero(buf, size);
	free(buf);
	return rc;
}

static int load_env(struct lfr_export_auth *a, char *why, size_t whylen)
{
	const char *v;

	if ((v = getenv("LFR_EXPORT_BEARER_TOKEN")) && *v && set_bearer(a, v, why, whylen))
		return -1;
	if ((v = getenv("LFR_EXPORT_BASIC_AUTH")) && *v && set_basic(a, v, why, whylen))
		return -1;
	if ((v = getenv("LFR_EXPORT_HEADERS")) && *v) {
		char *copy = strdup(v), *line, *save = NULL;
		int rc = 0;

		for (char *p = copy; copy && !rc && (line = strtok_r(p, "\n", &save)); p = NULL)
			rc = add_header(a, line + strspn(line, " \t"), why, whylen);
		free(copy);
		if (rc)
			return -1;
	}
	return 0;
}

int lfr_export_auth_load(struct lfr_export_auth *a, enum lfr_export_kind kind, const char *file,
                         char *why, size_t whylen)
{
	memset(a, 0, sizeof(*a));
	if (!file && (file = getenv("LFR_EXPORT_CREDENTIALS")) && !*file)
		file = NULL;
	if (load_env(a, why, whylen) || (file && load_file(a, kind, file, why, whylen))) {
		lfr_export_auth_free(a);
		return -1;
	}
	return 0;
}

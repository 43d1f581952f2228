// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * httpsink DIR [PORT]: a test receiver for lfr's exports inside a guest without a network: an
 * HTTP/1.1 server on 127.0.0.1 (PORT, or a free one) that keeps every request as
 * tests/export/receiver.py does, so that tests/export/check.py reads what it got: DIR/req-N.json
 * (seq, path, query, code, headers) and DIR/req-N.body.  It answers 200, or the code the file
 * DIR/status holds.  A connection stays open for the next request, as the backends' servers keep
 * it (a thread per connection; the requests kept one at a time, numbered in the order they end).
 * DIR/port holds the port once it accepts (the scenario's handshake).  Each request bounded:
 * 64 MiB, and 30 s without a byte.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_REQUEST (64u << 20)

static const char *dir;
static pthread_mutex_t kept = PTHREAD_MUTEX_INITIALIZER;
static unsigned seq; /* the requests kept, under kept */

static int status_code(void)
{
	char path[4096];
	int code = 200;
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", dir);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &code) != 1)
			code = 200;
		fclose(f);
	}
	return code;
}

/* A JSON string of s[0..n), escaped. */
static void json_str(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Keeps the request: its head [buf, head_end) and its body. */
static void keep(unsigned seq, const char *buf, size_t head_len, const char *body, size_t len,
                 int code)
{
	char path[4096], tmp[4096];
	const char *sp1 = memchr(buf, ' ', head_len), *sp2, *q, *line, *end = buf + head_len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/req-%06u.body", dir, seq);
	f = fopen(path, "w");
	if (f) {
		fwrite(body, 1, len, f);
		fclose(f);
	}
	snprintf(tmp, sizeof(tmp), "%s/req-%06u.json.tmp", dir, seq);
	f = fopen(tmp, "w");
	if (!f || !sp1)
		return;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(end - sp1 - 1));
	sp2 = sp2 ? sp2 : end;
	q = memchr(sp1 + 1, '?', (size_t)(sp2 - sp1 - 1));
	fprintf(f, "{\"seq\": %u, \"path\": ", seq);
	json_str(f, sp1 + 1, (size_t)((q ? q : sp2) - sp1 - 1));
	fprintf(f, ", \"query\": ");
	json_str(f, q ? q + 1 : "", q ? (size_t)(sp2 - q - 1) : 0);
	fprintf(f, ", \"code\": %d, \"headers\": {", code);
	line = memchr(buf, '\n', head_len);
	for (int first = 1; line && line + 1 < end; first = 0) {
		const char *s = line + 1, *e = memchr(s, '\n', (size_t)(end - s)), *colon;

		e = e ? e : end;
		colon = memchr(s, ':', (size_t)(e - s));
		if (colon) {
			char name[256];
			size_t n = (size_t)(colon - s) < sizeof(name) - 1 ? (size_t)(colon - s)
			                                                  : sizeof(name) - 1;
			const char *v = colon + 1, *ve = e;

			for (size_t i = 0; i < n; i++)
				name[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
			while (v < ve && *v == ' ')
				v++;
			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' '))
				ve--;
			fprintf(f, "%s", first ? "" : ", ");
			json_str(f, name, n);
			fprintf(f, ": ");
			json_str(f, v, (size_t)(ve - v));
		} else {
			first = 1;
		}
		line = e < end ? e : NULL;
	}
	fprintf(f, "}}\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/req-%06u.json", dir, seq);
	rename(tmp, path);
}

/* The value of header name in [buf, end), or -1. */
static long header_long(const char *buf, const char *end, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = buf; p + n + 1 < end; p++)
		if (p[-1] == '\n' && !strncasecmp(p, name, n) && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	return -1;
}

/*
 * One request from fd, whose first len bytes are in buf already: kept and answered; the bytes
 * read past it (the next request's) moved to buf's start.  Their number, or -1 when the
 * connection ends.
 */
static long serve_one(int fd, char *buf, size_t len)
{
	size_t head = 0, end;
	long body = -1;
	char answer[256];
	int code, n;

	for (;;) {
		if (!head) {
			char *e;

			buf[len] = 0;
			e = strstr(buf, "\r\n\r\n");
			if (e) {
				head = (size_t)(e - buf) + 4;
				body = header_long(buf + 1, buf + head, "content-length");
				if (body < 0 || (size_t)body > MAX_REQUEST - head)
					return -1;
			}
		}
		if (head && len >= head + (size_t)body)
			break;
		if (len >= MAX_REQUEST)
			return -1;
		ssize_t got = read(fd, buf + len, MAX_REQUEST - len);

		if (got <= 0)
			return -1; /* closed, or 30 s without a byte */
		len += (size_t)got;
	}
	pthread_mutex_lock(&kept);
	code = status_code();
	keep(++seq, buf, head - 2, buf + head, (size_t)body, code);
	pthread_mutex_unlock(&kept);
	n = snprintf(answer, sizeof(answer), "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n\r\n", code,
	             code < 300 ? "OK" : "Not taken");
	if (write(fd, answer, (size_t)n) != n)
		return -1;
	end = head + (size_t)body;
	memmove(buf, buf + end, len - end);
	return (long)(len - end);
}

static void *serve(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char *buf = malloc(MAX_REQUEST + 1);
	long left = 0;

	while (buf && (left = serve_one(fd, buf, (size_t)left)) >= 0)
		;
	free(buf);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	struct timeval tv = {30, 0};
	char path[4096], tmp[4096];
	pthread_attr_t detached;
	pthread_t t;
	int one = 1, s;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: httpsink DIR [PORT]\n");
		return 2;
	}
	dir = argv[1];
	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	/* a client that goes away before its answer is not the end of the server */
	signal(SIGPIPE, SIG_IGN);
	a.sin_port = htons(argc > 2 ? (unsigned short)atoi(argv[2]) : 0);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 16) ||
	    getsockname(s, (struct sockaddr *)&a, &alen)) {
		perror("httpsink");
		return 1;
	}
	/* the requests kept so far, when started again on the same directory */
	for (;; seq++) {
		snprintf(path, sizeof(path), "%s/req-%06u.json", dir, seq + 1);
		if (access(path, F_OK))
			break;
	}
	snprintf(tmp, sizeof(tmp), "%s/port.tmp", dir);
	snprintf(path, sizeof(path), "%s/port", dir);
	f = fopen(tmp, "w");
	if (!f)
		return 1;
	fprintf(f, "%u\n", ntohs(a.sin_port));
	fclose(f);
	rename(tmp, path);
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (pthread_create(&t, &detached, serve, (void *)(intptr_t)c))
			close(c);
	}
}

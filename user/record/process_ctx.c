// SPDX-License-Identifier: GPL-2.0
/* The key map of a process's OpenTelemetry process context (process_ctx.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/process_ctx.h"

#define KEY_MAP "threadlocal.attribute_key_map"
/* A payload larger than this is not a process context. */
#define MAX_PAYLOAD (1u << 20)

/* The OTEP's header, native byte order. */
struct header {
	char signature[8]; /* "OTEL_CTX" */
	uint32_t version;  /* 2 (1 while the OTEP was drafted) */
	uint32_t payload_size;
	uint64_t published_at_ns; /* 0 while it is being written */
	uint64_t payload;         /* its address in the process */
};

/* A protocol buffers field: its number, wire type and value (varint, or bytes [p, p + len)). */
struct pb_field {
	uint32_t num, wire;
	uint64_t v;
	const uint8_t *p;
};

static bool pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (unsigned int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The next field of [*p, end): 1, 0 at the end, -1 when malformed. */
static int pb_next(const uint8_t **p, const uint8_t *end, struct pb_field *f)
{
	uint64_t tag;

	if (*p >= end)
		return 0;
	if (!pb_varint(p, end, &tag) || !(tag >> 3) || tag >> 35)
		return -1;
	f->num = (uint32_t)(tag >> 3);
	f->wire = tag & 7;
	switch (f->wire) {
	case 0:
		return pb_varint(p, end, &f->v) ? 1 : -1;
	case 1:
	case 5: {
		size_t n = f->wire == 1 ? 8 : 4;

		if ((size_t)(end - *p) < n)
			return -1;
		*p += n;
		return 1;
	}
	case 2:
		if (!pb_varint(p, end, &f->v) || f->v > (uint64_t)(end - *p))
			return -1;
		f->p = *p;
		*p += f->v;
		return 1;
	default:
		return -1;
	}
}

/* The string_value (field 1) of an AnyValue, or NULL. */
static const uint8_t *any_string(const uint8_t *p, size_t len, size_t *n)
{
	const uint8_t *end = p + len;
	struct pb_field f;
	int r;

	while ((r = pb_next(&p, end, &f)) > 0)
		if (f.num == 1 && f.wire == 2) {
			*n = f.v;
			return f.p;
		}
	return NULL;
}

/* The values of an AnyValue's array_value (field 5) into m; -1 when malformed. */
static int key_array(const uint8_t *p, size_t len, struct lfr_key_map *m)
{
	const uint8_t *end = p + len, *ap, *aend;
	struct pb_field f, g;
	int r, s;

	while ((r = pb_next(&p, end, &f)) > 0) {
		if (f.num != 5 || f.wire != 2)
			continue;
		ap = f.p;
		aend = f.p + f.v;
		while ((s = pb_next(&ap, aend, &g)) > 0) {
			const uint8_t *str;
			size_t n = 0;

			if (g.num != 1 || g.wire != 2)
				continue;
			if (m->n == sizeof(m->keys) / sizeof(m->keys[0]))
				return 1; /* indexes are bytes: the rest is unreachable */
			str = any_string(g.p, g.v, &n);
			m->keys[m->n] = str ? strndup((const char *)str, n) : strdup("");
			if (!m->keys[m->n])
				return -1;
			m->n++;
		}
		if (s < 0)
			return -1;
		return 1;
	}
	return r < 0 ? -1 : 0;
}

int lfr_process_ctx_parse(const uint8_t *p, size_t len, struct lfr_key_map *m)
{
	const uint8_t *end = p + len;
	struct pb_field f;
	int r;

	lfr_key_map_free(m);
	/* Resource.attributes (1): repeated KeyValue { key = 1; value = 2 } */
	while ((r = pb_next(&p, end, &f)) > 0) {
		const uint8_t *kp = f.p, *kend = f.p + f.v, *value = NULL;
		size_t value_len = 0;
		bool is_map = false;
		struct pb_field g;
		int s;

		if (f.num != 1 || f.wire != 2)
			continue;
		while ((s = pb_next(&kp, kend, &g)) > 0) {
			if (g.wire != 2)
				continue;
			if (g.num == 1)
				is_map = g.v == strlen(KEY_MAP) && !memcmp(g.p, KEY_MAP, g.v);
			else if (g.num == 2) {
				value = g.p;
				value_len = g.v;
			}
		}
		if (s < 0)
			return -1;
		if (is_map && value) {
			s = key_array(value, value_len, m);
			if (s < 0)
				lfr_key_map_free(m);
			return s;
		}
	}
	return r < 0 ? -1 : 0;
}

void lfr_key_map_free(struct lfr_key_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->keys[i]);
	m->n = 0;
}

/* The start of the process's OTEL_CTX mapping, or 0. */
static uint64_t find_mapping(uint32_t pid)
{
	char path[64], *line = NULL;
	unsigned long long start = 0;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		/* a memfd mapping, or an anonymous one the process named */
		if (strstr(line, "/memfd:OTEL_CTX") || strstr(line, "[anon_shmem:OTEL_CTX]") ||
		    strstr(line, "[anon:OTEL_CTX]")) {
			if (sscanf(line, "%llx-", &start) == 1)
				break;
			start = 0;
		}
	}
	free(line);
	fclose(f);
	return start;
}

static bool read_at(int fd, uint64_t addr, void *buf, size_t n)
{
	return pread(fd, buf, n, (off_t)addr) == (ssize_t)n;
}

int lfr_process_ctx_key_map(uint32_t pid, struct lfr_key_map *m, char *why, size_t whylen)
{
	struct header h, again;
	uint64_t at = find_mapping(pid);
	uint8_t *payload = NULL;
	char path[64];
	int fd, ret = -1;

	lfr_key_map_free(m);
	if (!at)
		return 0;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* a writer updating it: read again, a few times (OTEP 4719's reading protocol) */
	for (int tries = 0; tries < 4; tries++) {
		if (!read_at(fd, at, &h, sizeof(h))) {
			snprintf(why, whylen, "its process context cannot be read: %s",
			         strerror(errno));
			goto out;
		}
		if (memcmp(h.signature, "OTEL_CTX", 8) || (h.version != 1 && h.version != 2)) {
			ret = 0; /* not a context this reader knows */
			goto out;
		}
		if (!h.published_at_ns)
			continue;
		if (h.payload_size > MAX_PAYLOAD) {
			snprintf(why, whylen, "its process context claims %" PRIu32 " bytes",
			         h.payload_size);
			goto out;
		}
		free(payload);
		payload = malloc(h.payload_size ? h.payload_size : 1);
		if (!payload) {
			snprintf(why, whylen, "out of memory");
			goto out;
		}
		if (!read_at(fd, h.payload, payload, h.payload_size) ||
		    !read_at(fd, at, &again, sizeof(again)) ||
		    again.published_at_ns != h.published_at_ns)
			continue;
		ret = lfr_process_ctx_parse(payload, h.payload_size, m);
		if (ret < 0)
			snprintf(why, whylen, "its process context is not a Resource message");
		goto out;
	}
	snprintf(why, whylen, "its process context kept changing while read");
out:
	free(payload);
	close(fd);
	return ret;
}

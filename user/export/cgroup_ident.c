// SPDX-License-Identifier: GPL-2.0
/* A process's service, container and pod from its cgroup path; see cgroup_ident.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "export/cgroup_ident.h"

#define SERVICE_SUFFIX ".service"
#define CGROUP_FILE_MAX 16384 /* /proc/PID/cgroup: one line per hierarchy */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_alnum(char c)
{
	return is_hex(c) || (c >= 'g' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A run of exactly 64 hex digits in [s, e) that no letter or digit extends: the container id. */
static const char *find_container_id(const char *s, const char *e)
{
	for (const char *p = s; p + LFR_CONTAINER_ID_LEN <= e; p++) {
		size_t n = 0;

		if (p > s && is_alnum(p[-1]))
			continue;
		while (p + n < e && is_hex(p[n]))
			n++;
		if (n == LFR_CONTAINER_ID_LEN && (p + n == e || !is_alnum(p[n])))
			return p;
		p += n ? n - 1 : 0;
	}
	return NULL;
}

/* A UUID at p (36 bytes in [p, e)) with '-' or, as systemd escapes it in unit names, '_'. */
static bool is_uuid(const char *p, const char *e)
{
	if (e - p < LFR_POD_UID_LEN)
		return false;
	for (int i = 0; i < LFR_POD_UID_LEN; i++) {
		bool sep = i == 8 || i == 13 || i == 18 || i == 23;

		if (sep ? p[i] != '-' && p[i] != '_' : !is_hex(p[i]))
			return false;
	}
	return p + LFR_POD_UID_LEN == e || !is_alnum(p[LFR_POD_UID_LEN]);
}

/* "podUID" at the start of a component or after a '-' (kubepods-burstable-podUID.slice). */
static const char *find_pod_uid(const char *s, const char *e)
{
	for (const char *p = s; p + 3 + LFR_POD_UID_LEN <= e; p++)
		if ((p == s || p[-1] == '-') && !memcmp(p, "pod", 3) && is_uuid(p + 3, e))
			return p + 3;
	return NULL;
}

static bool ends_with(const char *s, const char *e, const char *suffix)
{
	size_t n = strlen(suffix);

	return (size_t)(e - s) > n && !memcmp(e - n, suffix, n);
}

/* NAME.service, not a user's service manager (user@UID.service, which hosts a whole session). */
static bool is_service(const char *s, const char *e)
{
	return ends_with(s, e, SERVICE_SUFFIX) && !(e - s > 5 && !memcmp(s, "user@", 5));
}

static void copy(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* The container id, pod and service of the components of [path, end), the innermost first. */
void lfr_cgroup_ident_path(const char *path, size_t len, struct lfr_cgroup_ident *id)
{
	const char *end = path + len, *e = end;

	memset(id, 0, sizeof(*id));
	while (e > path) {
		const char *s = e, *hit;

		while (s > path && s[-1] != '/')
			s--;
		/* a runtime's monitor (crio-conmon-ID.scope) runs beside the container, not in it
		 */
		if (!id->container_id[0] && !memmem(s, (size_t)(e - s), "conmon", 6) &&
		    (hit = find_container_id(s, e)))
			copy(id->container_id, sizeof(id->container_id), hit, LFR_CONTAINER_ID_LEN);
		if (!id->pod_uid[0] && (hit = find_pod_uid(s, e))) {
			copy(id->pod_uid, sizeof(id->pod_uid), hit, LFR_POD_UID_LEN);
			for (char *p = id->pod_uid; *p; p++)
				*p = *p == '_' ? '-' : *p;
		}
		if (!id->unit[0] && is_service(s, e))
			copy(id->unit, sizeof(id->unit), s,
			     (size_t)(e - s) - strlen(SERVICE_SUFFIX));
		e = s > path ? s - 1 : path;
	}
	if (id->container_id[0])
		id->unit[0] = 0;
}

/* The path of a /proc/PID/cgroup line "HIERARCHY:CONTROLLERS:PATH" of [s, e), its controllers. */
static bool line_path(const char *s, const char *e, const char **ctl, size_t *nctl,
                      const char **path)
{
	const char *c1 = memchr(s, ':', (size_t)(e - s)), *c2;

	if (!c1 || !(c2 = memchr(c1 + 1, ':', (size_t)(e - c1 - 1))))
		return false;
	*ctl = c1 + 1;
	*nctl = (size_t)(c2 - c1 - 1);
	*path = c2 + 1;
	return true;
}

/* Fills what id lacks from the lines of [text, end) whose rank is pass. */
static void fill_from(const char *text, const char *end, int pass, struct lfr_cgroup_ident *id)
{
	for (const char *s = text; s < end;) {
		const char *e = memchr(s, '\n', (size_t)(end - s)), *ctl, *path;
		struct lfr_cgroup_ident one;
		size_t nctl;
		int rank;

		e = e ? e : end;
		if (line_path(s, e, &ctl, &nctl, &path)) {
			rank = !nctl ? 0 : nctl == 12 && !memcmp(ctl, "name=systemd", 12) ? 1 : 2;
			if (rank == pass) {
				lfr_cgroup_ident_path(path, (size_t)(e - path), &one);
				if (!id->container_id[0])
					memcpy(id->container_id, one.container_id,
					       sizeof(one.container_id));
				if (!id->pod_uid[0])
					memcpy(id->pod_uid, one.pod_uid, sizeof(one.pod_uid));
				if (!id->unit[0])
					memcpy(id->unit, one.unit, sizeof(one.unit));
			}
		}
		s = e + 1;
	}
}

void lfr_cgroup_ident_file(const char *text, size_t len, struct lfr_cgroup_ident *id)
{
	memset(id, 0, sizeof(*id));
	for (int pass = 0; pass < 3; pass++)
		fill_from(text, text + len, pass, id);
	if (id->container_id[0])
		id->unit[0] = 0;
}

int lfr_cgroup_ident_read(uint32_t pid, struct lfr_cgroup_ident *id)
{
	char path[64], buf[CGROUP_FILE_MAX];
	size_t len = 0;
	ssize_t n;
	int fd;

	memset(id, 0, sizeof(*id));
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/cgroup", pid);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		len += (size_t)n;
	}
	close(fd);
	lfr_cgroup_ident_file(buf, len, id);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* A process's container from its cgroup v2 path (container_id.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/container_id.h"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The length of the run of hex digits at s, at most max + 1. */
static size_t hex_run(const char *s, size_t n, size_t max)
{
	size_t i = 0;

	while (i < n && i <= max && is_hex(s[i]))
		i++;
	return i;
}

/* Whether s[0..n) ends a container id's component: nothing, ".scope", or ':'. */
static bool id_end(const char *s, size_t n)
{
	return !n || (n == 6 && !memcmp(s, ".scope", 6)) || s[0] == ':';
}

static bool starts(const char *s, size_t n, const char *prefix, size_t *len)
{
	*len = strlen(prefix);
	return n >= *len && !memcmp(s, prefix, *len);
}

/*
 * A container id in component s[0..n): the 64 hex digits it is or ends with, after a runtime's
 * prefix (docker-, cri-containerd-, crio-, libpod-, ...:cri-containerd:).  The runtime, or "" for
 * a bare id (parent decides), NULL for none.
 */
static const char *component_id(const char *s, size_t n, const char *parent, size_t plen, char *id)
{
	static const struct {
		const char *prefix, *runtime;
	} known[] = {
	    {"docker-", "docker"}, {"cri-containerd-", "containerd"}, {"crio-", "cri-o"},
	    {"libpod-", "podman"}, {"containerd-", "containerd"},
	};
	const char *runtime = NULL, *p = s;
	size_t skip, left = n;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]) && !runtime; i++)
		if (starts(s, n, known[i].prefix, &skip)) {
			runtime = known[i].runtime;
			p = s + skip;
			left = n - skip;
		}
	if (!runtime) {
		/* cgroupfs driver with systemd-style names: kubepods-...slice:cri-containerd:ID */
		const char *colon = memchr(s, ':', n);

		if (colon) {
			const char *rt = colon + 1, *c2 = memchr(rt, ':', (size_t)(s + n - rt));

			if (!c2)
				return NULL;
			runtime = (size_t)(c2 - rt) == 14 && !memcmp(rt, "cri-containerd", 14)
			              ? "containerd"
			          : (size_t)(c2 - rt) == 4 && !memcmp(rt, "crio", 4)   ? "cri-o"
			          : (size_t)(c2 - rt) == 6 && !memcmp(rt, "docker", 6) ? "docker"
			                                                               : "";
			p = c2 + 1;
			left = (size_t)(s + n - p);
		} else {
			/*
			 * a bare id: docker's cgroupfs driver (/docker/ID); the kubelet's cgroupfs
			 * driver (pod<uid>/ID), whichever runtime
			 */
			runtime = plen == 6 && !memcmp(parent, "docker", 6) ? "docker" : "";
		}
	}
	if (hex_run(p, left, LFR_CONTAINER_ID_LEN) != LFR_CONTAINER_ID_LEN ||
	    !id_end(p + LFR_CONTAINER_ID_LEN, left - LFR_CONTAINER_ID_LEN))
		return NULL;
	for (int i = 0; i < LFR_CONTAINER_ID_LEN; i++)
		id[i] = (char)tolower((unsigned char)p[i]);
	id[LFR_CONTAINER_ID_LEN] = 0;
	return runtime;
}

/* A pod uid in component s[0..n): "pod" then 8-4-4-4-12 hex digits, '-' or '_' between. */
static bool component_pod(const char *s, size_t n, char *uid)
{
	static const int groups[] = {8, 4, 4, 4, 12};

	for (const char *p = s; p + 3 + LFR_POD_UID_LEN <= s + n; p++) {
		const char *q = p + 3;
		size_t o = 0;
		int g;

		if (memcmp(p, "pod", 3))
			continue;
		for (g = 0; g < 5; g++) {
			if (hex_run(q, (size_t)(s + n - q), (size_t)groups[g]) != (size_t)groups[g])
				break;
			for (int k = 0; k < groups[g]; k++)
				uid[o++] = (char)tolower((unsigned char)q[k]);
			q += groups[g];
			if (g < 4) {
				if (q >= s + n || (*q != '-' && *q != '_'))
					break;
				uid[o++] = '-';
				q++;
			}
		}
		/* the uid ends the component or its ".slice" */
		if (g == 5 && (q == s + n || *q == '.')) {
			uid[o] = 0;
			return true;
		}
	}
	return false;
}

bool lfr_container_id_parse(const char *path, struct lfr_container_id *c)
{
	const char *s = path, *parent = "";
	size_t plen = 0;

	memset(c, 0, sizeof(*c));
	while (*s) {
		size_t n = strcspn(s, "/");
		char id[LFR_CONTAINER_ID_LEN + 1], uid[LFR_POD_UID_LEN + 1];
		const char *rt;

		if (n) {
			/* CRI-O's conmon runs beside the container, in crio-conmon-ID.scope */
			rt = n >= 12 && !memcmp(s, "crio-conmon-", 12)
			         ? NULL
			         : component_id(s, n, parent, plen, id);
			if (rt) {
				memcpy(c->id, id, sizeof(id));
				c->runtime = *rt ? rt : NULL;
			}
			if (component_pod(s, n, uid))
				memcpy(c->pod_uid, uid, sizeof(uid));
			parent = s;
			plen = n;
		}
		s += n + (s[n] == '/');
	}
	return c->id[0] || c->pod_uid[0];
}

int lfr_proc_cgroup(const char *proc, uint32_t pid, char *buf, size_t len)
{
	char path[64], line[4096 + 8];
	int err = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/cgroup", proc ? proc : "/proc", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		line[n] = 0;
		if (strncmp(line, "0::", 3))
			continue;
		if (n - 3 >= len) {
			err = -ENAMETOOLONG;
			break;
		}
		memcpy(buf, line + 3, n - 2);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

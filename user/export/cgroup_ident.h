/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a process's cgroup path says of it: the systemd service it runs in, its container and its
 * Kubernetes pod.  The layouts read are those of systemd (system.slice/NAME.service), Docker
 * (system.slice/docker-ID.scope with the systemd cgroup driver, /docker/ID with cgroupfs),
 * containerd and CRI-O under Kubernetes (kubepods.slice/kubepods-QOS.slice/
 * kubepods-QOS-podUID.slice/cri-containerd-ID.scope or crio-ID.scope; kubepods/QOS/podUID/ID with
 * cgroupfs), Podman (libpod-ID.scope) and cgroup v1's per-controller lines of /proc/PID/cgroup.
 */
#ifndef LFR_EXPORT_CGROUP_IDENT_H
#define LFR_EXPORT_CGROUP_IDENT_H

#include <stddef.h>
#include <stdint.h>

#define LFR_CONTAINER_ID_LEN 64 /* hex digits of a container id */
#define LFR_POD_UID_LEN 36      /* a UUID with dashes */
#define LFR_UNIT_MAX 256

struct lfr_cgroup_ident {
	char unit[LFR_UNIT_MAX]; /* the innermost systemd service, without ".service"; "" if none */
	char container_id[LFR_CONTAINER_ID_LEN + 1]; /* "" when not in a container */
	char pod_uid[LFR_POD_UID_LEN + 1];           /* with dashes; "" when not in a pod */
};

/*
 * Reads one cgroup path (len bytes, not NUL-terminated: "/system.slice/nginx.service").  A
 * process in a container has no service of its own: its unit stays "" (the container runtime's
 * unit, or a user's service manager user@UID.service, names no service of the process).
 */
void lfr_cgroup_ident_path(const char *path, size_t len, struct lfr_cgroup_ident *id);

/*
 * Reads the content of a /proc/PID/cgroup file (len bytes): cgroup v2's "0::PATH" line first,
 * then v1's name=systemd line, then the others, each filling what the previous left empty.
 */
void lfr_cgroup_ident_file(const char *text, size_t len, struct lfr_cgroup_ident *id);

/* The same for the process pid, from /proc/PID/cgroup; 0 or a negative errno (id then empty). */
int lfr_cgroup_ident_read(uint32_t pid, struct lfr_cgroup_ident *id);

#endif

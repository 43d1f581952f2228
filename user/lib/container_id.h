/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's container from its cgroup v2 path (the "0::" line of /proc/PID/cgroup), as
 * OpenTelemetry's resource attributes name it: container.id (the runtime's 64 hex digits) and
 * k8s.pod.uid.  Knows the paths of Docker (cgroupfs and systemd drivers), containerd (with and
 * without Kubernetes), CRI-O, Podman (root and rootless) and the kubelet's pod cgroups (cgroupfs
 * and systemd drivers: kubepods/burstable/pod<uid>/...,
 * kubepods-burstable-pod<uid_with_underscores> .slice).  Pure string work (no file is read but by
 * lfr_proc_cgroup), unit-tested.
 */
#ifndef LFR_LIB_CONTAINER_ID_H
#define LFR_LIB_CONTAINER_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LFR_CONTAINER_ID_LEN 64
#define LFR_POD_UID_LEN 36

struct lfr_container_id {
	char id[LFR_CONTAINER_ID_LEN + 1]; /* container.id, lower-case hex, or "" */
	char pod_uid[LFR_POD_UID_LEN + 1]; /* k8s.pod.uid, 8-4-4-4-12 with dashes, or "" */
	const char *runtime;               /* "docker", "containerd", "cri-o", "podman", or NULL */
};

/*
 * What PATH (a cgroup v2 path, "/kubepods.slice/...") says: the deepest component that names a
 * container gives id and runtime, the deepest that names a pod the pod uid.  A CRI-O conmon's
 * cgroup (crio-conmon-ID.scope) is no container.  True when it found either.
 */
bool lfr_container_id_parse(const char *path, struct lfr_container_id *c);

/*
 * The cgroup v2 path of process PID (its /proc/PID/cgroup "0::" line, under PROC: "/proc" or
 * NULL for it) into BUF: 0, or a negative errno (-ENOENT: no cgroup v2 line).
 */
int lfr_proc_cgroup(const char *proc, uint32_t pid, char *buf, size_t len);

#endif

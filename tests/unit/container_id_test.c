// SPDX-License-Identifier: GPL-2.0
/*
 * container.id and k8s.pod.uid from cgroup v2 paths as Docker, containerd, CRI-O, Podman and the
 * kubelet make them (paths as they appear in /proc/PID/cgroup on real hosts), and /proc/PID/cgroup
 * read from a made-up proc tree.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/container_id.h"

#define ID "2f1c5a0d3b7e49a8c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3"
#define UID_DASH "0f9d4c2e-7b1a-4e3d-9c8b-5a6f7e8d9c0b"
#define UID_UNDER "0f9d4c2e_7b1a_4e3d_9c8b_5a6f7e8d9c0b"

struct want {
	const char *path, *id, *pod, *runtime;
};

static const struct want cases[] = {
    /* Docker, cgroupfs driver and systemd driver */
    {"/docker/" ID, ID, "", "docker"},
    {"/system.slice/docker-" ID ".scope", ID, "", "docker"},
    /* containerd without Kubernetes (nerdctl), systemd driver */
    {"/system.slice/nerdctl-x.slice/cri-containerd-" ID ".scope", ID, "", "containerd"},
    /* Kubernetes + containerd, systemd driver: the pod uid with underscores */
    {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_UNDER
     ".slice/cri-containerd-" ID ".scope",
     ID, UID_DASH, "containerd"},
    {"/kubepods.slice/kubepods-pod" UID_UNDER ".slice/cri-containerd-" ID ".scope", ID, UID_DASH,
     "containerd"},
    /* Kubernetes, cgroupfs driver: pod<uid>/<id>, runtime unknown */
    {"/kubepods/besteffort/pod" UID_DASH "/" ID, ID, UID_DASH, NULL},
    {"/kubepods/pod" UID_DASH "/" ID, ID, UID_DASH, NULL},
    /* containerd's cgroupfs driver with systemd-style names */
    {"/system.slice/containerd.service/kubepods-burstable-pod" UID_UNDER
     ".slice:cri-containerd:" ID,
     ID, UID_DASH, "containerd"},
    /* CRI-O; its conmon is no container (the pod still is) */
    {"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_UNDER ".slice/crio-" ID
     ".scope",
     ID, UID_DASH, "cri-o"},
    {"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_UNDER
     ".slice/crio-conmon-" ID ".scope",
     "", UID_DASH, NULL},
    /* the pod's own cgroup: a pod, no container */
    {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_UNDER ".slice", "",
     UID_DASH, NULL},
    /* Podman as root and rootless (the container's processes one level below) */
    {"/machine.slice/libpod-" ID ".scope", ID, "", "podman"},
    {"/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope/container", ID,
     "", "podman"},
    {"/libpod_parent/libpod-" ID, ID, "", "podman"},
    /* Docker in Docker: the innermost */
    {"/docker/" ID "/docker/"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "", "docker"},
    /* upper-case hex is lower-cased */
    {"/docker/2F1C5A0D3B7E49A8C6D5E4F3A2B1C0D9E8F7A6B5C4D3E2F1A0B9C8D7E6F5A4B3", ID, "", "docker"},
};

/* Not containers: services, sessions, near misses. */
static const char *const none[] = {
    "/",
    "",
    "/system.slice/sshd.service",
    "/user.slice/user-1000.slice/session-2.scope",
    "/system.slice/docker.service",
    "/docker/" ID "0",                      /* 65 digits */
    "/docker/2f1c5a0d3b7e49a8c6d5e4f3a2b1", /* too short */
    "/system.slice/docker-" ID ".service",
    "/kubepods/podnotauuid/x",
    "/pod" UID_DASH "x",
};

static void known_paths(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lfr_container_id c;
		bool found = lfr_container_id_parse(cases[i].path, &c);

		if (!found || strcmp(c.id, cases[i].id) || strcmp(c.pod_uid, cases[i].pod))
			print_message("path %s: id '%s' pod '%s'\n", cases[i].path, c.id, c.pod_uid);
		assert_true(found);
		assert_string_equal(c.id, cases[i].id);
		assert_string_equal(c.pod_uid, cases[i].pod);
		if (cases[i].runtime)
			assert_string_equal(c.runtime, cases[i].runtime);
		else
			assert_null(c.runtime);
	}
}

static void not_containers(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		struct lfr_container_id c;
		bool found = lfr_container_id_parse(none[i], &c);

		if (found)
			print_message("path %s: id '%s' pod '%s'\n", none[i], c.id, c.pod_uid);
		assert_false(found);
		assert_string_equal(c.id, "");
		assert_string_equal(c.pod_uid, "");
		assert_null(c.runtime);
	}
}

static void proc_cgroup(void **state)
{
	char dir[] = "/tmp/lfr-proc-XXXXXX", path[128], buf[256];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/42", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/42/cgroup", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("12:cpu,cpuacct:/old\n0::/system.slice/docker-" ID ".scope\n", f);
	fclose(f);
	assert_int_equal(lfr_proc_cgroup(dir, 42, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/system.slice/docker-" ID ".scope");
	assert_int_equal(lfr_proc_cgroup(dir, 42, buf, 10), -ENAMETOOLONG);
	assert_int_equal(lfr_proc_cgroup(dir, 43, buf, sizeof(buf)), -ENOENT);
	/* a cgroup v1 only machine: no "0::" line */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("12:cpu,cpuacct:/old\n", f);
	fclose(f);
	assert_int_equal(lfr_proc_cgroup(dir, 42, buf, sizeof(buf)), -ENOENT);
	unlink(path);
	snprintf(path, sizeof(path), "%s/42", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(known_paths),
	    cmocka_unit_test(not_containers),
	    cmocka_unit_test(proc_cgroup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

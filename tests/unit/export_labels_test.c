// SPDX-License-Identifier: GPL-2.0
/*
 * Labels: a process's service, container and pod from cgroup paths as systemd, Docker,
 * containerd, CRI-O, Podman and Kubernetes lay them out (lines of real /proc/PID/cgroup files),
 * and --label's syntax.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "export/cgroup_ident.h"
#include "export/labels.h"

#define CID1 "b4d6d161c62525d726fa394b27df30e14f8ea5646313ada576b390de70cfc8cc"
#define CID2 "f52a212505a606972cf8614c3cb856539e71b77ecae33436c5ac442232fbacf8"
#define CID3 "a4d6b686848a610472a2eed3ae20d4d64b6b4819feb9fdfc7fd7854deaf59ef3"
#define CID4 "b1eba9dfaeba29d8b80532a574a03ea3cac29384327f339c26da13649e2120df"
#define CID5 "da1bdd84c8b25938081afe48da7075e2a211d2b1a62e01c894b4e5f3ffab670a"

struct example {
	const char *path, *unit, *container, *pod;
};

static const struct example examples[] = {
    /* systemd services; a user's service manager and a session name none */
    {"/system.slice/nginx.service", "nginx", "", ""},
    {"/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1", "", ""},
    {"/system.slice/postgresql@15-main.service", "postgresql@15-main", "", ""},
    {"/user.slice/user-1000.slice/user@1000.service/app.slice/dbus.service", "dbus", "", ""},
    {"/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/"
     "vte-spawn-868f9513-eee8-457d-8e36-1b37ae8ae622.scope",
     "", "", ""},
    {"/user.slice/user-1000.slice/session-3.scope", "", "", ""},
    {"/../../user.slice/user-501.slice/session-3.scope", "", "", ""},
    {"/init.scope", "", "", ""},
    {"/", "", "", ""},
    {"", "", "", ""},
    /* Docker: the systemd cgroup driver, its init child, the cgroupfs driver */
    {"/system.slice/docker-" CID4 ".scope", "", CID4, ""},
    {"/system.slice/docker-" CID4 ".scope/init", "", CID4, ""},
    {"/docker/" CID2, "", CID2, ""},
    /* Kubernetes with containerd, systemd driver (the pod's UID escaped with '_') */
    {"/kubepods.slice/kubepods-burstable.slice/"
     "kubepods-burstable-podf6f2d169_f2ae_4afa_95ed_06ff2ed6b288.slice/cri-containerd-" CID1
     ".scope",
     "", CID1, "f6f2d169-f2ae-4afa-95ed-06ff2ed6b288"},
    /* a Guaranteed pod has no QoS slice */
    {"/kubepods.slice/kubepods-pod0e4b46b4_8d4c_4bd8_8b62_ae9c6c6b1b9f.slice/cri-containerd-" CID3
     ".scope",
     "", CID3, "0e4b46b4-8d4c-4bd8-8b62-ae9c6c6b1b9f"},
    /* Kubernetes, cgroupfs driver: containerd, CRI-O */
    {"/kubepods/besteffort/pod05e102bf-8744-4942-a241-9b6f07983a53/" CID2, "", CID2,
     "05e102bf-8744-4942-a241-9b6f07983a53"},
    {"/kubepods/besteffort/pod897277d4-5e6f-4999-a976-b8340e8d075e/crio-" CID3, "", CID3,
     "897277d4-5e6f-4999-a976-b8340e8d075e"},
    /* CRI-O with systemd; its monitor runs beside the container, not in it */
    {"/kubepods.slice/kubepods-besteffort.slice/"
     "kubepods-besteffort-pod4c9f1974_5c46_44c2_b42f_3bbf0e98eef9.slice/crio-" CID3 ".scope",
     "", CID3, "4c9f1974-5c46-44c2-b42f-3bbf0e98eef9"},
    {"/kubepods.slice/kubepods-besteffort.slice/"
     "kubepods-besteffort-pod4c9f1974_5c46_44c2_b42f_3bbf0e98eef9.slice/crio-conmon-" CID3 ".scope",
     "", "", "4c9f1974-5c46-44c2-b42f-3bbf0e98eef9"},
    /* cgroup v1, containerd's systemd driver: one component with colons, under its service */
    {"/system.slice/containerd.service/"
     "kubepods-besteffort-pod86811ae3_b633_4eb8_a508_e3eae190f6ce.slice:cri-containerd:" CID5,
     "", CID5, "86811ae3-b633-4eb8-a508-e3eae190f6ce"},
    /* Podman, as root and rootless */
    {"/machine.slice/libpod-" CID1 ".scope/container", "", CID1, ""},
    {"/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CID1 ".scope", "", CID1,
     ""},
    /* 63 or 65 hex digits, or a pod with a short UID, are no ids */
    {"/docker/" CID1 "0", "", "", ""},
    {"/system.slice/x.service/abc", "x", "", ""},
    {"/kubepods/pod1234/abc", "", "", ""},
};

static void cgroup_paths(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		const struct example *x = &examples[i];
		struct lfr_cgroup_ident id;

		lfr_cgroup_ident_path(x->path, strlen(x->path), &id);
		if (strcmp(id.unit, x->unit) || strcmp(id.container_id, x->container) ||
		    strcmp(id.pod_uid, x->pod))
			fail_msg("%s: unit '%s' container '%s' pod '%s'", x->path, id.unit,
			         id.container_id, id.pod_uid);
	}
}

/* /proc/PID/cgroup: v2's line first; v1's name=systemd, then the controllers' lines fill in */
static void cgroup_files(void **state)
{
	struct lfr_cgroup_ident id;
	const char *v2 = "0::/system.slice/nginx.service\n";
	const char *v1 =
	    "12:pids:/\n"
	    "11:memory:/kubepods/besteffort/poda9c80282-3f6b-4d5b-84d5-a137a6668011/" CID5 "\n"
	    "1:name=systemd:/\n"
	    "0::/\n";
	const char *hybrid = "5:cpu,cpuacct:/system.slice/sshd.service\n"
	                     "1:name=systemd:/system.slice/ssh.service\n"
	                     "0::/system.slice/ssh.service\n";

	(void)state;
	lfr_cgroup_ident_file(v2, strlen(v2), &id);
	assert_string_equal(id.unit, "nginx");
	lfr_cgroup_ident_file(v1, strlen(v1), &id);
	assert_string_equal(id.container_id, CID5);
	assert_string_equal(id.pod_uid, "a9c80282-3f6b-4d5b-84d5-a137a6668011");
	assert_string_equal(id.unit, "");
	lfr_cgroup_ident_file(hybrid, strlen(hybrid), &id);
	assert_string_equal(id.unit, "ssh");
	/* not a cgroup file at all: nothing */
	lfr_cgroup_ident_file("garbage", 7, &id);
	assert_string_equal(id.unit, "");
	assert_string_equal(id.container_id, "");
}

/* this process's own file reads (whatever it says on the machine that runs the test) */
static void cgroup_self(void **state)
{
	struct lfr_cgroup_ident id;

	(void)state;
	assert_int_equal(lfr_cgroup_ident_read((uint32_t)getpid(), &id), 0);
	assert_true(lfr_cgroup_ident_read(0, &id) < 0);
}

static void label_syntax(void **state)
{
	struct lfr_labels l = {0};
	char why[256];

	(void)state;
	assert_int_equal(
	    lfr_labels_parse(&l, "env=prod, team=db  region=eu-west-1", why, sizeof(why)), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(lfr_labels_get(&l, "team"), "db");
	assert_int_equal(lfr_labels_parse(&l, "", why, sizeof(why)), 0);
	assert_int_equal(lfr_labels_parse(&l, "team=web", why, sizeof(why)), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(lfr_labels_get(&l, "team"), "web");
	assert_int_equal(lfr_labels_parse(&l, "service.name=checkout", why, sizeof(why)), 0);
	assert_int_equal(lfr_labels_parse(&l, "noequals", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "KEY=VALUE"));
	assert_int_equal(lfr_labels_parse(&l, "9x=1", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a label key"));
	assert_int_equal(lfr_labels_parse(&l, "a-b=1", why, sizeof(why)), -1);
	assert_int_equal(lfr_labels_parse(&l, "k={x}", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a label value"));
	assert_int_equal(lfr_labels_parse(&l, "k=", why, sizeof(why)), -1);
	assert_false(lfr_label_value_valid("a\x01"));
	assert_true(lfr_label_value_valid("getty@tty1"));
}

static void recording_labels(void **state)
{
	struct lfr_labels user = {0}, out;

	(void)state;
	lfr_labels_set(&user, "env", "test");
	lfr_labels_set(&user, LFR_LABEL_HOST, "given");
	assert_int_equal(lfr_labels_recording(&user, &out), 0);
	assert_string_equal(lfr_labels_get(&out, "env"), "test");
	/* the user's host.name replaces the machine's */
	assert_string_equal(lfr_labels_get(&out, LFR_LABEL_HOST), "given");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(cgroup_paths),     cmocka_unit_test(cgroup_files),
	    cmocka_unit_test(cgroup_self),      cmocka_unit_test(label_syntax),
	    cmocka_unit_test(recording_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

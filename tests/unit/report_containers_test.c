// SPDX-License-Identifier: GPL-2.0
/*
 * The containers of `lfr report -s container`: a recording written by lfr's JFR writer whose
 * processes have lfr.ProcessCgroup events (lfr record's: one in a Docker container, two in one
 * Kubernetes pod's container, one pod-level process, one on the host, one without the event)
 * read back: each process's latest cgroup, the events of live processes repeated in the next
 * chunk, the samples summed by container and pod, the rest under "[no container]".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "jfr/reader.h"
#include "jfr/writer.h"
#include "lib/container_id.h"
#include "report/report.h"
#include "report/views.h"

#define DOCKER "d0c4e11d0c4e11d0c4e11d0c4e11d0c4e11d0c4e11d0c4e11d0c4e11d0c4e11a"
#define K8S "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
#define POD "0f9d4c2e-7b1a-4e3d-9c8b-5a6f7e8d9c0b"

static char path[64];

/* pid, its cgroup (NULL: no event), its samples */
static const struct {
	uint32_t pid;
	const char *cgroup;
	int samples;
} procs[] = {
    {100, "/system.slice/docker-" DOCKER ".scope", 7},
    {200,
     "/kubepods.slice/kubepods-pod0f9d4c2e_7b1a_4e3d_9c8b_5a6f7e8d9c0b.slice/"
     "cri-containerd-" K8S ".scope",
     5},
    {201,
     "/kubepods.slice/kubepods-pod0f9d4c2e_7b1a_4e3d_9c8b_5a6f7e8d9c0b.slice/"
     "cri-containerd-" K8S ".scope",
     4},
    {300, "/kubepods.slice/kubepods-pod0f9d4c2e_7b1a_4e3d_9c8b_5a6f7e8d9c0b.slice", 2},
    {400, "/system.slice/sshd.service", 3},
    {500, NULL, 1},
};

static void write_recording(void)
{
	struct lfr_jfr_options opt = {.max_chunk_age_ns = 1};
	struct lfr_jfr_writer *w;
	uint64_t m, st, th, t = 1000;
	int fd;

	strcpy(path, "/tmp/lfr-containers-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lfr_jfr_open(&w, path, &opt), 0);
	assert_int_equal(lfr_jfr_method(w, "app", "work", LFR_JFR_FRAME_NATIVE, &m), 0);
	assert_int_equal(lfr_jfr_stack(w, &m, 1, false, &st), 0);
	/* pid 100 was first seen elsewhere: its later event wins */
	assert_int_equal(lfr_jfr_process_cgroup(w, t, 100, "/user.slice", "", "", NULL), 0);
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%u", procs[i].pid);
		assert_int_equal(lfr_jfr_thread(w, procs[i].pid, procs[i].pid, name, name, &th), 0);
		assert_int_equal(lfr_jfr_system_process(w, t, procs[i].pid, name), 0);
		if (procs[i].cgroup) {
			struct lfr_container_id c;

			lfr_container_id_parse(procs[i].cgroup, &c);
			assert_int_equal(lfr_jfr_process_cgroup(w, t, procs[i].pid, procs[i].cgroup,
			                                        c.id, c.pod_uid, c.runtime),
			                 0);
		}
		for (int k = 0; k < procs[i].samples; k++, t += 10)
			assert_int_equal(
			    lfr_jfr_execution_sample(w, t, th, st, LFR_JFR_STATE_RUNNABLE), 0);
		if (i == 2) {
			/* 200 exits: its event is not repeated in the next chunk */
			lfr_jfr_process_gone(w, 200);
			assert_int_equal(lfr_jfr_flush(w), 0); /* events over two chunks */
		}
	}
	assert_int_equal(lfr_jfr_close(w, NULL, 0), 0);
}

static struct report *read_back(const struct report_opts *o)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(path, err, sizeof(err));
	struct report *rep = NULL;

	if (!r)
		fail_msg("%s", err);
	if (report_read(r, o, &rep) < 0)
		fail_msg("%s", r->err);
	jfr_close(r);
	return rep;
}

static void test_cgroups_read(void **state)
{
	struct report_opts o;
	struct report *rep;
	const struct report_cgroup *c;

	(void)state;
	write_recording();
	report_opts_init(&o);
	rep = read_back(&o);
	assert_int_equal(rep->total, 22);
	assert_int_equal(rep->ncgroups, 5);
	assert_non_null(c = report_cgroup_of(rep, 100));
	assert_string_equal(c->container_id, DOCKER);
	assert_string_equal(c->runtime, "docker");
	assert_string_equal(c->pod_uid, "");
	assert_non_null(c = report_cgroup_of(rep, 201));
	assert_string_equal(c->container_id, K8S);
	assert_string_equal(c->pod_uid, POD);
	assert_string_equal(c->runtime, "containerd");
	assert_non_null(c = report_cgroup_of(rep, 300));
	assert_string_equal(c->container_id, "");
	assert_string_equal(c->pod_uid, POD);
	assert_non_null(c = report_cgroup_of(rep, 400));
	assert_string_equal(c->path, "/system.slice/sshd.service");
	assert_null(report_cgroup_of(rep, 500));
	/* 6 written, and those of 100, 201, 300 and 400 repeated at the second chunk's start
	 * (the writer starts it after the flush), not 200's: its process is gone */
	for (size_t i = 0; i < rep->nevtypes; i++)
		if (!strcmp(rep->evtypes[i].name, "lfr.ProcessCgroup"))
			assert_int_equal(rep->evtypes[i].count, 10);
	assert_int_equal(rep->nchunks, 2);
	report_free(rep);
	unlink(path);
}

static void test_by_container(void **state)
{
	struct report_opts o;
	struct report *rep;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	write_recording();
	report_opts_init(&o);
	o.sort_containers = true;
	rep = read_back(&o);
	out = open_memstream(&text, &len);
	assert_int_equal(report_print_text(rep, &o, out), 0);
	fclose(out);
	/* largest first: the pod's container (9), docker's (7), the pod itself (2), then none (4)
	 */
	const char *k8s =
	    strstr(text, "         9  40.9%  c0ffee00c0ff " POD " containerd     2  p2");
	const char *dock = strstr(text, "         7  31.8%  d0c4e11d0c4e -");
	const char *pod =
	    strstr(text, "         2   9.1%  -            " POD " -              1  p300");
	const char *none = strstr(text, "         4  18.2%  [no container] 2 processes");

	if (!k8s || !dock || !pod || !none)
		fail_msg("%s", text);
	assert_true(k8s < dock && dock < pod && pod < none);
	free(text);
	report_free(rep);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cgroups_read),
	    cmocka_unit_test(test_by_container),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

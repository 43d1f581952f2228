// SPDX-License-Identifier: GPL-2.0
/*
 * The JFR writer's information events: the recording, the system, the CPU, object files, labels,
 * the sampler's settings; most are "sticky", repeated at the start of every chunk so that each
 * chunk read alone describes its recording.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "jfr/encode.h"
#include "jfr/labels.h"
#include "jfr/schema.h"
#include "jfr/writer_internal.h"

/* Forgets the repeated events an earlier call of the same function left. */
static void sticky_drop(struct lfr_jfr_writer *w, uint16_t group)
{
	size_t j = 0;

	for (size_t i = 0; i < w->nsticky; i++) {
		if (w->sticky[i].group == group)
			jfr_buf_free(&w->sticky[i].body);
		else
			w->sticky[j++] = w->sticky[i];
	}
	w->nsticky = j;
}

/* Keeps the event being built in tmp (its payload from body_off on) for the next chunks. */
static int sticky_keep(struct lfr_jfr_writer *w, uint16_t type, uint16_t group, size_t body_off)
{
	struct sticky *p = realloc(w->sticky, (w->nsticky + 1) * sizeof(*p));

	if (!p)
		return jfr_writer_nomem(w, "keeping an information event");
	w->sticky = p;
	p = &w->sticky[w->nsticky];
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->group = group;
	jfr_buf_put(&p->body, w->tmp.data + body_off, w->tmp.len - body_off);
	if (p->body.oom) {
		jfr_buf_free(&p->body);
		return jfr_writer_nomem(w, "keeping an information event");
	}
	w->nsticky++;
	return 0;
}

/* Commits an information event and keeps it for the next chunks. */
static int commit_sticky(struct lfr_jfr_writer *w, uint16_t type, uint16_t group, size_t body_off)
{
	int err = sticky_keep(w, type, group, body_off);

	return err ? err : commit(w);
}

int lfr_jfr_active_recording(struct lfr_jfr_writer *w, uint64_t ticks,
                             const struct lfr_jfr_recording *r)
{
	int err;

	if ((err = check_live(w)))
		return err;
	sticky_drop(w, T_ACTIVE_RECORDING);
	begin(w, T_ACTIVE_RECORDING, ticks);
	size_t off = w->tmp.len;
	jfr_buf_varint(&w->tmp, 0); /* duration */
	jfr_buf_varint(&w->tmp, 0); /* eventThread */
	jfr_buf_varint(&w->tmp, 0); /* stackTrace */
	jfr_buf_varint(&w->tmp, r->id);
	jfr_buf_string(&w->tmp, r->name);
	jfr_buf_string(&w->tmp, r->destination ? r->destination : w->path);
	jfr_buf_varint(&w->tmp, r->max_age_ms);
	jfr_buf_varint(&w->tmp, r->flush_interval_ms);
	jfr_buf_varint(&w->tmp, r->max_size_bytes);
	jfr_buf_varint(&w->tmp, real_nanos(w, r->start_ticks) / 1000000);
	jfr_buf_varint(&w->tmp, r->duration_ticks / 1000000);
	return commit_sticky(w, T_ACTIVE_RECORDING, T_ACTIVE_RECORDING, off);
}

int lfr_jfr_os_information(struct lfr_jfr_writer *w, uint64_t ticks, const char *os_version)
{
	char buf[4 * 65 + 8];
	struct utsname u;
	int err;

	if ((err = check_live(w)))
		return err;
	if (!os_version) {
		if (uname(&u) < 0)
			return jfr_writer_fail(w, errno, "uname: %s", strerror(errno));
		snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.release, u.version,
		         u.machine);
		os_version = buf;
	}
	sticky_drop(w, T_OS_INFORMATION);
	begin(w, T_OS_INFORMATION, ticks);
	size_t off = w->tmp.len;
	jfr_buf_string(&w->tmp, os_version);
	return commit_sticky(w, T_OS_INFORMATION, T_OS_INFORMATION, off);
}

int lfr_jfr_system_process(struct lfr_jfr_writer *w, uint64_t ticks, uint32_t pid,
                           const char *command_line)
{
	char id[16];
	int err;

	if ((err = check_live(w)))
		return err;
	snprintf(id, sizeof(id), "%u", pid);
	begin(w, T_SYSTEM_PROCESS, ticks);
	jfr_buf_string(&w->tmp, id);
	jfr_buf_string(&w->tmp, command_line ? command_line : "");
	return commit(w);
}

int lfr_jfr_object_file(struct lfr_jfr_writer *w, uint64_t ticks, const char *name,
                        const char *path, const uint8_t *build_id, size_t build_id_len)
{
	char hex[2 * 64 + 1];
	int err;

	if ((err = check_live(w)))
		return err;
	if (build_id_len > 64)
		return jfr_writer_fail(w, EINVAL, "build-id of %zu bytes", build_id_len);
	for (size_t i = 0; i < build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
	hex[2 * build_id_len] = '\0';
	begin(w, T_OBJECT_FILE, ticks);
	size_t off = w->tmp.len;
	jfr_buf_string(&w->tmp, name ? name : "");
	jfr_buf_string(&w->tmp, path ? path : "");
	jfr_buf_string(&w->tmp, hex);
	return commit_sticky(w, T_OBJECT_FILE, T_OBJECT_FILE, off);
}

int lfr_jfr_labels(struct lfr_jfr_writer *w, uint64_t ticks, uint32_t pid, const char *const *kv,
                   size_t n)
{
	int err;

	if ((err = check_live(w)))
		return err;
	for (size_t i = 0; i < 2 * n; i++)
		if (!kv[i] || !kv[i][0] || !jfr_utf8_valid(kv[i], strlen(kv[i])))
			return jfr_writer_fail(w, EINVAL, "invalid label %s",
			                       i % 2 ? "value" : "name");
	if (pid)
		return jfr_labels_set(&w->labels, pid, kv, n)
		           ? jfr_writer_nomem(w, "keeping labels")
		           : 0;
	sticky_drop(w, T_LABEL);
	for (size_t i = 0; i < n; i++) {
		begin(w, T_LABEL, ticks);
		size_t off = w->tmp.len;

		jfr_buf_varint(&w->tmp, 0);
		jfr_buf_string(&w->tmp, kv[2 * i]);
		jfr_buf_string(&w->tmp, kv[2 * i + 1]);
		if ((err = commit_sticky(w, T_LABEL, T_LABEL, off)))
			return err;
	}
	return 0;
}

void lfr_jfr_labels_forget(struct lfr_jfr_writer *w, uint32_t pid)
{
	if (w && !w->dead && pid)
		jfr_labels_release(&w->labels, pid);
}

/* Fills what the caller left out from /proc/cpuinfo and sysconf. */
static void cpu_defaults(struct lfr_jfr_cpu_info *ci, char *model, size_t msz)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	unsigned sockets_seen = 0, cores_per_socket = 0;
	long phys_max = -1;

	snprintf(model, msz, "unknown");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (!colon)
				continue;
			char *val = colon + 1 + (colon[1] == ' ');
			val[strcspn(val, "\n")] = 0;
			if (!strncmp(line, "model name", 10) && !sockets_seen++)
				snprintf(model, msz, "%s", val);
			else if (!strncmp(line, "physical id", 11) && atol(val) > phys_max)
				phys_max = atol(val);
			else if (!strncmp(line, "cpu cores", 9))
				cores_per_socket = (unsigned)atoi(val);
		}
		fclose(f);
	}
	long n = sysconf(_SC_NPROCESSORS_CONF);
	if (!ci->cpu)
		ci->cpu = model;
	if (!ci->description)
		ci->description = model;
	if (!ci->sockets)
		ci->sockets = phys_max >= 0 ? (uint32_t)phys_max + 1 : 1;
	if (!ci->hw_threads)
		ci->hw_threads = n > 0 ? (uint32_t)n : 1;
	if (!ci->cores)
		ci->cores = cores_per_socket ? cores_per_socket * ci->sockets : ci->hw_threads;
}

int lfr_jfr_cpu_information(struct lfr_jfr_writer *w, uint64_t ticks,
                            const struct lfr_jfr_cpu_info *info)
{
	struct lfr_jfr_cpu_info ci = {0};
	char model[256];
	int err;

	if ((err = check_live(w)))
		return err;
	if (info)
		ci = *info;
	cpu_defaults(&ci, model, sizeof(model));
	sticky_drop(w, T_CPU_INFORMATION);
	begin(w, T_CPU_INFORMATION, ticks);
	size_t off = w->tmp.len;
	jfr_buf_string(&w->tmp, ci.cpu);
	jfr_buf_string(&w->tmp, ci.description);
	jfr_buf_varint(&w->tmp, ci.sockets);
	jfr_buf_varint(&w->tmp, ci.cores);
	jfr_buf_varint(&w->tmp, ci.hw_threads);
	return commit_sticky(w, T_CPU_INFORMATION, T_CPU_INFORMATION, off);
}

/* One jdk.ActiveSetting of the sampler, repeated in every chunk with lfr.SamplerSettings. */
static int active_setting(struct lfr_jfr_writer *w, uint64_t ticks, uint16_t event,
                          const char *name, const char *value)
{
	begin(w, T_ACTIVE_SETTING, ticks);
	size_t off = w->tmp.len;
	jfr_buf_varint(&w->tmp, 0);     /* duration */
	jfr_buf_varint(&w->tmp, 0);     /* eventThread */
	jfr_buf_varint(&w->tmp, 0);     /* stackTrace */
	jfr_buf_varint(&w->tmp, event); /* id: the event type the setting belongs to */
	jfr_buf_string(&w->tmp, name);
	jfr_buf_string(&w->tmp, value);
	return commit_sticky(w, T_ACTIVE_SETTING, T_SAMPLER_SETTINGS, off);
}

/* A period as the JDK writes settings: "20 ms" for a period, "20ms" for a throttle. */
static void format_period(char *buf, size_t n, uint64_t ns, const char *sep)
{
	if (ns && ns % 1000000 == 0)
		snprintf(buf, n, "%llu%sms", (unsigned long long)(ns / 1000000), sep);
	else if (ns && ns % 1000 == 0)
		snprintf(buf, n, "%llu%sus", (unsigned long long)(ns / 1000), sep);
	else
		snprintf(buf, n, "%llu%sns", (unsigned long long)ns, sep);
}

int lfr_jfr_sampler_settings(struct lfr_jfr_writer *w, uint64_t ticks, uint64_t period_ns,
                             uint32_t max_depth, bool kernel_stacks, const char *target)
{
	static const uint16_t types[] = {T_EXECUTION_SAMPLE, T_CPU_TIME_SAMPLE,
	                                 T_WALL_CLOCK_SAMPLE};
	static const unsigned bits[] = {LFR_JFR_SAMPLE_EXECUTION, LFR_JFR_SAMPLE_CPU_TIME,
	                                LFR_JFR_SAMPLE_WALL};
	char period[32], throttle[32], depth[16], ns[24];
	int err;

	if ((err = check_live(w)))
		return err;
	sticky_drop(w, T_SAMPLER_SETTINGS);
	begin(w, T_SAMPLER_SETTINGS, ticks);
	size_t off = w->tmp.len;
	jfr_buf_varint(&w->tmp, period_ns);
	jfr_buf_varint(&w->tmp, max_depth);
	jfr_buf_u8(&w->tmp, kernel_stacks);
	jfr_buf_string(&w->tmp, target);
	if ((err = commit_sticky(w, T_SAMPLER_SETTINGS, T_SAMPLER_SETTINGS, off)))
		return err;
	format_period(period, sizeof(period), period_ns, " ");
	format_period(throttle, sizeof(throttle), period_ns, "");
	snprintf(depth, sizeof(depth), "%u", max_depth);
	snprintf(ns, sizeof(ns), "%llu", (unsigned long long)period_ns);
	/*
	 * async-profiler's settings, as it writes them: the recording's "event" (Pyroscope labels
	 * the profiles with it; "wall" would make it take every jdk.ExecutionSample for a
	 * wall-clock sample too), the CPU and wall-clock periods in ns ("interval", "wall": its
	 * converter's OTLP profiles give them as their period).
	 */
	if ((err = active_setting(w, ticks, T_ACTIVE_RECORDING, "event", "cpu")))
		return err;
	for (unsigned i = 0; i < 3; i++) {
		uint16_t t = types[i];

		if (!(sample_events(w) & bits[i]))
			continue;
		if ((t != T_CPU_TIME_SAMPLE &&
		     (err = active_setting(w, ticks, t,
		                           t == T_WALL_CLOCK_SAMPLE ? "wall" : "interval", ns))) ||
		    (err = active_setting(w, ticks, t, "enabled", "true")) ||
		    (err =
		         active_setting(w, ticks, t, t == T_CPU_TIME_SAMPLE ? "throttle" : "period",
		                        t == T_CPU_TIME_SAMPLE ? throttle : period)) ||
		    (err = active_setting(w, ticks, t, "stackTrace", "true")) ||
		    (err = active_setting(w, ticks, t, "stackDepth", depth)) ||
		    (err = active_setting(w, ticks, t, "kernelStacks",
		                          kernel_stacks ? "true" : "false")) ||
		    (err = active_setting(w, ticks, t, "targets", target ? target : "")))
			return err;
	}
	return 0;
}

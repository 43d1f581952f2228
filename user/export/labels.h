/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Labels: the names a fleet backend groups profiles by, OpenTelemetry's resource attributes
 * (Pyroscope takes the same keys as series labels).  A recording's own (the host name and any
 * `--label KEY=VALUE`) and each process's (its service, container and pod, from its cgroup path)
 * are written into the recording as lfr.Label events (jfr-writer.md), so that a file dumped or
 * exported later carries them.  Keys take Pyroscope's label-name characters ([A-Za-z0-9_.],
 * starting with a letter or '_'); values are printable, without the characters Pyroscope's
 * series syntax cannot carry (',', '=', '{', '}', '"', '\') and without blanks.
 */
#ifndef LFR_EXPORT_LABELS_H
#define LFR_EXPORT_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LFR_LABEL_HOST "host.name"
#define LFR_LABEL_SERVICE "service.name"
#define LFR_LABEL_CONTAINER "container.id"
#define LFR_LABEL_POD "k8s.pod.uid"

#define LFR_LABEL_KEY_MAX 64 /* bytes, with the NUL */
#define LFR_LABEL_VALUE_MAX 256
#define LFR_LABELS_MAX 32

struct lfr_label {
	char key[LFR_LABEL_KEY_MAX];
	char value[LFR_LABEL_VALUE_MAX];
};

struct lfr_labels {
	struct lfr_label v[LFR_LABELS_MAX];
	unsigned n;
};

bool lfr_label_key_valid(const char *key);
bool lfr_label_value_valid(const char *value);

/* Sets key to value (replacing an earlier value); 0, or -1 when the set is full or either is
 * invalid. */
int lfr_labels_set(struct lfr_labels *l, const char *key, const char *value);
/* Points kv[2 * i], kv[2 * i + 1] at label i's key and value (kv holds 2 * LFR_LABELS_MAX);
 * returns how many labels. */
size_t lfr_labels_kv(const struct lfr_labels *l, const char **kv);
/* The value of key, or NULL. */
const char *lfr_labels_get(const struct lfr_labels *l, const char *key);

/*
 * Adds the KEY=VALUE words of arg (separated by blanks or commas; an empty arg adds none) to l.
 * Returns 0, or -1 with what is wrong in why (the word, and what a key or value may hold).
 */
int lfr_labels_parse(struct lfr_labels *l, const char *arg, char *why, size_t whylen);

/* The recording's labels: host.name (the machine's node name), then the user's. */
int lfr_labels_recording(const struct lfr_labels *user, struct lfr_labels *out);

/*
 * A process's labels, from its cgroup (/proc/PID/cgroup): container.id and k8s.pod.uid when it
 * runs in a container and a pod, service.name when it runs in a systemd service (and the user
 * gave no service.name: the recording's own then names every process).  A process that has
 * neither gets none: its service is its name, which the readers take from the thread group.
 */
void lfr_labels_process(uint32_t pid, const struct lfr_labels *user, struct lfr_labels *out);
/* The same from the text of a /proc/PID/cgroup file read earlier (len bytes). */
void lfr_labels_from_cgroup(const char *text, size_t len, const struct lfr_labels *user,
                            struct lfr_labels *out);

#endif

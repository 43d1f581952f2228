/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The labels of a recording read by the report (lfr.Label events, jfr-writer.md): the recording's
 * own (pid 0) and each process's, and the label of a sample's thread by its process.
 */
#ifndef LFR_REPORT_LABELS_H
#define LFR_REPORT_LABELS_H

#include <stdint.h>

struct report;
struct report_thread;

/* The long name of a label as -s takes it: service, container, pod and host are short for
 * service.name, container.id, k8s.pod.uid and host.name; any other name is taken as it is. */
const char *report_label_name(const char *name);

/*
 * Notes the label name = value of process pid (0: of the recording); a later one replaces it.
 * Returns 0, or -1 when out of memory.
 */
int report_note_label(struct report *rep, int64_t pid, const char *name, const char *value);

struct jfr_reader;
struct jfr_chunk;
struct jfr_type;

/*
 * For a reader that walks a chunk's events itself: the event of type t whose fields are at off
 * (absolute), noted as the report's aggregation notes it when it is an lfr.Label (a label) or an
 * lfr.SamplerSettings (the sampling period, rep->period_ns); other types are left alone.
 * Returns 0, or -1 when out of memory.
 */
int report_note_rare(struct report *rep, struct jfr_reader *r, const struct jfr_chunk *ch,
                     const struct jfr_type *t, uint64_t off);

/*
 * The value of label name for the samples of thread t: its process's, else the recording's; for
 * service.name, when neither has one, the process's name (a process outside any service is its
 * own); for process.pid and process.executable.name the thread's process.  NULL when none.
 */
const char *report_thread_label(const struct report *rep, const struct report_thread *t,
                                const char *name, char *buf, size_t n);

/* Frees the labels of rep. */
void report_labels_free(struct report *rep);

#endif

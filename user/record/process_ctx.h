/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's OpenTelemetry process context (OTEP 4719): the mapping named OTEL_CTX it publishes,
 * its header and its payload (an opentelemetry.proto.resource.v1.Resource), read through
 * /proc/PID/mem as the OTEP's reading protocol says (the header read again after the payload: a
 * context being rewritten meanwhile is read again).  lfr takes one attribute from it: the thread
 * context's threadlocal.attribute_key_map (OTEP 4947), the names of the attribute keys that
 * thread context records give by index.
 */
#ifndef LFR_RECORD_PROCESS_CTX_H
#define LFR_RECORD_PROCESS_CTX_H

#include <stddef.h>
#include <stdint.h>

/* The key map: keys[i] is the name of key index i (at most 256, as the index is a byte). */
struct lfr_key_map {
	char *keys[256];
	size_t n;
};

/*
 * Reads the key map of process pid into *m (emptied first).  Returns 1 when the process publishes
 * one, 0 when it publishes no process context or no key map in it, -1 with why filled when it
 * cannot be read (no permission, a payload that is not a Resource).
 */
int lfr_process_ctx_key_map(uint32_t pid, struct lfr_key_map *m, char *why, size_t whylen);

/*
 * The key map in an encoded Resource (len bytes).  Returns 1, 0 (no such attribute) or -1 (not a
 * well-formed message).  Linear in len, never reads outside it.
 */
int lfr_process_ctx_parse(const uint8_t *p, size_t len, struct lfr_key_map *m);

void lfr_key_map_free(struct lfr_key_map *m);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal protocol buffers encoder (the wire format only): varints, length-delimited fields and
 * packed repeated varints into a growable buffer.  Nested messages are encoded into their own
 * buffer and added with pb_message().  Enough for pprof's profile.proto and OpenTelemetry's
 * profiles (export/otlp.c), which adds fixed64 fields.
 */
#ifndef LFR_REPORT_PROTOBUF_H
#define LFR_REPORT_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	bool oom; /* an allocation failed: the content is incomplete */
};

void pb_reset(struct pb_buf *b);
void pb_free(struct pb_buf *b);
void pb_raw_varint(struct pb_buf *b, uint64_t v);
/* n bytes as they are (fields encoded elsewhere) */
void pb_raw_bytes(struct pb_buf *b, const void *p, size_t n);
/* field of wire type 0 (int64, uint64, bool, enum); written even when 0 */
void pb_uint(struct pb_buf *b, unsigned field, uint64_t v);
/* field of wire type 2 */
void pb_bytes(struct pb_buf *b, unsigned field, const void *p, size_t n);
void pb_string(struct pb_buf *b, unsigned field, const char *s);
void pb_message(struct pb_buf *b, unsigned field, const struct pb_buf *msg);
/* repeated uint64/int64, packed (one length-delimited field) */
void pb_packed(struct pb_buf *b, unsigned field, const uint64_t *v, size_t n);
/* field of wire type 1 (fixed64, sfixed64, double's bits) */
void pb_fixed64(struct pb_buf *b, unsigned field, uint64_t v);
/* repeated fixed64, packed */
void pb_packed_fixed64(struct pb_buf *b, unsigned field, const uint64_t *v, size_t n);

#endif

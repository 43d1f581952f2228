/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ProfilesDictionary of an OTLP profiles request (opentelemetry-proto v1.10.0,
 * profiles/v1development/profiles.proto): the tables every profile of the request refers to by
 * index, each entry interned once, index 0 of each the zero value the format requires.  Entries
 * are encoded as they are interned, each table into a buffer of its own (a repeated field's
 * entries may be apart from other fields'), and the dictionary is those buffers one after the
 * other.
 */
#ifndef LFR_EXPORT_OTLP_DICT_H
#define LFR_EXPORT_OTLP_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hashtab.h"
#include "report/protobuf.h"

/* ProfilesDictionary's fields */
enum {
	OTLP_DICT_MAPPING = 1,
	OTLP_DICT_LOCATION,
	OTLP_DICT_FUNCTION,
	OTLP_DICT_LINK,
	OTLP_DICT_STRING,
	OTLP_DICT_ATTRIBUTE,
	OTLP_DICT_STACK,
	OTLP_DICT_TABLES = OTLP_DICT_STACK,
};

/* AnyValue's fields */
enum { OTLP_ANY_STRING = 1, OTLP_ANY_INT = 3 };

struct otlp_dict {
	struct pb_buf table[OTLP_DICT_TABLES + 1]; /* the entries of each, by field number */
	uint32_t n[OTLP_DICT_TABLES + 1];          /* entries of each, the zero value included */
	/* every entry by its key: its table's number, then its content (byte keys, the bytes
	 * copied) -> its index */
	struct hashtab index;
	void **copies; /* the keys' bytes */
	size_t ncopies, copies_cap;
	struct pb_buf tmp, tmp2;
	bool oom;
};

/* An empty dictionary: every table holds its zero value. */
void otlp_dict_init(struct otlp_dict *d);
void otlp_dict_free(struct otlp_dict *d);

uint32_t otlp_str(struct otlp_dict *d, const char *s);
/* A mapping of file (its name, or its path) with its GNU build-id in hex ("" when unknown). */
uint32_t otlp_mapping(struct otlp_dict *d, const char *file, const char *build_id);
uint32_t otlp_function(struct otlp_dict *d, const char *name);
/* A location in mapping at address (0: unknown), of function, with the frame type attribute. */
uint32_t otlp_location(struct otlp_dict *d, uint32_t mapping, uint64_t address, uint32_t function,
                       uint32_t type_attr);
/* A stack of n locations, the leaf first. */
uint32_t otlp_stack(struct otlp_dict *d, const uint32_t *locations, size_t n);
uint32_t otlp_attr_str(struct otlp_dict *d, const char *key, const char *value);
uint32_t otlp_attr_int(struct otlp_dict *d, const char *key, int64_t value);
/* A Link: a sample's trace context, its trace id (16 bytes) and span id (8 bytes). */
uint32_t otlp_link(struct otlp_dict *d, const uint8_t trace_id[16], const uint8_t span_id[8]);

/* Appends the dictionary's fields (the content of a ProfilesDictionary message) to out. */
void otlp_dict_put(const struct otlp_dict *d, struct pb_buf *out);

/* A KeyValue (of a Resource): key and a string (or, string NULL, an integer) as field of out. */
void otlp_key_value(struct pb_buf *out, unsigned field, const char *key, const char *string,
                    int64_t integer);

#endif

// SPDX-License-Identifier: GPL-2.0
/* An OTLP request's ProfilesDictionary, its entries interned; see otlp_dict.h. */
#include <stdlib.h>
#include <string.h>

#include "export/otlp_dict.h"

/* the fields of the entries */
enum {
	MAPPING_FILENAME = 4,
	MAPPING_ATTRIBUTES = 5,
	LOCATION_MAPPING = 1,
	LOCATION_ADDRESS = 2,
	LOCATION_LINES = 3,
	LOCATION_ATTRIBUTES = 4,
	LINE_FUNCTION = 1,
	FUNCTION_NAME = 1,
	STACK_LOCATIONS = 1,
	KVU_KEY = 1,
	KVU_VALUE = 2,
	KV_KEY = 1,
	KV_VALUE = 2,
	LINK_TRACE_ID = 1,
	LINK_SPAN_ID = 2,
};

#define KEY_MAX 4096 /* a key of more bytes is not interned: its entry may repeat */
#define BUILD_ID_KEY "process.executable.build_id.gnu"

void otlp_dict_init(struct otlp_dict *d)
{
	memset(d, 0, sizeof(*d));
	hashtab_init_bytes(&d->index);
	for (int t = 1; t <= OTLP_DICT_TABLES; t++) {
		/* index 0 of each table: its zero value ("" for the strings) */
		pb_bytes(&d->table[t], (unsigned)t, "", 0);
		d->n[t] = 1;
	}
}

void otlp_dict_free(struct otlp_dict *d)
{
	for (int t = 0; t <= OTLP_DICT_TABLES; t++)
		pb_free(&d->table[t]);
	for (size_t i = 0; i < d->ncopies; i++)
		free(d->copies[i]);
	free(d->copies);
	hashtab_free(&d->index);
	pb_free(&d->tmp);
	pb_free(&d->tmp2);
	memset(d, 0, sizeof(*d));
}

/*
 * The index of the entry of table t whose content is the n bytes of key, or 0 when it is new
 * (*slot then to be given the index the caller adds).
 */
static uint32_t find(struct otlp_dict *d, int t, const void *key, size_t n,
                     struct hashtab_slot **slot)
{
	uint8_t buf[KEY_MAX + 1];
	bool fresh;
	struct hashtab_slot *s;
	uint8_t *copy;

	*slot = NULL;
	if (n > KEY_MAX)
		return 0;
	buf[0] = (uint8_t)t;
	memcpy(buf + 1, key, n);
	s = hashtab_get_bytes(&d->index, buf, n + 1);
	if (s)
		return (uint32_t)s->v;
	if (d->ncopies == d->copies_cap) {
		size_t cap = d->copies_cap ? 2 * d->copies_cap : 256;
		void **v = realloc(d->copies, cap * sizeof(*v));

		if (!v) {
			d->oom = true;
			return 0;
		}
		d->copies = v;
		d->copies_cap = cap;
	}
	copy = malloc(n + 1);
	if (!copy || !(s = hashtab_put_bytes(&d->index, buf, n + 1, &fresh))) {
		free(copy);
		d->oom = true;
		return 0;
	}
	memcpy(copy, buf, n + 1);
	s->b = (uint64_t)(uintptr_t)copy; /* the key's bytes, the table's own */
	d->copies[d->ncopies++] = copy;
	*slot = s;
	return 0;
}

/* Adds the entry in tmp to table t (its key's slot, when interned, gets its index). */
static uint32_t add(struct otlp_dict *d, int t, struct hashtab_slot *slot)
{
	uint32_t idx = d->n[t]++;

	pb_message(&d->table[t], (unsigned)t, &d->tmp);
	if (slot)
		slot->v = idx;
	return idx;
}

uint32_t otlp_str(struct otlp_dict *d, const char *s)
{
	struct hashtab_slot *slot;
	size_t n = strlen(s);
	uint32_t idx;

	if (!n)
		return 0;
	if ((idx = find(d, OTLP_DICT_STRING, s, n, &slot)))
		return idx;
	idx = d->n[OTLP_DICT_STRING]++;
	pb_bytes(&d->table[OTLP_DICT_STRING], OTLP_DICT_STRING, s, n);
	if (slot)
		slot->v = idx;
	return idx;
}

/* The AnyValue of a string or an integer into out. */
static void any_value(struct pb_buf *out, const char *string, int64_t integer)
{
	if (string)
		pb_string(out, OTLP_ANY_STRING, string);
	else
		pb_uint(out, OTLP_ANY_INT, (uint64_t)integer);
}

static uint32_t attr(struct otlp_dict *d, const char *key, const char *string, int64_t integer)
{
	uint64_t k[3] = {otlp_str(d, key), string ? otlp_str(d, string) : (uint64_t)integer,
	                 !string};
	struct hashtab_slot *slot;
	uint32_t idx = find(d, OTLP_DICT_ATTRIBUTE, k, sizeof(k), &slot);

	if (idx)
		return idx;
	pb_reset(&d->tmp);
	pb_reset(&d->tmp2);
	pb_uint(&d->tmp, KVU_KEY, k[0]);
	any_value(&d->tmp2, string, integer);
	pb_message(&d->tmp, KVU_VALUE, &d->tmp2);
	return add(d, OTLP_DICT_ATTRIBUTE, slot);
}

uint32_t otlp_attr_str(struct otlp_dict *d, const char *key, const char *value)
{
	return attr(d, key, value, 0);
}

uint32_t otlp_attr_int(struct otlp_dict *d, const char *key, int64_t value)
{
	return attr(d, key, NULL, value);
}

uint32_t otlp_link(struct otlp_dict *d, const uint8_t trace_id[16], const uint8_t span_id[8])
{
	uint8_t k[24];
	struct hashtab_slot *slot;
	uint32_t idx;

	memcpy(k, trace_id, 16);
	memcpy(k + 16, span_id, 8);
	if ((idx = find(d, OTLP_DICT_LINK, k, sizeof(k), &slot)))
		return idx;
	pb_reset(&d->tmp);
	pb_bytes(&d->tmp, LINK_TRACE_ID, trace_id, 16);
	pb_bytes(&d->tmp, LINK_SPAN_ID, span_id, 8);
	return add(d, OTLP_DICT_LINK, slot);
}

uint32_t otlp_mapping(struct otlp_dict *d, const char *file, const char *build_id)
{
	uint32_t k[2] = {otlp_str(d, file),
	                 build_id[0] ? otlp_attr_str(d, BUILD_ID_KEY, build_id) : 0};
	struct hashtab_slot *slot;
	uint32_t idx = find(d, OTLP_DICT_MAPPING, k, sizeof(k), &slot);

	if (idx)
		return idx;
	pb_reset(&d->tmp);
	pb_uint(&d->tmp, MAPPING_FILENAME, k[0]);
	if (k[1]) {
		uint64_t a = k[1];

		pb_packed(&d->tmp, MAPPING_ATTRIBUTES, &a, 1);
	}
	return add(d, OTLP_DICT_MAPPING, slot);
}

uint32_t otlp_function(struct otlp_dict *d, const char *name)
{
	uint32_t k = otlp_str(d, name);
	struct hashtab_slot *slot;
	uint32_t idx = find(d, OTLP_DICT_FUNCTION, &k, sizeof(k), &slot);

	if (idx)
		return idx;
	pb_reset(&d->tmp);
	pb_uint(&d->tmp, FUNCTION_NAME, k);
	return add(d, OTLP_DICT_FUNCTION, slot);
}

uint32_t otlp_location(struct otlp_dict *d, uint32_t mapping, uint64_t address, uint32_t function,
                       uint32_t type_attr)
{
	uint64_t k[4] = {mapping, address, function, type_attr};
	struct hashtab_slot *slot;
	uint32_t idx = find(d, OTLP_DICT_LOCATION, k, sizeof(k), &slot);

	if (idx)
		return idx;
	pb_reset(&d->tmp);
	pb_reset(&d->tmp2);
	if (mapping)
		pb_uint(&d->tmp, LOCATION_MAPPING, mapping);
	if (address)
		pb_uint(&d->tmp, LOCATION_ADDRESS, address);
	pb_uint(&d->tmp2, LINE_FUNCTION, function);
	pb_message(&d->tmp, LOCATION_LINES, &d->tmp2);
	if (type_attr) {
		uint64_t a = type_attr;

		pb_packed(&d->tmp, LOCATION_ATTRIBUTES, &a, 1);
	}
	return add(d, OTLP_DICT_LOCATION, slot);
}

uint32_t otlp_stack(struct otlp_dict *d, const uint32_t *locations, size_t n)
{
	struct hashtab_slot *slot;
	uint32_t idx = find(d, OTLP_DICT_STACK, locations, n * sizeof(*locations), &slot);
	size_t len = 0;

	if (idx)
		return idx;
	for (size_t i = 0; i < n; i++)
		for (uint64_t x = locations[i]; len++, x >>= 7;)
			;
	pb_reset(&d->tmp);
	pb_raw_varint(&d->tmp, (uint64_t)STACK_LOCATIONS << 3 | 2); /* packed */
	pb_raw_varint(&d->tmp, len);
	for (size_t i = 0; i < n; i++)
		pb_raw_varint(&d->tmp, locations[i]);
	return add(d, OTLP_DICT_STACK, slot);
}

void otlp_dict_put(const struct otlp_dict *d, struct pb_buf *out)
{
	for (int t = 1; t <= OTLP_DICT_TABLES; t++) {
		const struct pb_buf *b = &d->table[t];

		if (b->oom)
			out->oom = true;
		else if (b->len)
			pb_raw_bytes(out, b->data, b->len);
	}
	if (d->oom)
		out->oom = true;
}

void otlp_key_value(struct pb_buf *out, unsigned field, const char *key, const char *string,
                    int64_t integer)
{
	struct pb_buf kv = {0}, v = {0};

	pb_string(&kv, KV_KEY, key);
	any_value(&v, string, integer);
	pb_message(&kv, KV_VALUE, &v);
	pb_message(out, field, &kv);
	pb_free(&v);
	pb_free(&kv);
}

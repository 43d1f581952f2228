// SPDX-License-Identifier: GPL-2.0
/*
 * Class and package names JMC can read (see class_names.h): the test, and the renaming lfr merge
 * does in the chunks it copies from other writers.
 */
#include <string.h>

#include "jfr/class_names.h"

bool jfr_jmc_reads_name(const char *s)
{
	if (s[0] != '[')
		return true;
	while (*s == '[')
		s++;
	if (*s && strchr("BCDFIJSZV", *s))
		return true;
	return *s == 'L' && strchr(s, ';');
}

bool jfr_name_string(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
                     uint64_t off, struct jfr_cur *c)
{
	const struct jfr_type *st = ch->meta->string_type;
	const struct jfr_field *f = jfr_value_field(r, ch, t, off, "name", c);

	if (!f || !st || (f->cp && !jfr_deref(c, ch, f)))
		return false;
	/* a Symbol: the one string it wraps, inline */
	if (f->type != st && f->type->nfields == 1 && f->type->fields[0].type == st &&
	    !f->type->fields[0].cp && !f->type->fields[0].array)
		f = &f->type->fields[0];
	return f->type == st && !f->array;
}

/* Renames the name whose string starts at c (its encoding byte) in the file's bytes. */
static int rename_at(struct jfr_reader *r, struct jfr_cur *c)
{
	uint8_t *data = r->owned;
	uint8_t enc = jfr_u8(c);
	uint64_t len = jfr_varint(c);

	if (c->bad || (enc != 3 && enc != 4 && enc != 5) || !len)
		return 0;
	uint64_t first = jfr_cur_off(c), last = first;

	if (enc == 4) { /* one varint per char: '[' and ']' are one byte each */
		for (uint64_t i = 1; i < len && !c->bad; i++) {
			jfr_varint(c);
			last = jfr_cur_off(c);
		}
		jfr_varint(c);
		if (c->bad || jfr_cur_off(c) != last + 1)
			return 0;
	} else {
		last = first + len - 1;
	}
	if (data[first] != '[')
		return 0;
	data[first] = '(';
	if (last > first && data[last] == ']')
		data[last] = ')';
	return 1;
}

int jfr_chunk_rename_names(struct jfr_reader *r, const struct jfr_chunk *ch)
{
	char name[4096];
	int renamed = 0;

	if (!r->owned || r->data != r->owned)
		return jfr_fail(r, ch->off, "renaming names needs the file's bytes in memory");
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&ch->pool, s));) {
		const struct jfr_type *t = jfr_type_by_id(ch->meta, s->a);
		struct jfr_cur c, at;

		if (!t ||
		    (strcmp(t->name, "java.lang.Class") && strcmp(t->name, "jdk.types.Package")))
			continue;
		if (!jfr_name_string(r, ch, t, s->v, &c))
			continue;
		at = c;
		int n = jfr_read_string(&c, ch, name, sizeof(name));
		if (c.bad)
			return -1;
		if (n < 0 || (size_t)n >= sizeof(name) - 1 || jfr_jmc_reads_name(name))
			continue;
		renamed += rename_at(r, &at);
	}
	return renamed;
}

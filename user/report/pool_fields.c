// SPDX-License-Identifier: GPL-2.0
/* The fields of a chunk's constant-pool values as text, integers and references. */
#include <string.h>

#include "report/report_internal.h"

/* Text of a value of field f at c: strings directly, other types through their first field (Symbol,
 * FrameType, ThreadState and other simple types wrap one string). */
int value_text(struct jfr_cur *c, const struct jfr_chunk *ch, const struct jfr_field *f, char *buf,
               size_t n, int depth)
{
	if (n)
		buf[0] = 0;
	if (f->array || depth > 4)
		return -1;
	if (f->type->kind == JFR_K_STRING && !f->cp)
		return jfr_read_string(c, ch, buf, n);
	if (!jfr_deref(c, ch, f))
		return -1;
	const struct jfr_type *t = f->type;
	if (t->kind == JFR_K_STRING)
		return jfr_read_string(c, ch, buf, n);
	if (t->kind != JFR_K_COMPLEX || !t->nfields)
		return -1;
	return value_text(c, ch, &t->fields[0], buf, n, depth + 1);
}

int field_text(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
               uint64_t off, const char *name, char *buf, size_t n)
{
	struct jfr_cur c;
	const struct jfr_field *f = jfr_value_field(r, ch, t, off, name, &c);

	if (n)
		buf[0] = 0;
	if (!f)
		return -1;
	return value_text(&c, ch, f, buf, n, 0);
}

bool field_int(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
               uint64_t off, const char *name, int64_t *v)
{
	struct jfr_cur c;
	const struct jfr_field *f = jfr_value_field(r, ch, t, off, name, &c);

	if (!f || f->cp || f->array || f->type->kind < JFR_K_BOOLEAN || f->type->kind > JFR_K_LONG)
		return false;
	*v = (int64_t)jfr_read_scalar(&c, f);
	return !c.bad;
}

/* Position of the pool value referenced by field `name` of the value at off, or 0. */
uint64_t field_ref(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
                   uint64_t off, const char *name, const struct jfr_type **vt)
{
	struct jfr_cur c;
	const struct jfr_field *f = jfr_value_field(r, ch, t, off, name, &c);

	if (!f || !jfr_deref(&c, ch, f))
		return 0;
	*vt = f->type;
	return jfr_cur_off(&c);
}

// SPDX-License-Identifier: GPL-2.0
/* The event walk of a chunk that is about to be copied into another file: see reader.h. */
#include "jfr/reader.h"

int jfr_chunk_verify(struct jfr_reader *r, const struct jfr_chunk *ch)
{
	struct jfr_event_iter it;
	struct jfr_cur ev;
	uint64_t type, size;
	int ret;

	jfr_event_iter_init(&it, r, ch);
	while ((ret = jfr_event_next(&it, &type, &size, &ev)) > 0) {
		const struct jfr_type *t;
		uint64_t off = jfr_cur_off(&ev);

		/* metadata and checkpoints were parsed by jfr_chunk_load(); the writer's
		 * terminator is an event of type 0 */
		if (type == JFR_EVENT_METADATA || type == JFR_EVENT_CHECKPOINT)
			continue;
		t = jfr_type_by_id(ch->meta, type);
		if (!t)
			continue; /* readers skip events of undeclared types by their size */
		for (int i = 0; i < t->nfields && !ev.bad; i++)
			jfr_skip_field(&ev, &t->fields[i]);
		if (ev.bad) {
			if (!r->failed)
				jfr_fail(r, off, "event of type %s does not parse", t->name);
			return -1;
		}
	}
	if (ret < 0 && !r->failed)
		jfr_fail(r, (uint64_t)(it.p - r->data), "malformed event header");
	return ret < 0 ? -1 : 0;
}

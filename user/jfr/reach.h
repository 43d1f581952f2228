/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The constants a chunk's events reach: every constant-pool entry some kept event refers to,
 * directly or through other constants (a stack trace's frames, their methods, classes, symbols).
 * What a copy of the chunk with only some of its events needs of its constant pools
 * (jfr_rebase_chunk_keep()).
 */
#ifndef LFR_JFR_REACH_H
#define LFR_JFR_REACH_H

#include "jfr/rebase.h"
#include "lib/hashtab.h"

/*
 * Adds to reached every (type id, key) of ch's pools that an event keep() keeps (NULL: every
 * event) reaches, metadata and checkpoints aside; keep() meets the events in file order.  The
 * table's values are unused.  Returns 0, or -1 with a message in err (a constant that is not in
 * the chunk is not an error: the copy leaves it unresolved as the original does).
 */
int jfr_reach(struct jfr_reader *r, const struct jfr_chunk *ch, jfr_keep_fn *keep, void *arg,
              struct hashtab *reached, char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which of a repository's removed chunk files an export lost: those it had not delivered.  The
 * writer removes chunk files oldest first and tells the exports of each just after the unlink;
 * an export sends them oldest first.  A position alone ("everything up to the last delivered
 * was delivered") miscounts the chunk removed between the export's listing and the writer's
 * telling: the export never saw it, delivered a newer one, and its telling then fell behind the
 * position.  The ledger keeps instead the chunks this export delivered that the writer may yet
 * remove, and those it found gone before the telling (counted then, not again).
 */
#ifndef LFR_EXPORT_LEDGER_H
#define LFR_EXPORT_LEDGER_H

#include <stdbool.h>
#include <stddef.h>

#include "jfr/repository.h"

/*
 * Delivered chunks remembered until the writer tells of their removal, or until this many newer
 * ones were delivered: a telling comes at once after its unlink, so only the few newest matter;
 * the bound keeps a repository without limits (nothing ever removed) from growing the ledger.
 */
#define LFR_LEDGER_DELIVERED_MAX 256
#define LFR_LEDGER_GONE_MAX 16

struct lfr_export_ledger {
	/* the chunks up to this one were delivered (or lost) before: their telling is no loss */
	char floor[LFR_JFR_REPO_NAME_MAX];
	/* delivered after floor, oldest first: a ring of n from first */
	char delivered[LFR_LEDGER_DELIVERED_MAX][LFR_JFR_REPO_NAME_MAX];
	size_t first, n;
	/* found gone when read, before the telling, oldest first */
	char gone[LFR_LEDGER_GONE_MAX][LFR_JFR_REPO_NAME_MAX];
	size_t ngone;
};

/* done: the position the export starts from (its state file's), "" when none. */
void lfr_ledger_init(struct lfr_export_ledger *l, const char *done);

/* name was delivered (or skipped as refused or damaged): its removal is no loss. */
void lfr_ledger_delivered(struct lfr_export_ledger *l, const char *name);

/* name was found gone before the writer told of it: counted lost now, not at the telling. */
void lfr_ledger_found_gone(struct lfr_export_ledger *l, const char *name);

/* The writer told of name's removal: whether that loses a chunk not yet counted. */
bool lfr_ledger_removed(struct lfr_export_ledger *l, const char *name);

#endif

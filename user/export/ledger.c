// SPDX-License-Identifier: GPL-2.0
/* Which removed chunk files an export lost; see ledger.h. */
#include <stdio.h>
#include <string.h>

#include "export/ledger.h"

void lfr_ledger_init(struct lfr_export_ledger *l, const char *done)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->floor, sizeof(l->floor), "%s", done);
}

static const char *oldest(const struct lfr_export_ledger *l)
{
	return l->delivered[l->first];
}

/* The oldest delivered leaves the ledger: the floor rises to it. */
static void drop_oldest(struct lfr_export_ledger *l)
{
	memcpy(l->floor, oldest(l), sizeof(l->floor));
	l->first = (l->first + 1) % LFR_LEDGER_DELIVERED_MAX;
	l->n--;
}

void lfr_ledger_delivered(struct lfr_export_ledger *l, const char *name)
{
	if (l->n == LFR_LEDGER_DELIVERED_MAX)
		drop_oldest(l);
	snprintf(l->delivered[(l->first + l->n) % LFR_LEDGER_DELIVERED_MAX],
	         sizeof(l->delivered[0]), "%s", name);
	l->n++;
}

void lfr_ledger_found_gone(struct lfr_export_ledger *l, const char *name)
{
	if (l->ngone == LFR_LEDGER_GONE_MAX) {
		memmove(l->gone[0], l->gone[1], (LFR_LEDGER_GONE_MAX - 1) * sizeof(l->gone[0]));
		l->ngone--;
	}
	snprintf(l->gone[l->ngone++], sizeof(l->gone[0]), "%s", name);
}

/* Whether name was found gone (and forgets it: the writer tells once). */
static bool forget_gone(struct lfr_export_ledger *l, const char *name)
{
	for (size_t i = 0; i < l->ngone; i++)
		if (!strcmp(l->gone[i], name)) {
			memmove(l->gone[i], l->gone[i + 1],
			        (l->ngone - i - 1) * sizeof(l->gone[0]));
			l->ngone--;
			return true;
		}
	return false;
}

bool lfr_ledger_removed(struct lfr_export_ledger *l, const char *name)
{
	if (strcmp(name, l->floor) <= 0)
		return false;
	/* removed oldest first: the delivered chunks older than name were told of already */
	while (l->n && strcmp(oldest(l), name) < 0)
		drop_oldest(l);
	if (l->n && !strcmp(oldest(l), name)) {
		drop_oldest(l);
		return false;
	}
	return !forget_gone(l, name);
}

/* SPDX-License-Identifier: GPL-2.0 */
/* lfr: a session's unwind tables (unwind_tables.c). */
#ifndef LFR_UNWIND_TABLES_H
#define LFR_UNWIND_TABLES_H

#include <linux/fs.h>
#include <linux/iversion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rhashtable-types.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/lfr.h>
#include "frame_check.h"
#include "unwind_rows.h"

struct inode;
struct lfr_session;
struct netlink_ext_ack;

/* What a table is found by; compared whole (no padding). */
struct lfr_unwind_key {
	unsigned long ino;
	u32 dev;
	u32 generation;
};

/* A table: its rows sorted by start, then its hints (unwind_rows.h). */
struct lfr_unwind_table {
	struct rhash_head node;		/* in u->ht, RCU */
	struct list_head clock;		/* in u->clock, under u->lock */
	struct rcu_head rcu;
	struct lfr_unwind_key key;
	/*
	 * The file's state the table describes: its ctime, and its count of
	 * changes where the file system keeps one (i_version: a change within
	 * the ctime's granularity, a clock tick, moves it too).
	 */
	struct timespec64 ctime;
	u64 iversion;
	bool has_iversion;
	bool used;			/* set by walks, cleared by eviction */
	unsigned long stale;		/* bit 0: its file changed since */
	size_t bytes;
	u32 nr;
	u32 hint_shift;			/* 32 - log2 of the hints */
	u64 *hints;			/* after the rows (unwind_rows.h) */
	struct lfr_unwind_row rows[];
};

struct lfr_unwind {
	struct mutex lock;		/* adding, loading and evicting */
	struct rhashtable ht;		/* by inode, RCU for walks */
	bool ht_ready;
	struct list_head clock;		/* eviction order, under lock */
	u32 nr;				/* tables, read by walks */
	/*
	 * Tables added or dropped so far, changed before a dropped one is
	 * freed: a table a walk found stays valid for a later walk, in its
	 * own RCU read section, that reads the same count (mm_watch.h).
	 */
	unsigned long changes;
	u64 bytes;
	u64 max_bytes;
};

int lfr_unwind_init(struct lfr_unwind *u, u32 max_kb);
void lfr_unwind_free(struct lfr_unwind *u);
int lfr_unwind_add(struct lfr_session *s, int obj_fd, int table_fd,
		   struct netlink_ext_ack *extack);
/*
 * Under rcu_read_lock(); the table stays valid until rcu_read_unlock().
 * NULL when @inode's file changed since its table was added.
 */
const struct lfr_unwind_table *lfr_unwind_find(struct lfr_session *s,
					       struct inode *inode);
/* Marks @t's file changed: counted once (UNWIND_STALE), found no more. */
void lfr_unwind_stale(struct lfr_session *s, const struct lfr_unwind_table *t);

/*
 * Whether @t still describes the file of @inode, whose table it is: its
 * ctime is the one the table was built at and, where the file system
 * counts changes, the count is the one it had when the table was added.
 * A file written in place (pwrite, dd conv=notrunc) keeps its inode and
 * its mappings (no page is unmapped: the mm's generation stays) but not
 * its ctime.  Racy with a change: a torn read only fails to match.  Any
 * context; @inode is a mapped file's, or under RCU (inodes are freed
 * after a grace period).
 */
static __always_inline bool lfr_unwind_current(const struct lfr_unwind_table *t,
					       const struct inode *inode)
{
	/* racy with a change of the file: a torn ctime only fails to match */
	struct timespec64 c = data_race(inode_get_ctime(inode));

	return timespec64_equal(&t->ctime, &c) &&
	       (!t->has_iversion ||
		inode_peek_iversion(inode) == t->iversion);
}
/* The rule for file offset @off in @t; inline, as every frame runs it. */
static __always_inline enum lfr_row_found
lfr_unwind_row(const struct lfr_unwind_table *t, u64 off,
	       const struct lfr_unwind_row **out)
{
	if (off > U32_MAX)
		return LFR_ROW_NONE;
	return lfr_unwind_rows_find_hinted(t->rows, t->nr, t->hints,
					   t->hint_shift, off, out);
}

/*
 * Marks @t found, for eviction's second chance (lfr_unwind_find() does).
 * Inline: every walk in described ranges marks each of its tables.
 */
static inline void lfr_unwind_used(const struct lfr_unwind_table *t)
{
	struct lfr_unwind_table *w = (struct lfr_unwind_table *)t;

	/* one store until eviction clears it: walks on every CPU read it */
	if (!READ_ONCE(w->used))
		WRITE_ONCE(w->used, true);
}

#endif /* LFR_UNWIND_TABLES_H */

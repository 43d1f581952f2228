// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: a session's unwind tables (LFR_CMD_UNWIND_ADD).  User space builds
 * one table per object file from its CFI and hands it over in a sealed
 * memfd with a descriptor of the object, which names the inode the table
 * is for.  Walks find a mapping's table by that inode in an rhashtable
 * under RCU; adding takes the session's mutex, which also bounds the
 * tables being loaded to one per session, and, over the session's caps
 * (bytes, LFR_UNWIND_MAX_TABLES), drops tables in second-chance order
 * (freed after a grace period, so a walk may finish with one).  A table is
 * kept by the identity of its inode (device, number, generation) and the
 * file's state user space built it at, not by a reference: its ctime and,
 * where the file system keeps one, its count of changes (i_version, read
 * when the table is added).  A file changed since, in place too, no longer
 * matches (lfr_unwind_current()) and its code is walked by frame
 * pointers: by every lookup, and by every walk that found the table with
 * its mapping before (unwind.c checks the tables kept with the ranges).
 */
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/rhashtable.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include "session.h"
#include "unwind_rows.h"
#include "unwind_tables.h"

/*
 * Hints of the row lookup: one or two per row, 16 to 4096 of them (8 bytes
 * each, counted against the session's bytes).  Each holds one offset: the
 * return addresses a walk meets again and again (a stack of 40 frames in
 * different functions has 40 of them) must seldom share one, or they take
 * turns evicting each other and every lookup searches.
 */
static u32 lfr_unwind_hint_bits(u64 nr)
{
	return clamp_t(int, fls64(nr) + 1, 4, 12);
}

/* The rows, then the hints, aligned: each is read and written whole. */
static size_t lfr_unwind_hints_offset(u64 nr)
{
	return ALIGN(struct_size((struct lfr_unwind_table *)NULL, rows, nr),
		     sizeof(u64));
}

static size_t lfr_unwind_table_size(u64 nr)
{
	return lfr_unwind_hints_offset(nr) +
	       (sizeof(u64) << lfr_unwind_hint_bits(nr));
}

static const struct rhashtable_params lfr_unwind_params = {
	.key_len = sizeof(struct lfr_unwind_key),
	.key_offset = offsetof(struct lfr_unwind_table, key),
	.head_offset = offsetof(struct lfr_unwind_table, node),
	.automatic_shrinking = true,
};

int lfr_unwind_init(struct lfr_unwind *u, u32 max_kb)
{
	int err;

	mutex_init(&u->lock);
	INIT_LIST_HEAD(&u->clock);
	u->max_bytes = (u64)max_kb << 10;
	if (!u->max_bytes)
		return 0;
	err = rhashtable_init(&u->ht, &lfr_unwind_params);
	if (err)
		return err;
	u->ht_ready = true;
	return 0;
}

static void lfr_unwind_free_one(void *ptr, void *arg)
{
	kvfree(ptr);
}

void lfr_unwind_free(struct lfr_unwind *u)
{
	/* The session's last reference: no walk runs any more. */
	if (u->ht_ready)
		rhashtable_free_and_destroy(&u->ht, lfr_unwind_free_one, NULL);
	mutex_destroy(&u->lock);
}

static void lfr_unwind_key_of(struct lfr_unwind_key *k,
			      const struct inode *inode)
{
	memset(k, 0, sizeof(*k));
	k->ino = inode->i_ino;
	k->dev = inode->i_sb->s_dev;
	k->generation = inode->i_generation;
}

void lfr_unwind_stale(struct lfr_session *s, const struct lfr_unwind_table *t)
{
	struct lfr_unwind_table *w = (struct lfr_unwind_table *)t;

	if (!test_and_set_bit(0, &w->stale))
		lfr_count(s, LFR_CTR_UNWIND_STALE, 1);
}

const struct lfr_unwind_table *lfr_unwind_find(struct lfr_session *s,
					       struct inode *inode)
{
	struct lfr_unwind *u = &s->unwind;
	struct lfr_unwind_table *t;
	struct lfr_unwind_key key;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "unwind table lookup without RCU");
	/* no table was ever added: the table may not even exist */
	if (!READ_ONCE(u->nr))
		return NULL;
	lfr_unwind_key_of(&key, inode);
	t = rhashtable_lookup(&u->ht, &key, lfr_unwind_params);
	if (!t)
		return NULL;
	if (READ_ONCE(t->stale))
		return NULL;
	if (!lfr_unwind_current(t, inode)) {
		lfr_unwind_stale(s, t);
		return NULL;
	}
	lfr_unwind_used(t);
	return t;
}

/* Unlinks @t, freed after a grace period; under u->lock. */
static void lfr_unwind_drop(struct lfr_unwind *u, struct lfr_unwind_table *t)
{
	rhashtable_remove_fast(&u->ht, &t->node, lfr_unwind_params);
	list_del(&t->clock);
	WRITE_ONCE(u->nr, u->nr - 1);
	WRITE_ONCE(u->bytes, u->bytes - t->bytes);
	/*
	 * Before the grace period starts: a walk whose read section sees the
	 * old count began before it, and may still use @t (unwind.c).
	 */
	WRITE_ONCE(u->changes, u->changes + 1);
	kvfree_rcu(t, rcu);
}

/*
 * Drops one table, in second-chance order: the oldest that no walk found
 * since the hand last passed it.  A table found meanwhile goes round once
 * more, at most one round in all, so that walks setting the bits again and
 * again cannot keep the hand turning.  Under u->lock, with u->nr > 0.
 */
static void lfr_unwind_evict_one(struct lfr_session *s)
{
	struct lfr_unwind *u = &s->unwind;
	struct lfr_unwind_table *t;
	u32 n;

	for (n = 0;; n++) {
		t = list_first_entry(&u->clock, struct lfr_unwind_table, clock);
		if (n >= u->nr || !READ_ONCE(t->used))
			break;
		WRITE_ONCE(t->used, false);
		list_move_tail(&t->clock, &u->clock);
	}
	lfr_unwind_drop(u, t);
	lfr_count(s, LFR_CTR_UNWIND_EVICTED, 1);
}

static int lfr_read_all(struct file *f, void *buf, size_t len, loff_t *pos)
{
	while (len) {
		ssize_t n = kernel_read(f, buf, len, pos);

		if (n <= 0)
			return n < 0 ? n : -EIO;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * Only a memfd sealed against writing, shrinking and growing: it is read
 * from memory (no file system that may hang, as a network or FUSE file
 * could while generic netlink's lock is held), and neither its size nor its
 * bytes change between the checks and the read.  Seals are never removed.
 */
static bool lfr_table_sealed(struct file *f)
{
	const unsigned int need = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW;

	return shmem_file(f) &&
	       (READ_ONCE(SHMEM_I(file_inode(f))->seals) & need) == need;
}

/*
 * The table from @tf into a new object, checked; ERR_PTR with extack.
 * Under u->lock: one table per session is being loaded at a time.
 */
static struct lfr_unwind_table *lfr_unwind_load(struct lfr_session *s,
						struct file *tf,
						struct lfr_unwind_hdr *h,
						struct netlink_ext_ack *extack)
{
	struct lfr_unwind_table *t;
	loff_t size = i_size_read(file_inode(tf));
	const char *why;
	loff_t pos = 0;
	s64 bad;
	u64 nr;
	int err;

	lockdep_assert_held(&s->unwind.lock);
	if (!lfr_table_sealed(tf)) {
		NL_SET_ERR_MSG(extack, "the table descriptor is not a memfd sealed with F_SEAL_WRITE, F_SEAL_SHRINK and F_SEAL_GROW");
		return ERR_PTR(-EINVAL);
	}
	if (size < (loff_t)sizeof(*h) ||
	    (size - sizeof(*h)) % sizeof(struct lfr_unwind_row)) {
		NL_SET_ERR_MSG(extack, "the table descriptor is not a file of a header and whole rows");
		return ERR_PTR(-EINVAL);
	}
	nr = (size - sizeof(*h)) / sizeof(struct lfr_unwind_row);
	if (nr > LFR_UNWIND_MAX_ROWS ||
	    lfr_unwind_table_size(nr) > s->unwind.max_bytes) {
		NL_SET_ERR_MSG(extack, "the table is larger than the session's unwind memory (LFR_A_UNWIND_MAX_KB)");
		return ERR_PTR(-EFBIG);
	}
	t = kvmalloc(lfr_unwind_table_size(nr), GFP_KERNEL_ACCOUNT);
	if (!t) {
		NL_SET_ERR_MSG(extack, "out of memory for the unwind table");
		return ERR_PTR(-ENOMEM);
	}
	t->nr = nr;
	t->bytes = lfr_unwind_table_size(nr);
	t->used = false;
	t->stale = 0;
	t->hint_shift = 32 - lfr_unwind_hint_bits(nr);
	t->hints = (u64 *)((u8 *)t + lfr_unwind_hints_offset(nr));
	/* every hint LFR_UNWIND_NO_HINT: all bits set */
	memset(t->hints, 0xff, sizeof(u64) << lfr_unwind_hint_bits(nr));
	err = lfr_read_all(tf, h, sizeof(*h), &pos);
	if (!err)
		err = lfr_read_all(tf, t->rows, nr * sizeof(t->rows[0]), &pos);
	if (err) {
		NL_SET_ERR_MSG(extack, "the table descriptor could not be read");
		goto fail;
	}
	err = lfr_unwind_rows_check(h, t->rows, nr, &bad, &why);
	if (err) {
		/* why is a string literal, as NL_SET_ERR_MSG wants */
		if (extack)
			extack->_msg = why;
		if (bad >= 0)
			pr_debug("unwind table row %lld: %s\n", bad, why);
		goto fail;
	}
	return t;
fail:
	kvfree(t);
	return ERR_PTR(err);
}

/* Under u->lock: adds @t (the caller frees it unless it returns 0). */
static int lfr_unwind_insert(struct lfr_session *s, struct lfr_unwind_table *t,
			     struct netlink_ext_ack *extack)
{
	struct lfr_unwind *u = &s->unwind;
	struct lfr_unwind_table *old;
	int err;

	old = rhashtable_lookup_fast(&u->ht, &t->key, lfr_unwind_params);
	if (old && !READ_ONCE(old->stale) &&
	    timespec64_equal(&old->ctime, &t->ctime) &&
	    old->iversion == t->iversion) {
		NL_SET_ERR_MSG(extack, "the session already has a table for this object");
		return -EEXIST;
	}
	/* the file changed since @old was built: it matches no more */
	if (old)
		lfr_unwind_drop(u, old);
	while (u->nr && (u->bytes + t->bytes > u->max_bytes ||
			 u->nr >= LFR_UNWIND_MAX_TABLES))
		lfr_unwind_evict_one(s);
	err = rhashtable_lookup_insert_fast(&u->ht, &t->node, lfr_unwind_params);
	if (err) {
		NL_SET_ERR_MSG(extack, "out of memory for the unwind table's index");
		return err;
	}
	list_add_tail(&t->clock, &u->clock);
	WRITE_ONCE(u->bytes, u->bytes + t->bytes);
	WRITE_ONCE(u->nr, u->nr + 1);
	/* a mapping that had no table has one now */
	WRITE_ONCE(u->changes, u->changes + 1);
	return 0;
}

int lfr_unwind_add(struct lfr_session *s, int obj_fd, int table_fd,
		   struct netlink_ext_ack *extack)
{
	struct lfr_unwind *u = &s->unwind;
	struct lfr_unwind_table *t;
	struct lfr_unwind_hdr h;
	struct file *obj, *tf;
	struct inode *inode;
	int err = 0;

	obj = fget(obj_fd);
	if (!obj) {
		NL_SET_ERR_MSG(extack, "the object descriptor is not open");
		return -EBADF;
	}
	tf = fget(table_fd);
	if (!tf) {
		NL_SET_ERR_MSG(extack, "the table descriptor is not open");
		fput(obj);
		return -EBADF;
	}
	inode = file_inode(obj);
	if (!S_ISREG(inode->i_mode)) {
		NL_SET_ERR_MSG(extack, "the object descriptor is not a regular file");
		err = -EINVAL;
		goto out;
	}
	mutex_lock(&u->lock);
	t = lfr_unwind_load(s, tf, &h, extack);
	if (IS_ERR(t)) {
		err = PTR_ERR(t);
		goto unlock;
	}
	lfr_unwind_key_of(&t->key, inode);
	/* the count first: a change after it moves it, even within a tick */
	t->has_iversion = IS_I_VERSION(inode);
	t->iversion = t->has_iversion ? inode_query_iversion(inode) : 0;
	t->ctime = inode_get_ctime(inode);
	if (t->ctime.tv_sec != h.ctime_sec || t->ctime.tv_nsec != h.ctime_nsec) {
		NL_SET_ERR_MSG(extack, "the object changed after its table was built (ctime): build it again");
		err = -ESTALE;
	} else {
		err = lfr_unwind_insert(s, t, extack);
	}
	if (err)
		kvfree(t);
unlock:
	mutex_unlock(&u->lock);
out:
	fput(tf);
	fput(obj);
	return err;
}

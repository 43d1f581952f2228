// SPDX-License-Identifier: GPL-2.0
/*
 * lfr: a session's unwind tables (LFR_CMD_UNWIND_ADD).  User space builds
 * one table per object file from its CFI and hands it over with a
 * descriptor of the object, which names the inode the table is for.  Walks
 * find a mapping's table by that inode under RCU; adding takes the
 * session's mutex and, over the session's cap, drops the tables used least
 * recently (freed after a grace period, so a walk may finish with one).
 * A table is kept by the identity of its inode (device, number,
 * generation) and the ctime user space built it at, not by a reference:
 * a file changed since then no longer matches and its code is walked by
 * frame pointers.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include "lfr_internal.h"
#include "unwind_rows.h"

struct lfr_unwind_table {
	struct hlist_node node;		/* in u->buckets, RCU */
	struct rcu_head rcu;
	dev_t dev;
	unsigned long ino;
	u32 generation;
	struct timespec64 ctime;
	unsigned long last_used;	/* jiffies, written by walks */
	size_t bytes;
	u32 nr;
	u32 hint_bits;
	u32 *hints;			/* 1 << hint_bits, after the rows */
	struct lfr_unwind_row rows[];
};

/* Hints of the row lookup: about one per row, 16 to 1024 of them. */
static u32 lfr_unwind_hint_bits(u64 nr)
{
	return clamp_t(u32, fls64(nr), 4, 10);
}

static size_t lfr_unwind_table_size(u64 nr)
{
	return struct_size((struct lfr_unwind_table *)NULL, rows, nr) +
	       (sizeof(u32) << lfr_unwind_hint_bits(nr));
}

void lfr_unwind_init(struct lfr_unwind *u, u32 max_kb)
{
	mutex_init(&u->lock);
	u->max_bytes = (u64)max_kb << 10;
}

void lfr_unwind_free(struct lfr_unwind *u)
{
	struct lfr_unwind_table *t;
	struct hlist_node *tmp;
	int i;

	/* The session's last reference: no walk runs any more. */
	for (i = 0; i < LFR_UNWIND_BUCKETS; i++)
		hlist_for_each_entry_safe(t, tmp, &u->buckets[i], node)
			kvfree(t);
	mutex_destroy(&u->lock);
}

static u32 lfr_unwind_hash(dev_t dev, unsigned long ino)
{
	return hash_64(((u64)dev << 32) ^ ino, LFR_UNWIND_HASH_BITS);
}

static bool lfr_unwind_is(const struct lfr_unwind_table *t,
			  const struct inode *inode,
			  const struct timespec64 *ctime)
{
	return t->ino == inode->i_ino && t->dev == inode->i_sb->s_dev &&
	       t->generation == inode->i_generation &&
	       timespec64_equal(&t->ctime, ctime);
}

const struct lfr_unwind_table *lfr_unwind_find(struct lfr_unwind *u,
					       struct inode *inode)
{
	struct lfr_unwind_table *t;
	struct timespec64 ctime;
	u32 h = lfr_unwind_hash(inode->i_sb->s_dev, inode->i_ino);

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "unwind table lookup without RCU");
	/* racy with a change of the file: a torn ctime only fails to match */
	ctime = data_race(inode_get_ctime(inode));
	hlist_for_each_entry_rcu(t, &u->buckets[h], node) {
		unsigned long now = jiffies;

		if (!lfr_unwind_is(t, inode, &ctime))
			continue;
		/* one store per tick at most: walks on every CPU read it */
		if (READ_ONCE(t->last_used) != now)
			WRITE_ONCE(t->last_used, now);
		return t;
	}
	return NULL;
}

enum lfr_row_found lfr_unwind_row(const struct lfr_unwind_table *t, u64 off,
				  struct lfr_unwind_row *out)
{
	if (off > U32_MAX)
		return LFR_ROW_NONE;
	return lfr_unwind_rows_find_hinted(t->rows, t->nr, t->hints,
					   t->hint_bits, off, out);
}

/* Drops the table used least recently; under u->lock. */
static void lfr_unwind_evict_one(struct lfr_session *s)
{
	struct lfr_unwind *u = &s->unwind;
	struct lfr_unwind_table *t, *old = NULL;
	int i;

	for (i = 0; i < LFR_UNWIND_BUCKETS; i++)
		hlist_for_each_entry(t, &u->buckets[i], node)
			if (!old || time_before(READ_ONCE(t->last_used),
						READ_ONCE(old->last_used)))
				old = t;
	if (!old)
		return;
	hlist_del_rcu(&old->node);
	WRITE_ONCE(u->nr, u->nr - 1);
	WRITE_ONCE(u->bytes, u->bytes - old->bytes);
	lfr_count(s, LFR_CTR_UNWIND_EVICTED, 1);
	kvfree_rcu(old, rcu);
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

/* The table from @tf into a new object, checked; ERR_PTR with extack. */
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

	if (!S_ISREG(file_inode(tf)->i_mode) || size < (loff_t)sizeof(*h) ||
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
	t->hint_bits = lfr_unwind_hint_bits(nr);
	t->hints = (u32 *)&t->rows[nr];
	memset(t->hints, 0, sizeof(u32) << t->hint_bits);
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

int lfr_unwind_add(struct lfr_session *s, int obj_fd, int table_fd,
		   struct netlink_ext_ack *extack)
{
	struct lfr_unwind *u = &s->unwind;
	struct lfr_unwind_table *t, *it;
	struct lfr_unwind_hdr h;
	struct file *obj, *tf;
	struct inode *inode;
	int err = 0;
	u32 b;

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
	t = lfr_unwind_load(s, tf, &h, extack);
	if (IS_ERR(t)) {
		err = PTR_ERR(t);
		goto out;
	}
	t->dev = inode->i_sb->s_dev;
	t->ino = inode->i_ino;
	t->generation = inode->i_generation;
	t->ctime = inode_get_ctime(inode);
	t->last_used = jiffies;
	if (t->ctime.tv_sec != h.ctime_sec || t->ctime.tv_nsec != h.ctime_nsec) {
		NL_SET_ERR_MSG(extack, "the object changed after its table was built (ctime): build it again");
		kvfree(t);
		err = -ESTALE;
		goto out;
	}
	b = lfr_unwind_hash(t->dev, t->ino);
	mutex_lock(&u->lock);
	hlist_for_each_entry(it, &u->buckets[b], node) {
		if (lfr_unwind_is(it, inode, &t->ctime)) {
			NL_SET_ERR_MSG(extack, "the session already has a table for this object");
			err = -EEXIST;
			break;
		}
	}
	if (!err) {
		while (u->nr && u->bytes + t->bytes > u->max_bytes)
			lfr_unwind_evict_one(s);
		hlist_add_head_rcu(&t->node, &u->buckets[b]);
		WRITE_ONCE(u->nr, u->nr + 1);
		WRITE_ONCE(u->bytes, u->bytes + t->bytes);
		t = NULL;
	}
	mutex_unlock(&u->lock);
	kvfree(t);
out:
	fput(tf);
	fput(obj);
	return err;
}

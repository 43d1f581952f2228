/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfr: a walk's reads of user memory, without page faults: a frame's words
 * inside one user-access section, the stack words a sample keeps.
 */
#ifndef LFR_USER_READ_H
#define LFR_USER_READ_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <linux/uaccess.h>

/*
 * User memory is read without taking page faults: the stack of a thread
 * that was running a moment ago is resident, and a page that is not (swapped
 * out, or registered with userfaultfd and never touched) would make the walk
 * sleep for as long as it pleases, pinning its session and STOP.  Such a
 * read ends the chain with LFR_SAMPLE_F_USER_FAULT, counted as USER_FAULT.
 * The caller disables page faults once for the whole walk.
 *
 * A frame needs two words: they are loaded straight from user memory, each
 * load with its exception-table fixup, inside one user-access section (no
 * copy into a buffer: a bulk copy of the stack moved every byte between the
 * frame records too, and checked the destination object on every call).
 */
static __always_inline int lfr_read_user(void *ctx, u64 addr, void *buf,
					 size_t len)
{
	void __user *p = (void __user *)(unsigned long)addr;

	if (len != 4 && len != 8 && len != 16)
		return __copy_from_user_inatomic(buf, p, len) ? -EFAULT : 0;
	if (!user_access_begin(p, len))
		return -EFAULT;
	if (len == 4) {
		unsafe_get_user(*(u32 *)buf, (u32 __user *)p, fault);
	} else {
		unsafe_get_user(*(u64 *)buf, (u64 __user *)p, fault);
		if (len == 16)
			unsafe_get_user(((u64 *)buf)[1], (u64 __user *)p + 1,
					fault);
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/*
 * A read inside a user-access section of an address the walk has checked:
 * its @len bytes lie below the walk's limit, which is at most TASK_SIZE_MAX
 * (lfr_step_row(), lfr_walk_fp_frames()).
 */
static __always_inline int lfr_read_user_in(void *ctx, u64 addr, void *buf,
					    size_t len)
{
	const void __user *p = (const void __user *)(unsigned long)addr;

	if (len == 4) {
		unsafe_get_user(*(u32 *)buf, (const u32 __user *)p, fault);
	} else if (len == 8 || len == 16) {
		unsafe_get_user(*(u64 *)buf, (const u64 __user *)p, fault);
		if (len == 16)
			unsafe_get_user(((u64 *)buf)[1],
					(const u64 __user *)p + 1, fault);
	} else {
		return -EFAULT;
	}
	return 0;
fault:
	return -EFAULT;
}

/*
 * The frame-pointer walk reads inside one user-access section opened for
 * all of user space (lfr_user_stack()): each load keeps its exception-table
 * fixup and its own bounds test, but the section is not opened and closed,
 * nor speculation fenced, at every frame.  No call may happen inside it.
 * (A read that the walk checked needs no bounds test: lfr_read_user_in().)
 */
static __always_inline int lfr_read_user_open(void *ctx, u64 addr, void *buf,
					      size_t len)
{
	if (addr > TASK_SIZE_MAX - len)
		return -EFAULT;
	return lfr_read_user_in(ctx, addr, buf, len);
}

/*
 * Words of the user stack from sp on: as many as can be read, up to n.
 * Page faults are disabled by the caller, as for lfr_read_user().
 */
static inline u32 lfr_copy_stack_words(u64 sp, u64 *words, u32 n)
{
	u64 __user *p = (u64 __user *)(unsigned long)sp;
	u32 i = 0;

	if (!n || (sp & 7) || !user_access_begin(p, n * sizeof(u64)))
		return 0;
	for (; i < n; i++)
		unsafe_get_user(words[i], p + i, out);
out:
	user_access_end();
	return i;
}

/*
 * The user-access section of a walk with unwind tables: the whole walk's
 * when its row lookups make no call (lfr_walk_known()), else each frame's,
 * with the lookup (which may look the mapping up) outside it.
 */
static __always_inline bool lfr_uaccess_open(void *ctx)
{
	return user_access_begin((void __user *)0, TASK_SIZE_MAX);
}

static __always_inline void lfr_uaccess_close(void *ctx)
{
	user_access_end();
}

#endif /* LFR_USER_READ_H */

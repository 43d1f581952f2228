/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 targets: turns what a user typed (an absolute path inside the cgroup2 mount, a path
 * relative to that mount, or a numeric cgroup id) into the 64-bit cgroup id the module takes.
 */
#ifndef LFR_LIB_CGROUP_H
#define LFR_LIB_CGROUP_H

#include <stddef.h>
#include <stdint.h>

/*
 * The cgroup2 mount point from MOUNTINFO (a /proc/self/mountinfo file; NULL: the real one), copied
 * into BUF.  Returns 0, or -ENOENT when no cgroup2 file system is mounted.
 */
int lfr_cgroup2_mount(const char *mountinfo, char *buf, size_t len);

/*
 * Resolves ARG to a cgroup id.  MOUNT is the cgroup2 mount used for relative paths (NULL: found
 * with lfr_cgroup2_mount).  Returns 0 with *ID set, or a negative errno with a message for people
 * in WHY: -ENOENT (no such cgroup), -ENOTDIR (not a directory), -EMEDIUMTYPE (a cgroup v1 path or
 * not a cgroup at all), -EINVAL (id 0).
 */
int lfr_cgroup_resolve(const char *arg, const char *mount, uint64_t *id, char *why, size_t whylen);

/*
 * Opens the cgroup.procs of the cgroup v2 ARG names (a path, as lfr_cgroup_resolve takes it) for
 * writing, as the module's proof that the caller may move processes into it (a cgroup delegated
 * to it): the descriptor, or a negative errno with a message in WHY (-ENOENT for an id, which
 * names no file).
 */
int lfr_cgroup_procs_open(const char *arg, const char *mount, char *why, size_t whylen);

#endif

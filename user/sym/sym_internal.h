/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolizer's own state, shared by sym.c (processes, mappings, the result cache, naming)
 * and sym_objects.c (the cache of ELF objects and the vDSO images).
 */
#ifndef LFR_SYM_SYM_INTERNAL_H
#define LFR_SYM_SYM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sym/internal.h"

#define KERNEL_PID UINT32_MAX
#define PROC_MAPS_INTERVAL_NS 1000000000ull
#define PERF_MAP_INTERVAL_NS 1000000000ull
/* Distinct vDSO images copied from other processes, and the largest taken (a few pages each). */
#define VDSO_COPIES 4
#define VDSO_MAX_LEN (64u * 1024)

struct mapping {
	uint64_t start, end, pgoff;
	dev_t dev;
	uint64_t ino;
	const char *path; /* interned; NULL for anonymous memory */
	const char *name; /* interned class name */
	uint8_t build_id[64];
	size_t build_id_len;
	struct elfobj *obj;
	bool bound; /* obj looked up (it may still be NULL) */
};

struct proc {
	uint32_t pid;
	uint64_t serial; /* changes whenever what the process's pcs resolve to may change */
	struct mapping *maps;
	size_t n, cap;
	struct perfmap pm;
	uid_t owner; /* of PROC/PID when last seen: whose map a gone process's is */
	bool owner_known;
	uint64_t procmaps_ns;
};

struct cache_ent {
	uint64_t pc, serial;
	uint32_t pid;
	struct lfr_frame f;
};

struct lfr_sym {
	char *debug_dirs, *proc_dir, *perf_map_dir, *kallsyms;
	unsigned flags;
	struct strpool pool;
	struct hashtab procs; /* pid -> struct proc */
	struct hashtab objs;  /* byte keys (device+inode, build-id or path) -> struct elfobj */
	struct elfobj *obj_list;
	/* in obj_list; kept by the last sweep; processes forgotten since (sym_objects.c) */
	size_t nobjs, objs_kept, forgotten;
	struct proc *last_proc;
	struct elfobj vdso;
	size_t vdso_len;
	bool vdso_tried;
	/* vDSO images copied from processes whose [vdso] differs from ours (a 32-bit one) */
	struct elfobj vdso_copies[VDSO_COPIES];
	size_t n_vdso_copies;
	struct ksyms ks;
	struct knames kn; /* when asked for: before ks */
	uint64_t ks_serial;
	struct cache_ent *cache; /* cache_map() */
	size_t cache_mask, cache_bytes;
	uint64_t next_serial;
	struct lfr_sym_stats st;
	struct sym_debuginfod *dbgi;
	struct elfobj_env env; /* what loading an object needs of sym (elfobj.c) */
	struct lfr_sym_cache_stats cache_st;
	const char *s_unknown, *s_kernel, *s_anon, *s_jit, *s_vdso;
	char err[512];
};

/* sym_objects.c: the ELF object of mapping m of process p (NULL: none), loaded once. */
struct elfobj *sym_mapping_obj(struct lfr_sym *sym, struct proc *p, struct mapping *m);
/* sym_objects.c: after a process is forgotten: now and then frees the objects none maps. */
void sym_objects_check(struct lfr_sym *sym);

#endif

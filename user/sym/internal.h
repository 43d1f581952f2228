/* SPDX-License-Identifier: GPL-2.0 */
/* Internal pieces of the symbolizer shared by the files of user/sym/. */
#ifndef LFR_SYM_INTERNAL_H
#define LFR_SYM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "lib/hashtab.h"
#include "sym/sym.h"

struct lfr_unwind_table;

/*
 * Of the n elements at base (each size bytes, sorted by the uint64_t key at offset off), how many
 * have a key at most x: the index after the last one at or below x.
 */
static inline size_t sym_upper_bound(const void *base, size_t n, size_t size, size_t off,
                                     uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, (const char *)base + mid * size + off, sizeof(k));
		if (k <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* strpool.c: an arena of strings that live as long as the pool, with optional interning. */
struct strpool {
	struct strpool_chunk *chunks;
	char *cur;
	size_t left;
	struct hashtab interned; /* byte keys: the interned strings */
};

void strpool_init(struct strpool *p);
void strpool_fini(struct strpool *p);
/* A copy of s[0..len) with a terminating NUL, or NULL when out of memory. */
const char *strpool_add(struct strpool *p, const char *s, size_t len);
/* The one copy of s[0..len) in the pool if it was interned, else NULL. */
const char *strpool_find(const struct strpool *p, const char *s, size_t len);
/* The one copy of s[0..len) in the pool (added on first use), or NULL when out of memory. */
const char *strpool_intern(struct strpool *p, const char *s, size_t len);
const char *strpool_internf(struct strpool *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* symtab.c: a sorted table of address ranges with names, built once and searched. */
enum {
	SYMF_SIZED = 0x1,      /* end comes from st_size */
	SYMF_GLOBAL = 0x2,     /* global or weak binding: preferred among aliases */
	SYMF_BOUNDARY = 0x4,   /* ends the previous symbol but names nothing */
	SYMF_CXX = 0x8,        /* out name is a demangled C++ name */
	SYMF_VERSIONED = 0x10, /* an old symbol version ("memcpy@GLIBC_2.2.5") */
	SYMF_DROP = 0x20,      /* replaced: removed by symtab_keep_last */
};

struct symtab_ent {
	uint64_t addr, end;
	uint32_t name; /* offset in names */
	uint16_t aux;  /* user data (kallsyms: module index) */
	uint8_t flags;
};

struct symtab {
	struct symtab_ent *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	const char **out; /* lazily: the interned output name of each entry */
};

void symtab_fini(struct symtab *t);
/*
 * Adds name[0..len).  size 0: the symbol ends where the next one starts (or at limit when that
 * comes first).
 */
int symtab_add(struct symtab *t, uint64_t addr, uint64_t size, uint64_t limit, const char *name,
               size_t len, uint16_t aux, uint8_t flags);
/* Drops every entry that a later one at the same address replaces (call before finish). */
void symtab_keep_last(struct symtab *t);
/* Sorts, drops aliases and sets the end of unsized symbols. */
void symtab_finish(struct symtab *t);
/* The index of the symbol containing addr, or -1. */
long symtab_find(const struct symtab *t, uint64_t addr);
static inline const char *symtab_name(const struct symtab *t, size_t i)
{
	return t->names + t->v[i].name;
}

/* demangle.c */
/* A malloc'd demangled form of a C++ (Itanium ABI) name, or NULL when name is not one. */
char *sym_demangle(const char *name);

/* elfobj.c: one ELF object with its symbols, shared by every process that maps it. */
struct elf_seg {
	uint64_t vaddr, offset, filesz, memsz;
	bool exec;
};

struct elfobj {
	struct elfobj *next;     /* list of every object, for freeing */
	bool in_use;             /* sym_objects_check()'s mark: a known process maps it */
	const char *path;        /* interned path as mapped */
	const char *name;        /* interned base name: the frame class */
	const char *debug_path;  /* interned path of the separate debug file, or NULL */
	const char *unnamed_why; /* interned: why no .symtab was found, or NULL */
	bool ok;                 /* false: could not be read, every pc is unknown */
	bool debug_only;         /* only a debug file was found: its segments cannot translate */
	uint8_t build_id[64];
	size_t build_id_len;
	struct elf_seg *segs;
	size_t nsegs;
	struct symtab syms;
	/* the file that was read, to read its CFI again when a leaf needs it (cfi.c) */
	const char *file_path; /* interned; NULL for an in-memory image */
	dev_t file_dev;
	ino_t file_ino;
	void *image; /* in-memory image (the vDSO), kept for its CFI */
	size_t image_len;
	struct cfi *cfi; /* call frame information, read on first use; owned by cfi.c */
	bool cfi_tried;
	struct cfi_memo *cfi_memo; /* the leaf rule of recent pcs; owned by cfi.c */
	/* the leaf rule from the object's unwind table in the cache (leaf_table.c) */
	bool eh_frame_hdr;  /* it has a PT_GNU_EH_FRAME: libdw finds an FDE by binary search */
	uint64_t file_size; /* st_size of the file: the cache keeps tables by build-id and size */
	struct lfr_blob_cache *cache;
	struct lfr_sym_cache_stats *cache_st;
	struct lfr_unwind_table *leaf_table;
	bool leaf_table_tried;
	/* hash keys under which the object is cached */
	uint8_t key_dev[1 + 2 * sizeof(uint64_t)];
	uint8_t key_bid[1 + 64];
	size_t key_bid_len;
	const char *key_path;
};

/* What loading an object needs of the symbolizer that owns it. */
struct sym_debuginfod;
struct elfobj_env {
	struct strpool *pool;         /* the interned paths and messages */
	const char *debug_dirs;       /* ':'-separated: where separate debug files are looked for */
	struct sym_debuginfod **dbgi; /* NULL: not asked to use debuginfod */
	uint64_t *debug_files;        /* counts the separate debug files read */
	/* symbol tables kept by build-id (sym_cache.h), NULL: none; and what came of it */
	struct lfr_blob_cache *cache;
	struct lfr_sym_cache_stats *cache_st;
};

/*
 * Reads the object from an open ELF file found at open_path.  When want_len is non-zero, a file
 * whose build-id differs is refused with -ESTALE.  Looks for a separate debug file when the file
 * has no .symtab.  0 or a negative errno.
 */
int elfobj_load_fd(const struct elfobj_env *env, struct elfobj *o, int fd, const char *open_path,
                   const uint8_t *want, size_t want_len);
/* Reads the object from the debug file of a build-id (the original file is gone). */
int elfobj_load_by_build_id(const struct elfobj_env *env, struct elfobj *o, const uint8_t *bid,
                            size_t len);
/* Reads the object from an in-memory ELF image (copied first). */
int elfobj_load_mem(const struct elfobj_env *env, struct elfobj *o, const void *image, size_t size);
/*
 * Translates a pc into an ELF virtual address, given its distance rel from the start of its
 * mapping and the file offset pgoff of that start; false when no segment holds it.
 */
bool elfobj_vaddr(const struct elfobj *o, uint64_t rel, uint64_t pgoff, uint64_t *vaddr);
void elfobj_fini(struct elfobj *o);

/* cfi.c: the call frame information of an object, read lazily and kept with it. */
void cfi_free(struct cfi *c);
void cfi_memo_free(struct cfi_memo *m);
/*
 * The leaf rule of vaddr in o (enum lfr_leaf_rule, or CFI_LEAF_CALLER_LR: on arm64, the caller
 * in the link register x30, which the USTACK record carries after its stack words), and for
 * LFR_LEAF_CALLER the stack word (*slot) that holds the return address.
 */
#define CFI_LEAF_CALLER_LR (LFR_LEAF_UNKNOWN + 1)
int cfi_leaf_rule(struct elfobj *o, uint64_t vaddr, uint64_t *slot);

/*
 * leaf_table.c: the leaf rule of vaddr in o from its unwind table in the cache (as
 * cfi_leaf_rule()), or CFI_LEAF_ASK_LIBDW when there is no table or its row has no rule.
 */
#define CFI_LEAF_ASK_LIBDW (CFI_LEAF_CALLER_LR + 1)
int leaf_table_rule(struct elfobj *o, uint64_t vaddr, uint64_t *slot);
void leaf_table_free(struct elfobj *o);

/*
 * The ELF object holding pc in pid's address space and the pc's ELF virtual address; NULL when no
 * readable object holds it (sym.c).
 */
struct elfobj *sym_user_obj(struct lfr_sym *sym, uint32_t pid, uint64_t pc, uint64_t *vaddr);

/* kallsyms.c */
struct ksyms {
	struct symtab syms;
	const char **mods; /* interned "[kernel]", "[ext4]", ... indexed by symtab_ent.aux */
	size_t nmods;
	bool loaded, tried;
};

/* Fills ks from a kallsyms file; 0, -errno; the message is written to err. */
int ksyms_load(struct ksyms *ks, struct strpool *pool, const char *path, char *err, size_t errlen);
void ksyms_fini(struct ksyms *ks);

/* kname.c: kernel names asked of the lfr module, a function at a time. */
#define KNAME_TEXT_MAX 1024 /* the kernel's KSYM_SYMBOL_LEN (667 in 6.1) is under this */
struct kname {
	uint64_t start, end;    /* [start, end) */
	const char *name, *mod; /* interned; mod "[kernel]" or "[ext4]" */
};
struct knames {
	/* the name of pc as LFR_CMD_KSYM gives it into text (NUL-terminated, "" for none): 0 or a
	 * negative errno */
	int (*ask)(void *ctx, uint64_t pc, char *text, size_t len);
	void *ctx;
	struct kname *v; /* sorted by start, no two overlapping */
	size_t n, cap;
	uint64_t asked; /* answers received */
	bool off;       /* the module refused: the kallsyms file names from then on */
};
/* One answer, "name+0xoff/0xsize [module]", split (pointers into it): 0 or -EINVAL. */
struct kname_text {
	const char *name, *mod; /* mod NULL for the kernel's own */
	size_t name_len, mod_len;
	uint64_t offset, size;
};
int kname_parse(const char *s, struct kname_text *t);
/*
 * The function holding kernel pc: 0; -ENOENT when no symbol holds it; another negative errno
 * when the question failed (kn->ask's, or -ENOMEM).
 */
int knames_find(struct knames *kn, struct strpool *pool, uint64_t pc, struct kname *out);
void knames_fini(struct knames *kn);

/* perfmap.c: /tmp/perf-PID.map files of JIT compilers. */
/* A perf map larger than this is not read (a runaway writer must not exhaust the recorder). */
#define PERFMAP_MAX_BYTES ((off_t)1 << 30)

struct perfmap {
	struct symtab syms;
	bool tried;
	int64_t mtime_ns;
	off_t size;   /* of the file when last looked at */
	off_t parsed; /* bytes read: up to the end of its last complete line */
	dev_t dev;    /* the file read */
	ino_t ino;
	uint64_t checked_ns;
};

/*
 * Opens path for reading when it is a regular file owned by owner or root, without following a
 * link or blocking on a FIFO; NULL otherwise.  *st describes the open file.
 */
FILE *perfmap_open(const char *path, uid_t owner, struct stat *st);
/* (Re)loads the map when the file changed; returns true when the contents changed. */
bool perfmap_refresh(struct perfmap *pm, const char *path, uid_t owner);
void perfmap_fini(struct perfmap *pm);

/* procmaps.c: parses /proc/PID/maps, each mapping handed to add (0, or its error stops). */
typedef int procmaps_add_fn(void *arg, const struct lfr_sym_mapping *m);
int procmaps_load(const char *proc_dir, uint32_t pid, procmaps_add_fn *add, void *arg, char *err,
                  size_t errlen);

/*
 * debuginfod.c: fetches the debug file of a build-id from DEBUGINFOD_URLS into libdebuginfod's
 * cache; 0 and its path, or a negative errno and sym_debuginfod_why() says why.  *d is created
 * on first use.
 */
#define LFR_DEBUGINFOD_TIMEOUT_S 10        /* DEBUGINFOD_TIMEOUT when the environment has none */
#define LFR_DEBUGINFOD_MAXTIME_S 30        /* DEBUGINFOD_MAXTIME: a query's seconds in all */
#define LFR_DEBUGINFOD_MAXSIZE (1ll << 30) /* DEBUGINFOD_MAXSIZE: a debug file's bytes */
struct sym_debuginfod;
int sym_debuginfod_fetch(struct sym_debuginfod **d, const uint8_t *bid, size_t len, char *path,
                         size_t cap);
const char *sym_debuginfod_why(const struct sym_debuginfod *d);
void sym_debuginfod_free(struct sym_debuginfod *d);

#endif

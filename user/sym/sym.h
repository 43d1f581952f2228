/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolizer: turns (process, pc) and kernel pcs into JFR-ready frames.
 *
 * A frame is named by three strings: the "class" is the object the pc lies in ("libc.so.6",
 * "[kernel]", "[ext4]", "[vdso]", "[jit]"), the "method" is the symbol (C++ names demangled), and
 * the frame type is one of lfr_frame_type.  A pc that cannot be named keeps its address: the
 * method is "0x..." (the object-relative address when the object is known, else the raw pc) and
 * the class is the object's file name or "[unknown]".  No pc is ever dropped.
 *
 * Processes are described by explicit mapping records (lfr_sym_add_mapping), so frames of a
 * process that exited long before its samples are symbolized still get names; reading
 * /proc/PID/maps is only a fallback for live processes.  ELF files are parsed once and shared by
 * every process mapping them (keyed by device/inode and build-id), and freed once no known
 * process maps them (lfr_sym_forget_pid()); results are cached per (pid, pc).
 *
 * Strings in a struct lfr_frame are interned: they stay valid until lfr_sym_free() and equal
 * strings have equal pointers, so callers may deduplicate by pointer.
 *
 * Not thread-safe: one symbolizer belongs to one thread (the drainer).
 */
#ifndef LFR_SYM_SYM_H
#define LFR_SYM_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lfr_sym;

enum lfr_frame_type {
	LFR_FRAME_NATIVE,      /* "Native": C or unnamed native code */
	LFR_FRAME_CPP,         /* "C++": a demangled C++ symbol */
	LFR_FRAME_KERNEL,      /* "Kernel": kernel or kernel module code */
	LFR_FRAME_JIT,         /* "JIT compiled": code named by /tmp/perf-PID.map */
	LFR_FRAME_INTERPRETED, /* "Interpreted": a JVM's interpreter, by its perf map */
};

struct lfr_frame {
	const char *class_name; /* object file base name, "[kernel]", "[module]", "[unknown]" */
	const char *method;     /* symbol name (demangled) or "0x..." when unknown */
	const char *path;       /* full path of the object, or NULL */
	uint64_t addr;          /* object-relative address (ELF vaddr), kernel pc or raw pc */
	uint64_t offset;        /* addr - symbol start; 0 when unknown */
	enum lfr_frame_type type;
	bool resolved; /* false: method is the address */
	/* of a pc left unnamed in an object file: its build-id, NULL when unknown; valid until
	 * the object is freed (lfr_sym_forget_pid() of the last process mapping it) */
	const uint8_t *build_id;
	size_t build_id_len;
};

/* Options of lfr_sym_new(); zero (or a NULL pointer) means the default for every field. */
struct lfr_sym_opts {
	const char *debug_dirs;   /* ':'-separated debug roots; default "/usr/lib/debug" */
	const char *proc_dir;     /* default "/proc" */
	const char *perf_map_dir; /* where perf-PID.map files live; default: the /tmp each
	                           * target sees (PROC/PID/root/tmp/perf-NSPID.map) */
	const char *kallsyms;     /* kernel symbols file; default "/proc/kallsyms" */
	unsigned cache_entries;   /* (pid, pc) result cache size, rounded up to a power of 2;
	                           * default 65536 */
	unsigned flags;           /* LFR_SYM_* */
};

/* Read /proc/PID/maps for a pid that has no mapping covering a pc (at most once a second). */
#define LFR_SYM_PROC_MAPS_FALLBACK 0x1u
/*
 * Fetch the debug files of stripped objects by build-id from the debuginfod servers of
 * DEBUGINFOD_URLS (libdebuginfod, its cache; each query bounded by DEBUGINFOD_MAXTIME, 30 s, and
 * DEBUGINFOD_MAXSIZE, 1 GiB, and what arrives checked), after the debug roots and
 * .gnu_debuglink.  Queries block: for offline naming (lfr report), never for recording.
 */
#define LFR_SYM_DEBUGINFOD 0x2u
/*
 * Cache only what names no file: pcs of a perf map or of anonymous memory.  For a caller that
 * remembers the frames of files and of the kernel itself (the recorder), so that the cache does
 * not hold them twice; its pages are then written only where such pcs land, not at the start.
 */
#define LFR_SYM_CACHE_FILELESS 0x4u

/* What the symbol tables' cache (lfr_sym_set_cache) did. */
struct lfr_sym_cache_stats {
	uint64_t read, stored; /* tables read back; built and stored */
	uint64_t problems;     /* files refused or not written */
	uint64_t leaf_tables;  /* unwind tables read for the leaf rule (sym/cfi.h) */
	char first_problem[256];
};

struct lfr_blob_cache;

/*
 * Objects' symbol tables come from the cache c (sym/sym_cache.h: by build-id) when it holds them,
 * and are stored there when read; not with LFR_SYM_DEBUGINFOD.  Before the first lookup; c stays
 * the caller's and must outlive sym.
 */
void lfr_sym_set_cache(struct lfr_sym *sym, struct lfr_blob_cache *c);
/* What the cache did so far (for the thread that names, or once it is done). */
void lfr_sym_get_cache_stats(const struct lfr_sym *sym, struct lfr_sym_cache_stats *st);

/* One executable mapping of a process, as the kernel reports it. */
struct lfr_sym_mapping {
	uint32_t pid;
	uint64_t start, end; /* [start, end) in the process */
	uint64_t pgoff;      /* file offset of start, in bytes */
	dev_t dev;           /* makedev(major, minor) (as stat() reports it); 0 if unknown */
	uint64_t ino;        /* 0 if unknown */
	const uint8_t *build_id;
	size_t build_id_len; /* 0 if unknown */
	const char *path;    /* absolute path; "[vdso]" or another "[name]" for special
	                      * mappings; NULL or "" for anonymous memory */
};

struct lfr_sym_stats {
	uint64_t lookups, cache_hits, resolved, unknown;
	uint64_t objects, objects_failed, debug_files;
	/* objects held now, and freed once no known process mapped them (sym_objects_check()) */
	uint64_t objects_held, objects_freed;
	uint64_t procs, mappings;
	uint64_t kernel_symbols;
	/* pcs no file holds named by themselves, and frames [unknown] past LFR_SYM_PC_NAMES */
	uint64_t pc_names, pc_names_capped;
};

/*
 * A pc that no file holds (JIT code without a perf map, a process sampled before its mappings
 * are known) is named by itself, which differs in every process (address randomization); each
 * such name stays in the symbolizer, the recorder's and the JFR writer's tables for the
 * recording's life.  Past this many, an always-on recorder's memory would grow with every
 * process that runs such code: later ones are named [unknown], and counted.
 */
#define LFR_SYM_PC_NAMES 4096

/* Returns 0 or a negative errno; *out is the new symbolizer. */
int lfr_sym_new(struct lfr_sym **out, const struct lfr_sym_opts *opts);
void lfr_sym_free(struct lfr_sym *sym);

/*
 * Adds a mapping to pid's address space; it replaces whatever overlapped it (like mmap).
 * Adding a mapping identical to a known one does nothing.  Returns 0 or a negative errno.
 */
int lfr_sym_add_mapping(struct lfr_sym *sym, const struct lfr_sym_mapping *m);
/*
 * Forgets every mapping and the perf map of pid (on exec or exit); the objects no known process
 * maps any more are freed now and then (sym_objects.c).
 */
void lfr_sym_forget_pid(struct lfr_sym *sym, uint32_t pid);
/*
 * Reads the object file at path before any process maps it (the objects a command maps at its
 * start, before it runs): its first mapping (the same device and inode, or build-id) then finds
 * its symbols read.  Returns 0 (also when it was read before) or a negative errno.
 */
int lfr_sym_preload_object(struct lfr_sym *sym, const char *path);
/* Adds the executable mappings of a live process from /proc/PID/maps. */
int lfr_sym_load_proc_maps(struct lfr_sym *sym, uint32_t pid);
/*
 * Loads kernel and module symbols from a kallsyms file (NULL: the configured one).  Loaded on
 * first use otherwise.  Fails with -EPERM when the file hides addresses (kptr_restrict).
 */
int lfr_sym_load_kallsyms(struct lfr_sym *sym, const char *path);

/*
 * Names a user pc of pid, or a kernel pc.  *out is always filled; returns true when the pc was
 * named by a symbol, false when it kept its address.  For return addresses (every frame but the
 * interrupted one) pass the address minus one: a call that is the last instruction of a
 * function (to a noreturn function) returns past that function's end.
 */
bool lfr_sym_resolve_user(struct lfr_sym *sym, uint32_t pid, uint64_t pc, struct lfr_frame *out);
bool lfr_sym_resolve_kernel(struct lfr_sym *sym, uint64_t pc, struct lfr_frame *out);
/*
 * Kernel pcs named by asking, a function at a time, instead of from the kallsyms file: ask writes
 * the kernel's name of pc into text, "name+0xoff/0xsize [module]" as the lfr module's
 * LFR_CMD_KSYM gives it or "" when no symbol holds pc, and returns 0; or it returns a negative
 * errno (the module refused, or is too old), and the kallsyms file names from then on.  The
 * recorder asks through a control socket of its naming thread (lfr_ctl_ksym()).
 */
void lfr_sym_set_kernel_ask(struct lfr_sym *sym,
                            int (*ask)(void *ctx, uint64_t pc, char *text, size_t len), void *ctx);

/*
 * Names addr, an ELF virtual address of the object at path whose build-id is given (len 0:
 * unknown), outside any process: for frames a recording left unnamed ("0x...", lfr report).  The
 * file at path is used when its build-id matches, else the debug files of the build-id (and,
 * with LFR_SYM_DEBUGINFOD, the debuginfod servers').  Returns true when a symbol named it.
 */
bool lfr_sym_resolve_object(struct lfr_sym *sym, const char *path, const uint8_t *build_id,
                            size_t build_id_len, uint64_t addr, struct lfr_frame *out);

/*
 * Reads pid's perf map again if it changed, at once with FORCE, else at most once a second (as
 * misses do).  Returns a number that changes whenever what pid's pcs resolve to may have changed
 * (its map read anew, here or by a miss, or a mapping added); 0 for a pid never seen.  A JVM
 * writes its map only at exit with -XX:+DumpPerfMapAtExit: a process that is gone is looked up
 * in the caller's own /tmp.
 */
uint64_t lfr_sym_perf_map_check(struct lfr_sym *sym, uint32_t pid, bool force);

/*
 * Whether pc lies in a mapping of a file known for pid: then lfr_sym_resolve_user() gives it a
 * path.  Touches no cache: a cheap test of whether a pc's mapping has arrived yet.
 */
bool lfr_sym_in_file(struct lfr_sym *sym, uint32_t pid, uint64_t pc);

/*
 * What lfr_sym_perf_map_check() returns, without reading anything; with KERNEL true, the same for
 * the kernel's pcs (pid ignored).  A caller's own memory of what pcs resolved to holds while it
 * stays the same.
 */
uint64_t lfr_sym_serial(struct lfr_sym *sym, uint32_t pid, bool kernel);

/* "Native", "C++", "Kernel", "JIT compiled", "Interpreted". */
const char *lfr_frame_type_name(enum lfr_frame_type type);

/* An ELF object read (or tried) so far, for diagnostics ("no symbols in ..."). */
struct lfr_sym_object {
	const char *path;       /* as mapped */
	const char *debug_path; /* the separate debug file used, or NULL */
	const uint8_t *build_id;
	size_t build_id_len;
	size_t symbols;          /* 0: every pc in it keeps its address */
	const char *unnamed_why; /* no .symtab nor debug file: why (e.g. "no debug file on the
	                          * debuginfod servers (404)"), else NULL */
	bool ok;                 /* false: missing, replaced since it was mapped, or not ELF */
};

void lfr_sym_foreach_object(const struct lfr_sym *sym,
                            void (*fn)(const struct lfr_sym_object *obj, void *arg), void *arg);

/* The message of the last failed call, naming the file and what to do. */
const char *lfr_sym_last_error(const struct lfr_sym *sym);
void lfr_sym_get_stats(const struct lfr_sym *sym, struct lfr_sym_stats *st);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbol tables kept by build-id in the recorder's cache (lib/blob_cache.h): an object's table as
 * the symbolizer built it (sorted, aliases merged, PLT entries added), read back at the next start
 * instead of being read from the object or its debug file again.  libc's, from its debug file,
 * took 31 ms of the naming thread's first seconds in the always-on default under -icount.
 *
 * One file per object, HEX.syms: the build-id, the object's size, where the symbols came from
 * (the object itself, or a separate debug file with its size and modification time) and the
 * table.  A file is used only when all of that agrees with what the symbolizer finds now (the
 * debug file is looked for as always: one installed or removed since makes the file stale) and
 * its table is well formed: names within the names, addresses increasing.
 */
#ifndef LFR_SYM_SYM_CACHE_H
#define LFR_SYM_SYM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "lib/blob_cache.h"
#include "sym/internal.h"

/*
 * The table of object o (its build-id read) into o->syms when the cache holds it for an object of
 * object_size bytes whose symbols come from the debug file dbg (NULL: from the object itself).
 * False otherwise, with why saying what is wrong with a file that exists ("" when there is none).
 */
bool sym_cache_load(struct lfr_blob_cache *c, struct elfobj *o, uint64_t object_size,
                    const struct stat *dbg, char *why, size_t whylen);

/* Stores o->syms (finished) for the next start; 0 or a negative errno with why. */
int sym_cache_store(struct lfr_blob_cache *c, const struct elfobj *o, uint64_t object_size,
                    const struct stat *dbg, char *why, size_t whylen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Class and package names as JDK Mission Control reads them.  JMC converts a class or package name
 * through the JVM's descriptor rules (MethodToolkit.refTypeToBinaryJLS): a name that starts with
 * '[' is an array's field descriptor to it, and it throws on one that is not, such as a perf tool's
 * "[kernel.kallsyms]" ("The char 'k' is not a valid first char of a field descriptor").  lfr's
 * writer never writes one (it drops the brackets of "[kernel]"); its checker rejects one; lfr merge
 * renames those of the other files it copies.
 */
#ifndef LFR_JFR_CLASS_NAMES_H
#define LFR_JFR_CLASS_NAMES_H

#include <stdbool.h>

#include "jfr/reader.h"

/* Whether JMC converts class or package name s (NUL-terminated). */
bool jfr_jmc_reads_name(const char *s);

/*
 * Positions c on the string that names the class or package of type t whose value starts at off
 * (through its Symbol when the name is one): false when it has none.
 */
bool jfr_name_string(struct jfr_reader *r, const struct jfr_chunk *ch, const struct jfr_type *t,
                     uint64_t off, struct jfr_cur *c);

/*
 * Renames in place, in the bytes of a file that jfr_open_file() read, the class and package names
 * of loaded chunk ch that JMC cannot convert: their '[' becomes '(', and a ']' that ends them ')'
 * ("(kernel.kallsyms)"), the same number of bytes, so that nothing else in the chunk moves.  Only
 * names stored as characters are renamed (a name in the chunk's java.lang.String pool is left as it
 * is).  Returns the number renamed, or -1 with r->err set.
 */
int jfr_chunk_rename_names(struct jfr_reader *r, const struct jfr_chunk *ch);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * C++ demangling through libiberty's cplus_demangle (the demangler of binutils and GDB, a C
 * library), so that the tools stay C-only and need no libstdc++ at run time.
 */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "sym/internal.h"

char *sym_demangle(const char *name)
{
	/* Itanium ABI names start with _Z (clones such as "_Z...isra.0" included). */
	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}

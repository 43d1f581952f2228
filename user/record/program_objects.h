/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The object files a program maps when it starts: the program itself (found on PATH as execvp
 * finds it; a "#!" script's interpreter instead), its dynamic linker (PT_INTERP) and the closure
 * of its DT_NEEDED libraries, searched as the dynamic linker searches them: DT_RPATH (of an
 * object without DT_RUNPATH, and of the program), LD_LIBRARY_PATH, DT_RUNPATH, then the default
 * directories ($ORIGIN expanded; /etc/ld.so.cache is not read).  Only x86-64 ELF files match.
 * So that `lfr record -- CMD` can give the session their unwind tables before CMD runs.
 */
#ifndef LFR_RECORD_PROGRAM_OBJECTS_H
#define LFR_RECORD_PROGRAM_OBJECTS_H

#include <stddef.h>

/*
 * Calls fn once for each object of program cmd (a name or a path), the program first.  Returns
 * how many, or -1 with a message in err when the program itself cannot be found or read.  A
 * library not found is left out (the dynamic linker will fail on it, or it comes from the cache).
 */
int lfr_program_objects(const char *cmd, void (*fn)(const char *path, void *arg), void *arg,
                        char *err, size_t errlen);

#endif

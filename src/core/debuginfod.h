/* SPDX-License-Identifier: MIT */
/* Files by build id from debuginfod servers (elfutils' libdebuginfod): the executable of a
 * binary profkit cannot find on the machine, and the source files its DWARF names. Used only
 * when the environment names servers (DEBUGINFOD_URLS, as every elfutils tool and gdb read it),
 * so that nothing ever goes to the network unasked; downloads land in libdebuginfod's cache
 * (DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), and its other variables
 * (DEBUGINFOD_TIMEOUT, DEBUGINFOD_PROGRESS, ...) apply. libdwfl asks the same servers for the
 * separate debug information of a binary it opens by itself, so this piece asks only for what
 * libdwfl does not: an executable that is not on the machine, and sources. */
#ifndef PK_CORE_DEBUGINFOD_H
#define PK_CORE_DEBUGINFOD_H

typedef struct pk_debuginfod pk_debuginfod;

/* A client of the servers DEBUGINFOD_URLS names; NULL when it names none (or memory runs
 * out): then there is nothing to ask. */
pk_debuginfod *pk_debuginfod_new(void);
void pk_debuginfod_free(pk_debuginfod *d);

/* The path in the cache of the executable (ELF file) with the build id given in hexadecimal,
 * fetched when it is not there yet; NULL when no server has it (or the id is no hexadecimal
 * build id). The caller frees it. */
char *pk_debuginfod_executable(pk_debuginfod *d, const char *build_id);
/* The same for source file `path` (absolute, as the binary's DWARF names it). */
char *pk_debuginfod_source(pk_debuginfod *d, const char *build_id, const char *path);

#endif

/* SPDX-License-Identifier: MIT */
/* The mapped objects of a process: which file (or anonymous memory) each address range of a
 * process maps, and from which file offset, read from the text of Linux's /proc/PID/maps and
 * the forms profilers write of it. A native profile holds code addresses; its maps say which
 * binary each address is in, which is what the symbolization pass needs.
 *
 * One line at a time (white space around a line is ignored):
 *   Linux:  start-end perms offset dev inode [path]
 *           the path is the rest of the line, spaces included, without " (deleted)"
 *   brief:  start-end[:] [perms] path [(@offset)] [build-id]
 *           pprof's form (the only one with a build ID), and gperftools' "start-end: /lib/x.so"
 *   NAME=value
 *           defines $NAME for the lines after it ("build=/usr/lib" then "$build/libc.so.6");
 *           $NAME is replaced where a non-word character or the end of the line follows it
 * Addresses and offsets are hexadecimal (at most 16 digits). Anything else is ignored, as are
 * lines longer than PK_PROCMAPS_MAX_LINE bytes (once substituted).
 */
#ifndef PK_CORE_PROCMAPS_H
#define PK_CORE_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "core/input.h"
#include "profkit/error.h"

/* The longest line considered (Go pprof's line scanner stops at 64 KiB as well). */
#define PK_PROCMAPS_MAX_LINE 65536u
/* What pk_procmaps_find returns for an address no mapping holds. */
#define PK_PROCMAPS_NONE SIZE_MAX

/* ---- one line ---------------------------------------------------------------------------------- */

typedef enum pk_procmaps_line_kind {
    PK_PROCMAPS_OTHER,    /* not a line of maps text: ignored */
    PK_PROCMAPS_MAPPING,  /* an address range */
    PK_PROCMAPS_VARIABLE  /* NAME=value */
} pk_procmaps_line_kind;

/* A line taken apart. The text fields point into the line parsed; none is NUL-terminated. */
typedef struct pk_procmaps_line {
    pk_procmaps_line_kind kind;
    /* PK_PROCMAPS_MAPPING */
    uint64_t start, limit; /* [start, limit) as written; limit <= start is possible */
    uint64_t offset;       /* file offset mapped at start; 0 when the line gives none */
    char perms[5];         /* "r-xp", or "" when the line gives none */
    bool executable;       /* x in perms, or no perms: code may run there */
    const char *path;      /* "" (length 0) for anonymous memory */
    size_t path_len;
    const char *build_id;  /* hex digits; length 0 when the line gives none */
    size_t build_id_len;
    /* PK_PROCMAPS_VARIABLE */
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} pk_procmaps_line;

/* Takes one line (without its LF) apart; no substitution is made. Any bytes are allowed. */
pk_procmaps_line_kind pk_procmaps_parse_line(const char *line, size_t len,
                                             pk_procmaps_line *out);

/* ---- the mappings of a process ------------------------------------------------------------------ */

/* One executable mapping. */
typedef struct pk_procmap {
    uint64_t start, limit; /* [start, limit), start < limit */
    uint64_t offset;       /* file offset mapped at start */
    char *path;            /* "" for anonymous memory */
    char *build_id;        /* NULL when the maps text gives none */
    size_t line;           /* 0-based number of the line it came from: the order of the text */
} pk_procmap;

typedef struct pk_procmaps_variable {
    char *name;
    char *value;
} pk_procmaps_variable;

/* The executable mappings of maps text: mappings that code cannot run in (no x permission)
 * and empty ranges are left out, since no sampled address falls in them. */
typedef struct pk_procmaps {
    pk_procmap *items; /* sorted by start, with pieces joined, once finished */
    size_t count;
    /* state of the reading */
    size_t capacity;
    size_t lines;
    pk_procmaps_variable *variables;
    size_t variable_count, variable_capacity;
    pk_index variable_index;
    char *expanded; /* the line with its variables replaced */
    size_t expanded_capacity;
} pk_procmaps;

void pk_procmaps_init(pk_procmaps *m);
void pk_procmaps_free(pk_procmaps *m);
/* Takes one line of maps text (without its LF); false when memory runs out. */
bool pk_procmaps_add_line(pk_procmaps *m, const char *line, size_t len);
/* Once every line is in: sorts the mappings by address (text order among equal starts) and
 * joins adjacent pieces of one file whose offsets are contiguous. */
void pk_procmaps_finish(pk_procmaps *m);
/* Reads lines to the end of in, then finishes. PK_ERR_NOMEM or PK_ERR_IO (with the offset)
 * on failure. */
pk_status pk_procmaps_read(pk_procmaps *m, pk_input *in, pk_error *err);

/* The index of the mapping that holds address, PK_PROCMAPS_NONE when none does. Finished
 * mappings only. */
size_t pk_procmaps_find(const pk_procmaps *m, uint64_t address);
/* The program: the first mapping, in the order of the text, of a file that is not a shared
 * library ("x.so", "x.so.6"), a pseudo-file ("[vdso]") or anonymous; NULL when there is none. */
const pk_procmap *pk_procmaps_program(const pk_procmaps *m);

#endif

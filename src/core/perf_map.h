/* SPDX-License-Identifier: MIT */
/* JIT symbol maps: the `/tmp/perf-PID.map` text files that just-in-time compilers write for
 * Linux perf (node --perf-basic-prof, the JVM agents, CPython's perf trampolines, ...), and
 * that perf reads to name code in a process's anonymous executable memory.
 *
 * One symbol a line: `START SIZE name`, START and SIZE hexadecimal (an optional 0x), the name
 * the rest of the line (blanks included, the line end and a carriage return left out). The
 * addresses are the process's. Lines that do not have this form are ignored. A symbol covers
 * [START, START + SIZE); when several start at one address the last line wins (the code most
 * recently compiled there).
 */
#ifndef PK_CORE_PERF_MAP_H
#define PK_CORE_PERF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pk_perf_map pk_perf_map;

/* True for a base name perf gives a JIT map: `perf-` decimal digits `.map`. */
bool pk_perf_map_is_name(const char *base_name);

/* Reads the map from text (any bytes); NULL when memory runs out. */
pk_perf_map *pk_perf_map_parse(const char *text, size_t len);
/* Reads the map of a regular file; NULL when it is not one or cannot be read. */
pk_perf_map *pk_perf_map_read(const char *path);
void pk_perf_map_free(pk_perf_map *m);

/* Number of symbols read. */
size_t pk_perf_map_count(const pk_perf_map *m);
/* The name of the symbol covering address (its length in *len, not NUL-terminated), NULL when
 * none does. */
const char *pk_perf_map_find(const pk_perf_map *m, uint64_t address, size_t *len);

#endif

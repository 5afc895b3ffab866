/* SPDX-License-Identifier: MIT */
/* The interned string table of a profile: each distinct string is stored once, NUL-terminated,
 * in chunks that never move, so pointers to strings stay valid for the table's lifetime. */
#ifndef PK_CORE_STRINGS_H
#define PK_CORE_STRINGS_H

#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"

typedef struct pk_strtab_entry {
    const char *text;
    uint32_t len;
} pk_strtab_entry;

typedef struct pk_strtab {
    pk_strtab_entry *entries;
    uint32_t count;
    uint32_t capacity;
    pk_index index;
    char *chunk;        /* current chunk being filled */
    size_t chunk_used;
    size_t chunk_size;
    char **chunks;      /* every chunk, for freeing */
    size_t chunk_count;
    size_t chunk_capacity;
} pk_strtab;

/* Starts a table holding "" as string 0. Returns 0 or -1 when out of memory. */
int pk_strtab_init(pk_strtab *t);
void pk_strtab_free(pk_strtab *t);
/* Index of the string, interned on first sight; UINT32_MAX when out of memory. */
uint32_t pk_strtab_intern(pk_strtab *t, const char *s, size_t len);
/* Index of the string when the table holds it, else UINT32_MAX; interns nothing. */
uint32_t pk_strtab_find(const pk_strtab *t, const char *s, size_t len);

#endif

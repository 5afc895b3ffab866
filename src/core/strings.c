/* SPDX-License-Identifier: MIT */
#include "core/strings.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PK_STRTAB_CHUNK (64u * 1024u)

typedef struct strtab_key {
    const char *text;
    size_t len;
} strtab_key;

static bool strtab_equal(const void *context, uint32_t entry, const void *key)
{
    const pk_strtab *t = context;
    const strtab_key *k = key;
    return t->entries[entry].len == k->len && memcmp(t->entries[entry].text, k->text, k->len) == 0;
}

int pk_strtab_init(pk_strtab *t)
{
    memset(t, 0, sizeof *t);
    pk_index_init(&t->index);
    return pk_strtab_intern(t, "", 0) == 0 ? 0 : -1;
}

void pk_strtab_free(pk_strtab *t)
{
    for (size_t i = 0; i < t->chunk_count; i++)
        free(t->chunks[i]);
    free(t->chunks);
    free(t->entries);
    pk_index_free(&t->index);
    memset(t, 0, sizeof *t);
}

/* Room for n bytes that will not move. Long strings get a chunk of their own. */
static char *strtab_reserve(pk_strtab *t, size_t n)
{
    if (t->chunk && t->chunk_size - t->chunk_used >= n) {
        char *p = t->chunk + t->chunk_used;
        t->chunk_used += n;
        return p;
    }
    if (t->chunk_count == t->chunk_capacity) {
        size_t capacity = t->chunk_capacity ? t->chunk_capacity * 2 : 16;
        char **chunks = realloc(t->chunks, capacity * sizeof *chunks);
        if (!chunks)
            return NULL;
        t->chunks = chunks;
        t->chunk_capacity = capacity;
    }
    size_t size = n > PK_STRTAB_CHUNK ? n : PK_STRTAB_CHUNK;
    char *chunk = malloc(size);
    if (!chunk)
        return NULL;
    t->chunks[t->chunk_count++] = chunk;
    if (size == PK_STRTAB_CHUNK || !t->chunk) {
        t->chunk = chunk;
        t->chunk_size = size;
        t->chunk_used = n;
    }
    return chunk;
}

uint32_t pk_strtab_find(const pk_strtab *t, const char *s, size_t len)
{
    if (len >= UINT32_MAX)
        return UINT32_MAX;
    if (len == 0)
        s = "";
    strtab_key key = {s, len};
    return pk_index_find(&t->index, pk_hash_bytes(s, len), strtab_equal, t, &key);
}

uint32_t pk_strtab_intern(pk_strtab *t, const char *s, size_t len)
{
    if (len >= UINT32_MAX)
        return UINT32_MAX;
    if (len == 0)
        s = ""; /* an empty buffer's data may be NULL, which memcmp and memcpy must not get */
    strtab_key key = {s, len};
    uint64_t hash = pk_hash_bytes(s, len);
    uint32_t found = pk_index_find(&t->index, hash, strtab_equal, t, &key);
    if (found != UINT32_MAX)
        return found;
    if (t->count == UINT32_MAX - 1)
        return UINT32_MAX;
    if (t->count == t->capacity) {
        uint32_t capacity = t->capacity ? t->capacity * 2 : 256;
        pk_strtab_entry *entries = realloc(t->entries, (size_t)capacity * sizeof *entries);
        if (!entries)
            return UINT32_MAX;
        t->entries = entries;
        t->capacity = capacity;
    }
    char *text = strtab_reserve(t, len + 1);
    if (!text)
        return UINT32_MAX;
    if (len)
        memcpy(text, s, len);
    text[len] = '\0';
    uint32_t id = t->count;
    if (!pk_index_insert(&t->index, hash, id))
        return UINT32_MAX;
    t->entries[id] = (pk_strtab_entry){text, (uint32_t)len};
    t->count++;
    return id;
}

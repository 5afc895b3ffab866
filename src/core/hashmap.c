#include "core/hashmap.h"

#include <stdlib.h>
#include <string.h>

#define PK_MAP_MIN_CAPACITY 16

void pk_u64map_init(pk_u64map *m)
{
    memset(m, 0, sizeof *m);
}

void pk_u64map_free(pk_u64map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static size_t u64map_home(const pk_u64map *m, uint64_t key)
{
    return (size_t)pk_hash_u64(key) & m->mask;
}

uint32_t *pk_u64map_find(const pk_u64map *m, uint64_t key)
{
    if (!m->slots)
        return NULL;
    for (size_t i = u64map_home(m, key);; i = (i + 1) & m->mask) {
        pk_u64map_slot *s = &m->slots[i];
        if (!s->used)
            return NULL;
        if (s->key == key)
            return &s->value;
    }
}

static bool u64map_rehash(pk_u64map *m, size_t capacity)
{
    if (capacity > SIZE_MAX / sizeof(pk_u64map_slot))
        return false;
    pk_u64map bigger = {
        .slots = calloc(capacity, sizeof(pk_u64map_slot)),
        .mask = capacity - 1,
        .count = m->count,
    };
    if (!bigger.slots)
        return false;
    for (size_t i = 0; m->slots && i <= m->mask; i++) {
        if (!m->slots[i].used)
            continue;
        size_t j = u64map_home(&bigger, m->slots[i].key);
        while (bigger.slots[j].used)
            j = (j + 1) & bigger.mask;
        bigger.slots[j] = m->slots[i];
    }
    pk_u64map_free(m);
    *m = bigger;
    return true;
}

static bool u64map_grow(pk_u64map *m)
{
    return u64map_rehash(m, m->slots ? (m->mask + 1) * 2 : PK_MAP_MIN_CAPACITY);
}

bool pk_u64map_reserve(pk_u64map *m, size_t count)
{
    size_t capacity = PK_MAP_MIN_CAPACITY;
    while (capacity < 2 * (count + 1)) {
        if (capacity > SIZE_MAX / 4)
            return false;
        capacity *= 2;
    }
    return (m->slots && capacity <= m->mask + 1) || u64map_rehash(m, capacity);
}

bool pk_u64map_put(pk_u64map *m, uint64_t key, uint32_t value, uint32_t **slot, bool *inserted)
{
    if (!m->slots || (m->count + 1) * 2 > m->mask + 1) {
        if (!u64map_grow(m))
            return false;
    }
    size_t i = u64map_home(m, key);
    bool found = false;
    for (; m->slots[i].used; i = (i + 1) & m->mask) {
        if (m->slots[i].key == key) {
            found = true;
            break;
        }
    }
    if (!found) {
        m->slots[i] = (pk_u64map_slot){key, value, 1};
        m->count++;
    }
    if (slot)
        *slot = &m->slots[i].value;
    if (inserted)
        *inserted = !found;
    return true;
}

bool pk_u64map_remove(pk_u64map *m, uint64_t key, uint32_t *value)
{
    if (!m->slots)
        return false;
    size_t i = u64map_home(m, key);
    for (;; i = (i + 1) & m->mask) {
        if (!m->slots[i].used)
            return false;
        if (m->slots[i].key == key)
            break;
    }
    if (value)
        *value = m->slots[i].value;
    /* Backward-shift deletion: move later members of the probe run into the hole, so lookups
     * never need tombstones. */
    size_t hole = i;
    for (size_t j = (i + 1) & m->mask; m->slots[j].used; j = (j + 1) & m->mask) {
        size_t home = u64map_home(m, m->slots[j].key);
        /* j may move to hole when its home is not in (hole, j] cyclically. */
        bool home_between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!home_between) {
            m->slots[hole] = m->slots[j];
            hole = j;
        }
    }
    m->slots[hole].used = 0;
    m->count--;
    return true;
}

void pk_index_init(pk_index *ix)
{
    memset(ix, 0, sizeof *ix);
}

void pk_index_free(pk_index *ix)
{
    free(ix->slots);
    free(ix->hashes);
    memset(ix, 0, sizeof *ix);
}

/* The table keeps 32 bits of each hash: they choose the slot and filter candidates before the
 * caller's comparison, and they are all a re-placement needs when the table grows. */
static uint32_t index_hash32(uint64_t hash)
{
    return (uint32_t)(hash ^ (hash >> 32));
}

uint32_t pk_index_find(const pk_index *ix, uint64_t hash, pk_index_eq_fn eq, const void *context,
                       const void *key)
{
    if (!ix->slots)
        return UINT32_MAX;
    uint32_t h = index_hash32(hash);
    for (size_t i = h & ix->mask;; i = (i + 1) & ix->mask) {
        uint32_t slot = ix->slots[i];
        if (!slot)
            return UINT32_MAX;
        if (ix->hashes[i] == h && eq(context, slot - 1, key))
            return slot - 1;
    }
}

static void index_place(uint32_t *slots, uint32_t *hashes, size_t mask, uint32_t h,
                        uint32_t entry)
{
    size_t i = h & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = entry + 1;
    hashes[i] = h;
}

bool pk_index_insert(pk_index *ix, uint64_t hash, uint32_t entry)
{
    if (!ix->slots || (ix->count + 1) * 2 > ix->mask + 1) {
        size_t capacity = ix->slots ? (ix->mask + 1) * 2 : PK_MAP_MIN_CAPACITY;
        uint32_t *slots = calloc(capacity, sizeof *slots);
        uint32_t *hashes = malloc(capacity * sizeof *hashes);
        if (!slots || !hashes) {
            free(slots);
            free(hashes);
            return false;
        }
        for (size_t i = 0; ix->slots && i <= ix->mask; i++) {
            if (ix->slots[i])
                index_place(slots, hashes, capacity - 1, ix->hashes[i], ix->slots[i] - 1);
        }
        free(ix->slots);
        free(ix->hashes);
        ix->slots = slots;
        ix->hashes = hashes;
        ix->mask = capacity - 1;
    }
    index_place(ix->slots, ix->hashes, ix->mask, index_hash32(hash), entry);
    ix->count++;
    return true;
}

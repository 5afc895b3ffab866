/* SPDX-License-Identifier: MIT */
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

void pk_u64map64_init(pk_u64map64 *m)
{
    memset(m, 0, sizeof *m);
}

void pk_u64map64_free(pk_u64map64 *m)
{
    for (size_t i = 0; i < PK_U64MAP64_PARTS; i++)
        free(m->parts[i].slots);
    memset(m, 0, sizeof *m);
}

/* The part of a key takes the hash's top bits, the slot in it the 32 bits below them, scaled
 * to the part's capacity (a multiplication, not a mask: capacities grow by a quarter, not double,
 * so that the table of a million live allocations is not left at 3/8 full after a doubling). */
static pk_u64map64_part *u64map64_part(const pk_u64map64 *m, uint64_t hash)
{
    return (pk_u64map64_part *)&m->parts[hash >> 60];
}

static size_t u64map64_home(uint64_t hash, size_t capacity)
{
    return (size_t)(((hash >> 28) & 0xffffffffu) * (uint64_t)capacity >> 32);
}

static size_t u64map64_after(size_t i, size_t capacity)
{
    return i + 1 == capacity ? 0 : i + 1;
}

/* The slot of a key other than 0, or SIZE_MAX. */
static size_t u64map64_slot_of(const pk_u64map64_part *part, uint64_t hash, uint64_t key)
{
    if (!part->slots)
        return SIZE_MAX;
    for (size_t i = u64map64_home(hash, part->capacity);; i = u64map64_after(i, part->capacity)) {
        if (part->slots[i].key == key)
            return i;
        if (!part->slots[i].key)
            return SIZE_MAX;
    }
}

uint64_t *pk_u64map64_find(const pk_u64map64 *m, uint64_t key)
{
    if (key == 0)
        return m->has_zero ? (uint64_t *)&m->zero_value : NULL;
    uint64_t hash = pk_hash_u64(key);
    pk_u64map64_part *part = u64map64_part(m, hash);
    size_t i = u64map64_slot_of(part, hash, key);
    return i == SIZE_MAX ? NULL : &part->slots[i].value;
}

static bool u64map64_grow(pk_u64map64_part *part)
{
    size_t capacity = part->slots ? part->capacity + part->capacity / 4 : PK_MAP_MIN_CAPACITY;
    if (capacity > UINT32_MAX || capacity > SIZE_MAX / sizeof(pk_u64map64_slot))
        return false;
    pk_u64map64_slot *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; part->slots && i < part->capacity; i++) {
        if (!part->slots[i].key)
            continue;
        size_t j = u64map64_home(pk_hash_u64(part->slots[i].key), capacity);
        while (slots[j].key)
            j = u64map64_after(j, capacity);
        slots[j] = part->slots[i];
    }
    free(part->slots);
    part->slots = slots;
    part->capacity = capacity;
    return true;
}

bool pk_u64map64_put(pk_u64map64 *m, uint64_t key, uint64_t value, uint64_t **slot,
                     bool *inserted)
{
    bool found;
    uint64_t *at;
    if (key == 0) {
        found = m->has_zero;
        if (!found)
            m->zero_value = value;
        m->has_zero = true;
        at = &m->zero_value;
    } else {
        uint64_t hash = pk_hash_u64(key);
        pk_u64map64_part *part = u64map64_part(m, hash);
        if (!part->slots || (part->count + 1) * 4 > part->capacity * 3) {
            if (!u64map64_grow(part))
                return false;
        }
        size_t i = u64map64_home(hash, part->capacity);
        while (part->slots[i].key && part->slots[i].key != key)
            i = u64map64_after(i, part->capacity);
        found = part->slots[i].key == key;
        if (!found) {
            part->slots[i] = (pk_u64map64_slot){key, value};
            part->count++;
        }
        at = &part->slots[i].value;
    }
    m->count += !found;
    if (slot)
        *slot = at;
    if (inserted)
        *inserted = !found;
    return true;
}

bool pk_u64map64_remove(pk_u64map64 *m, uint64_t key, uint64_t *value)
{
    if (key == 0) {
        if (!m->has_zero)
            return false;
        if (value)
            *value = m->zero_value;
        m->has_zero = false;
        m->count--;
        return true;
    }
    uint64_t hash = pk_hash_u64(key);
    pk_u64map64_part *part = u64map64_part(m, hash);
    size_t hole = u64map64_slot_of(part, hash, key);
    if (hole == SIZE_MAX)
        return false;
    if (value)
        *value = part->slots[hole].value;
    /* Backward-shift deletion, as in pk_u64map_remove. */
    pk_u64map64_slot *slots = part->slots;
    for (size_t j = u64map64_after(hole, part->capacity); slots[j].key;
         j = u64map64_after(j, part->capacity)) {
        size_t home = u64map64_home(pk_hash_u64(slots[j].key), part->capacity);
        bool home_between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!home_between) {
            slots[hole] = slots[j];
            hole = j;
        }
    }
    slots[hole].key = 0;
    part->count--;
    m->count--;
    return true;
}

bool pk_u64map64_next(const pk_u64map64 *m, size_t *at, uint64_t *key, uint64_t *value)
{
    /* Position 0 is key 0; then the slots of each part in turn, part p's slot i at
     * 1 + p * 2^58 + i (a part holds fewer slots than that). */
    const size_t part_span = (size_t)1 << (sizeof(size_t) >= 8 ? 58 : 26);
    if (*at == 0) {
        *at = 1;
        if (m->has_zero) {
            *key = 0;
            *value = m->zero_value;
            return true;
        }
    }
    for (size_t p = (*at - 1) / part_span; p < PK_U64MAP64_PARTS; p++) {
        const pk_u64map64_part *part = &m->parts[p];
        for (size_t i = (*at - 1) % part_span; part->slots && i < part->capacity; i++) {
            if (part->slots[i].key) {
                *at = 1 + p * part_span + i + 1;
                *key = part->slots[i].key;
                *value = part->slots[i].value;
                return true;
            }
        }
        *at = 1 + (p + 1) * part_span;
    }
    return false;
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

/* SPDX-License-Identifier: MIT */
/* Open-addressing hash tables used by the model and the readers.
 *
 * pk_u64map maps 64-bit keys to 32-bit values (IDs from a file to model indexes, (thread,
 * stack) pairs to sample rows), pk_u64map64 64-bit keys to 64-bit values (the live allocations
 * by address). pk_index maps content to the index of an entry stored elsewhere:
 * the caller hashes the content (pk_hash_bytes) and compares candidates itself.
 * pk_u64map and pk_index grow by doubling at 50% load, so lookups stay short, pk_u64map64 by
 * a quarter at 75%; removal is backward-shift deletion (no tombstones), in pk_u64map and
 * pk_u64map64 only.
 */
#ifndef PK_CORE_HASHMAP_H
#define PK_CORE_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xxhash.h>

static inline uint64_t pk_hash_bytes(const void *data, size_t len)
{
    return XXH3_64bits(data, len);
}

/* A fast mixer for integer keys (the finalizer of SplitMix64). */
static inline uint64_t pk_hash_u64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* One slot holds key, value and its used flag together: a lookup touches one cache line. */
typedef struct pk_u64map_slot {
    uint64_t key;
    uint32_t value;
    uint32_t used;
} pk_u64map_slot;

typedef struct pk_u64map {
    pk_u64map_slot *slots;
    size_t mask;  /* capacity - 1; capacity is a power of two */
    size_t count;
} pk_u64map;

void pk_u64map_init(pk_u64map *m);
void pk_u64map_free(pk_u64map *m);
/* Pointer to the value of key, NULL when absent. Valid until the next insertion. */
uint32_t *pk_u64map_find(const pk_u64map *m, uint64_t key);
/* Inserts key with value or, when present, leaves it. *slot receives the value's address and
 * *inserted whether it was new. Returns false when memory runs out. */
bool pk_u64map_put(pk_u64map *m, uint64_t key, uint32_t value, uint32_t **slot, bool *inserted);
/* Removes key; returns whether it was present (and its value in *value, which may be NULL). */
bool pk_u64map_remove(pk_u64map *m, uint64_t key, uint32_t *value);
/* Makes room for count entries in all, so that inserting up to that many does not grow the
 * table again (one rehash instead of one per doubling). False when memory runs out. */
bool pk_u64map_reserve(pk_u64map *m, size_t count);
/* Iteration: for (size_t i = 0; m->slots && i <= m->mask; i++) if (m->slots[i].used) ... */

/* pk_u64map64 maps 64-bit keys to 64-bit values in 16-byte slots, filled up to 3/4 (for the
 * tables that hold one entry per live allocation, where bytes per entry count): a slot is
 * empty when its key is 0, and key 0 itself is kept beside the slots. The slots are split by
 * hash into parts that grow one at a time, so that growing copies a part, not the whole table,
 * and the old and new slots held together at that moment are a small share of the whole. A part
 * grows by a quarter (its load stays between 3/5 and 3/4, where doubling left it at 3/8). */
typedef struct pk_u64map64_slot {
    uint64_t key;
    uint64_t value;
} pk_u64map64_slot;

#define PK_U64MAP64_PARTS 16

typedef struct pk_u64map64_part {
    pk_u64map64_slot *slots;
    size_t capacity; /* grows by a quarter: not a power of two */
    size_t count;
} pk_u64map64_part;

typedef struct pk_u64map64 {
    pk_u64map64_part parts[PK_U64MAP64_PARTS];
    size_t count; /* key 0 included */
    bool has_zero;
    uint64_t zero_value;
} pk_u64map64;

void pk_u64map64_init(pk_u64map64 *m);
void pk_u64map64_free(pk_u64map64 *m);
uint64_t *pk_u64map64_find(const pk_u64map64 *m, uint64_t key); /* as pk_u64map_find */
bool pk_u64map64_put(pk_u64map64 *m, uint64_t key, uint64_t value, uint64_t **slot,
                     bool *inserted); /* as pk_u64map_put */
bool pk_u64map64_remove(pk_u64map64 *m, uint64_t key, uint64_t *value);
/* Iteration: size_t at = 0; while (pk_u64map64_next(m, &at, &key, &value)) ... */
bool pk_u64map64_next(const pk_u64map64 *m, size_t *at, uint64_t *key, uint64_t *value);

typedef struct pk_index {
    uint32_t *slots; /* entry index + 1, 0 = empty */
    uint32_t *hashes;
    size_t mask;
    size_t count;
} pk_index;

typedef bool (*pk_index_eq_fn)(const void *context, uint32_t entry, const void *key);

void pk_index_init(pk_index *ix);
void pk_index_free(pk_index *ix);
/* Entry equal to key (by eq), or UINT32_MAX. */
uint32_t pk_index_find(const pk_index *ix, uint64_t hash, pk_index_eq_fn eq, const void *context,
                       const void *key);
/* Records entry under hash (the caller has checked it is absent). False when out of memory. */
bool pk_index_insert(pk_index *ix, uint64_t hash, uint32_t entry);

#endif

/* SPDX-License-Identifier: MIT */
#include "core/stacks.h"

#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "profkit/profile.h"

#define STACK_HASH_SEED 0x243f6a8885a308d3ULL
#define STACK_HASH_K1 0x9e3779b97f4a7c15ULL
#define STACK_HASH_K2 (STACK_HASH_K1 * STACK_HASH_K1)
#define STACK_HASH_K3 (STACK_HASH_K2 * STACK_HASH_K1)
#define STACK_HASH_K4 (STACK_HASH_K2 * STACK_HASH_K2)

/* Extends the hash of a sequence by one frame: a polynomial in the odd constant K1, so for a
 * given prefix distinct frames give distinct hashes, and a sequence hashes alike however it was
 * split into runs. */
static inline uint64_t hash_step(uint64_t h, uint32_t frame)
{
    return h * STACK_HASH_K1 + ((uint64_t)frame + 1);
}

/* hash_step over frames[0..n), four frames per step of the dependency chain: the same value,
 * since h K^4 + a K^3 + b K^2 + c K + d is four steps at once. */
static uint64_t hash_frames(uint64_t h, const uint32_t *frames, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        h = h * STACK_HASH_K4 + ((uint64_t)frames[i] + 1) * STACK_HASH_K3 +
            ((uint64_t)frames[i + 1] + 1) * STACK_HASH_K2 +
            ((uint64_t)frames[i + 2] + 1) * STACK_HASH_K1 + ((uint64_t)frames[i + 3] + 1);
    for (; i < n; i++)
        h = hash_step(h, frames[i]);
    return h;
}

/* What places a stack in the table: the polynomial's low bits depend only on the frames' low
 * bits, so the slot and the tag come from a mix of all of its bits. */
static inline uint64_t slot_hash(uint64_t hash)
{
    hash ^= hash >> 32;
    hash *= 0xd6e8feb86659fd93ULL;
    return hash ^ (hash >> 32);
}

void pk_stack_store_free(pk_stack_store *s)
{
    free(s->entries);
    free(s->pool);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

void pk_stack_store_drop_index(pk_stack_store *s)
{
    free(s->slots);
    s->slots = NULL;
    s->mask = 0;
    s->indexed = 0;
}

/* Reads a sequence backwards, from its innermost frame: first the frames given, then the runs
 * of a stack and its prefixes. */
typedef struct cursor {
    const pk_stack_store *s;
    const uint32_t *extra; /* frames after the stack, read first */
    size_t extra_left;
    uint32_t stack;        /* PK_NONE once past the root */
    uint32_t left;         /* frames of stack's run not read yet */
} cursor;

static void cursor_start(cursor *c, const pk_stack_store *s, uint32_t stack, const uint32_t *extra,
                         size_t extra_count)
{
    c->s = s;
    c->extra = extra;
    c->extra_left = extra_count;
    c->stack = stack;
    c->left = stack == PK_NONE ? 0 : s->entries[stack].length;
}

/* True when what is left to read is exactly the whole of stack *stack. */
static bool cursor_whole(const cursor *c, uint32_t *stack)
{
    if (c->extra_left || c->stack == PK_NONE || c->left != c->s->entries[c->stack].length)
        return false;
    *stack = c->stack;
    return true;
}

static uint32_t cursor_next(cursor *c)
{
    if (c->extra_left)
        return c->extra[--c->extra_left];
    /* Only called while frames are left: stack is a stack with left > 0 here. */
    const pk_stack_entry *e = &c->s->entries[c->stack];
    uint32_t frame = c->s->pool[e->first + --c->left];
    if (c->left == 0) {
        c->stack = e->prefix;
        c->left = c->stack == PK_NONE ? 0 : c->s->entries[c->stack].length;
    }
    return frame;
}

/* Whether stack `candidate` is prefix's frames followed by frames[0..n); the depths are known
 * to be equal. */
static bool stack_equals(const pk_stack_store *s, uint32_t candidate, uint32_t prefix,
                         const uint32_t *frames, size_t n)
{
    const pk_stack_entry *e = &s->entries[candidate];
    if (e->prefix == prefix && e->length == n)
        return memcmp(s->pool + e->first, frames, n * sizeof *frames) == 0;
    cursor a, b;
    cursor_start(&a, s, candidate, NULL, 0);
    cursor_start(&b, s, prefix, frames, n);
    for (uint32_t left = e->depth; left > 0; left--) {
        uint32_t sa, sb;
        /* Both rest on the same stack from here: equal without reading further. */
        if (cursor_whole(&a, &sa) && cursor_whole(&b, &sb) && sa == sb)
            return true;
        if (cursor_next(&a) != cursor_next(&b))
            return false;
    }
    return true;
}

static uint32_t stack_lookup(const pk_stack_store *s, uint64_t hash, uint32_t depth,
                             uint32_t prefix, const uint32_t *frames, size_t n, size_t *slot)
{
    if (!s->slots) {
        *slot = SIZE_MAX;
        return PK_NONE;
    }
    uint64_t placed = slot_hash(hash);
    for (size_t i = (size_t)placed & s->mask;; i = (i + 1) & s->mask) {
        const pk_stack_slot *sl = &s->slots[i];
        if (!sl->stack) {
            *slot = i;
            return PK_NONE;
        }
        uint32_t id = sl->stack - 1;
        if (sl->hash == (uint32_t)(placed >> 32) && s->entries[id].hash == hash &&
            s->entries[id].depth == depth && stack_equals(s, id, prefix, frames, n)) {
            *slot = i;
            return id;
        }
    }
}

static void place(pk_stack_slot *slots, size_t mask, uint32_t id, uint64_t hash)
{
    uint64_t placed = slot_hash(hash);
    size_t i = (size_t)placed & mask;
    while (slots[i].stack)
        i = (i + 1) & mask;
    slots[i] = (pk_stack_slot){id + 1, (uint32_t)(placed >> 32)};
}

static bool grow_slots(pk_stack_store *s)
{
    size_t size = s->slots ? (s->mask + 1) * 2 : 1024;
    /* After pk_stack_store_drop_index, or when appended stacks wait to be placed, the table
     * starts again for all the stacks there are. */
    while ((s->count + 1) * 2 > size)
        size *= 2;
    pk_stack_slot *slots = calloc(size, sizeof *slots);
    if (!slots)
        return false;
    size_t mask = size - 1;
    for (size_t id = 0; id < s->count; id++)
        place(slots, mask, (uint32_t)id, s->entries[id].hash);
    free(s->slots);
    s->slots = slots;
    s->mask = mask;
    s->indexed = s->count;
    return true;
}

/* Places the stacks appended since the table was last brought up to date. */
static bool place_appended(pk_stack_store *s)
{
    if (!s->slots || s->count * 2 > s->mask + 1)
        return grow_slots(s);
    for (size_t id = s->indexed; id < s->count; id++)
        place(s->slots, s->mask, (uint32_t)id, s->entries[id].hash);
    s->indexed = s->count;
    return true;
}

/* The hash and depth of prefix's frames followed by frames[0..n). */
static uint64_t sequence_hash(const pk_stack_store *s, uint32_t prefix, const uint32_t *frames,
                              size_t n, uint64_t *depth)
{
    uint64_t h = prefix == PK_NONE ? STACK_HASH_SEED : s->entries[prefix].hash;
    *depth = (prefix == PK_NONE ? 0 : s->entries[prefix].depth) + (uint64_t)n;
    return hash_frames(h, frames, n);
}

/* The answer of every lookup that does not depend on the frames: PK_NONE for a prefix out of
 * range, the prefix itself for no frames. */
static bool answered_without_frames(const pk_stack_store *s, uint32_t prefix, size_t n,
                                    uint32_t *answer)
{
    *answer = prefix != PK_NONE && prefix >= s->count ? PK_NONE : prefix;
    return *answer != prefix || n == 0;
}

/* Whether a sequence of that depth can be stored: its frames valid, and its depth, frames
 * and entry within the 32-bit indexes. */
static bool storable(const pk_stack_store *s, const uint32_t *frames, size_t n,
                     size_t frame_count, uint64_t depth)
{
    for (size_t i = 0; i < n; i++)
        if (frames[i] >= frame_count)
            return false;
    return depth <= UINT32_MAX && n <= UINT32_MAX - s->pool_count && s->count < PK_NONE - 1;
}

/* A new entry for the sequence, not placed in the table; PK_NONE when memory runs out. */
static uint32_t add_entry(pk_stack_store *s, uint64_t hash, uint32_t prefix, uint64_t depth,
                          const uint32_t *frames, size_t n)
{
    if (!PK_ARRAY_RESERVE(s->entries, s->capacity, s->count + 1) ||
        !PK_ARRAY_RESERVE(s->pool, s->pool_capacity, s->pool_count + n))
        return PK_NONE;
    uint32_t id = (uint32_t)s->count++;
    s->entries[id] = (pk_stack_entry){hash, prefix, (uint32_t)depth, (uint32_t)s->pool_count,
                                      (uint32_t)n};
    memcpy(s->pool + s->pool_count, frames, n * sizeof *frames);
    s->pool_count += n;
    return id;
}

bool pk_stack_store_index(pk_stack_store *s)
{
    return s->indexed == s->count || place_appended(s);
}

uint32_t pk_stack_store_find(const pk_stack_store *s, uint32_t prefix, const uint32_t *frames,
                             size_t n)
{
    uint32_t answer;
    if (answered_without_frames(s, prefix, n, &answer))
        return answer;
    uint64_t depth;
    uint64_t hash = sequence_hash(s, prefix, frames, n, &depth);
    size_t slot;
    if (depth > UINT32_MAX)
        return PK_NONE;
    uint32_t found = stack_lookup(s, hash, (uint32_t)depth, prefix, frames, n, &slot);
    for (size_t id = s->indexed; id < s->count && found == PK_NONE; id++)
        if (s->entries[id].hash == hash && s->entries[id].depth == depth &&
            stack_equals(s, (uint32_t)id, prefix, frames, n))
            found = (uint32_t)id;
    return found;
}

uint32_t pk_stack_store_append(pk_stack_store *s, uint32_t prefix, const uint32_t *frames,
                               size_t n, size_t frame_count)
{
    uint32_t answer;
    if (answered_without_frames(s, prefix, n, &answer))
        return answer;
    uint64_t depth;
    uint64_t hash = sequence_hash(s, prefix, frames, n, &depth);
    if (!storable(s, frames, n, frame_count, depth))
        return PK_NONE;
    return add_entry(s, hash, prefix, depth, frames, n);
}

bool pk_stack_store_take_pool(pk_stack_store *s, uint32_t *pool, size_t count, size_t capacity)
{
    if (s->count != 0 || s->pool_count != 0 || count > capacity || count > UINT32_MAX)
        return false;
    free(s->pool);
    s->pool = pool;
    s->pool_count = count;
    s->pool_capacity = capacity;
    return true;
}

uint32_t pk_stack_store_append_run(pk_stack_store *s, uint32_t prefix, size_t first, size_t n,
                                   size_t frame_count)
{
    if (first > s->pool_count || n > s->pool_count - first)
        return PK_NONE;
    uint32_t answer;
    if (answered_without_frames(s, prefix, n, &answer))
        return answer;
    const uint32_t *frames = s->pool + first;
    uint64_t depth;
    uint64_t hash = sequence_hash(s, prefix, frames, n, &depth);
    for (size_t i = 0; i < n; i++)
        if (frames[i] >= frame_count)
            return PK_NONE;
    if (depth > UINT32_MAX || s->count >= PK_NONE - 1 ||
        !PK_ARRAY_RESERVE(s->entries, s->capacity, s->count + 1))
        return PK_NONE;
    uint32_t id = (uint32_t)s->count++;
    s->entries[id] =
        (pk_stack_entry){hash, prefix, (uint32_t)depth, (uint32_t)first, (uint32_t)n};
    return id;
}

uint32_t pk_stack_store_intern(pk_stack_store *s, uint32_t prefix, const uint32_t *frames,
                               size_t n, size_t frame_count)
{
    uint32_t answer;
    if (answered_without_frames(s, prefix, n, &answer))
        return answer;
    if (s->indexed < s->count && !place_appended(s))
        return PK_NONE;
    uint64_t depth;
    uint64_t hash = sequence_hash(s, prefix, frames, n, &depth);
    /* The slot is most often a cache miss: ask for it before checking the frames. */
    if (s->slots)
        __builtin_prefetch(&s->slots[(size_t)slot_hash(hash) & s->mask]);
    if (!storable(s, frames, n, frame_count, depth))
        return PK_NONE;
    size_t slot;
    uint32_t found = stack_lookup(s, hash, (uint32_t)depth, prefix, frames, n, &slot);
    if (found != PK_NONE)
        return found;
    /* At most half full, so probes stay short. */
    if (!s->slots || (s->count + 1) * 2 > s->mask + 1) {
        if (!grow_slots(s))
            return PK_NONE;
        stack_lookup(s, hash, (uint32_t)depth, prefix, frames, n, &slot);
    }
    uint32_t id = add_entry(s, hash, prefix, depth, frames, n);
    if (id == PK_NONE)
        return PK_NONE;
    s->slots[slot] = (pk_stack_slot){id + 1, (uint32_t)(slot_hash(hash) >> 32)};
    s->indexed = s->count;
    return id;
}

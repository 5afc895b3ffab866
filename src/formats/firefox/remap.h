/* SPDX-License-Identifier: MIT */
/* Per-thread numbering of model items. Every thread of a processed profile has its own tables,
 * holding only what the thread reaches: a remap gives the thread's items dense local indexes
 * in order of first use, and keeps the model index of each local one.
 *
 * Entries are valid only when their stamp is the current thread's generation, so moving on to
 * the next thread costs nothing: no clearing of arrays as long as the model. */
#ifndef PK_FORMATS_FIREFOX_REMAP_H
#define PK_FORMATS_FIREFOX_REMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

typedef struct fx_remap {
    uint32_t *local; /* model index -> local index */
    uint32_t *stamp; /* model index -> generation that set local */
    uint32_t *items; /* local index -> model index */
    size_t count;
} fx_remap;

/* For model_count model items. False when out of memory (fx_remap_free still applies). */
bool fx_remap_init(fx_remap *m, size_t model_count);
void fx_remap_free(fx_remap *m);

/* Local index of model item `model` in generation gen, PK_NONE when it has none. */
static inline uint32_t fx_remap_get(const fx_remap *m, uint32_t model, uint32_t gen)
{
    return m->stamp[model] == gen ? m->local[model] : PK_NONE;
}

/* Local index of model item `model`, appending it when new (then *added, when given, is
 * true). items holds room for every model index, so it never overflows. */
static inline uint32_t fx_remap_add(fx_remap *m, uint32_t model, uint32_t gen, bool *added)
{
    if (m->stamp[model] == gen) {
        if (added)
            *added = false;
        return m->local[model];
    }
    m->stamp[model] = gen;
    m->local[model] = (uint32_t)m->count;
    m->items[m->count] = model;
    if (added)
        *added = true;
    return (uint32_t)m->count++;
}

#endif

/* SPDX-License-Identifier: MIT */
/* Growth of dynamic arrays by doubling. */
#ifndef PK_CORE_ARRAY_H
#define PK_CORE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *items hold at least need elements of elem_size bytes; *capacity is updated.
 * Returns false (leaving everything as it was) when out of memory or on overflow. */
static inline bool pk_array_reserve(void **items, size_t *capacity, size_t elem_size, size_t need)
{
    if (need <= *capacity)
        return true;
    size_t cap = *capacity ? *capacity : 16;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return false;
        cap *= 2;
    }
    if (cap > SIZE_MAX / elem_size)
        return false;
    void *grown = realloc(*items, cap * elem_size);
    if (!grown)
        return false;
    *items = grown;
    *capacity = cap;
    return true;
}

#define PK_ARRAY_RESERVE(items, capacity, need) \
    pk_array_reserve((void **)&(items), &(capacity), sizeof *(items), (need))

#endif

/* SPDX-License-Identifier: MIT */
/* Sums per key in order of first appearance (core/sums.h). */
#include "core/sums.h"

#include <math.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"

void pk_sums_init(pk_sums *s)
{
    memset(s, 0, sizeof *s);
    pk_u64map_init(&s->index);
}

void pk_sums_free(pk_sums *s)
{
    free(s->items);
    pk_u64map_free(&s->index);
    pk_sums_init(s);
}

bool pk_sums_add(pk_sums *s, uint64_t key, pk_pair_value value)
{
    uint32_t *slot;
    bool inserted;
    if (s->count >= UINT32_MAX || !pk_u64map_put(&s->index, key, (uint32_t)s->count, &slot,
                                                 &inserted))
        return false;
    if (inserted) {
        if (!PK_ARRAY_RESERVE(s->items, s->cap, s->count + 1)) {
            pk_u64map_remove(&s->index, key, NULL);
            return false;
        }
        s->items[s->count++] = (pk_sum){key, 0, 0.0, 0};
    }
    pk_sum *sum = &s->items[*slot];
    if (value.is_double)
        sum->fraction += value.d;
    else
        sum->integer = pk_add_saturating(sum->integer, value.i);
    sum->count++;
    return true;
}

int64_t pk_sum_scaled(const pk_sum *sum, int64_t scale)
{
    int64_t v = pk_mul_saturating(sum->integer, scale);
    double f = sum->fraction * (double)scale;
    if (f != f || f == 0)
        return v;
    /* Beyond ±2^63 the sum saturates like the integers. */
    if (f >= 9223372036854775807.0)
        return INT64_MAX;
    if (f <= -9223372036854775808.0)
        return INT64_MIN;
    return pk_add_saturating(v, llround(f));
}

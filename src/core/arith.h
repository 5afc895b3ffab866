/* SPDX-License-Identifier: MIT */
/* Integer arithmetic that saturates instead of overflowing: totals of huge or hostile inputs
 * stop at the int64 limits rather than wrapping around. */
#ifndef PK_CORE_ARITH_H
#define PK_CORE_ARITH_H

#include <stdint.h>

static inline int64_t pk_add_saturating(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t pk_sub_saturating(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t pk_mul_saturating(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    return r;
}

#endif

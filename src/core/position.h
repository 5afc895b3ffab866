/* SPDX-License-Identifier: MIT */
/* Source positions as the model keeps them (pk_function.start_line and start_column,
 * pk_frame.line): 1-based, 0 when unknown. */
#ifndef PK_CORE_POSITION_H
#define PK_CORE_POSITION_H

#include <stdint.h>

/* A 1-based line or column read from a file; 0 (unknown) for zero, negative numbers (-1 is
 * "unknown" in several formats) and numbers beyond the model's 32 bits. */
static inline uint32_t pk_position(int64_t v)
{
    return v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

#endif

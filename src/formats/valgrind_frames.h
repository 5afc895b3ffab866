/* SPDX-License-Identifier: MIT */
/* Frames as valgrind's tools (massif, DHAT) name them. */
#ifndef PK_FORMATS_VALGRIND_FRAMES_H
#define PK_FORMATS_VALGRIND_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

/* The frame of [s, s + n): `0xADDR: FUNCTION (FILE:LINE)`, `0xADDR: FUNCTION (in OBJECT)` (a
 * resource), `0xADDR: ???`, or any other text as a function of that name (massif's `in 3
 * places, all below massif's threshold (1.00%)`, DHAT's `[root]`). PK_NONE when memory runs
 * out. */
uint32_t pk_valgrind_frame(pk_profile *p, const char *s, size_t n);

#endif

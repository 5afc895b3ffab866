/* SPDX-License-Identifier: MIT */
/* Building profiles through the model API a function and a frame at a time, for fixtures that a
 * test writes out. An interning failure aborts: these are tests. */
#ifndef PK_TEST_MODEL_BUILD_H
#define PK_TEST_MODEL_BUILD_H

#include <stdint.h>

#include "profkit/profile.h"

/* The function named name in file (NULL: none), starting at line start, in resource. */
uint32_t tb_function(pk_profile *p, const char *name, const char *file, uint32_t start,
                     uint32_t resource);
/* The stack of parent (PK_NONE: a root) with one more frame of function at line and address. */
uint32_t tb_push(pk_profile *p, uint32_t parent, uint32_t function, uint32_t line,
                 uint64_t address, uint32_t resource, uint32_t flags);

#endif

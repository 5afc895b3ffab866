/* SPDX-License-Identifier: MIT */
/* An arena for libprotobuf-c's unpacking. Each sub-message of a profile is unpacked, used and
 * dropped at once, so its allocations come from one block that is reset afterwards instead of
 * being freed piece by piece. */
#ifndef PK_FORMATS_PPROF_ARENA_H
#define PK_FORMATS_PPROF_ARENA_H

#include <stddef.h>

#include <protobuf-c/protobuf-c.h>

typedef struct pprof_arena_chunk pprof_arena_chunk;

typedef struct pprof_arena {
    pprof_arena_chunk *head;
    size_t high_water;  /* bytes the last cycle needed, so the next one fits in one chunk */
    size_t cycle_total; /* bytes handed out since the last reset */
    ProtobufCAllocator allocator; /* what protobuf-c is given: allocations from this arena */
} pprof_arena;

void pprof_arena_init(pprof_arena *a);
/* Takes back everything handed out (keeping one chunk large enough for it). */
void pprof_arena_reset(pprof_arena *a);
void pprof_arena_release(pprof_arena *a);

#endif

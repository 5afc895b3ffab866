/* SPDX-License-Identifier: MIT */
/* Copying one profile into another: the routine behind merging, diffing and the symbolization
 * pass, in the core, so that the core's own users of it (symbolization) include nothing of the
 * layers above it (profkit/merge.h, which sums profiles, includes this header).
 *
 * Ownership: the inputs are only read; the destination belongs to the caller.
 */
#ifndef PROFKIT_COPY_H
#define PROFKIT_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stands in for a frame of the source with frames of the destination (symbolization, for
 * example, replaces an address by the functions found there). Called at most once per source
 * frame. Returns the number of frames in *frames (frames of dst, outermost first; the array
 * belongs to the hook and must stay valid until the copy ends), 0 to copy the frame as it is,
 * or SIZE_MAX when memory runs out. */
typedef size_t (*pk_frame_map_fn)(void *context, const pk_profile *src, uint32_t frame,
                                  pk_profile *dst, const uint32_t **frames);

/* Lets a copy complete a resource of src before it is interned in dst: *resource holds src's
 * resource `index` with its strings already dst's, and the hook may change it (symbolization,
 * for example, adds the build ID of the binary it read). Returns false when memory runs out. */
typedef bool (*pk_resource_map_fn)(void *context, const pk_profile *src, uint32_t index,
                                   pk_profile *dst, pk_resource *resource);

/* Decides what becomes of sample row `row` of src in a copy: returns 1 to add it to the thread
 * of dst in *thread (src's thread as copied, which the hook may replace by another thread of
 * dst, one it adds for instance), 0 to leave the row out, or -1 when memory runs out. */
typedef int (*pk_row_map_fn)(void *context, const pk_profile *src, size_t row, pk_profile *dst,
                             uint32_t *thread);

typedef struct pk_copy_options {
    /* Value i of src's rows is added to value value_map[i] of dst (skipped when PK_NONE); the
     * array has one entry per value type of src. NULL: a dst without value types gets src's
     * one for one (and its default value); otherwise they are matched by name, and a missing
     * one is declared in dst (which must have no samples yet). */
    const uint32_t *value_map;
    /* XORed into the addresses of memory events, so that blocks of different inputs never
     * match each other; 0 for none. */
    uint64_t address_tag;
    pk_frame_map_fn map_frame; /* NULL: frames are copied as they are */
    void *map_context;         /* given to map_frame and map_resource */
    pk_resource_map_fn map_resource; /* NULL: resources are copied as they are */
    pk_row_map_fn map_row; /* NULL: every row is copied, on its own thread; given
                            * map_context too */
} pk_copy_options;

/* Adds everything of src to dst: strings, resources (every one), functions, frames and stacks
 * are interned again; each thread of src becomes the first thread of its name that dst had
 * before the copy, or a new thread (so a copy into a fresh profile keeps every thread); sample
 * rows are added, with their label sets, memory events replayed in stream order, and each
 * thread's timed samples (profkit/timeline.h) appended again in time order (only what each
 * thread's times were when map_row is given: a timed sample names no row to follow), and the
 * call edges' counts added under the copied functions (only when every row is copied with
 * every value under its own name: not with map_row, nor into a comparison). Warnings are
 * always added; metadata and properties are copied only into a fresh dst (no threads, stacks,
 * samples or memory events yet), which has none of its own. A value name in two units is refused
 * (PK_ERR_USAGE). options may be NULL. src is only read; on failure dst holds part of src. */
PK_API pk_status pk_profile_copy(pk_profile *dst, const pk_profile *src,
                                 const pk_copy_options *options, pk_error *err);

#ifdef __cplusplus
}
#endif

#endif

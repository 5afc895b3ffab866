/* Copying and summing profiles: several runs or devices become one profile.
 *
 * Ownership: the profiles made here belong to the caller (pk_profile_free); the inputs are only
 * read.
 */
#ifndef PROFKIT_MERGE_H
#define PROFKIT_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/error.h"
#include "profkit/export.h"
#include "profkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stands in for a frame of the source with frames of the destination (symbolization, for
 * example, replaces an address by the functions found there). Returns the number of frames in
 * *frames (outermost first; the array stays valid until the copy ends), 0 to copy the frame
 * as it is, or SIZE_MAX when memory runs out. */
typedef size_t (*pk_frame_map_fn)(void *context, const pk_profile *src, uint32_t frame,
                                  pk_profile *dst, const uint32_t **frames);

typedef struct pk_copy_options {
    /* Value i of src's rows is added to value value_map[i] of dst (skipped when PK_NONE). NULL:
     * dst gets src's value types, matched by name (declared in dst when missing). */
    const uint32_t *value_map;
    /* XORed into the addresses of memory events, so that blocks of different inputs never
     * match each other; 0 for none. */
    uint64_t address_tag;
    pk_frame_map_fn map_frame; /* NULL: frames are copied as they are */
    void *map_context;
} pk_copy_options;

/* Adds everything of src to dst: strings, resources, functions, frames and stacks are interned
 * again, threads are matched by name, sample rows are added and memory events replayed in
 * stream order. Metadata, properties and warnings are copied when dst has none of its own
 * (a fresh profile). options may be NULL. */
PK_API pk_status pk_profile_copy(pk_profile *dst, const pk_profile *src,
                                 const pk_copy_options *options, pk_error *err);

/* Sums the inputs into a new profile (*out). Its value types are those of every input, matched
 * by name; a name with different units in two inputs, or inputs sharing no value type with the
 * first, are refused (PK_ERR_USAGE). Metadata and properties come from the first input, with
 * the earliest start and latest end time. */
PK_API pk_status pk_profile_merge(const pk_profile *const *inputs, size_t count,
                                  pk_profile **out, pk_error *err);

#ifdef __cplusplus
}
#endif

#endif

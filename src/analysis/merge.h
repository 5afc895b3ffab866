/* Summing profiles: several runs or devices become one profile. */
#ifndef PK_ANALYSIS_MERGE_H
#define PK_ANALYSIS_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "profkit/profile.h"

/* Copies everything of src into dst: strings, resources, functions, frames and stacks are
 * interned again, threads are matched by name, and value i of every sample row is added to
 * value value_map[i] of dst (skipped when PK_NONE). Memory events are replayed in stream
 * order; address_tag is XORed into their addresses so that blocks of different inputs never
 * match each other. dst must already have the value types value_map refers to. */
pk_status pk_profile_append(pk_profile *dst, const pk_profile *src, const uint32_t *value_map,
                            uint64_t address_tag, pk_error *err);

/* Sums the inputs into a new profile. Its value types are those of every input, matched by
 * name; a name with different units in two inputs, or inputs sharing no value type with the
 * first, are refused (PK_ERR_USAGE). Metadata and properties come from the first input, with
 * the earliest start and latest end time. */
pk_status pk_profile_merge(const pk_profile *const *inputs, size_t count, pk_profile **out,
                           pk_error *err);

#endif

/* SPDX-License-Identifier: MIT */
/* One vocabulary for memory: the names and units of the values of every profile that measures
 * memory by call stack, whatever format it came from. They are Go's heap profile sample types
 * (runtime/pprof, and what `go tool pprof -sample_index=` selects), so that a profile written
 * as pprof carries them unchanged; a peak is gperftools' and Firefox's notion, in bytes.
 *
 *   alloc_objects  count  objects allocated over the profile (freed or not)
 *   alloc_space    bytes  bytes allocated over the profile
 *   inuse_objects  count  objects still allocated (live) when the profile was taken
 *   inuse_space    bytes  bytes still allocated (live) when the profile was taken
 *   peak_space     bytes  the most bytes live at once
 *
 * A reader declares those it has (pk_memory_values_declare) and `report --memory` reads a leak
 * report from them when a profile has no memory events (pk_memory_values_find).
 */
#ifndef PK_CORE_MEMORY_VALUES_H
#define PK_CORE_MEMORY_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "profkit/profile.h"

#define PK_MEMORY_ALLOC_OBJECTS "alloc_objects"
#define PK_MEMORY_ALLOC_SPACE "alloc_space"
#define PK_MEMORY_INUSE_OBJECTS "inuse_objects"
#define PK_MEMORY_INUSE_SPACE "inuse_space"
#define PK_MEMORY_PEAK_SPACE "peak_space"
#define PK_MEMORY_OBJECTS_UNIT "count"
#define PK_MEMORY_SPACE_UNIT "bytes"

/* The indexes of a profile's memory values, PK_NONE for those it does not have. */
typedef struct pk_memory_values {
    uint32_t alloc_objects, alloc_space, inuse_objects, inuse_space, peak_space;
} pk_memory_values;

/* Finds them by name (any unit); true when the profile has in-use bytes, what a leak report
 * and retained memory need: allocated bytes alone (a JFR recording's TLAB events) say nothing
 * of what was freed, and are not read as memory that was all freed. */
bool pk_memory_values_find(const pk_profile *p, pk_memory_values *out);

/* Declares alloc_objects and alloc_space (when with_alloc), then inuse_objects and inuse_space,
 * in that order (Go's, whose default is the last), into *out; false when memory runs out or
 * the profile has no room for more values. */
bool pk_memory_values_declare(pk_profile *p, bool with_alloc, pk_memory_values *out);

/* The vocabulary's name of a value a reader called something else before 0.2.0 (the .bsprof
 * reader's alloc-bytes, allocs and live-bytes, the JFR reader's alloc-bytes and alloc-objects),
 * NULL for any other name: what pk_value_lookup accepts for them, so that command lines written
 * for those names keep working. */
const char *pk_memory_value_renamed(const char *former_name);

#endif

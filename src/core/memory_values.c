/* SPDX-License-Identifier: MIT */
/* The memory vocabulary (memory_values.h). */
#include "core/memory_values.h"

#include <string.h>

bool pk_memory_values_find(const pk_profile *p, pk_memory_values *out)
{
    out->alloc_objects = pk_value_find(p, PK_MEMORY_ALLOC_OBJECTS);
    out->alloc_space = pk_value_find(p, PK_MEMORY_ALLOC_SPACE);
    out->inuse_objects = pk_value_find(p, PK_MEMORY_INUSE_OBJECTS);
    out->inuse_space = pk_value_find(p, PK_MEMORY_INUSE_SPACE);
    out->peak_space = pk_value_find(p, PK_MEMORY_PEAK_SPACE);
    return out->inuse_space != PK_NONE;
}

bool pk_memory_values_declare(pk_profile *p, bool with_alloc, pk_memory_values *out)
{
    out->alloc_objects = out->alloc_space = out->peak_space = PK_NONE;
    if (with_alloc) {
        out->alloc_objects = pk_add_value_type(p, PK_MEMORY_ALLOC_OBJECTS, PK_MEMORY_OBJECTS_UNIT);
        out->alloc_space = pk_add_value_type(p, PK_MEMORY_ALLOC_SPACE, PK_MEMORY_SPACE_UNIT);
        if (out->alloc_objects == PK_NONE || out->alloc_space == PK_NONE)
            return false;
    }
    out->inuse_objects = pk_add_value_type(p, PK_MEMORY_INUSE_OBJECTS, PK_MEMORY_OBJECTS_UNIT);
    out->inuse_space = pk_add_value_type(p, PK_MEMORY_INUSE_SPACE, PK_MEMORY_SPACE_UNIT);
    return out->inuse_objects != PK_NONE && out->inuse_space != PK_NONE;
}

const char *pk_memory_value_renamed(const char *former_name)
{
    static const char *const renamed[][2] = {
        {"alloc-bytes", PK_MEMORY_ALLOC_SPACE},
        {"allocs", PK_MEMORY_ALLOC_OBJECTS},
        {"alloc-objects", PK_MEMORY_ALLOC_OBJECTS},
        {"live-bytes", PK_MEMORY_INUSE_SPACE},
    };
    for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++)
        if (strcmp(former_name, renamed[i][0]) == 0)
            return renamed[i][1];
    return NULL;
}

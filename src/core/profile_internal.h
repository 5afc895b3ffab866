/* The layout of pk_profile, shared by the files that implement the model. */
#ifndef PK_CORE_PROFILE_INTERNAL_H
#define PK_CORE_PROFILE_INTERNAL_H

#include "core/hashmap.h"
#include "core/stacks.h"
#include "core/strings.h"
#include "profkit/profile.h"

#define PK_MAX_WARNINGS 100

/* Memory events, column by column: 34 bytes per event. */
typedef struct pk_memory_table {
    uint64_t *address;
    uint64_t *size;
    uint64_t *order;
    uint32_t *thread;
    uint32_t *stack;
    uint8_t *kind;
    uint8_t *matched;
    size_t count;
    size_t capacity;
    pk_u64map live; /* address -> index of the live alloc event */
} pk_memory_table;

struct pk_profile {
    pk_strtab strings;

    pk_value_type value_types[PK_MAX_VALUES];
    uint32_t value_count;
    uint32_t default_value;

    pk_thread *threads;
    size_t thread_count, thread_capacity;

    pk_resource *resources;
    size_t resource_count, resource_capacity;
    pk_index resource_index;

    pk_function *functions;
    size_t function_count, function_capacity;
    pk_index function_index;

    pk_frame *frames;
    size_t frame_count, frame_capacity;
    pk_index frame_index;

    pk_stack_store stacks;

    /* Sample rows, column by column. */
    uint32_t *sample_threads;
    uint32_t *sample_stacks;
    uint64_t *sample_orders;
    int64_t *sample_values; /* row * value_count + value */
    size_t sample_count, sample_capacity;
    size_t sample_values_capacity;
    pk_u64map sample_index; /* (thread << 32 | stack) -> row */

    uint64_t next_order;

    pk_memory_table memory;

    pk_metadata metadata;
    uint32_t *property_keys;
    uint32_t *property_values;
    size_t property_count, property_capacity;

    char *warnings[PK_MAX_WARNINGS];
    size_t warning_count;
    size_t warnings_dropped;
};

#endif

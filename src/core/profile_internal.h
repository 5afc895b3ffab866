/* SPDX-License-Identifier: MIT */
/* The layout of pk_profile, shared by the files that implement the model. */
#ifndef PK_CORE_PROFILE_INTERNAL_H
#define PK_CORE_PROFILE_INTERNAL_H

#include "core/hashmap.h"
#include "core/stacks.h"
#include "core/strings.h"
#include "core/counters_internal.h"
#include "core/timeline_internal.h"
#include "profkit/profile.h"

#define PK_MAX_WARNINGS 100

/* The sums of the allocations of one site that a newer allocation at the same address displaced:
 * they stay live (leaked, as far as the profile can tell) but are no longer indexed. */
typedef struct pk_displaced_sums {
    uint64_t bytes; /* saturating sum of the sizes, each at most INT64_MAX */
    uint64_t count;
} pk_displaced_sums;

/* Memory events: what reports need as sums, the live allocations, and the events themselves
 * spooled out of memory (memory.c). */
typedef struct pk_memory_table {
    struct pk_spool *events; /* NULL until the first event, or when events are not kept */
    bool discard_events;
    uint64_t event_count, last_order, last_address;
    uint64_t allocations, frees, unmatched_frees, max_address;
    /* The live allocations, one 16-byte slot each: address -> site index | size << 32, where a
     * size of UINT32_MAX or more is UINT32_MAX and the size itself is in live_big_sizes. */
    pk_u64map64 live;
    pk_u64map64 live_big_sizes;
    pk_u64map64 live_orders; /* address -> the allocation's order, only while events are kept */
    size_t live_count;       /* the indexed ones and the displaced ones */
    pk_displaced_sums *displaced; /* by site index, NULL until an allocation is displaced */
    size_t displaced_capacity;
    uint64_t *displaced_orders; /* while events are kept */
    size_t displaced_order_count, displaced_order_capacity;
    pk_alloc_site *sites;
    size_t site_count, site_capacity;
    pk_u64map site_index;     /* thread << 32 | stack -> site */
    uint64_t *thread_unmatched_frees;
    size_t thread_unmatched_capacity;
} pk_memory_table;

void pk_memory_table_free(pk_memory_table *m);
/* Called once when the values added to p first may no longer sum within int64: a reader's
 * caller notes where in the input that happened. */
void pk_profile_set_overflow_hook(pk_profile *p, void (*hook)(void *context), void *context);
/* For a profile that kept only the sums of its memory events: adds src's sums and live
 * allocations to dst through the maps of threads and stacks (src index -> dst index; a thread
 * mapped to PK_NONE is left out), addresses XORed with address_tag. dst then keeps only sums. */
pk_status pk_memory_copy_sums(pk_profile *dst, const pk_profile *src, const uint32_t *threads,
                              const uint32_t *stacks, uint64_t address_tag);

/* pk_profile_copy of a source that is freed right after: src's memory is given back as the
 * copy goes (its lookup tables first, then its stacks' frames as they are copied), so that the
 * two profiles are never whole at once. Nothing but pk_profile_free may use src afterwards,
 * whatever the outcome. */
struct pk_copy_options;
pk_status pk_profile_copy_releasing(pk_profile *dst, pk_profile *src,
                                    const struct pk_copy_options *options, pk_error *err);

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

    /* Label sets: each a run of labels in one array. */
    pk_label *labels;
    size_t label_count, label_capacity;
    struct pk_label_run {
        uint32_t first, count;
    } *label_sets;
    size_t label_set_count, label_set_capacity;
    pk_index label_set_index;

    /* Sample rows, column by column. */
    uint32_t *sample_threads;
    uint32_t *sample_stacks;
    uint64_t *sample_orders;
    int64_t *sample_values; /* row * value_count + value */
    size_t sample_count, sample_capacity;
    size_t sample_values_capacity;
    /* The row of (thread, stack): most stacks have rows of one thread only, so each stack
     * keeps the row of the first thread that had one (4 bytes a stack, where a hash table
     * entry per row costs ten times that), and the table holds the rest: rows of a stack that
     * another thread had first, and rows of the empty stack. */
    uint32_t *stack_rows; /* stack -> its first row, PK_NONE for none; stack_rows_count set */
    size_t stack_rows_count, stack_rows_capacity;
    pk_u64map sample_index; /* (thread << 32 | stack) -> row, for the rows stack_rows lacks */
    size_t indexed_rows;    /* rows [0, indexed_rows) are in the two; pk_add_distinct_sample
                             * leaves the rest to the next pk_sample_row */
    /* Rows with labels are in neither of the two (the rows without labels keep their fast
     * lookup) but in a table of their own, and their sets in a column that exists only once a
     * row has labels (until then every row has none). */
    uint32_t *sample_label_sets; /* row -> label set, PK_NONE for none; NULL: none has any */
    size_t sample_label_sets_capacity;
    pk_index labeled_rows; /* hash of (thread, stack, label set) -> row */

    uint64_t next_order;

    /* Overflow: sums of the magnitudes of what was added, per value, and a cell that saturated;
     * the hook runs once, when the first sum passes INT64_MAX (see pk_values_overflow). */
    uint64_t added_magnitude[PK_MAX_VALUES];
    bool cell_saturated;
    bool overflow_noted;
    void (*overflow_hook)(void *context);
    void *overflow_context;

    /* Call counts per (caller, callee) function pair (call_edges.c). */
    pk_call_edge *call_edges;
    size_t call_edge_count, call_edge_capacity;
    pk_u64map call_edge_index; /* caller << 32 | callee -> its index */

    pk_memory_table memory;
    pk_timeline_table timeline; /* each thread's timed samples (timeline.c) */
    pk_counter_table counters;  /* quantities over time (counters.c) */

    pk_metadata metadata;
    uint32_t *property_keys;   /* in the order they were first set */
    uint32_t *property_values;
    size_t property_count, property_capacity;
    pk_u64map property_index;  /* key's string -> its index in property_keys: writers look up
                                * per thread (process names), so a lookup must not scan */

    char *warnings[PK_MAX_WARNINGS];
    size_t warning_count;
    size_t warnings_dropped;
};

#endif

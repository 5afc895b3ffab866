/* SPDX-License-Identifier: MIT */
/* The pprof reader's state, shared by read.c (the fields of the Profile message, as they
 * stream past, into compact tables) and build.c (the tables into the model, once the whole
 * message has been seen).
 *
 * pprof orders fields so that samples come before the locations, functions and strings they
 * refer to. The reader therefore keeps each distinct sample (its label set and location IDs)
 * once with its summed values, keeps locations, functions and mappings in tables, and builds
 * the model's frames and stacks at the end. Memory grows with distinct stacks and strings,
 * not with file size.
 */
#ifndef PK_FORMATS_PPROF_READER_H
#define PK_FORMATS_PPROF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hashmap.h"
#include "formats/pprof/arena.h"
#include "formats/pprof/wire.h"
#include "profkit/format.h"

/* A string index the model resolves once the string table is known. */
typedef struct deferred_string {
    int64_t index;
    uint64_t at; /* offset of the field that holds it */
} deferred_string;

typedef struct sample_type_entry {
    int64_t type;
    int64_t unit;
    uint64_t at;
} sample_type_entry;

typedef struct mapping_entry {
    uint64_t id;
    uint64_t start;
    uint64_t limit;
    uint64_t file_offset;
    int64_t filename;
    int64_t build_id;
    uint64_t at;
    uint32_t resource; /* set when building */
} mapping_entry;

typedef struct function_entry {
    uint64_t id;
    int64_t name;
    int64_t system_name;
    int64_t filename;
    int64_t start_line;
    uint64_t at;
    uint32_t name_string; /* set when building */
    uint32_t file_string;
} function_entry;

typedef struct location_entry {
    uint64_t id;
    uint64_t mapping_id;
    uint64_t address;
    uint32_t first_line;
    uint32_t line_count;
    /* set when building: its frames in the model, outermost first */
    uint32_t first_frame;
    uint32_t frame_count;
} location_entry;

typedef struct line_entry {
    uint64_t function_id;
    uint32_t line;
} line_entry;

typedef struct label_set {
    uint32_t first; /* index into label_values, 4 int64 per label */
    uint32_t count;
    uint64_t at;
    uint32_t thread; /* set when building */
    uint32_t labels; /* set when building: the model's set of the labels not of the thread */
} label_set;

typedef struct pprof_reader {
    pk_profile *p;
    pk_error *err;
    pb_stream stream;
    pprof_arena arena;
    /* References to what is not there are dropped (with a warning) instead of being errors:
     * with salvage, and after damage, which may have cut off what they refer to. */
    bool lenient;
    size_t missing_strings; /* references read as "" when lenient */

    uint32_t *strings; /* pprof string index -> model string */
    size_t string_count, string_capacity;

    sample_type_entry *sample_types;
    size_t sample_type_count, sample_type_capacity;

    size_t values_per_sample; /* fixed by the first sample */
    bool values_fixed;
    uint64_t values_fixed_at;
    size_t stored_values; /* min(values_per_sample, PK_MAX_VALUES) */

    mapping_entry *mappings;
    size_t mapping_count, mapping_capacity;
    pk_u64map mapping_ids;

    function_entry *functions;
    size_t function_count, function_capacity;
    pk_u64map function_ids;

    location_entry *locations;
    size_t location_count, location_capacity;
    pk_u64map location_ids;
    line_entry *lines;
    size_t line_count, line_capacity;
    uint32_t address_frame; /* the chain address_frames returns */

    int64_t *label_values;
    size_t label_value_count, label_value_capacity;
    label_set *label_sets; /* set 0 = no labels */
    size_t label_set_count, label_set_capacity;
    pk_index label_index;

    /* distinct samples, each kept as the bytes of its key: the label set and the location
     * IDs, leaf first, as varints (far smaller than a tree of nodes) */
    uint8_t *row_keys;
    size_t row_keys_len, row_keys_capacity;
    size_t *row_key_start;
    uint64_t *row_at; /* offset of the row's first sample */
    int64_t *row_values;
    size_t row_count, row_capacity_start, row_capacity_at, row_capacity_values;
    pk_index row_index;

    deferred_string drop_frames, keep_frames, default_sample_type, doc_url;
    deferred_string period_type_name, period_type_unit;
    deferred_string *comments;
    size_t comment_count, comment_capacity;
    int64_t time_nanos;
    bool has_time;
    int64_t duration_nanos;
    int64_t period;
} pprof_reader;

/* Damage at offset at (see core/damage.h). */
pk_status pprof_damage(pprof_reader *r, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
pk_status pprof_nomem(pprof_reader *r);
/* Makes label set 0 (no labels) exist; false when memory runs out. */
bool pprof_label_sets_start(pprof_reader *r);
/* A count beyond what profkit can index. */
pk_status pprof_limit(pprof_reader *r, uint64_t at, const char *what);

/* Builds the model from the tables (build.c). */
pk_status pprof_build_model(pprof_reader *r);

#endif

/* SPDX-License-Identifier: MIT */
/* The pprof reader's tables made into the model, once the whole Profile message has been seen:
 * value types, resources, functions, frames (a location with several lines is a chain of
 * inlined frames), threads from sample labels, stacks and samples, metadata. */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/buffer.h"
#include "core/path.h"
#include "core/position.h"
#include "core/symbolize.h"
#include "core/varint.h"
#include "formats/pprof/pprof.h"
#include "formats/pprof/reader.h"

/* The model string of a pprof string index; out of range is damage (or "" when lenient).
 * *out is always written: "" unless the index resolves. */
static pk_status resolve_string(pprof_reader *r, int64_t index, uint64_t at, const char *what,
                                uint32_t *out)
{
    *out = 0;
    if (index >= 0 && (uint64_t)index < r->string_count) {
        *out = r->strings[index];
        return PK_OK;
    }
    if (index == 0 && r->string_count == 0)
        return PK_OK;
    if (r->lenient) {
        r->missing_strings++;
        return PK_OK;
    }
    return pprof_damage(r, at,
                        "%s refers to string %" PRId64 " but the string table has %zu entries",
                        what, index, r->string_count);
}

static pk_status build_resources(pprof_reader *r)
{
    for (size_t i = 0; i < r->mapping_count; i++) {
        mapping_entry *m = &r->mappings[i];
        uint32_t filename, build_id;
        pk_status st = resolve_string(r, m->filename, m->at, "mapping filename", &filename);
        if (st == PK_OK)
            st = resolve_string(r, m->build_id, m->at, "mapping build_id", &build_id);
        if (st != PK_OK)
            return st;
        pk_resource res = {0, filename, build_id, m->start, m->limit, m->file_offset};
        const char *path = pk_str(r->p, filename);
        /* pprof itself calls a mapping without a file <unknown>: its name stays empty */
        if (*path)
            res.name = pk_intern_cstr(r->p, pk_path_basename(path));
        else
            res.name = build_id;
        if (res.name == PK_NONE)
            return pprof_nomem(r);
        m->resource = pk_intern_resource(r->p, &res);
        if (m->resource == PK_NONE)
            return pprof_nomem(r);
    }
    /* pprof puts the main binary first; it names the program when nothing else does. */
    pk_metadata *meta = pk_metadata_of(r->p);
    if (r->mapping_count && meta->product == 0) {
        const pk_resource *main_binary = pk_resource_at(r->p, r->mappings[0].resource);
        const char *name = pk_path_basename(pk_str(r->p, main_binary->path));
        if (main_binary->limit > main_binary->start && *name && *name != '[' &&
            !strstr(name, ".so"))
            meta->product = pk_intern_cstr(r->p, name);
    }
    return PK_OK;
}

static pk_status build_functions(pprof_reader *r)
{
    for (size_t i = 0; i < r->function_count; i++) {
        function_entry *f = &r->functions[i];
        uint32_t name, system_name, file;
        pk_status st = resolve_string(r, f->name, f->at, "function name", &name);
        if (st == PK_OK)
            st = resolve_string(r, f->system_name, f->at, "function system_name", &system_name);
        if (st == PK_OK)
            st = resolve_string(r, f->filename, f->at, "function filename", &file);
        if (st != PK_OK)
            return st;
        f->name_string = name ? name : system_name;
        f->file_string = file;
    }
    return PK_OK;
}

static uint32_t resource_of_mapping(pprof_reader *r, uint64_t mapping_id)
{
    if (mapping_id == 0)
        return PK_NONE;
    uint32_t *index = pk_u64map_find(&r->mapping_ids, mapping_id);
    return index ? r->mappings[*index].resource : PK_NONE;
}

/* The frame of an address that the file gives no lines for: named by the address, in its
 * mapping's resource, for the symbolization pass (profkit/symbolize.h) to name. */
static size_t address_frames(pprof_reader *r, uint32_t resource, uint64_t address,
                             const uint32_t **chain)
{
    pk_function fn = {.name = pk_address_name(r->p, address), .resource = resource};
    if (fn.name == PK_NONE)
        return 0;
    uint32_t function = pk_intern_function(r->p, &fn);
    if (function == PK_NONE)
        return 0;
    pk_frame frame = {function, 0, address, resource, address ? PK_FRAME_HAS_ADDRESS : 0};
    r->address_frame = pk_intern_frame(r->p, &frame);
    *chain = &r->address_frame;
    return r->address_frame == PK_NONE ? 0 : 1;
}

/* The name go tool pprof shows for a function without a name at no address. */
static uint32_t unnamed_at_no_address(pprof_reader *r, uint32_t resource)
{
    const pk_resource *res = pk_resource_at(r->p, resource);
    if (res && pk_str_len(r->p, res->name) > 0)
        return pk_intern_printf(r->p, "[%s]", pk_str(r->p, res->name));
    return pk_intern_cstr(r->p, "<unknown>");
}

/* Frames of every location, outermost (the caller line) first; pprof lists the inlined
 * callees first and the caller last. */
static pk_status build_frames(pprof_reader *r, uint32_t **frames_out)
{
    uint32_t *frames = NULL;
    size_t count = 0, capacity = 0;
    size_t missing_functions = 0;
    for (size_t i = 0; i < r->location_count; i++) {
        location_entry *loc = &r->locations[i];
        uint32_t resource = resource_of_mapping(r, loc->mapping_id);
        uint32_t flags = loc->address ? PK_FRAME_HAS_ADDRESS : 0;
        if (loc->line_count == 0) {
            const uint32_t *chain;
            size_t n = address_frames(r, resource, loc->address, &chain);
            if (n == 0 || !PK_ARRAY_RESERVE(frames, capacity, count + n)) {
                free(frames);
                return pprof_nomem(r);
            }
            loc->first_frame = (uint32_t)count;
            loc->frame_count = (uint32_t)n;
            memcpy(frames + count, chain, n * sizeof *chain);
            count += n;
            continue;
        }
        if (!PK_ARRAY_RESERVE(frames, capacity, count + loc->line_count)) {
            free(frames);
            return pprof_nomem(r);
        }
        loc->first_frame = (uint32_t)count;
        loc->frame_count = loc->line_count;
        for (uint32_t k = loc->line_count; k-- > 0;) {
            const line_entry *line = &r->lines[loc->first_line + k];
            pk_function fn = {.resource = resource};
            uint32_t *fi = line->function_id ? pk_u64map_find(&r->function_ids, line->function_id)
                                             : NULL;
            if (fi) {
                const function_entry *f = &r->functions[*fi];
                fn.name = f->name_string;
                fn.file = f->file_string;
                fn.start_line = pk_position(f->start_line);
            } else if (line->function_id) {
                missing_functions++;
            }
            /* A function without a name: the address names the frame (as go tool pprof -raw
             * lists it; its -top merges a binary's addresses into one "[binary]"), and at no
             * address it is named as go tool pprof shows it: "[binary]" in a mapping with a
             * file, else "<unknown>". */
            if (fn.name == 0 && (!fi || loc->address != 0))
                fn.name = pk_intern_printf(r->p, "0x%" PRIx64, loc->address);
            else if (fn.name == 0)
                fn.name = unnamed_at_no_address(r, resource);
            uint32_t function = fn.name == PK_NONE ? PK_NONE : pk_intern_function(r->p, &fn);
            uint32_t frame_flags = flags | (k + 1 < loc->line_count ? PK_FRAME_INLINED : 0);
            pk_frame frame = {function, line->line, loc->address, resource, frame_flags};
            uint32_t id = function == PK_NONE ? PK_NONE : pk_intern_frame(r->p, &frame);
            if (id == PK_NONE) {
                free(frames);
                return pprof_nomem(r);
            }
            frames[count++] = id;
        }
    }
    if (missing_functions)
        pk_warn(r->p, "%zu location lines refer to functions that are not defined",
                missing_functions);
    *frames_out = frames;
    return PK_OK;
}

/* What a sample's labels say of its thread: the name it is shown by (`thread`), its own name
 * (`thread_name` when present, else the shown one) and its ids. Labels that agree in all four
 * are one thread; threads sharing a name and ids are still told apart by the name shown. */
typedef struct thread_key {
    uint32_t shown, name;
    int64_t pid, tid;
} thread_key;

typedef struct thread_table {
    pk_u64map by_hash;
    thread_key *keys; /* by thread index */
    size_t capacity;
} thread_table;

static uint32_t find_thread(pk_profile *p, thread_table *table, const thread_key *key)
{
    int64_t packed[4] = {key->shown, key->name, key->pid, key->tid};
    uint64_t hash = pk_hash_bytes(packed, sizeof packed);
    uint32_t *found = pk_u64map_find(&table->by_hash, hash);
    if (found && memcmp(&table->keys[*found], key, sizeof *key) == 0)
        return *found;
    uint32_t index = pk_add_thread(p, key->name, key->pid, key->tid);
    if (index == PK_NONE || !PK_ARRAY_RESERVE(table->keys, table->capacity, (size_t)index + 1))
        return PK_NONE;
    table->keys[index] = *key;
    if (!found) {
        uint32_t *slot;
        bool inserted;
        if (!pk_u64map_put(&table->by_hash, hash, index, &slot, &inserted))
            return PK_NONE;
    }
    return index;
}

static pk_status build_threads(pprof_reader *r)
{
    if (r->row_count == 0)
        return PK_OK;
    if (!pprof_label_sets_start(r))
        return pprof_nomem(r);
    thread_table threads = {0};
    pk_u64map_init(&threads.by_hash);
    pk_label *kept = NULL; /* a set's labels other than the thread's */
    size_t kept_capacity = 0;
    pk_status st = PK_OK;
    for (size_t i = 0; i < r->label_set_count && st == PK_OK; i++) {
        label_set *set = &r->label_sets[i];
        thread_key key;
        memset(&key, 0, sizeof key); /* compared bytewise */
        key.pid = key.tid = -1;
        bool has_own_name = false;
        size_t kept_count = 0;
        if (!PK_ARRAY_RESERVE(kept, kept_capacity, set->count)) {
            st = pprof_nomem(r);
            break;
        }
        for (uint32_t k = 0; k < set->count && st == PK_OK; k++) {
            const int64_t *v = r->label_values + ((size_t)set->first + k) * 4;
            uint32_t label_key, value, unit;
            st = resolve_string(r, v[0], set->at, "label key", &label_key);
            if (st == PK_OK)
                st = resolve_string(r, v[1], set->at, "label value", &value);
            if (st == PK_OK)
                st = resolve_string(r, v[3], set->at, "label unit", &unit);
            if (st != PK_OK)
                break;
            /* by content: a table may hold the same string at several indexes */
            const char *k_text = pk_str(r->p, label_key);
            if (value && strcmp(k_text, LABEL_THREAD) == 0) {
                key.shown = value;
            } else if (v[1] != 0 && strcmp(k_text, LABEL_THREAD_NAME) == 0) {
                /* a string label, even an empty one (a "" entry other than string 0) */
                key.name = value;
                has_own_name = true;
            } else if (!value && strcmp(k_text, LABEL_PID) == 0) {
                key.pid = v[2];
            } else if (!value && strcmp(k_text, LABEL_TID) == 0) {
                key.tid = v[2];
            } else if (v[1] != 0) {
                /* a string label: str is set (string 0 would make it a number, as pprof reads
                 * it) */
                kept[kept_count++] = (pk_label){label_key, value, 0, 0};
            } else {
                kept[kept_count++] = (pk_label){label_key, PK_NONE, v[2], unit};
            }
        }
        if (st != PK_OK)
            break;
        set->labels = PK_NONE;
        if (kept_count &&
            (set->labels = pk_intern_label_set(r->p, kept, kept_count)) == PK_NONE) {
            st = pprof_nomem(r);
            break;
        }
        if (!has_own_name)
            key.name = key.shown;
        /* sets without thread labels get the default thread when a row uses them */
        set->thread = PK_NONE;
        if (key.shown != 0 || has_own_name || key.pid >= 0 || key.tid >= 0) {
            set->thread = find_thread(r->p, &threads, &key);
            if (set->thread == PK_NONE)
                st = pprof_nomem(r);
        }
    }
    free(kept);
    free(threads.keys);
    pk_u64map_free(&threads.by_hash);
    return st;
}

static pk_status build_value_types(pprof_reader *r)
{
    size_t n = r->sample_type_count;
    if (r->values_fixed && r->values_per_sample != n && !r->lenient)
        return pprof_damage(r, r->values_fixed_at,
                            "sample has %zu values but the profile has %zu sample types",
                            r->values_per_sample, n);
    if (n > PK_MAX_VALUES) {
        pk_warn(r->p, "%zu sample types; only the first %d are kept", n, PK_MAX_VALUES);
        n = PK_MAX_VALUES;
    }
    uint32_t default_name = 0;
    pk_status st = resolve_string(r, r->default_sample_type.index, r->default_sample_type.at,
                                  "default_sample_type", &default_name);
    if (st != PK_OK)
        return st;
    uint32_t chosen = PK_NONE;
    for (size_t i = 0; i < n; i++) {
        uint32_t type, unit;
        st = resolve_string(r, r->sample_types[i].type, r->sample_types[i].at, "sample type",
                            &type);
        if (st == PK_OK)
            st = resolve_string(r, r->sample_types[i].unit, r->sample_types[i].at, "sample unit",
                                &unit);
        if (st != PK_OK)
            return st;
        uint32_t index = pk_add_value_type(r->p, pk_str(r->p, type), pk_str(r->p, unit));
        if (index == PK_NONE)
            return pprof_nomem(r);
        if (default_name && type == default_name && chosen == PK_NONE)
            chosen = index;
    }
    /* without a default, pprof shows the last sample type */
    if (n > 0)
        pk_set_default_value(r->p, chosen != PK_NONE ? chosen : (uint32_t)(n - 1));
    return PK_OK;
}

static pk_status set_property_from(pprof_reader *r, const char *key, deferred_string ref)
{
    if (ref.index == 0)
        return PK_OK;
    uint32_t s = 0;
    pk_status st = resolve_string(r, ref.index, ref.at, key, &s);
    if (st != PK_OK)
        return st;
    if (s && pk_property_set(r->p, key, pk_str(r->p, s)) != PK_OK)
        return pprof_nomem(r);
    return PK_OK;
}

/* A comment "key=value" (a short key without spaces) becomes a property; false when it is a
 * plain comment. */
static bool comment_property(pprof_reader *r, const char *text, pk_status *st)
{
    const char *eq = strchr(text, '=');
    size_t key_len = eq ? (size_t)(eq - text) : 0;
    if (!eq || key_len == 0 || key_len >= 128 || memchr(text, ' ', key_len) ||
        memchr(text, '\n', key_len))
        return false;
    char key[128];
    memcpy(key, text, key_len);
    key[key_len] = '\0';
    if (strcmp(key, COMMENT_PRODUCT) == 0 && !pk_metadata_get(r->p)->product) {
        pk_metadata_of(r->p)->product = pk_intern_cstr(r->p, eq + 1);
        if (pk_metadata_get(r->p)->product == PK_NONE)
            *st = pprof_nomem(r);
    } else if (pk_property_set(r->p, key, eq + 1) != PK_OK) {
        *st = pprof_nomem(r);
    }
    return true;
}

static pk_status build_metadata(pprof_reader *r)
{
    pk_metadata *meta = pk_metadata_of(r->p);
    pk_status st = resolve_string(r, r->period_type_name.index, r->period_type_name.at,
                                  "period_type", &meta->period_type);
    if (st == PK_OK)
        st = resolve_string(r, r->period_type_unit.index, r->period_type_unit.at,
                            "period_type unit", &meta->period_unit);
    if (st != PK_OK)
        return st;
    meta->period = r->period;
    if (r->has_time && r->time_nanos != 0) {
        meta->start_time = r->time_nanos;
        if (r->duration_nanos > 0)
            meta->end_time = pk_add_saturating(r->time_nanos, r->duration_nanos);
    } else if (r->duration_nanos > 0) {
        char text[32];
        snprintf(text, sizeof text, "%" PRId64, r->duration_nanos);
        if (pk_property_set(r->p, PROPERTY_DURATION, text) != PK_OK)
            return pprof_nomem(r);
    }
    st = set_property_from(r, PROPERTY_DROP_FRAMES, r->drop_frames);
    if (st == PK_OK)
        st = set_property_from(r, PROPERTY_KEEP_FRAMES, r->keep_frames);
    if (st == PK_OK)
        st = set_property_from(r, PROPERTY_DOC_URL, r->doc_url);
    if (st != PK_OK)
        return st;
    /* comments "key=value" become properties; the others are kept together, one per line */
    pk_buffer plain = PK_BUFFER_INIT;
    for (size_t i = 0; i < r->comment_count && st == PK_OK; i++) {
        uint32_t s;
        st = resolve_string(r, r->comments[i].index, r->comments[i].at, "comment", &s);
        if (st != PK_OK)
            break;
        const char *text = pk_str(r->p, s);
        if (comment_property(r, text, &st))
            continue;
        if (plain.len)
            pk_buffer_byte(&plain, '\n');
        pk_buffer_append(&plain, text, strlen(text));
    }
    if (st == PK_OK && plain.len) {
        if (!pk_buffer_terminate(&plain) ||
            pk_property_set(r->p, PROPERTY_COMMENT, (const char *)plain.data) != PK_OK)
            st = pprof_nomem(r);
    }
    pk_buffer_free(&plain);
    return st;
}

/* Dense index of a defined location ID, or UINT32_MAX. IDs written densely 1..N, as pprof
 * does, are found without hashing. */
static uint32_t find_location(const pprof_reader *r, uint64_t id)
{
    if (id >= 1 && id <= r->location_count && r->locations[id - 1].id == id)
        return (uint32_t)(id - 1);
    uint32_t *index = pk_u64map_find(&r->location_ids, id);
    return index ? *index : UINT32_MAX;
}

/* The model stack of a row's location IDs (leaf first in the key), interned as one run: a
 * stack costs its own frames, not a stack per prefix. Sets *missing, with the ID, when one is
 * not defined. */
static pk_status row_stack(pprof_reader *r, const uint8_t *key, const uint8_t *end,
                           const uint32_t *frames, uint64_t **ids, size_t *ids_capacity,
                           uint32_t **run, size_t *run_capacity, uint32_t *stack_out,
                           bool *missing, uint64_t *missing_id)
{
    size_t depth = 0;
    uint64_t id;
    while (key < end && pk_varint_decode(&key, end, &id) == PK_VARINT_OK) {
        if (!PK_ARRAY_RESERVE(*ids, *ids_capacity, depth + 1))
            return pprof_nomem(r);
        (*ids)[depth++] = id;
    }
    size_t length = 0;
    for (size_t i = depth; i-- > 0;) {
        uint32_t index = find_location(r, (*ids)[i]);
        if (index == UINT32_MAX) {
            *missing = true;
            *missing_id = (*ids)[i];
            return PK_OK;
        }
        const location_entry *loc = &r->locations[index];
        if (!PK_ARRAY_RESERVE(*run, *run_capacity, length + loc->frame_count))
            return pprof_nomem(r);
        assert(loc->frame_count == 0 || frames); /* a location's frames are in frames */
        for (uint32_t k = 0; k < loc->frame_count; k++)
            (*run)[length++] = frames[loc->first_frame + k];
    }
    uint32_t stack = pk_intern_stack_frames(r->p, PK_NONE, *run, length);
    if (stack == PK_NONE && length > 0)
        return pprof_nomem(r);
    *stack_out = stack;
    return PK_OK;
}

/* The thread of samples without thread labels: one, named after the program. */
static uint32_t default_thread(pprof_reader *r, uint32_t *thread)
{
    if (*thread == PK_NONE) {
        uint32_t product = pk_metadata_get(r->p)->product;
        uint32_t name = product ? product : pk_intern_cstr(r->p, "main");
        *thread = name == PK_NONE ? PK_NONE : pk_add_thread(r->p, name, -1, -1);
    }
    return *thread;
}

static pk_status build_samples(pprof_reader *r, const uint32_t *frames)
{
    uint64_t *ids = NULL;
    size_t ids_capacity = 0;
    uint32_t *run = NULL;
    size_t run_capacity = 0;
    size_t lost_rows = 0;
    uint32_t unlabelled_thread = PK_NONE;
    pk_status st = PK_OK;
    for (size_t row = 0; row < r->row_count && st == PK_OK; row++) {
        const uint8_t *key = r->row_keys + r->row_key_start[row];
        const uint8_t *end = r->row_keys + r->row_key_start[row + 1];
        uint64_t labels = 0;
        pk_varint_decode(&key, end, &labels);
        uint32_t stack = PK_NONE;
        bool missing = false;
        uint64_t missing_id = 0;
        st = row_stack(r, key, end, frames, &ids, &ids_capacity, &run, &run_capacity, &stack,
                       &missing, &missing_id);
        if (st != PK_OK)
            break;
        if (missing) {
            if (!r->lenient)
                st = pprof_damage(r, r->row_at[row],
                                  "sample refers to location id %" PRIu64 ", which is not defined",
                                  missing_id);
            lost_rows++;
            continue;
        }
        int64_t values[PK_MAX_VALUES] = {0};
        size_t nv = r->stored_values;
        size_t types = pk_value_type_count(r->p);
        for (size_t k = 0; k < nv && k < types; k++)
            values[k] = r->row_values[row * nv + k];
        uint32_t thread = r->label_sets[labels].thread;
        if (thread == PK_NONE && default_thread(r, &unlabelled_thread) == PK_NONE) {
            st = pprof_nomem(r);
            break;
        }
        if (thread == PK_NONE)
            thread = unlabelled_thread;
        /* Without sample types there are no values to add (nor an array to add them to). */
        st = pk_add_sample_labeled(r->p, thread, stack, r->label_sets[labels].labels,
                                   types ? values : NULL);
        if (st != PK_OK)
            st = pk_error_set(r->err, st, PK_NO_OFFSET, "cannot add a sample");
    }
    if (st == PK_OK && lost_rows)
        pk_warn(r->p, "%zu samples dropped: they refer to locations that were not read",
                lost_rows);
    free(ids);
    free(run);
    return st;
}

pk_status pprof_build_model(pprof_reader *r)
{
    pk_status st = build_value_types(r);
    if (st == PK_OK)
        st = build_resources(r);
    if (st == PK_OK)
        st = build_functions(r);
    if (st != PK_OK)
        return st;
    uint32_t *frames = NULL;
    st = build_frames(r, &frames);
    if (st != PK_OK)
        return st;
    st = build_threads(r);
    if (st == PK_OK)
        st = build_samples(r, frames);
    if (st == PK_OK)
        st = build_metadata(r);
    free(frames);
    return st;
}

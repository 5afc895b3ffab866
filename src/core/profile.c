/* SPDX-License-Identifier: MIT */
/* The profile model: interning tables, sample rows, metadata and warnings. Memory events are
 * in memory.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arith.h"
#include "core/array.h"
#include "core/distinct.h"
#include "core/memory_values.h"
#include "core/profile_internal.h"

pk_profile *pk_profile_new(void)
{
    pk_profile *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (pk_strtab_init(&p->strings) != 0) {
        free(p);
        return NULL;
    }
    pk_index_init(&p->resource_index);
    pk_index_init(&p->function_index);
    pk_index_init(&p->frame_index);
    pk_index_init(&p->label_set_index);
    pk_index_init(&p->labeled_rows);
    pk_u64map_init(&p->sample_index);
    pk_u64map_init(&p->property_index);
    pk_u64map_init(&p->call_edge_index);
    pk_u64map64_init(&p->memory.live);
    pk_u64map64_init(&p->memory.live_big_sizes);
    pk_u64map64_init(&p->memory.live_orders);
    pk_u64map_init(&p->memory.site_index);
    p->metadata.start_time = PK_TIME_UNKNOWN;
    p->metadata.end_time = PK_TIME_UNKNOWN;
    return p;
}

void pk_profile_free(pk_profile *p)
{
    if (!p)
        return;
    pk_strtab_free(&p->strings);
    free(p->threads);
    free(p->resources);
    pk_index_free(&p->resource_index);
    free(p->functions);
    pk_index_free(&p->function_index);
    free(p->frames);
    pk_index_free(&p->frame_index);
    pk_stack_store_free(&p->stacks);
    free(p->labels);
    free(p->label_sets);
    pk_index_free(&p->label_set_index);
    free(p->sample_label_sets);
    pk_index_free(&p->labeled_rows);
    free(p->sample_threads);
    free(p->sample_stacks);
    free(p->sample_orders);
    free(p->sample_values);
    pk_u64map_free(&p->sample_index);
    free(p->stack_rows);
    free(p->call_edges);
    pk_u64map_free(&p->call_edge_index);
    pk_memory_table_free(&p->memory);
    pk_timeline_table_free(&p->timeline);
    pk_counter_table_free(&p->counters);
    free(p->property_keys);
    free(p->property_values);
    pk_u64map_free(&p->property_index);
    for (size_t i = 0; i < p->warning_count; i++)
        free(p->warnings[i]);
    free(p);
}

/* ---- strings ---------------------------------------------------------------------------- */

uint32_t pk_intern(pk_profile *p, const char *s, size_t len)
{
    uint32_t id = pk_strtab_intern(&p->strings, s, len);
    return id == UINT32_MAX ? PK_NONE : id;
}

uint32_t pk_intern_cstr(pk_profile *p, const char *s)
{
    return pk_intern(p, s ? s : "", s ? strlen(s) : 0);
}

uint32_t pk_intern_printf(pk_profile *p, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return PK_NONE;
    if ((size_t)n < sizeof small)
        return pk_intern(p, small, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big)
        return PK_NONE;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    uint32_t id = pk_intern(p, big, (size_t)n);
    free(big);
    return id;
}

const char *pk_str(const pk_profile *p, uint32_t id)
{
    return id < p->strings.count ? p->strings.entries[id].text : "";
}

size_t pk_str_len(const pk_profile *p, uint32_t id)
{
    return id < p->strings.count ? p->strings.entries[id].len : 0;
}

size_t pk_string_count(const pk_profile *p)
{
    return p->strings.count;
}

/* ---- value types --------------------------------------------------------------------------- */

uint32_t pk_add_value_type(pk_profile *p, const char *name, const char *unit)
{
    if (p->value_count == PK_MAX_VALUES)
        return PK_NONE;
    uint32_t n = pk_intern_cstr(p, name), u = pk_intern_cstr(p, unit);
    if (n == PK_NONE || u == PK_NONE)
        return PK_NONE;
    /* A value declared after rows exist (a reader that meets a new event type mid-stream)
     * widens every row by a cell of 0, from the last row back so that no row overwrites one
     * not yet moved. */
    if (p->sample_count > 0) {
        size_t old = p->value_count, wide = old + 1;
        if (!PK_ARRAY_RESERVE(p->sample_values, p->sample_values_capacity,
                              p->sample_count * wide))
            return PK_NONE;
        for (size_t row = p->sample_count; row-- > 0;) {
            memmove(&p->sample_values[row * wide], &p->sample_values[row * old],
                    old * sizeof *p->sample_values);
            p->sample_values[row * wide + old] = 0;
        }
    }
    p->value_types[p->value_count] = (pk_value_type){n, u};
    return p->value_count++;
}

size_t pk_value_type_count(const pk_profile *p)
{
    return p->value_count;
}

const pk_value_type *pk_value_type_at(const pk_profile *p, uint32_t index)
{
    return index < p->value_count ? &p->value_types[index] : NULL;
}

uint32_t pk_value_find(const pk_profile *p, const char *name)
{
    for (uint32_t i = 0; i < p->value_count; i++) {
        if (strcmp(pk_str(p, p->value_types[i].name), name) == 0)
            return i;
    }
    return PK_NONE;
}

uint32_t pk_value_lookup(const pk_profile *p, const char *name)
{
    uint32_t v = pk_value_find(p, name);
    const char *renamed = v == PK_NONE ? pk_memory_value_renamed(name) : NULL;
    return renamed ? pk_value_find(p, renamed) : v;
}

void pk_set_default_value(pk_profile *p, uint32_t index)
{
    if (index < p->value_count)
        p->default_value = index;
}

uint32_t pk_default_value(const pk_profile *p)
{
    return p->default_value;
}

/* ---- threads ------------------------------------------------------------------------------- */

uint32_t pk_add_thread(pk_profile *p, uint32_t name, int64_t pid, int64_t tid)
{
    if (p->thread_count >= PK_NONE || !PK_ARRAY_RESERVE(p->threads, p->thread_capacity,
                                                        p->thread_count + 1))
        return PK_NONE;
    p->threads[p->thread_count] = (pk_thread){name, pid, tid};
    return (uint32_t)p->thread_count++;
}

size_t pk_thread_count(const pk_profile *p)
{
    return p->thread_count;
}

const pk_thread *pk_thread_at(const pk_profile *p, uint32_t index)
{
    return index < p->thread_count ? &p->threads[index] : NULL;
}

void pk_thread_rename(pk_profile *p, uint32_t index, uint32_t name)
{
    if (index < p->thread_count)
        p->threads[index].name = name;
}

/* ---- interned records ----------------------------------------------------------------------
 * Resources, functions and frames are plain structs interned on every field. Each is hashed
 * over its fields one by one (never over padding). */

static bool resource_equal(const void *context, uint32_t entry, const void *key)
{
    const pk_resource *a = &((const pk_profile *)context)->resources[entry], *b = key;
    return a->name == b->name && a->path == b->path && a->build_id == b->build_id &&
           a->start == b->start && a->limit == b->limit && a->offset == b->offset;
}

static bool function_equal(const void *context, uint32_t entry, const void *key)
{
    const pk_function *a = &((const pk_profile *)context)->functions[entry], *b = key;
    return a->name == b->name && a->file == b->file && a->start_line == b->start_line &&
           a->resource == b->resource && a->start_column == b->start_column;
}

static bool frame_equal(const void *context, uint32_t entry, const void *key)
{
    const pk_frame *a = &((const pk_profile *)context)->frames[entry], *b = key;
    return a->function == b->function && a->line == b->line && a->address == b->address &&
           a->resource == b->resource && a->flags == b->flags;
}

uint32_t pk_intern_resource(pk_profile *p, const pk_resource *r)
{
    uint64_t fields[6] = {r->name, r->path, r->build_id, r->start, r->limit, r->offset};
    uint64_t hash = pk_hash_bytes(fields, sizeof fields);
    uint32_t found = pk_index_find(&p->resource_index, hash, resource_equal, p, r);
    if (found != UINT32_MAX)
        return found;
    if (p->resource_count >= PK_NONE - 1 ||
        !PK_ARRAY_RESERVE(p->resources, p->resource_capacity, p->resource_count + 1) ||
        !pk_index_insert(&p->resource_index, hash, (uint32_t)p->resource_count))
        return PK_NONE;
    p->resources[p->resource_count] = *r;
    return (uint32_t)p->resource_count++;
}

size_t pk_resource_count(const pk_profile *p)
{
    return p->resource_count;
}

const pk_resource *pk_resource_at(const pk_profile *p, uint32_t index)
{
    return index < p->resource_count ? &p->resources[index] : NULL;
}

uint32_t pk_intern_function(pk_profile *p, const pk_function *f)
{
    uint32_t fields[5] = {f->name, f->file, f->start_line, f->resource, f->start_column};
    uint64_t hash = pk_hash_bytes(fields, sizeof fields);
    uint32_t found = pk_index_find(&p->function_index, hash, function_equal, p, f);
    if (found != UINT32_MAX) {
        p->functions[found].flags |= f->flags;
        return found;
    }
    if (p->function_count >= PK_NONE - 1 ||
        !PK_ARRAY_RESERVE(p->functions, p->function_capacity, p->function_count + 1) ||
        !pk_index_insert(&p->function_index, hash, (uint32_t)p->function_count))
        return PK_NONE;
    p->functions[p->function_count] = *f;
    return (uint32_t)p->function_count++;
}

size_t pk_function_count(const pk_profile *p)
{
    return p->function_count;
}

const pk_function *pk_function_at(const pk_profile *p, uint32_t index)
{
    return index < p->function_count ? &p->functions[index] : NULL;
}

uint32_t pk_intern_frame(pk_profile *p, const pk_frame *f)
{
    if (f->function >= p->function_count)
        return PK_NONE;
    uint64_t fields[4] = {((uint64_t)f->function << 32) | f->line, f->address,
                          ((uint64_t)f->resource << 32) | f->flags, 0};
    uint64_t hash = pk_hash_bytes(fields, sizeof fields);
    uint32_t found = pk_index_find(&p->frame_index, hash, frame_equal, p, f);
    if (found != UINT32_MAX)
        return found;
    if (p->frame_count >= PK_NONE - 1 ||
        !PK_ARRAY_RESERVE(p->frames, p->frame_capacity, p->frame_count + 1) ||
        !pk_index_insert(&p->frame_index, hash, (uint32_t)p->frame_count))
        return PK_NONE;
    p->frames[p->frame_count] = *f;
    return (uint32_t)p->frame_count++;
}

size_t pk_frame_count(const pk_profile *p)
{
    return p->frame_count;
}

const pk_frame *pk_frame_at(const pk_profile *p, uint32_t index)
{
    return index < p->frame_count ? &p->frames[index] : NULL;
}

const char *pk_frame_name(const pk_profile *p, uint32_t frame)
{
    if (frame >= p->frame_count)
        return "";
    return pk_str(p, p->functions[p->frames[frame].function].name);
}

/* ---- stacks --------------------------------------------------------------------------------- */

uint32_t pk_intern_stack(pk_profile *p, uint32_t prefix, uint32_t frame)
{
    return pk_stack_store_intern(&p->stacks, prefix, &frame, 1, p->frame_count);
}

uint32_t pk_intern_stack_frames(pk_profile *p, uint32_t prefix, const uint32_t *frames,
                                size_t count)
{
    return pk_stack_store_intern(&p->stacks, prefix, frames, count, p->frame_count);
}

uint32_t pk_add_distinct_stack(pk_profile *p, const uint32_t *frames, size_t count)
{
    return pk_stack_store_append(&p->stacks, PK_NONE, frames, count, p->frame_count);
}

bool pk_take_stack_pool(pk_profile *p, uint32_t *pool, size_t count, size_t capacity)
{
    return pk_stack_store_take_pool(&p->stacks, pool, count, capacity);
}

uint32_t pk_add_distinct_run(pk_profile *p, size_t first, size_t count)
{
    return pk_stack_store_append_run(&p->stacks, PK_NONE, first, count, p->frame_count);
}

bool pk_profile_complete(pk_profile *p)
{
    return pk_stack_store_index(&p->stacks);
}

uint32_t pk_find_stack_frames(const pk_profile *p, uint32_t prefix, const uint32_t *frames,
                              size_t count)
{
    return pk_stack_store_find(&p->stacks, prefix, frames, count);
}

size_t pk_stack_count(const pk_profile *p)
{
    return p->stacks.count;
}

uint32_t pk_stack_depth(const pk_profile *p, uint32_t stack)
{
    return stack < p->stacks.count ? p->stacks.entries[stack].depth : 0;
}

uint32_t pk_stack_leaf(const pk_profile *p, uint32_t stack)
{
    if (stack >= p->stacks.count)
        return PK_NONE;
    const pk_stack_entry *e = &p->stacks.entries[stack];
    return p->stacks.pool[e->first + e->length - 1];
}

size_t pk_stack_frames(const pk_profile *p, uint32_t stack, uint32_t *frames, size_t capacity)
{
    size_t depth = pk_stack_depth(p, stack);
    if (depth > capacity)
        return depth;
    size_t i = depth;
    for (uint32_t s = stack; s != PK_NONE;) {
        const pk_stack_entry *e = &p->stacks.entries[s];
        i -= e->length;
        memcpy(frames + i, p->stacks.pool + e->first, e->length * sizeof *frames);
        s = e->prefix;
    }
    return depth;
}

size_t pk_stack_run(const pk_profile *p, uint32_t stack, uint32_t *prefix,
                    const uint32_t **frames)
{
    if (stack >= p->stacks.count) {
        *prefix = PK_NONE;
        *frames = NULL;
        return 0;
    }
    const pk_stack_entry *e = &p->stacks.entries[stack];
    *prefix = e->prefix;
    *frames = p->stacks.pool + e->first;
    return e->length;
}

/* ---- label sets ----------------------------------------------------------------------------- */

static uint64_t labels_hash(const pk_label *labels, size_t count)
{
    uint64_t h = count;
    for (size_t i = 0; i < count; i++) {
        const pk_label *l = &labels[i];
        h = pk_hash_u64(h ^ (((uint64_t)l->key << 32) | l->str));
        h = pk_hash_u64(h ^ (uint64_t)l->num);
        h = pk_hash_u64(h ^ l->unit);
    }
    return h;
}

static bool label_equal(const pk_label *a, const pk_label *b)
{
    return a->key == b->key && a->str == b->str && a->num == b->num && a->unit == b->unit;
}

typedef struct label_key {
    const pk_label *labels;
    size_t count;
} label_key;

static bool label_set_equal(const void *context, uint32_t entry, const void *key)
{
    const pk_profile *p = context;
    const label_key *k = key;
    const struct pk_label_run *run = &p->label_sets[entry];
    if (run->count != k->count)
        return false;
    for (size_t i = 0; i < k->count; i++)
        if (!label_equal(&p->labels[run->first + i], &k->labels[i]))
            return false;
    return true;
}

uint32_t pk_intern_label_set(pk_profile *p, const pk_label *labels, size_t count)
{
    if (count == 0 || p->label_count > UINT32_MAX - count || p->label_set_count >= PK_NONE - 1)
        return PK_NONE;
    for (size_t i = 0; i < count; i++) {
        const pk_label *l = &labels[i];
        /* a string label's num and unit are not looked at (they are made 0 below) */
        if (l->key >= p->strings.count || (l->str != PK_NONE && l->str >= p->strings.count) ||
            (l->str == PK_NONE && l->unit >= p->strings.count))
            return PK_NONE;
    }
    /* Appended, then ordered by key in place (sets are small: insertion sort, which keeps the
     * labels of one key in the order given); dropped again when the set exists. */
    if (!PK_ARRAY_RESERVE(p->labels, p->label_capacity, p->label_count + count))
        return PK_NONE;
    pk_label *run = p->labels + p->label_count;
    for (size_t i = 0; i < count; i++) {
        pk_label l = labels[i];
        if (l.str != PK_NONE) {
            l.num = 0;
            l.unit = 0;
        }
        size_t k = i;
        for (; k > 0 && run[k - 1].key > l.key; k--)
            run[k] = run[k - 1];
        run[k] = l;
    }
    label_key key = {run, count};
    uint64_t hash = labels_hash(run, count);
    uint32_t found = pk_index_find(&p->label_set_index, hash, label_set_equal, p, &key);
    if (found != UINT32_MAX)
        return found;
    if (!PK_ARRAY_RESERVE(p->label_sets, p->label_set_capacity, p->label_set_count + 1) ||
        !pk_index_insert(&p->label_set_index, hash, (uint32_t)p->label_set_count))
        return PK_NONE;
    p->label_sets[p->label_set_count] =
        (struct pk_label_run){(uint32_t)p->label_count, (uint32_t)count};
    p->label_count += count;
    return (uint32_t)p->label_set_count++;
}

size_t pk_label_set_count(const pk_profile *p)
{
    return p->label_set_count;
}

size_t pk_label_set_at(const pk_profile *p, uint32_t set, const pk_label **labels)
{
    if (set >= p->label_set_count) {
        *labels = NULL;
        return 0;
    }
    *labels = p->labels + p->label_sets[set].first;
    return p->label_sets[set].count;
}

/* ---- samples -------------------------------------------------------------------------------- */

/* Makes stack_rows cover every stack; false when memory runs out. */
static bool cover_stacks(pk_profile *p)
{
    size_t count = p->stacks.count;
    if (p->stack_rows_count >= count)
        return true;
    if (!PK_ARRAY_RESERVE(p->stack_rows, p->stack_rows_capacity, count))
        return false;
    for (size_t s = p->stack_rows_count; s < count; s++)
        p->stack_rows[s] = PK_NONE;
    p->stack_rows_count = count;
    return true;
}

/* Places in stack_rows and sample_index the rows appended by pk_add_distinct_sample since they
 * were last brought up to date; false when memory runs out. */
static bool index_appended_rows(pk_profile *p)
{
    if (!cover_stacks(p))
        return false;
    for (size_t row = p->indexed_rows; row < p->sample_count; row++) {
        uint32_t thread = p->sample_threads[row], stack = p->sample_stacks[row];
        if (stack != PK_NONE && p->stack_rows[stack] == PK_NONE) {
            p->stack_rows[stack] = (uint32_t)row;
            continue;
        }
        uint32_t *slot;
        bool inserted;
        if (!pk_u64map_put(&p->sample_index, ((uint64_t)thread << 32) | stack, (uint32_t)row,
                           &slot, &inserted)) {
            p->indexed_rows = row;
            return false;
        }
    }
    p->indexed_rows = p->sample_count;
    return true;
}

static bool row_addable(const pk_profile *p, uint32_t thread, uint32_t stack)
{
    return thread < p->thread_count && (stack == PK_NONE || stack < p->stacks.count) &&
           p->sample_count < PK_NONE - 1;
}

/* A new row of zeros, not indexed; SIZE_MAX when memory runs out. */
static size_t append_row(pk_profile *p, uint32_t thread, uint32_t stack)
{
    size_t row = p->sample_count;
    size_t capacity = p->sample_capacity;
    bool ok = PK_ARRAY_RESERVE(p->sample_threads, capacity, row + 1);
    capacity = p->sample_capacity;
    ok = ok && PK_ARRAY_RESERVE(p->sample_stacks, capacity, row + 1);
    capacity = p->sample_capacity;
    ok = ok && PK_ARRAY_RESERVE(p->sample_orders, capacity, row + 1);
    ok = ok && (p->value_count == 0 ||
                PK_ARRAY_RESERVE(p->sample_values, p->sample_values_capacity,
                                 (row + 1) * p->value_count));
    ok = ok && (!p->sample_label_sets ||
                PK_ARRAY_RESERVE(p->sample_label_sets, p->sample_label_sets_capacity, row + 1));
    if (!ok)
        return SIZE_MAX;
    if (p->sample_label_sets)
        p->sample_label_sets[row] = PK_NONE;
    p->sample_capacity = capacity;
    p->sample_threads[row] = thread;
    p->sample_stacks[row] = stack;
    p->sample_orders[row] = p->next_order;
    for (uint32_t v = 0; v < p->value_count; v++)
        p->sample_values[row * p->value_count + v] = 0;
    p->sample_count++;
    return row;
}

size_t pk_sample_row(pk_profile *p, uint32_t thread, uint32_t stack)
{
    uint64_t key = ((uint64_t)thread << 32) | stack;
    if (!row_addable(p, thread, stack))
        return SIZE_MAX;
    if (p->indexed_rows < p->sample_count && !index_appended_rows(p))
        return SIZE_MAX;
    /* The stack's first row, when it is this thread's; the stack's slot when it has none. */
    bool first_of_stack = false;
    if (stack != PK_NONE) {
        if (!cover_stacks(p))
            return SIZE_MAX;
        uint32_t first = p->stack_rows[stack];
        if (first != PK_NONE && p->sample_threads[first] == thread)
            return first;
        first_of_stack = first == PK_NONE;
    }
    if (!first_of_stack) {
        uint32_t *slot;
        bool inserted;
        if (!pk_u64map_put(&p->sample_index, key, (uint32_t)p->sample_count, &slot, &inserted))
            return SIZE_MAX;
        if (!inserted)
            return *slot;
    }
    size_t row = append_row(p, thread, stack);
    if (row == SIZE_MAX) {
        if (!first_of_stack)
            pk_u64map_remove(&p->sample_index, key, NULL);
        return SIZE_MAX;
    }
    if (first_of_stack)
        p->stack_rows[stack] = (uint32_t)row;
    p->indexed_rows = p->sample_count;
    return row;
}

static uint64_t labeled_row_hash(uint32_t thread, uint32_t stack, uint32_t label_set)
{
    return pk_hash_u64(pk_hash_u64(((uint64_t)thread << 32) | stack) ^ label_set);
}

typedef struct labeled_row_key {
    uint32_t thread, stack, label_set;
} labeled_row_key;

static bool labeled_row_equal(const void *context, uint32_t entry, const void *key)
{
    const pk_profile *p = context;
    const labeled_row_key *k = key;
    return p->sample_threads[entry] == k->thread && p->sample_stacks[entry] == k->stack &&
           p->sample_label_sets[entry] == k->label_set;
}

size_t pk_sample_row_labeled(pk_profile *p, uint32_t thread, uint32_t stack, uint32_t label_set)
{
    if (label_set == PK_NONE)
        return pk_sample_row(p, thread, stack);
    if (!row_addable(p, thread, stack) || label_set >= p->label_set_count)
        return SIZE_MAX;
    labeled_row_key key = {thread, stack, label_set};
    uint64_t hash = labeled_row_hash(thread, stack, label_set);
    if (p->sample_label_sets) {
        uint32_t found = pk_index_find(&p->labeled_rows, hash, labeled_row_equal, p, &key);
        if (found != UINT32_MAX)
            return found;
    } else {
        /* The first row with labels: every row before it has none. */
        if (!PK_ARRAY_RESERVE(p->sample_label_sets, p->sample_label_sets_capacity,
                              p->sample_count + 1))
            return SIZE_MAX;
        for (size_t row = 0; row < p->sample_count; row++)
            p->sample_label_sets[row] = PK_NONE;
    }
    /* Rows appended by pk_add_distinct_sample go into the tables of rows without labels first:
     * the row made here must not be taken for one of them. */
    if (p->indexed_rows < p->sample_count && !index_appended_rows(p))
        return SIZE_MAX;
    size_t row = append_row(p, thread, stack);
    if (row == SIZE_MAX)
        return SIZE_MAX;
    p->sample_label_sets[row] = label_set;
    if (!pk_index_insert(&p->labeled_rows, hash, (uint32_t)row)) {
        p->sample_count--;
        return SIZE_MAX;
    }
    p->indexed_rows = p->sample_count;
    return row;
}

void pk_profile_set_overflow_hook(pk_profile *p, void (*hook)(void *context), void *context)
{
    p->overflow_hook = hook;
    p->overflow_context = context;
}

/* Adds v to a cell, keeping count of the magnitudes added so that an overflow of any later sum
 * over rows is known (pk_values_overflow). */
static void add_to_cell(pk_profile *p, int64_t *cell, uint32_t value, int64_t v)
{
    int64_t sum;
    if (__builtin_add_overflow(*cell, v, &sum)) {
        sum = v > 0 ? INT64_MAX : INT64_MIN;
        p->cell_saturated = true;
    }
    *cell = sum;
    uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint64_t *added = &p->added_magnitude[value];
    *added = *added > UINT64_MAX - magnitude ? UINT64_MAX : *added + magnitude;
    if ((*added > (uint64_t)INT64_MAX || p->cell_saturated) && !p->overflow_noted) {
        p->overflow_noted = true;
        if (p->overflow_hook)
            p->overflow_hook(p->overflow_context);
    }
}

void pk_sample_row_add(pk_profile *p, size_t row, uint32_t value, int64_t v)
{
    if (row >= p->sample_count || value >= p->value_count)
        return;
    add_to_cell(p, &p->sample_values[row * p->value_count + value], value, v);
    p->next_order++;
}

bool pk_values_overflow(const pk_profile *p, uint32_t *value_out)
{
    for (uint32_t v = 0; v < p->value_count; v++) {
        /* Only a value whose additions passed the limit can have rows that do. */
        bool over = p->cell_saturated && p->added_magnitude[v] > (uint64_t)INT64_MAX;
        if (!over && p->added_magnitude[v] > (uint64_t)INT64_MAX) {
            uint64_t sum = 0;
            for (size_t row = 0; row < p->sample_count && !over; row++) {
                int64_t x = p->sample_values[row * p->value_count + v];
                uint64_t m = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
                over = sum > (uint64_t)INT64_MAX - m;
                sum += m;
            }
        }
        if (over) {
            if (value_out)
                *value_out = v;
            return true;
        }
    }
    return false;
}

/* Why a row of (thread, stack) could not be had. */
static pk_status row_failure(const pk_profile *p, uint32_t thread, uint32_t stack)
{
    return thread >= p->thread_count || (stack != PK_NONE && stack >= p->stacks.count)
               ? PK_ERR_USAGE
               : PK_ERR_NOMEM;
}

static void add_row_values(pk_profile *p, size_t row, const int64_t *values)
{
    if (values) {
        int64_t *cells = &p->sample_values[row * p->value_count];
        for (uint32_t v = 0; v < p->value_count; v++)
            if (values[v])
                add_to_cell(p, &cells[v], v, values[v]);
    }
    p->next_order++;
}

pk_status pk_add_sample(pk_profile *p, uint32_t thread, uint32_t stack, const int64_t *values)
{
    size_t row = pk_sample_row(p, thread, stack);
    if (row == SIZE_MAX)
        return row_failure(p, thread, stack);
    add_row_values(p, row, values);
    return PK_OK;
}

pk_status pk_add_sample_labeled(pk_profile *p, uint32_t thread, uint32_t stack,
                                uint32_t label_set, const int64_t *values)
{
    size_t row = pk_sample_row_labeled(p, thread, stack, label_set);
    if (row == SIZE_MAX)
        return label_set != PK_NONE && label_set >= p->label_set_count
                   ? PK_ERR_USAGE
                   : row_failure(p, thread, stack);
    add_row_values(p, row, values);
    return PK_OK;
}

pk_status pk_add_distinct_sample(pk_profile *p, uint32_t thread, uint32_t stack,
                                 const int64_t *values)
{
    size_t row = row_addable(p, thread, stack) ? append_row(p, thread, stack) : SIZE_MAX;
    if (row == SIZE_MAX)
        return row_failure(p, thread, stack);
    add_row_values(p, row, values);
    return PK_OK;
}

pk_status pk_add_sample_value(pk_profile *p, uint32_t thread, uint32_t stack, uint32_t value,
                              int64_t v)
{
    if (value >= p->value_count)
        return PK_ERR_USAGE;
    size_t row = pk_sample_row(p, thread, stack);
    if (row == SIZE_MAX)
        return row_failure(p, thread, stack);
    pk_sample_row_add(p, row, value, v);
    return PK_OK;
}

size_t pk_sample_count(const pk_profile *p)
{
    return p->sample_count;
}

uint32_t pk_sample_thread(const pk_profile *p, size_t row)
{
    return row < p->sample_count ? p->sample_threads[row] : PK_NONE;
}

uint32_t pk_sample_stack(const pk_profile *p, size_t row)
{
    return row < p->sample_count ? p->sample_stacks[row] : PK_NONE;
}

uint32_t pk_sample_label_set(const pk_profile *p, size_t row)
{
    return row < p->sample_count && p->sample_label_sets ? p->sample_label_sets[row] : PK_NONE;
}

const int64_t *pk_sample_values(const pk_profile *p, size_t row)
{
    return row < p->sample_count && p->value_count ? &p->sample_values[row * p->value_count]
                                                   : NULL;
}

uint64_t pk_sample_order(const pk_profile *p, size_t row)
{
    return row < p->sample_count ? p->sample_orders[row] : 0;
}

uint64_t pk_event_order_count(const pk_profile *p)
{
    return p->next_order;
}

int64_t pk_value_total(const pk_profile *p, uint32_t value)
{
    int64_t total = 0;
    if (value >= p->value_count)
        return 0;
    for (size_t row = 0; row < p->sample_count; row++)
        total = pk_add_saturating(total, p->sample_values[row * p->value_count + value]);
    return total;
}

/* ---- metadata, properties, warnings ----------------------------------------------------------- */

pk_metadata *pk_metadata_of(pk_profile *p)
{
    return &p->metadata;
}

const pk_metadata *pk_metadata_get(const pk_profile *p)
{
    return &p->metadata;
}

pk_status pk_property_set(pk_profile *p, const char *key, const char *value)
{
    uint32_t k = pk_intern_cstr(p, key), v = pk_intern_cstr(p, value);
    if (k == PK_NONE || v == PK_NONE)
        return PK_ERR_NOMEM;
    uint32_t *index = pk_u64map_find(&p->property_index, k);
    if (index) {
        p->property_values[*index] = v;
        return PK_OK;
    }
    if (p->property_count >= UINT32_MAX)
        return PK_ERR_NOMEM;
    size_t capacity = p->property_capacity;
    if (!PK_ARRAY_RESERVE(p->property_keys, capacity, p->property_count + 1))
        return PK_ERR_NOMEM;
    capacity = p->property_capacity;
    if (!PK_ARRAY_RESERVE(p->property_values, capacity, p->property_count + 1))
        return PK_ERR_NOMEM;
    p->property_capacity = capacity;
    bool inserted;
    if (!pk_u64map_put(&p->property_index, k, (uint32_t)p->property_count, &index, &inserted))
        return PK_ERR_NOMEM;
    p->property_keys[p->property_count] = k;
    p->property_values[p->property_count] = v;
    p->property_count++;
    return PK_OK;
}

size_t pk_property_count(const pk_profile *p)
{
    return p->property_count;
}

const char *pk_property_key(const pk_profile *p, size_t index)
{
    return index < p->property_count ? pk_str(p, p->property_keys[index]) : NULL;
}

const char *pk_property_value(const pk_profile *p, size_t index)
{
    return index < p->property_count ? pk_str(p, p->property_values[index]) : NULL;
}

const char *pk_property_get(const pk_profile *p, const char *key)
{
    if (!key)
        return NULL;
    uint32_t k = pk_strtab_find(&p->strings, key, strlen(key));
    const uint32_t *index = k == UINT32_MAX ? NULL : pk_u64map_find(&p->property_index, k);
    return index ? pk_str(p, p->property_values[*index]) : NULL;
}

void pk_warn(pk_profile *p, const char *fmt, ...)
{
    if (p->warning_count == PK_MAX_WARNINGS) {
        p->warnings_dropped++;
        return;
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *copy = strdup(buf);
    if (!copy) {
        p->warnings_dropped++;
        return;
    }
    p->warnings[p->warning_count++] = copy;
}

size_t pk_warning_count(const pk_profile *p)
{
    return p->warning_count;
}

size_t pk_warnings_dropped(const pk_profile *p)
{
    return p->warnings_dropped;
}

const char *pk_warning_at(const pk_profile *p, size_t index)
{
    return index < p->warning_count ? p->warnings[index] : NULL;
}

/* Copying one profile's content into another, and summing several profiles. */
#include "analysis/merge.h"

#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"

/* Index maps from src to dst, filled on first use. */
typedef struct append_maps {
    pk_profile *dst;
    const pk_profile *src;
    uint32_t *strings;
    uint32_t *resources;
    uint32_t *functions;
    uint32_t *frames;
    uint32_t *stacks;
    uint32_t *threads;
    pk_u64map thread_by_name; /* dst thread name string -> dst thread */
    bool thread_index_built;
} append_maps;

static uint32_t *new_map(size_t count)
{
    uint32_t *map = malloc((count ? count : 1) * sizeof *map);
    if (map)
        memset(map, 0xFF, (count ? count : 1) * sizeof *map);
    return map;
}

static uint32_t map_string(append_maps *m, uint32_t id)
{
    if (id == PK_NONE || id >= pk_string_count(m->src))
        return id == PK_NONE ? PK_NONE : 0;
    if (m->strings[id] == PK_NONE)
        m->strings[id] = pk_intern(m->dst, pk_str(m->src, id), pk_str_len(m->src, id));
    return m->strings[id];
}

static uint32_t map_resource(append_maps *m, uint32_t id)
{
    if (id == PK_NONE || id >= pk_resource_count(m->src))
        return PK_NONE;
    if (m->resources[id] == PK_NONE) {
        pk_resource r = *pk_resource_at(m->src, id);
        r.name = map_string(m, r.name);
        r.path = map_string(m, r.path);
        r.build_id = map_string(m, r.build_id);
        m->resources[id] = pk_intern_resource(m->dst, &r);
    }
    return m->resources[id];
}

static uint32_t map_function(append_maps *m, uint32_t id)
{
    if (m->functions[id] == PK_NONE) {
        pk_function f = *pk_function_at(m->src, id);
        f.name = map_string(m, f.name);
        f.file = map_string(m, f.file);
        f.resource = map_resource(m, f.resource);
        m->functions[id] = pk_intern_function(m->dst, &f);
    }
    return m->functions[id];
}

static uint32_t map_frame(append_maps *m, uint32_t id)
{
    if (m->frames[id] == PK_NONE) {
        pk_frame f = *pk_frame_at(m->src, id);
        f.function = map_function(m, f.function);
        f.resource = map_resource(m, f.resource);
        if (f.function == PK_NONE)
            return PK_NONE;
        m->frames[id] = pk_intern_frame(m->dst, &f);
    }
    return m->frames[id];
}

static uint32_t map_thread(append_maps *m, uint32_t id)
{
    if (id >= pk_thread_count(m->src))
        return id;
    if (m->threads[id] != PK_NONE)
        return m->threads[id];
    if (!m->thread_index_built) {
        /* Threads dst already has, first of each name. */
        size_t count = pk_thread_count(m->dst);
        for (size_t i = 0; i < count; i++)
            if (!pk_u64map_put(&m->thread_by_name, pk_thread_at(m->dst, (uint32_t)i)->name,
                               (uint32_t)i, NULL, NULL))
                return PK_NONE;
        m->thread_index_built = true;
    }
    const pk_thread *t = pk_thread_at(m->src, id);
    uint32_t name = map_string(m, t->name);
    uint32_t *found = pk_u64map_find(&m->thread_by_name, name);
    if (found) {
        m->threads[id] = *found;
    } else {
        m->threads[id] = pk_add_thread(m->dst, name, t->pid, t->tid);
        if (m->threads[id] != PK_NONE &&
            !pk_u64map_put(&m->thread_by_name, name, m->threads[id], NULL, NULL))
            return PK_NONE;
    }
    return m->threads[id];
}

pk_status pk_profile_append(pk_profile *dst, const pk_profile *src, const uint32_t *value_map,
                            uint64_t address_tag, pk_error *err)
{
    append_maps m = {
        .dst = dst,
        .src = src,
        .strings = new_map(pk_string_count(src)),
        .resources = new_map(pk_resource_count(src)),
        .functions = new_map(pk_function_count(src)),
        .frames = new_map(pk_frame_count(src)),
        .stacks = new_map(pk_stack_count(src)),
        .threads = new_map(pk_thread_count(src)),
    };
    pk_u64map_init(&m.thread_by_name);
    pk_status st = PK_OK;
    if (!m.strings || !m.resources || !m.functions || !m.frames || !m.stacks || !m.threads) {
        st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        goto done;
    }
    size_t stacks = pk_stack_count(src);
    for (size_t s = 0; s < stacks; s++) {
        const pk_stack *stack = pk_stack_at(src, (uint32_t)s);
        uint32_t parent = stack->parent == PK_NONE ? PK_NONE : m.stacks[stack->parent];
        uint32_t frame = map_frame(&m, stack->frame);
        m.stacks[s] = frame == PK_NONE ? PK_NONE : pk_intern_stack(dst, parent, frame);
        if (m.stacks[s] == PK_NONE) {
            st = pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
            goto done;
        }
    }
    size_t src_values = pk_value_type_count(src);
    size_t dst_values = pk_value_type_count(dst);
    int64_t values[PK_MAX_VALUES];
    size_t rows = pk_sample_count(src);
    size_t events = pk_memory_event_count(src);
    size_t row = 0, event = 0;
    pk_memory_event e;
    if (events)
        pk_memory_event_at(src, 0, &e);
    /* Rows and memory events are replayed in their original stream order. */
    while (row < rows || event < events) {
        bool take_row = row < rows && (event >= events || pk_sample_order(src, row) <= e.order);
        if (take_row) {
            memset(values, 0, sizeof values);
            const int64_t *src_row = pk_sample_values(src, row);
            for (size_t v = 0; v < src_values; v++)
                if (value_map[v] != PK_NONE && value_map[v] < dst_values)
                    values[value_map[v]] += src_row[v];
            uint32_t stack = pk_sample_stack(src, row);
            uint32_t thread = map_thread(&m, pk_sample_thread(src, row));
            st = thread == PK_NONE
                     ? PK_ERR_NOMEM
                     : pk_add_sample(dst, thread, stack == PK_NONE ? PK_NONE : m.stacks[stack],
                                     values);
            row++;
        } else {
            uint32_t thread = map_thread(&m, e.thread);
            uint32_t stack = e.stack == PK_NONE || e.stack >= stacks ? PK_NONE : m.stacks[e.stack];
            if (thread == PK_NONE)
                st = PK_ERR_NOMEM;
            else if (e.kind == PK_MEM_ALLOC)
                st = pk_memory_alloc(dst, thread, stack, e.address ^ address_tag, e.size);
            else
                st = pk_memory_free(dst, thread, stack, e.address ^ address_tag,
                                    (pk_memory_kind)e.kind, NULL);
            if (++event < events)
                pk_memory_event_at(src, event, &e);
        }
        if (st != PK_OK) {
            pk_error_set(err, st, PK_NO_OFFSET, "cannot add to the merged profile: %s",
                         pk_status_name(st));
            goto done;
        }
    }
    for (size_t i = 0; i < pk_warning_count(src); i++)
        pk_warn(dst, "%s", pk_warning_at(src, i));
done:
    free(m.strings);
    free(m.resources);
    free(m.functions);
    free(m.frames);
    free(m.stacks);
    free(m.threads);
    pk_u64map_free(&m.thread_by_name);
    return st;
}

static void merge_metadata(pk_profile *dst, const pk_profile *src, bool first)
{
    pk_metadata *md = pk_metadata_of(dst);
    const pk_metadata *sm = pk_metadata_get(src);
    if (first) {
        md->source_format = pk_intern_cstr(dst, pk_str(src, sm->source_format));
        md->product = pk_intern_cstr(dst, pk_str(src, sm->product));
        md->period = sm->period;
        md->period_type = pk_intern_cstr(dst, pk_str(src, sm->period_type));
        md->period_unit = pk_intern_cstr(dst, pk_str(src, sm->period_unit));
        md->start_time = sm->start_time;
        md->end_time = sm->end_time;
        md->times_approximate = sm->times_approximate;
        for (size_t i = 0; i < pk_property_count(src); i++)
            pk_property_set(dst, pk_property_key(src, i), pk_property_value(src, i));
        return;
    }
    if (sm->start_time != PK_TIME_UNKNOWN &&
        (md->start_time == PK_TIME_UNKNOWN || sm->start_time < md->start_time))
        md->start_time = sm->start_time;
    if (sm->end_time != PK_TIME_UNKNOWN &&
        (md->end_time == PK_TIME_UNKNOWN || sm->end_time > md->end_time))
        md->end_time = sm->end_time;
    if (strcmp(pk_str(dst, md->product), pk_str(src, sm->product)) != 0)
        md->product = 0;
    if (md->period != sm->period)
        md->period = 0;
    md->times_approximate = md->times_approximate || sm->times_approximate;
}

pk_status pk_profile_merge(const pk_profile *const *inputs, size_t count, pk_profile **out,
                           pk_error *err)
{
    *out = NULL;
    if (count == 0)
        return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET, "nothing to merge");
    /* The union of value types, by name. */
    const char *names[PK_MAX_VALUES], *units[PK_MAX_VALUES];
    size_t value_count = 0;
    for (size_t i = 0; i < count; i++) {
        size_t shared = 0, n = pk_value_type_count(inputs[i]);
        for (size_t v = 0; v < n; v++) {
            const pk_value_type *vt = pk_value_type_at(inputs[i], (uint32_t)v);
            const char *name = pk_str(inputs[i], vt->name), *unit = pk_str(inputs[i], vt->unit);
            size_t k = 0;
            while (k < value_count && strcmp(names[k], name) != 0)
                k++;
            if (k < value_count) {
                if (strcmp(units[k], unit) != 0)
                    return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                        "value '%s' is in %s in one input and in %s in another",
                                        name, units[k], unit);
                shared++;
                continue;
            }
            if (value_count == PK_MAX_VALUES)
                return pk_error_set(err, PK_ERR_LIMIT, PK_NO_OFFSET,
                                    "the inputs have more than %d value types together",
                                    PK_MAX_VALUES);
            names[value_count] = name;
            units[value_count] = unit;
            value_count++;
        }
        if (i > 0 && shared == 0)
            return pk_error_set(err, PK_ERR_USAGE, PK_NO_OFFSET,
                                "input %zu has no value type in common with the first", i + 1);
    }
    pk_profile *dst = pk_profile_new();
    if (!dst)
        return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
    for (size_t k = 0; k < value_count; k++) {
        if (pk_add_value_type(dst, names[k], units[k]) == PK_NONE) {
            pk_profile_free(dst);
            return pk_error_set(err, PK_ERR_NOMEM, PK_NO_OFFSET, "out of memory");
        }
    }
    if (value_count > 0) {
        const pk_value_type *dv = pk_value_type_at(inputs[0], pk_default_value(inputs[0]));
        if (dv)
            pk_set_default_value(dst, pk_value_find(dst, pk_str(inputs[0], dv->name)));
    }
    for (size_t i = 0; i < count; i++) {
        uint32_t map[PK_MAX_VALUES];
        size_t n = pk_value_type_count(inputs[i]);
        for (size_t v = 0; v < n; v++)
            map[v] = pk_value_find(dst, pk_str(inputs[i], pk_value_type_at(inputs[i], (uint32_t)v)->name));
        merge_metadata(dst, inputs[i], i == 0);
        pk_status st = pk_profile_append(dst, inputs[i], map, (uint64_t)i << 56, err);
        if (st != PK_OK) {
            pk_profile_free(dst);
            return st;
        }
    }
    *out = dst;
    return PK_OK;
}
